import DeviceCore
import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Journal
import Sync
import Wire

/// One simulated device: the state and peer core a daemon holds in memory, and its journal as the bytes the daemon
/// would have written. It is the peer core's shell: its sends go to the ``SimulatedNetwork``, its journal writes to
/// ``journal``.
final class SimulatedDevice: PeerShell {
  /// Which device.
  let kind: DeviceKind
  /// The journal file's bytes (header and records).
  private(set) var journal: [UInt8]
  /// The journal's length once the app was set up: torn tails never cut before it.
  var setupEnd = 0
  /// The change mark file's value (`<device>.changes`, ``ChangeMarkFile``): the highest change number ever journaled.
  /// It lives beside the journal, so a torn tail does not lower it.
  private(set) var changeMark: UInt64 = 0
  /// The simulator's own record of the highest change number ever journaled (so possibly returned as an anchor):
  /// what the invariant "change numbers never move back" checks the device against.
  private(set) var handedOutChangeNumber: UInt64 = 0
  /// Whether the last boot found change numbers its journal lost and numbered past them.
  private(set) var bootKeptChangeNumbers = false
  /// The live state (rebuilt from ``journal`` at every boot).
  var state: DeviceState
  /// The peer link's core.
  private(set) var core: PeerCore
  /// The connection this device holds, if any.
  var transport: UInt64?
  /// When the core's reconnect timer is due (virtual seconds).
  var reconnectAt: Double?
  private let framing: JournalFormat.Framing
  private let network: SimulatedNetwork
  private var random: SeededGenerator
  private var recorded: [DeviceEvent] = []
  /// The state as of a record boundary of the journal, as the daemon's snapshot file holds it: booting replays only
  /// the records after it (when the journal still reaches that far).
  private var snapshot: (state: DeviceState, end: Int)?
  /// Journal bytes written since the last snapshot.
  private var sinceSnapshot = 0
  /// Journal growth that makes a new snapshot due. Small, so that a crash replays few records (taking a snapshot
  /// costs only the copy-on-write of what the next turn changes).
  static let snapshotInterval = 2 << 10

  /// A device with an empty journal; ``boot(wall:)`` brings it up.
  init(kind: DeviceKind, seed: UInt64, network: SimulatedNetwork) {
    self.kind = kind
    self.network = network
    random = SeededGenerator(seed: seed)
    framing = .version2(device: kind.rawValue, salt: random.next())
    journal = framing.fileHeader
    state = DeviceState(device: kind)
    core = PeerCore(role: kind == .phone ? .listener : .connector, device: kind, secret: [], sync: state.sync)
  }

  /// Starts the device from its journal bytes, as the daemon does: replay (cutting a torn tail), start a sync log if
  /// there is none, then start the link. Returns what stopped it, or nil.
  func boot(wall: Date, secret: [UInt8]) -> String? {
    let replayed: DeviceState
    var tailCut = false
    // A snapshot the journal no longer reaches (a torn tail cut before its end) is not used, as on disk.
    let resume = snapshot.flatMap { $0.end <= journal.count ? $0 : nil }
    snapshot = resume
    switch Self.replay(journal, device: kind, from: resume) {
    case .failure(let problem): return problem.message
    case .success(let (restored, validEnd)):
      replayed = restored
      tailCut = validEnd < journal.count
      if tailCut { journal.removeSubrange(validEnd...) }
    }
    sinceSnapshot = journal.count - (resume?.end ?? 0)
    state = replayed
    recorded = []
    // As `DurableDevice` does: numbers the torn tail handed out are never handed out again.
    let advance = state.keepChangeNumbers(above: changeMark)
    bootKeptChangeNumbers = !advance.isEmpty
    record(advance)
    guard persistRecorded() else { return "the journal refused the change mark's advance" }
    raiseChangeMark()
    // As the daemon does: a journal whose tail was cut may have lost entries the peer already applied, so its log
    // restarts under a new identity before anything new is numbered in it.
    if state.sync.logID == 0 || tailCut {
      record(state.restartSyncLog(logID: freshLogID()))
      // What the cut lost may include changes the peer applied and holds in no log: ask for everything it holds.
      if tailCut { record(state.requestPeerResend()) }
      guard persistRecorded() else { return "the journal refused the new sync log" }
    }
    core = PeerCore(
      role: kind == .phone ? .listener : .connector, device: kind, secret: secret, sync: state.sync)
    var shell = self
    core.start(state: &state, wall: wall, shell: &shell)
    return nil
  }

  /// The link's status as the daemon reports it (for requests that read it).
  var linkStatus: LinkStatus {
    let ledger = state.sync
    return LinkStatus(
      enabled: core.machine.enabled, connected: core.machine.isConnected, holding: core.machine.holding,
      latency: core.machine.latency,
      sync: DeviceSnapshot.SyncStatus(
        lastSeq: ledger.lastSeq, peerAcked: ledger.peerAcked, appliedFromPeer: ledger.appliedFromPeer,
        pendingEntries: ledger.pendingCount, pendingItems: ledger.pendingItems))
  }

  /// Feeds one input to the peer core.
  func feed(_ input: SyncMachine.Input, wall: Date) {
    var shell = self
    core.handle(input, state: &state, wall: wall, shell: &shell)
  }

  /// Ends a loop turn as the daemon does: journal the turn's events, then let the core acknowledge, announce and
  /// check. False when the journal refused a write.
  func commit(wall: Date) -> Bool {
    guard persistRecorded() else { return false }
    var shell = self
    guard core.afterCommit(state: &state, wall: wall, shell: &shell), persistRecorded() else { return false }
    raiseChangeMark()
    // Like the daemon, a snapshot is taken between loop turns (the core holds the state during its calls), after
    // journaling the acknowledgement the ledger holds, as `DurableDevice.writeSnapshot` does: acknowledgements are
    // applied in memory before they are journaled, and a snapshot must hold nothing its journal does not.
    if sinceSnapshot >= Self.snapshotInterval {
      if state.sync.peerAcked > 0 {
        record([.peerAcknowledged(state.sync.peerAcked)])
        guard persistRecorded() else { return false }
      }
      snapshot = (state, journal.count)
      sinceSnapshot = 0
    }
    return true
  }

  /// Raises the change mark to the state's counter once the turn's events are journaled, as the daemon does at the
  /// end of its commit (the peer core holds the state while it journals, so not from ``persistRecorded()``).
  private func raiseChangeMark() {
    changeMark = max(changeMark, state.lastChangeNumber)
    handedOutChangeNumber = max(handedOutChangeNumber, state.lastChangeNumber)
  }

  /// Journals the newest acknowledgement, as a clean shutdown does.
  func journalShutdownAcknowledgement() {
    if let ack = core.shutdownAcknowledgement(state: state) {
      record([ack])
      _ = persistRecorded()
    }
  }

  /// Cuts the journal inside one of its last eight records (never before the set-up); false when there was nothing
  /// to cut.
  func tearTail(random generator: inout SeededGenerator) -> Bool {
    let scan = journal.withUnsafeBytes { JournalFormat.scan($0, framing: framing) }
    let starts = scan.records.map { $0.offset - JournalFormat.recordHeaderSize }.filter { $0 >= setupEnd }
    guard let first = starts.suffix(8).first, first < journal.count else { return false }
    let cut = first + Int(generator.next() % UInt64(journal.count - first))
    journal.removeSubrange(cut...)
    return true
  }

  /// What differs between the live state and a full replay of the journal (no snapshot), or nil. The two are
  /// compared as the bytes a snapshot of each would hold: everything durable, exactly.
  func replayDifference(wall: Date) -> String? {
    journalShutdownAcknowledgement()
    switch Self.replay(journal, device: kind) {
    case .failure(let problem): return "its journal does not replay: \(problem.message)"
    case .success(let (replayed, _)):
      if Self.sameBytes(Self.encoded(state), Self.encoded(replayed)) { return nil }
      if state.storedSamples(wall: wall) != replayed.storedSamples(wall: wall) {
        return "replaying its journal gives different samples"
      }
      if state.storedTombstones != replayed.storedTombstones { return "replaying its journal gives other deletions" }
      if state.sync != replayed.sync { return "replaying its journal gives another sync ledger" }
      return "replaying its journal gives a different durable state"
    }
  }

  /// Whether two byte arrays are equal, compared eight bytes at a time.
  private static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return a.withUnsafeBytes { x in
      b.withUnsafeBytes { y in
        var offset = 0
        while offset + 8 <= x.count {
          if x.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            != y.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
          {
            return false
          }
          offset += 8
        }
        while offset < x.count {
          if x[offset] != y[offset] { return false }
          offset += 1
        }
        return true
      }
    }
  }

  /// A state's snapshot encoding.
  private static func encoded(_ state: DeviceState) -> [UInt8] {
    var writer = BinaryWriter()
    var bytes: [UInt8] = []
    writer.deviceState(state) { (w: inout BinaryWriter) in
      bytes += w.bytes
      w.bytes.removeAll(keepingCapacity: true)
    }
    return bytes
  }

  /// Replays journal bytes into a fresh state: the state and where the intact records end, or why it cannot.
  static func replay(
    _ bytes: [UInt8], device: DeviceKind, from snapshot: (state: DeviceState, end: Int)? = nil
  ) -> Result<(DeviceState, Int), ReplayFailure> {
    bytes.withUnsafeBytes { buffer -> Result<(DeviceState, Int), ReplayFailure> in
      let framing: JournalFormat.Framing
      do { framing = try JournalFormat.parseHeader(buffer) } catch {
        return .failure(ReplayFailure("bad journal header: \(error)"))
      }
      let scan = JournalFormat.scan(buffer, framing: framing, from: snapshot?.end)
      if let damage = scan.damage, !damage.isTail {
        return .failure(ReplayFailure("damage inside the journal: \(damage)"))
      }
      var state = snapshot?.state ?? DeviceState(device: device)
      for (offset, length) in scan.records {
        var reader = BinaryReader(
          UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + length]), reportBase: offset)
        do {
          let event = try reader.event()
          try reader.expectEnd("journal event")
          state.apply(event)
        } catch { return .failure(ReplayFailure("undecodable record: \(error)")) }
      }
      return .success((state, scan.validEnd))
    }
  }

  // MARK: - PeerShell

  func record(_ events: [DeviceEvent]) { recorded += events }

  func persistRecorded() -> Bool {
    guard !recorded.isEmpty else { return true }
    let before = journal.count
    DurableDevice.encode(recorded, framing: framing, into: &journal)
    recorded.removeAll(keepingCapacity: true)
    sinceSnapshot += journal.count - before
    return true
  }

  func send(_ message: PeerMessage, latency: Double) {
    guard let connection = transport else { return }
    network.queue(from: kind, to: kind.peer, connection: connection, body: .message(message), delay: latency)
  }

  func close(reason: String) -> Bool {
    guard let connection = transport else { return false }
    transport = nil
    network.close(connection, by: kind)
    return true
  }

  func connect() -> PeerCore.ConnectOutcome {
    guard transport == nil else { return .alreadyOpen }
    guard let connection = network.open(from: kind) else { return .unreachable }
    transport = connection
    return .opened(nonce: nonce())
  }

  func scheduleReconnect(after seconds: Double) { reconnectAt = network.now + seconds }

  func notify(_ notice: PeerCore.Notice) {}

  func logLine(_ level: PeerCore.LogLevel, _ message: @autoclosure () -> String) {}

  func freshLogID() -> UInt64 {
    while true {
      let id = random.next()
      if id != 0 { return id }
    }
  }

  /// 32 random bytes for a handshake.
  func nonce() -> [UInt8] { (0..<4).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } } }
}

/// Why journal bytes do not replay.
struct ReplayFailure: Error {
  /// What is wrong.
  var message: String
  /// A failure saying `message`.
  init(_ message: String) { self.message = message }
}
