import HealthModel

/// Why a snapshot's contents cannot be restored: they break an invariant the engine relies on. A snapshot that
/// fails to restore is ignored (the journal is replayed instead), so this is never fatal.
package struct StateRestoreError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong, lowercase, no trailing period.
  package var message: String

  /// Creates an error.
  package init(_ message: String) { self.message = message }

  /// The message.
  package var description: String { message }
}

extension DeviceState {
  /// The names of the durable fields in which two devices differ, the store's derived indexes included (empty
  /// when they are the same). Durable is everything journal replay rebuilds: apps, decisions, lock-outs, policy,
  /// virtual clock, the store (dead slots, change numbers, tombstones, metadata and source tables), the sync
  /// ledger (identities, cursors, pending entries), the sync conflicts, the device lock and its locked journal, and
  /// the Health app's values. Pending sheets and their history are
  /// runtime state and not compared.
  package func differences(from other: DeviceState) -> [String] {
    var result: [String] = []
    func check(_ name: String, _ equal: Bool) { if !equal { result.append(name) } }
    check("device", device == other.device)
    check("policy", policy == other.policy)
    check("virtualNow", virtualNow == other.virtualNow)
    check("apps", apps == other.apps)
    check("decisions", decisions == other.decisions)
    check("lockedOut", lockedOut == other.lockedOut)
    check("sync", sync == other.sync && sync.pendingEntries.elementsEqual(other.sync.pendingEntries))
    check("syncConflicts", syncConflicts == other.syncConflicts)
    check("syncConflictCount", syncConflictCount == other.syncConflictCount)
    check("decisionStamps", decisionStamps == other.decisionStamps)
    check("isLocked", isLocked == other.isLocked)
    check("lockedJournal", lockedJournal == other.lockedJournal)
    check("lockedWorkouts", lockedWorkouts == other.lockedWorkouts && lockedRoutes == other.lockedRoutes)
    check("characteristics", characteristics == other.characteristics)
    check("preferredUnits", preferredUnits == other.preferredUnits)
    check("userSettingStamps", userSettingStamps == other.userSettingStamps)
    check("backgroundRegistrations", backgroundRegistrations == other.backgroundRegistrations)
    check("correlations", correlationStore == other.correlationStore)
    check("workouts", workoutStore == other.workoutStore)
    check("specialObjects", specialObjects == other.specialObjects)
    result += store.differences(from: other.store).map { "store.\($0)" }
    return result
  }
}
