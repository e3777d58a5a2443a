import HealthCodec
import HealthEngine
import HealthModel
import Posix

/// One device's state backed by its journal: opening replays the journal into a ``DeviceState``; ``persist(_:)``
/// appends the events an operation returned, which must happen before the operation is acknowledged.
///
/// With snapshots on (the default), opening first loads `<dir>/<device>.snapshot` and replays only the journal
/// records after the position it covers; a missing, damaged, foreign or mismatched snapshot is reported in
/// ``snapshotProblem`` and the whole journal is replayed instead. ``writeSnapshot()`` writes a new one
/// (docs/journal.md#snapshots says when the daemon does).
///
/// With change marks on (the default), `<dir>/<device>.changes` (``ChangeMarkFile``) keeps the highest change number
/// ever handed out: every append raises it, and opening moves the replayed counter up to it, so a journal that lost
/// records never numbers a change with a number an app's anchor already covers (docs/journal.md, "Change numbers").
package final class DurableDevice {
  /// How far past the journal's last change number `--repair` starts numbering when the change mark is damaged.
  package static let repairedMarkGap: UInt64 = 1 << 32

  /// When snapshots are written.
  package struct SnapshotPolicy: Sendable {
    /// A snapshot is due once the journal has grown by this many bytes since the last one, or by half the last
    /// snapshot's size if that is more (so writing snapshots costs at most about twice the journal's own writes).
    package var minimumGrowth = 64 << 20
    /// At shutdown a snapshot is written when the journal grew by at least this many bytes since the last one.
    package var shutdownGrowth = 1 << 20

    /// The defaults.
    package init() {}
  }

  /// The live state. Mutate it through its operations, then persist the events they return.
  package var state: DeviceState
  /// The journal file.
  package let journal: JournalFile
  /// What opening found.
  package let recovery: JournalRecovery
  /// The change mark beside the journal, or nil when change marks are off.
  package let changeMark: ChangeMarkFile?
  /// Change numbers the journal no longer accounts for, moved past at open: the mark's value minus the replayed
  /// counter (0 when the journal was intact or there was no mark).
  package private(set) var changeNumbersSkipped: UInt64 = 0
  /// The snapshot file, or nil when snapshots are off.
  package let snapshotPath: String?
  /// Why the snapshot found at open was not used (nil when there was none, or it was used).
  package let snapshotProblem: String?
  /// When snapshots are written.
  package var snapshotPolicy = SnapshotPolicy()
  /// The journal offset the newest snapshot covers up to (the header's size when there is none).
  package private(set) var snapshotEnd: Int
  /// The newest snapshot's size in bytes (0 when there is none).
  package private(set) var snapshotBytes: Int
  /// After a failed write, no snapshot is due before the journal reaches this size.
  private var retryAt = 0

  /// Opens the journal at `path` for `device`, rebuilding the state it records (from the snapshot beside it and
  /// the records after it, when `snapshots` is on and the snapshot fits the journal).
  /// - Throws: ``JournalError`` for I/O failures, a foreign or newer file, corruption inside the journal, or an
  ///   undecodable record. A torn tail is cut and reported in ``recovery``, not thrown. Snapshot problems are
  ///   never thrown. A damaged change mark is thrown before anything is changed
  ///   (``JournalError/damagedChangeMark(path:_:)``), unless `repair` is on: then it is rewritten and changes are
  ///   numbered from ``repairedMarkGap`` past the journal's last one.
  package init(
    path: String, device: DeviceKind, syncEachCommit: Bool = false, repair: Bool = false, snapshots: Bool = true,
    changeMarks: Bool = true
  ) throws(JournalError) {
    // The mark is read first: a damaged one refuses the open before the journal is touched.
    var markFloor: UInt64 = 0
    var repairedMark = false
    var mark: ChangeMarkFile?
    if changeMarks {
      let markPath = ChangeMarkFile.path(forJournal: path)
      do { mark = try ChangeMarkFile(path: markPath, syncEachWrite: syncEachCommit) } catch {
        guard repair, case .damagedChangeMark = error else { throw error }
        Posix.unlink(markPath)
        mark = try ChangeMarkFile(path: markPath, syncEachWrite: syncEachCommit)
        repairedMark = true
      }
      markFloor = mark?.highest ?? 0
    }
    changeMark = mark
    let snapshotPath = snapshots ? SnapshotFile.path(forJournal: path) : nil
    var loaded: SnapshotFile.Loaded?
    var problem: String?
    if let snapshotPath {
      Posix.unlink(snapshotPath + ".tmp")  // what an interrupted write left
      do { loaded = try SnapshotFile.read(path: snapshotPath, device: device) } catch { problem = "\(error)" }
    }
    var state = DeviceState(device: device)
    let offered = loaded?.position
    var resumedFrom: (position: JournalPosition, bytes: Int)?
    let (file, recovery) = try JournalFile.open(
      path: path, device: device.rawValue, syncEachCommit: syncEachCommit, repair: repair, resume: offered,
      starting: { resumed in
        // Moved, not copied: the replay below must own the store's buffers, or its first change copies them.
        if resumed, let snapshot = loaded {
          loaded = nil
          state = snapshot.state
          resumedFrom = (snapshot.position, snapshot.bytes)
        }
        loaded = nil
      }
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
    self.snapshotPath = snapshotPath
    self.snapshotProblem = problem ?? recovery.resumeProblem.map { "\(snapshotPath ?? ""): \($0)" }
    self.snapshotEnd = resumedFrom?.position.end ?? journal.framing.headerSize
    self.snapshotBytes = resumedFrom?.bytes ?? 0
    // Numbers the mark says were handed out but the journal no longer records (it lost its tail) are never handed
    // out again: the counter moves past them, durably, before anything new is numbered.
    if repairedMark { markFloor = self.state.lastChangeNumber + Self.repairedMarkGap }
    if markFloor > self.state.lastChangeNumber {
      changeNumbersSkipped = markFloor - self.state.lastChangeNumber
      try persist(self.state.keepChangeNumbers(above: markFloor))
    }
    try changeMark?.raise(to: self.state.lastChangeNumber)
    // An import whose commit never reached the journal (the daemon stopped mid-import) is given up, durably, so
    // the store stays exactly as it was before it and later replays do not stage it again.
    let unfinished = state.stagedImports.map { (id: $0.key, samples: $0.value.count) }.sorted { $0.id < $1.id }
    if !unfinished.isEmpty {
      var events: [DeviceEvent] = []
      for item in unfinished { events += self.state.abandonImport(item.id) }
      try persist(events)
    }
    self.abandonedImports = unfinished
  }

  /// Imports found unfinished when the journal was opened (staged, never committed) and given up: their
  /// identifiers and how many samples each had staged.
  package private(set) var abandonedImports: [(id: UInt64, samples: Int)] = []

  /// Journal bytes appended since the newest snapshot (all of them when there is none).
  package var journalSinceSnapshot: Int { journal.size - snapshotEnd }

  /// Whether a snapshot should be written now: on the daemon's loop (`atShutdown` false), once the journal grew
  /// by ``SnapshotPolicy/minimumGrowth`` or half the last snapshot, whichever is more; at shutdown, once it grew
  /// by ``SnapshotPolicy/shutdownGrowth``. Never when snapshots are off or nothing changed.
  package func snapshotDue(atShutdown: Bool = false) -> Bool {
    // A snapshot holds no staged import: its batches sit in journal records the snapshot would cover.
    guard snapshotPath != nil, journalSinceSnapshot > 0, state.stagedImports.isEmpty else { return false }
    if atShutdown { return journalSinceSnapshot >= snapshotPolicy.shutdownGrowth }
    return journal.size >= retryAt && journalSinceSnapshot >= max(snapshotPolicy.minimumGrowth, snapshotBytes / 2)
  }

  /// Writes a snapshot of the state at the journal's current end (see ``SnapshotFile/write(_:position:to:)``)
  /// and returns its size. First the in-memory acknowledgement cursor is journaled (acknowledgements are
  /// journaled lazily, docs/journal.md) and the journal is flushed to stable storage, so the snapshot is exactly
  /// the state its journal records rebuild and never outlives them in a power loss.
  /// - Throws: ``SnapshotError``; the previous snapshot stays, and none is due again until the journal has grown
  ///   by another ``SnapshotPolicy/minimumGrowth``. While an import is staged nothing is written (0 is returned):
  ///   its batches sit in journal records the snapshot would cover, and a snapshot holds no staged import.
  @discardableResult
  package func writeSnapshot() throws(SnapshotError) -> Int {
    guard let snapshotPath, state.stagedImports.isEmpty else { return 0 }
    do throws(SnapshotError) {
      let position: JournalPosition
      do throws(JournalError) {
        if state.sync.peerAcked > 0 { try persist([.peerAcknowledged(state.sync.peerAcked)]) }
        try journal.sync()
        position = try journal.position()
      } catch { throw .journal(error) }
      snapshotBytes = try SnapshotFile.write(state, position: position, to: snapshotPath)
      snapshotEnd = position.end
      return snapshotBytes
    } catch {
      retryAt = journal.size + snapshotPolicy.minimumGrowth
      throw error
    }
  }

  /// Frames `events` as journal records with `framing`, appended to `buffer` (for batching several operations
  /// into one write).
  ///
  /// `encoded` gives, by index into `events`, the record payload of an ``DeviceEvent/importStaged(id:samples:)``
  /// event already in its journal encoding — the daemon passes the bytes of the `importBatch` request the event came
  /// from, which are that encoding byte for byte (docs/journal.md), so a batch is not encoded a second time. Any
  /// other event, or an index that holds another kind of event, is encoded here.
  package static func encode(
    _ events: [DeviceEvent], framing: JournalFormat.Framing, encoded: [Int: ArraySlice<UInt8>] = [:],
    into buffer: inout [UInt8]
  ) {
    var writer = BinaryWriter(capacity: 512)
    for (index, event) in events.enumerated() {
      if let payload = encoded[index], case .importStaged = event {
        payload.withUnsafeBytes { framing.appendRecord($0, to: &buffer) }
        continue
      }
      writer.bytes.removeAll(keepingCapacity: true)
      writer.event(event)
      writer.bytes.withUnsafeBytes { framing.appendRecord($0, to: &buffer) }
    }
  }

  /// Frames `events` as records of this device's journal, appended to `buffer` (`encoded` as in
  /// ``encode(_:framing:encoded:into:)``).
  package func encode(_ events: [DeviceEvent], encoded: [Int: ArraySlice<UInt8>] = [:], into buffer: inout [UInt8]) {
    Self.encode(events, framing: journal.framing, encoded: encoded, into: &buffer)
  }

  /// Appends `events` to the journal in one write (`encoded` as in ``encode(_:framing:encoded:into:)``), then, with
  /// `raisingMark`, raises the change mark (``raiseChangeMark()``). A caller that holds ``state`` borrowed (the peer
  /// core's shell, called with the state `inout`) passes false and raises the mark once the borrow ends, before it
  /// answers anything that may carry the new numbers.
  package func persist(
    _ events: [DeviceEvent], encoded: [Int: ArraySlice<UInt8>] = [:], raisingMark: Bool = true
  ) throws(JournalError) {
    if events.isEmpty { return }
    var buffer: [UInt8] = []
    encode(events, encoded: encoded, into: &buffer)
    try journal.append(buffer)
    if raisingMark { try raiseChangeMark() }
  }

  /// Raises the change mark to the state's counter (nothing when it is not higher, or marks are off): after the
  /// events that handed the numbers out are journaled, before any of them is acknowledged or returned as an anchor.
  package func raiseChangeMark() throws(JournalError) {
    try changeMark?.raise(to: state.lastChangeNumber)
  }

  /// Appends records already framed for this journal (see ``encode(_:into:)``), then raises the change mark to the
  /// state's counter: the state must already hold what the records record.
  package func persist(framed buffer: [UInt8]) throws(JournalError) {
    try journal.append(buffer)
    try changeMark?.raise(to: state.lastChangeNumber)
  }
}
