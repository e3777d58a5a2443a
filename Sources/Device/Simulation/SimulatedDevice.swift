import DeviceCore
import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Journal
import Sync
import Wire

/// One simulated device: the state and ``DeviceCore`` a daemon holds in memory, and its journal as the bytes the
/// daemon would have written. It is the core's shell as the daemon is, with one client connection (the app): it
/// feeds the same inputs in the same order and performs the actions — its peer sends go to the
/// ``SimulatedNetwork``, its journal writes to ``journal``; replies to the app are decoded for the caller.
final class SimulatedDevice {
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
  /// The device's core (sessions, the peer link, the commit plan).
  private(set) var core: DeviceCore
  /// The connection this device holds, if any.
  var transport: UInt64?
  /// When the core's reconnect timer is due (virtual seconds).
  var reconnectAt: Double?
  private let framing: JournalFormat.Framing
  private let network: SimulatedNetwork
  private var random: SeededGenerator
  /// The action buffer, reused across turns.
  private var actions: [DeviceCore.Action] = []
  /// The current request's id and what the app's connection was sent for it: its final or interim answer.
  private var awaited: (id: UInt32, answer: RequestCore.Answer?) = (0, nil)
  /// The app's connection.
  private static let app: UInt64 = 1
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
    core = Self.makeCore(kind: kind, secret: [], sync: state.sync)
  }

  private static func makeCore(kind: DeviceKind, secret: [UInt8], sync: SyncLedger) -> DeviceCore {
    // The simulator writes no log (no lines are built) and arms no real-clock timers.
    DeviceCore(
      configuration: DeviceCore.Configuration(device: kind, hasPeer: true, pid: 1, quietest: .fault, armsTimers: false),
      secret: secret, sync: sync)
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
    // As `DurableDevice` does: numbers the torn tail handed out are never handed out again.
    let advance = state.keepChangeNumbers(above: changeMark)
    bootKeptChangeNumbers = !advance.isEmpty
    append(advance)
    raiseChangeMark()
    // As the daemon does: a journal whose tail was cut may have lost entries the peer already applied, so its log
    // restarts under a new identity before anything new is numbered in it.
    if state.sync.logID == 0 || tailCut {
      var events = state.restartSyncLog(logID: PeerCore.freshLogID(using: &random))
      // What the cut lost may include changes the peer applied and holds in no log: ask for everything it holds.
      if tailCut { events += state.requestPeerResend() }
      append(events)
    }
    core = Self.makeCore(kind: kind, secret: secret, sync: state.sync)
    step(.start, wall: wall)
    step(.accepted(connection: Self.app), wall: wall)
    step(
      .request(connection: Self.app, id: 0, .hello(version: WireProtocol.version, client: "simulator"), body: []),
      wall: wall)
    return nil
  }

  /// Feeds one input to the peer link.
  func feed(_ input: SyncMachine.Input, wall: Date) { step(.peer(input), wall: wall) }

  /// One request of the app through the core, as the daemon hands it over: its final answer, or the sheet it
  /// waits on.
  func request(_ request: Request, id: UInt32, wall: Date) -> RequestCore.Answer? {
    awaited = (id, nil)
    step(.request(connection: Self.app, id: id, request, body: []), wall: wall)
    return awaited.answer
  }

  /// Ends a loop turn by the core's commit plan, as the daemon does. False when the journal refused a write.
  func commit(wall: Date) -> Bool {
    guard step(.commit, wall: wall), step(.repliesWritten, wall: wall) else { return false }
    // Like the daemon, a snapshot is taken between loop turns (the core holds the state during its calls), after
    // journaling the acknowledgement the ledger holds, as `DurableDevice.writeSnapshot` does: acknowledgements are
    // applied in memory before they are journaled, and a snapshot must hold nothing its journal does not.
    if sinceSnapshot >= Self.snapshotInterval {
      if state.sync.peerAcked > 0 { append([.peerAcknowledged(state.sync.peerAcked)]) }
      snapshot = (state, journal.count)
      sinceSnapshot = 0
    }
    return true
  }

  /// Raises the change mark to the state's counter once events are journaled, as `DurableDevice.persist` does.
  private func raiseChangeMark() {
    changeMark = max(changeMark, state.lastChangeNumber)
    handedOutChangeNumber = max(handedOutChangeNumber, state.lastChangeNumber)
  }

  /// Journals the newest acknowledgement, as a clean shutdown does.
  func journalShutdownAcknowledgement() {
    if let ack = core.peer.shutdownAcknowledgement(state: state) { append([ack]) }
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

  // MARK: - The core's actions

  /// Feeds one input to the core and performs its actions in order; false when a journal write failed (nothing
  /// after it is performed).
  @discardableResult
  private func step(_ input: DeviceCore.Input, wall: Date) -> Bool {
    var buffer: [DeviceCore.Action] = []
    swap(&buffer, &actions)
    core.turn(input, state: &state, wall: wall, using: &random, into: &buffer)
    defer {
      buffer.removeAll(keepingCapacity: true)
      if actions.capacity < buffer.capacity { swap(&buffer, &actions) }
    }
    for action in buffer { perform(action, wall: wall) }
    return true
  }

  private func perform(_ action: DeviceCore.Action, wall: Date) {
    switch action {
    case .send(let connection, let bytes):
      guard connection == Self.app, awaited.answer == nil, let frame = try? Frame.decode(Array(bytes.dropFirst(4)))
      else { return }
      switch frame {
      case .response(let id, let result) where id == awaited.id: awaited.answer = .reply(result)
      case .interim(let id, .prompt(let prompt)) where id == awaited.id: awaited.answer = .pending(prompt)
      case .response, .interim, .request, .event: break
      }
    case .journal(let events, let encoded):
      append(events, encoded: encoded)
      raiseChangeMark()
    case .raiseChangeMark: raiseChangeMark()
    case .peerSend(let message, let latency):
      guard let connection = transport else { return }
      network.queue(from: kind, to: kind.peer, connection: connection, body: .message(message), delay: latency)
    case .peerClose: _ = close()
    case .peerConnect:
      guard transport == nil else { return }
      guard let connection = network.open(from: kind) else {
        feed(.closed, wall: wall)
        return
      }
      transport = connection
      feed(.opened(nonce: nonce()), wall: wall)
    case .peerReconnect(let seconds): reconnectAt = network.now + seconds
    case .closeAfterFlush, .helloAccepted, .flushClients, .flushPeer, .latencyChanged, .backgroundTimer, .armTimer,
      .log:
      break
    }
  }

  /// Appends events (already applied) to the journal bytes in one write, as `DurableDevice.persist` frames them.
  private func append(_ events: [DeviceEvent], encoded: [Int: ArraySlice<UInt8>] = [:]) {
    guard !events.isEmpty else { return }
    let before = journal.count
    DurableDevice.encode(events, framing: framing, encoded: encoded, into: &journal)
    sinceSnapshot += journal.count - before
  }

  /// Closes the transport this device holds; true when there was one (the caller feeds the core `closed`).
  func close() -> Bool {
    guard let connection = transport else { return false }
    transport = nil
    network.close(connection, by: kind)
    return true
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
