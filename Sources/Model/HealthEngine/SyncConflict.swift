import FoundationEssentials
import HealthModel

/// The same sample identifier was saved with different contents on the two devices.
package struct SyncConflict: Hashable, Sendable {
  /// The identifier.
  package var uuid: UUID
  /// The type of this device's copy.
  package var type: SampleType
  /// Whose copy both devices kept.
  package var kept: DeviceKind

  /// Creates a conflict record.
  package init(uuid: UUID, type: SampleType, kept: DeviceKind) {
    self.uuid = uuid
    self.type = type
    self.kept = kept
  }
}

extension String {
  /// The string without leading and trailing whitespace.
  package func trimmingWhitespace() -> String {
    var s = Substring(self)
    while let c = s.first, c.isWhitespace { s.removeFirst() }
    while let c = s.last, c.isWhitespace { s.removeLast() }
    return String(s)
  }
}

extension DeviceState {
  /// The same identifier arrived with different contents: the iPhone's copy wins on both devices (HealthPair
  /// model B-SYNC-CONFLICT), and both record the conflict.
  mutating func resolveConflict(mine: Sample, theirs: Sample) {
    if device == .watch { store.replaceLive(with: theirs) }
    syncConflictCount += 1
    syncConflicts.append(SyncConflict(uuid: mine.uuid, type: mine.type, kept: .phone))
    if syncConflicts.count > Self.maxRecordedConflicts { syncConflicts.removeFirst() }
  }
}
