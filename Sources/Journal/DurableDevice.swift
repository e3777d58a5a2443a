import HealthCodec
import HealthEngine
import HealthModel

/// One device's state backed by its journal: opening replays the journal into a ``DeviceState``; ``persist(_:)``
/// appends the events an operation returned, which must happen before the operation is acknowledged.
package final class DurableDevice {
  /// The live state. Mutate it through its operations, then persist the events they return.
  package var state: DeviceState
  /// The journal file.
  package let journal: JournalFile
  /// What opening found.
  package let recovery: JournalRecovery

  /// Opens the journal at `path` for `device`, rebuilding the state it records.
  /// - Throws: ``JournalError`` for I/O failures, a foreign or newer file, corruption inside the journal, or an
  ///   undecodable record. A torn tail is cut and reported in ``recovery``, not thrown.
  package init(path: String, device: DeviceKind, syncEachCommit: Bool = false, repair: Bool = false) throws(JournalError) {
    var state = DeviceState(device: device)
    let (file, recovery) = try JournalFile.open(
      path: path, device: device.rawValue, syncEachCommit: syncEachCommit, repair: repair
    ) { payload, offset throws(JournalError) in
      var reader = BinaryReader(payload, reportBase: offset)
      do throws(DecodeError) {
        let event = try reader.event()
        try reader.expectEnd("journal event")
        state.apply(event)
      } catch {
        throw .undecodable(path: path, offset: error.offset, message: error.message)
      }
    }
    self.state = state
    self.journal = file
    self.recovery = recovery
  }

  /// Frames `events` as journal records with `framing`, appended to `buffer` (for batching several operations
  /// into one write).
  package static func encode(_ events: [DeviceEvent], framing: JournalFormat.Framing, into buffer: inout [UInt8]) {
    var writer = BinaryWriter(capacity: 512)
    for event in events {
      writer.bytes.removeAll(keepingCapacity: true)
      writer.event(event)
      writer.bytes.withUnsafeBytes { framing.appendRecord($0, to: &buffer) }
    }
  }

  /// Frames `events` as records of this device's journal, appended to `buffer`.
  package func encode(_ events: [DeviceEvent], into buffer: inout [UInt8]) {
    Self.encode(events, framing: journal.framing, into: &buffer)
  }

  /// Appends `events` to the journal in one write.
  package func persist(_ events: [DeviceEvent]) throws(JournalError) {
    if events.isEmpty { return }
    var buffer: [UInt8] = []
    encode(events, into: &buffer)
    try journal.append(buffer)
  }

  /// Appends records already framed for this journal (see ``encode(_:into:)``).
  package func persist(framed buffer: [UInt8]) throws(JournalError) { try journal.append(buffer) }
}
