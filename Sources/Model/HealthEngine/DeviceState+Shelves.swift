import FoundationEssentials
import HealthModel

/// `DeviceState`: the steps every family stored apart from samples shares — an app's save checks, storing what is
/// new, the peer's and an import's objects, pruning and the candidates of a query — written once over
/// ``ShelvedObject``. The families' own files hold only what differs (who may write, what validates, filters).
extension DeviceState {
  /// The checks of an app's save of `objects` of `type`, all or nothing: share permission, identifiers new (here
  /// and within the save), each inside the retention window, the device unlocked (`what` names the family in the
  /// locked error).
  /// - Throws: what the save's completion would receive.
  func requireShelvable<Value: ShelvedObject>(
    _ bundleID: String, _ objects: [Value], _ type: SampleType, what: String, wall: Date
  ) throws(HealthError) {
    try requireShare(bundleID, type, verb: "save")
    var seen: Set<UUID> = []
    for object in objects {
      try requireNewIdentifier(object.uuid, &seen)
      try requireInsideRetention(object.uuid, end: object.end, wall: wall)
    }
    try requireUnlockedForWorkouts(what)
  }

  /// Stores the objects whose identifiers are unknown here and that end at or after `floor`; notes each change.
  /// - Returns: the objects stored, in order.
  @discardableResult
  mutating func shelve<Value: ShelvedObject>(_ objects: [Value], floor: Date? = nil) -> [Value] {
    var taken: [Value] = []
    for object in objects where !isKnownObject(object.uuid) {
      if let floor, object.end < floor { continue }
      if specialObjects[keyPath: Value.shelf].insert(object, change: nextChange()) {
        taken.append(object)
        noteChange(object.objectType, object.source.bundleID)
      }
    }
    return taken
  }

  /// Applies objects saved or recorded here: those stored go to the sync log (a family that syncs).
  mutating func applyShelvedHere<Value: ShelvedObject>(_ objects: [Value]) {
    sync.appendShelved(shelve(objects))
  }

  /// Applies objects of the peer's sync log: unknown ones inside the retention window are stored (not sent back).
  mutating func applyPeerShelved<Value: ShelvedObject>(_ objects: [Value], floor: Date?) {
    shelve(objects, floor: floor)
  }

  /// Stages the objects of an import (stored at its commit), each checked by `validate`.
  /// - Throws: a simulator error for identifier 0, a locked device or a bad source; `errorInvalidArgument` for an
  ///   invalid object (`what` names it).
  func checkImportShelved<Value: ShelvedObject>(
    _ id: UInt64, _ objects: [Value], what: String, validate: (Value) throws(HealthError) -> Void
  ) throws(HealthError) {
    guard id != 0 else { throw .simulator("import identifier 0 is reserved") }
    guard !isLocked else {
      throw .simulator("the \(device) is locked: unlock it before the user can import an Apple Health export")
    }
    for object in objects {
      try Self.checkImportSource(object.source)
      do throws(HealthError) { try validate(object) } catch {
        throw .healthKit(.errorInvalidArgument, "imported \(what) \(object.uuid) is not valid: \(error.message)")
      }
    }
  }

  /// Applies the objects of a committed import: known identifiers and objects before the retention floor are left
  /// out and counted in `outcome`; the rest are stored, counted and go to the sync log.
  mutating func applyImportedShelved<Value: ShelvedObject>(
    _ objects: [Value], floor: Date?, _ outcome: inout ImportOutcome
  ) {
    var fresh: [Value] = []
    for object in objects {
      if isKnownObject(object.uuid) {
        outcome.alreadyPresent += 1
      } else if let floor, object.end < floor {
        outcome.beforeRetention += 1
      } else {
        fresh.append(object)
      }
    }
    let taken = shelve(fresh)
    for object in taken { outcome.added[object.objectType, default: 0] += 1 }
    sync.appendShelved(taken)
  }

  /// Drops a family's objects that end before `floor`, noting each change as a prune.
  mutating func pruneShelf<Value: ShelvedObject>(_ family: Value.Type, endingBefore floor: Date) {
    for object in specialObjects[keyPath: Value.shelf].prune(endingBefore: floor) {
      noteChange(object.objectType, object.source.bundleID, pruned: true)
    }
  }

  /// A family's stored objects as query candidates, those passing `include` only.
  func shelvedCandidates<Value: ShelvedObject>(
    _ family: Value.Type, where include: (Value) -> Bool = { _ in true }
  ) -> [Candidate<Value>] {
    specialObjects[keyPath: Value.shelf].entries.values.compactMap { entry in
      guard include(entry.value) else { return nil }
      return Candidate(
        value: entry.value, start: entry.value.start, end: entry.value.end, source: entry.value.source,
        change: entry.change)
    }
  }
}

extension SyncLedger {
  /// Appends objects of a family that syncs, in entries of at most its ``ShelvedObject/perSyncEntry``; nothing
  /// for a family that stays on its device.
  package mutating func appendShelved<Value: ShelvedObject>(_ objects: [Value]) {
    for chunk in stride(from: 0, to: objects.count, by: Value.perSyncEntry) {
      let end = min(chunk + Value.perSyncEntry, objects.count)
      guard let payload = Value.syncPayload(Array(objects[chunk..<end])) else { return }
      appendOne(payload)
    }
  }
}
