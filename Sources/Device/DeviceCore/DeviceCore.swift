import FoundationEssentials
import HealthEngine
import HealthModel
import Sync
import Wire

/// One device's daemon as a pure core: the connection table (as values keyed by connection id), `hello` and its
/// deadlines, import ownership, sheets awaited by a connection, reply limits, the peer link's core and its handshake
/// deadline, and the commit plan — what a loop turn does and in which order — behind
/// ``turn(_:state:wall:using:into:)``. The shell (the daemon's epoll loop, or the
/// deterministic simulator) owns sockets, buffers, files and clocks: it feeds ``Input``s and performs the
/// ``Action``s appended, in order, before it feeds the next input.
///
/// A loop turn: the shell feeds the turn's inputs (connections, requests, peer messages, timers), then
/// ``Input/commit`` and, once it has written the replies that commit asked for, ``Input/repliesWritten``. So
/// nothing is acknowledged, pushed or sent to the peer before it is journaled (`DeviceCoreTests`,
/// "the commit plan journals before it replies").
package struct DeviceCore {
  /// What the core is configured with (from the daemon's options).
  package struct Configuration: Sendable {
    /// Which device this is.
    package var device: DeviceKind
    /// Whether the device has a peer link.
    package var hasPeer: Bool
    /// The serving process's id, for `hello` and `dump`.
    package var pid: Int32
    /// The most unsent bytes a client may have queued; replies are kept under it (``replyLimit``).
    package var maxClientBacklog: Int
    /// The quietest log level the shell writes: lines below it are not built.
    package var quietest: LogLevel
    /// Whether the shell runs on the real clock's timers (the daemon); the simulator arms none.
    package var armsTimers: Bool
    /// Seconds a client connection may take to say `hello` before it is told so and closed.
    package var helloTimeout: Double
    /// Seconds a peer connection may take to complete the pairing handshake before it is closed.
    package var handshakeTimeout: Double

    /// A configuration.
    package init(
      device: DeviceKind, hasPeer: Bool, pid: Int32, maxClientBacklog: Int = 64 << 20, quietest: LogLevel = .debug,
      armsTimers: Bool = true, helloTimeout: Double = 10, handshakeTimeout: Double = 2
    ) {
      self.device = device
      self.hasPeer = hasPeer
      self.pid = pid
      self.maxClientBacklog = maxClientBacklog
      self.quietest = quietest
      self.armsTimers = armsTimers
      self.helloTimeout = helloTimeout
      self.handshakeTimeout = handshakeTimeout
    }
  }

  /// One client connection's session, as the core knows it (its socket and buffers are the shell's).
  package struct Session: Sendable, Equatable {
    /// Whether `hello` was accepted.
    package var helloDone = false
    /// The name the client gave in `hello`.
    package var name = "client"
    /// The events pushed to it.
    package var subscriptions: EventMask = []
    /// The connecting process, for logs.
    package var pid: Int32 = 0
    /// Whether the connection is closed once its queued bytes are written: nothing more is sent for its deadline.
    package var closing = false
  }

  /// A deadline the core keeps and the shell's clock fires (``Action/armTimer(_:at:)``, ``Input/timer(_:at:)``).
  package enum Timer: Sendable, Hashable {
    /// The oldest client connection's `hello` deadline.
    case hello
    /// The open peer connection's pairing handshake deadline.
    case handshake
  }

  /// What the shell tells the core.
  package enum Input {
    /// The shell starts serving: changes replayed from the journal are forgotten (they were delivered, or not,
    /// before the restart) and the peer link starts.
    case start
    /// A client connection from process `pid` was accepted at the monotonic instant `at` (nanoseconds): its
    /// `hello` deadline is ``Configuration/helloTimeout`` later.
    case accepted(connection: UInt64, pid: Int32 = 0, at: UInt64 = 0)
    /// The shell closes the connection once its queued bytes are written (it refused a frame itself): its `hello`
    /// deadline sends nothing more.
    case closing(connection: UInt64)
    /// A client connection closed (its imports in progress are abandoned).
    case closed(connection: UInt64)
    /// A complete request frame arrived; `body` is the frame body as it arrived (an `importBatch`'s is journaled).
    case request(connection: UInt64, id: UInt32, Request, body: [UInt8])
    /// An input for the peer link (a transport opened or closed, a message, the reconnect timer). A transport
    /// opened this way has no handshake deadline; see ``peerOpened(nonce:pid:at:)``.
    case peer(SyncMachine.Input)
    /// A peer transport (from process `pid`, nil when this device connected) opened at the monotonic instant `at`:
    /// fed to the link as `opened(nonce:)`, with a handshake deadline ``Configuration/handshakeTimeout`` later.
    case peerOpened(nonce: [UInt8], pid: Int32?, at: UInt64)
    /// The timer armed by ``Action/armTimer(_:at:)`` fired at the monotonic instant `at`.
    case timer(Timer, at: UInt64)
    /// The turn's inputs are in: journal what they produced, then write the replies.
    case commit
    /// The replies of ``commit`` are written: feed sync, run background delivery, push events.
    case repliesWritten
    /// The device is stopping: withdraw sheets, abandon imports, journal the newest acknowledgement (then commit).
    case shutdown
  }

  /// What the core asks the shell to do, in order.
  package enum Action {
    /// Queue these framed bytes on a client connection.
    case send(connection: UInt64, [UInt8])
    /// Close the connection once its queued bytes are written; read nothing more from it.
    case closeAfterFlush(connection: UInt64)
    /// The connection said `hello`: its frames may now be up to ``WireProtocol/maxClientFrame`` bytes.
    case helloAccepted(connection: UInt64)
    /// Append these events (already applied) to the journal in one write and raise the change mark; `encoded`
    /// gives journal payloads already encoded, by index. If it fails the shell performs nothing more and stops.
    case journal([DeviceEvent], encoded: [Int: ArraySlice<UInt8>])
    /// Raise the change mark to the state's counter (after what the peer link journaled).
    case raiseChangeMark
    /// Write every client's queued bytes now.
    case flushClients
    /// Write the peer's queued bytes now.
    case flushPeer
    /// Send a message to the peer, delayed by `latency` seconds.
    case peerSend(PeerMessage, latency: Double)
    /// Close the peer transport and forget it (the link already knows).
    case peerClose(reason: String)
    /// Try to connect to the peer, then feed ``Input/peer(_:)`` with `opened` (32 fresh random bytes) or `closed`
    /// when it is not reachable, before anything else.
    case peerConnect
    /// Feed ``Input/peer(_:)`` with `reconnectTimer` after this many seconds (replacing an armed one).
    case peerReconnect(after: Double)
    /// The link's latency changed: re-time the delayed peer sends.
    case latencyChanged
    /// Arm the background delivery timer this many seconds from now, or disarm it (nil).
    case backgroundTimer(after: Double?)
    /// Feed ``Input/timer(_:at:)`` with this timer at the monotonic instant `at` (nanoseconds, replacing an armed
    /// one), or disarm it (nil).
    case armTimer(Timer, at: UInt64?)
    /// A line for the device's log, with `key=value` fields in order.
    case log(LogLevel, String, [RequestCore.Field])
  }

  /// The configuration.
  package var configuration: Configuration
  /// The peer link's core (present with a peer link).
  package internal(set) var peer: PeerCore
  /// The connection table.
  package internal(set) var sessions: [UInt64: Session] = [:]
  /// Requests waiting for a sheet's outcome, by prompt id: the connection and its request id.
  package internal(set) var awaitingSheets: [UInt64: (connection: UInt64, request: UInt32)] = [:]
  /// The connection each import in progress belongs to (an import is given up when its connection closes).
  package internal(set) var importOwners: [UInt64: UInt64] = [:]
  /// Events applied this turn, not journaled yet.
  package internal(set) var pendingEvents: [DeviceEvent] = []
  /// Journal payloads of `pendingEvents` already encoded, by index: an `importStaged` event's is the bytes of the
  /// `importBatch` request it came from.
  var pendingEncoded: [Int: ArraySlice<UInt8>] = [:]
  /// The buffer the peer core's actions are collected in before they are folded (reused).
  var peerBuffer: [PeerCore.Action] = []
  /// Events for subscribers, pushed at the end of the commit.
  package internal(set) var pendingBroadcasts: [DaemonEvent] = []
  /// Each client's `hello` deadline in accept order (so in deadline order); entries before `helloHead` are done.
  var helloDeadlines: [(due: UInt64, connection: UInt64)] = []
  /// The first `hello` deadline not yet due.
  var helloHead = 0
  /// The open peer connection's handshake deadline and connecting process, until the link is connected or closed.
  package internal(set) var handshakeDeadline: (due: UInt64, pid: Int32?)?
  /// A core for a device whose durable sync cursors are `sync`.
  package init(configuration: Configuration, secret: [UInt8], sync: SyncLedger) {
    self.configuration = configuration
    let device = configuration.device
    peer = PeerCore(role: device == .phone ? .listener : .connector, device: device, secret: secret, sync: sync)
  }

  /// Performs one input: updates the core and `state`, and appends what the shell must do to `actions` (which the
  /// shell empties and reuses). `random` draws what must be unpredictable (a restarted sync log's identity).
  package mutating func turn(
    _ input: Input, state: inout DeviceState, wall: Date, using random: inout some RandomNumberGenerator,
    into actions: inout [Action]
  ) {
    switch input {
    case .start:
      state.discardChanges()
      start(state: &state, wall: wall, into: &actions)
    case .accepted(let connection, let pid, let now): accept(connection, pid: pid, at: now, into: &actions)
    case .closing(let connection): sessions[connection]?.closing = true
    case .closed(let connection): close(connection, state: &state, into: &actions)
    case .request(let connection, let id, let request, let body):
      handle(request, id: id, from: connection, body: body, state: &state, wall: wall, into: &actions)
    case .peer(let input): feedPeer(input, state: &state, wall: wall, into: &actions)
    case .peerOpened(let nonce, let pid, let now):
      peerOpened(nonce: nonce, pid: pid, at: now, state: &state, wall: wall, into: &actions)
    case .timer(.hello, let now): helloDeadlinesDue(at: now, into: &actions)
    case .timer(.handshake, let now): handshakeDue(at: now, state: &state, wall: wall, into: &actions)
    case .commit: commit(into: &actions)
    case .repliesWritten: finishCommit(state: &state, wall: wall, using: &random, into: &actions)
    case .shutdown: shutdown(state: &state, into: &actions)
    }
  }

  /// Starts the peer link (a connector connects at once). Without one the device's sessions only learn that the
  /// link is down: nothing mirrors and `startWatchApp` fails as it does while the link is down.
  private mutating func start(state: inout DeviceState, wall: Date, into actions: inout [Action]) {
    guard configuration.hasPeer else {
      record(state.sessionLinkChanged(up: false, wall: wall))
      _ = state.takeSessionDirectives()  // none: no session outlives a start
      return
    }
    var peerActions: [PeerCore.Action] = []
    peer.start(state: &state, wall: wall, into: &peerActions)
    fold(peerActions, into: &actions)
  }

  /// Whether a request of `connection` waits for a sheet's outcome.
  package func awaitsSheet(_ connection: UInt64) -> Bool {
    awaitingSheets.values.contains { $0.connection == connection }
  }

  /// A connection closed: abandon the imports it owns.
  private mutating func close(_ connection: UInt64, state: inout DeviceState, into actions: inout [Action]) {
    sessions[connection] = nil
    for (id, owner) in importOwners.sorted(by: { $0.key < $1.key }) where owner == connection {
      importOwners[id] = nil
      let staged = state.stagedImports[id]?.count ?? 0
      record(state.abandonImport(id))
      actions.append(
        .log(
          .warning, "import abandoned: its client went away before the commit",
          [
            RequestCore.Field("import", String(id, radix: 16)), RequestCore.Field("staged", "\(staged)"),
            RequestCore.Field("client", "\(connection)"),
          ]))
    }
  }

  /// Queues events (already applied) for the next journal write, and their notices for subscribers.
  mutating func record(_ events: [DeviceEvent]) {
    guard !events.isEmpty else { return }
    pendingEvents += events
    pendingBroadcasts += RequestCore.notices(for: events, device: configuration.device)
  }

  /// Queues an event for subscribers.
  mutating func broadcast(_ event: DaemonEvent) { pendingBroadcasts.append(event) }
}
