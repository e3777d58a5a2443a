import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

/// The peer link of one device as a pure core: the ``SyncMachine`` plus the bookkeeping that ties it to the device's
/// state and journal — applying received entries, acknowledging what is durable, restarting the log, evaluating
/// store checks at commit. ``DeviceCore`` drives it for the daemon and the deterministic pair simulator alike, so the
/// rules they run are the same code.
///
/// The shell calls ``handle(_:state:wall:into:)`` for every input (a transport opened or closed, a message, a link
/// command, a timer) and ``afterCommit(state:wall:using:into:)`` once the turn's events are journaled; each appends
/// the ``Action``s the shell performs, in order, after the call returns. The core never calls its shell: what it
/// needs from the world (a connection's outcome, randomness) comes back as an input or a parameter.
package struct PeerCore {
  /// A side effect for the shell to perform, in the order the core appended it.
  package enum Action: Sendable, Equatable {
    /// Queue these events (already applied to the state) for the next journal write, and push their notices.
    case record([DeviceEvent])
    /// Journal every queued event now (a restarted log is durable before it is announced). If that fails the
    /// shell stops performing and the device stops: memory is ahead of disk.
    case persistRecorded
    /// Send a message to the peer, delayed by `latency` seconds (the link command's added latency).
    case send(PeerMessage, latency: Double)
    /// Close the transport and forget it (the core has already handled ``SyncMachine/Input/closed``).
    case close(reason: String)
    /// Try to connect to the peer (the connector only), then feed ``SyncMachine/Input/opened(nonce:)`` with 32
    /// fresh random bytes, or ``SyncMachine/Input/closed`` when the peer is not reachable — before anything else.
    case connect
    /// Feed ``SyncMachine/Input/reconnectTimer`` after this many seconds.
    case scheduleReconnect(after: Double)
    /// Something clients may want to hear about (pushed events, status waiters).
    case notify(Notice)
    /// A line for the device's log.
    case log(LogLevel, String)
  }

  /// Severity of a log line the core asks for.
  package enum LogLevel: Sendable, Equatable {
    /// Details for debugging.
    case debug
    /// Normal operation.
    case info
    /// Something recovered from.
    case warning
    /// Something that needs attention.
    case error
  }

  /// What clients may want to hear about.
  package enum Notice: Sendable, Equatable {
    /// The link came up or went down.
    case linkChanged(connected: Bool)
    /// The peer acknowledged entries up to this sequence number (not journaled yet).
    case peerAcknowledged(UInt64)
    /// A store check concluded: status waiters should look again. Carries the applied cursor.
    case checkConcluded(appliedUpTo: UInt64)
    /// Workout-session callbacks for this device's apps (delegate, builder, mirroring start handler, data sent,
    /// configuration handled), in order: the peer's session message or the link changing produced them.
    case sessions([SessionDirective])
    /// A workout-session message from the peer was handled (``sessionTraffic`` counts it), whatever it caused:
    /// waiters on the counts should look again. Carries the applied cursor.
    case sessionMessageHandled(appliedUpTo: UInt64)
  }

  /// Acknowledgements are journaled only every this many entries (and at shutdown): losing a recent one in a
  /// crash only makes the peer re-deliver entries that are then ignored.
  package static let ackPersistInterval: UInt64 = 64

  /// The link's protocol state machine.
  package private(set) var machine: SyncMachine
  /// The newest acknowledgement that is journaled.
  package private(set) var journaledAck: UInt64
  /// Entries were applied this turn: acknowledge them once they are durable.
  private var needsAck = false
  /// Store checks to evaluate once this turn's events are durable.
  private var pendingChecks: [SyncCheck] = []
  /// The machine asked for a log restart this turn (performed after the commit).
  private var restartPending = false
  /// The newest local sequence number the machine was told about.
  private var notifiedSeq: UInt64
  /// Whether the shell holds a transport: opened by ``SyncMachine/Input/opened(nonce:)``, gone with
  /// ``SyncMachine/Input/closed`` or a ``Action/close(reason:)`` the core asked for (a close with no transport is
  /// nothing to do, and feeds no `closed`).
  package private(set) var transportOpen = false
  /// Workout-session messages sent and received on the current connection (both zero when it is established): the
  /// scenario runner reads both devices' counts to know every message in flight has been handled.
  package private(set) var sessionTraffic = SessionTraffic()

  /// A core for a device whose durable sync cursors are `sync` (a re-send request it holds goes out on the first
  /// connection: ``SyncMachine/resendRequested``).
  package init(
    role: SyncMachine.Role, device: DeviceKind, secret: [UInt8], sync: SyncLedger,
    settings: SyncMachine.Settings = SyncMachine.Settings()
  ) {
    machine = SyncMachine(
      role: role, device: device, secret: secret, logID: sync.logID, peerLogID: sync.peerLogID, lastSeq: sync.lastSeq,
      peerAcked: sync.peerAcked, appliedFromPeer: sync.appliedFromPeer, resendRequested: sync.resendRequested,
      settings: settings)
    notifiedSeq = sync.lastSeq
    journaledAck = sync.peerAcked
  }

  /// Starts the link (a connector connects at once). The device's sessions learn the link is down until it is
  /// established (so mirroring asked for meanwhile starts when it comes up).
  package mutating func start(state: inout DeviceState, wall: Date, into actions: inout [Action]) {
    let events = state.sessionLinkChanged(up: false, wall: wall)
    if !events.isEmpty { actions.append(.record(events)) }
    drainSessions(state: &state, into: &actions)
    perform(machine.start(), state: &state, wall: wall, into: &actions)
  }

  /// Hands out the device's queued workout-session directives (``DeviceState/takeSessionDirectives()``): each
  /// message for the peer becomes a ``Action/send(_:latency:)`` (``sendSessions(_:into:)``), each launch a log line
  /// (the registry already marked the app background), the callbacks one ``Notice/sessions(_:)``.
  package mutating func drainSessions(state: inout DeviceState, into actions: inout [Action]) {
    let directives = state.takeSessionDirectives()
    guard !directives.isEmpty else { return }
    var messages: [SessionPeerMessage] = []
    var callbacks: [SessionDirective] = []
    for directive in directives {
      switch directive {
      case .peer(let message): messages.append(message)
      case .launch(let app): actions.append(.log(.info, "launched \(app) in the background for its workout session"))
      case .session, .builder, .mirroringStarted, .sendCompleted, .handleConfiguration: callbacks.append(directive)
      case .store: break  // `DeviceState.perform` saves these; none reach the outbox
      }
    }
    sendSessions(messages, into: &actions)
    if !callbacks.isEmpty { actions.append(.notify(.sessions(callbacks))) }
  }

  /// Sends workout-session messages to the peer as the link sends its own: only while it is established, with its
  /// added latency, in order. On a link that is not established they are dropped (logged at debug): the registry
  /// hears the link is down (``SyncMachine/Directive/linkChanged(connected:)``), so it reports the disconnect and
  /// re-sends each mirroring session's start when the link comes back. A held link holds only the sync log's
  /// entries, as it does acknowledgements and checks: session messages are live.
  package mutating func sendSessions(_ messages: [SessionPeerMessage], into actions: inout [Action]) {
    for message in messages {
      guard machine.isConnected, machine.enabled else {
        actions.append(.log(.debug, "session \(message.name) dropped: the peer link is down"))
        continue
      }
      sessionTraffic.sent += 1
      actions.append(.send(.session(message), latency: machine.latency))
    }
  }

  /// Feeds one input to the machine and performs what it returns.
  package mutating func handle(
    _ input: SyncMachine.Input, state: inout DeviceState, wall: Date, into actions: inout [Action]
  ) {
    switch input {
    case .opened: transportOpen = true
    case .closed: transportOpen = false
    default: break
    }
    perform(machine.handle(input), state: &state, wall: wall, into: &actions)
  }

  /// Runs after the turn's events are journaled: acknowledges applied entries, announces local growth, evaluates
  /// store checks and performs a requested log restart under an identity drawn from `random` (journaled, by
  /// ``Action/persistRecorded``, before it is announced).
  package mutating func afterCommit(
    state: inout DeviceState, wall: Date, using random: inout some RandomNumberGenerator, into actions: inout [Action]
  ) {
    if needsAck {
      needsAck = false
      perform(machine.handle(.applied(upTo: state.sync.appliedFromPeer)), state: &state, wall: wall, into: &actions)
    }
    let lastSeq = state.sync.lastSeq
    if lastSeq != notifiedSeq {
      notifiedSeq = lastSeq
      perform(machine.handle(.localAppended(lastSeq: lastSeq)), state: &state, wall: wall, into: &actions)
    }
    if !pendingChecks.isEmpty {
      let checks = pendingChecks
      pendingChecks.removeAll()
      for check in checks {
        let difference = state.compareDigests(check.days, firstDay: check.firstDay, wall: wall)
        perform(
          machine.handle(.checkEvaluated(check, difference: difference)), state: &state, wall: wall, into: &actions)
      }
    }
    if restartPending {
      restartPending = false
      actions.append(.record(state.restartSyncLog(logID: Self.freshLogID(using: &random))))
      actions.append(.persistRecorded)
      let sync = state.sync
      notifiedSeq = sync.lastSeq
      journaledAck = 0
      actions.append(.log(.info, "sync log \(String(sync.logID, radix: 16)) started (\(sync.lastSeq) entries)"))
      perform(
        machine.handle(.logRestarted(logID: sync.logID, lastSeq: sync.lastSeq)), state: &state, wall: wall,
        into: &actions)
    }
  }

  /// A random, non-zero sync log identity.
  package static func freshLogID(using random: inout some RandomNumberGenerator) -> UInt64 {
    while true {
      let id = random.next()
      if id != 0 { return id }
    }
  }

  /// The acknowledgement event to journal at shutdown, when the newest one is not journaled yet.
  package func shutdownAcknowledgement(state: DeviceState) -> DeviceEvent? {
    let acked = state.sync.peerAcked
    return acked > journaledAck ? .peerAcknowledged(acked) : nil
  }

  private mutating func perform(
    _ directives: [SyncMachine.Directive], state: inout DeviceState, wall: Date, into actions: inout [Action]
  ) {
    for directive in directives {
      switch directive {
      case .send(let message):
        actions.append(.send(message, latency: machine.latency))
      case .sendEntries(let from, let through):
        var after = from - 1
        while after < through {
          // Bounded by `through`: entries past the window are neither materialized nor sent.
          let entries = state.outboundEntries(after: after, through: through, maxItems: SyncLedger.maxItemsPerEntry * 2)
          guard let last = entries.last else { break }
          actions.append(.send(.entries(entries), latency: machine.latency))
          after = last.seq
        }
      case .apply(let entries):
        actions.append(.record(state.receivePeerEntries(entries, wall: wall)))
        needsAck = true
      case .persistAck(let seq):
        // Applied in memory at once (it trims the outbound log); journaled only every `ackPersistInterval` entries.
        let events = state.receivePeerAck(seq)
        if seq >= journaledAck + Self.ackPersistInterval {
          actions.append(.record(events))
          journaledAck = seq
        } else if !events.isEmpty {
          actions.append(.notify(.peerAcknowledged(seq)))
        }
      case .close(let reason):
        guard transportOpen else { break }
        transportOpen = false
        actions.append(.close(reason: reason))
        perform(machine.handle(.closed), state: &state, wall: wall, into: &actions)
      case .connect:
        // A connect the shell cannot start (a transport is open) is nothing, as before any outcome.
        if !transportOpen { actions.append(.connect) }
      case .scheduleReconnect(let after):
        actions.append(.scheduleReconnect(after: after))
      case .linkChanged(let connected):
        actions.append(.log(.info, connected ? "peer link up" : "peer link down"))
        actions.append(.notify(.linkChanged(connected: connected)))
        sessionTraffic = SessionTraffic()
        // After `resume` on the way up, so a mirroring session's start follows it on the wire.
        let events = state.sessionLinkChanged(up: connected, wall: wall)
        if !events.isEmpty { actions.append(.record(events)) }
        drainSessions(state: &state, into: &actions)
      case .session(let message):
        sessionTraffic.received += 1
        let events = state.receiveSessionMessage(message, wall: wall)
        if !events.isEmpty { actions.append(.record(events)) }
        drainSessions(state: &state, into: &actions)
        actions.append(.notify(.sessionMessageHandled(appliedUpTo: state.sync.appliedFromPeer)))
      case .adoptPeerLog(let id):
        actions.append(
          .log(
            .info, "the \(machine.device.peer) started sync log \(String(id, radix: 16)); applying it from the start"))
        actions.append(.record(state.adoptPeerLog(id)))
      case .requestResend:
        actions.append(
          .log(
            .warning,
            "this device's journal lost records: asking the \(machine.device.peer) to re-send everything it holds"))
        actions.append(.record(state.requestPeerResend()))
      case .adoptResentLog(let id):
        actions.append(
          .log(
            .info,
            "the \(machine.device.peer) answered the re-send request with sync log \(String(id, radix: 16)); "
              + "applying it from the start"))
        actions.append(.record(state.adoptResentPeerLog(id)))
      case .restartLog(let reason):
        // Done after the commit, once this turn's events are durable, so the new log is journaled before it is
        // announced.
        actions.append(.log(.warning, "restarting the sync log: \(reason)"))
        restartPending = true
      case .sendCheck(let cursors):
        let firstDay = state.syncCheckFirstDay(wall: wall)
        let days = state.store.dayDigests(from: firstDay)
        actions.append(
          .send(.check(SyncCheck(cursors: cursors, firstDay: firstDay, days: days)), latency: machine.latency))
      case .evaluateCheck(let check):
        // Evaluated after the commit, when the machine's cursors have caught up with this turn's saves and applies.
        pendingChecks.append(check)
      case .checkConcluded(let outcome, let detail):
        switch outcome {
        case .match: actions.append(.log(.debug, "store check passed at \(machine.cursors)"))
        case .mismatch:
          actions.append(
            .log(
              machine.isDiverged ? .error : .warning,
              machine.isDiverged
                ? "stores still differ after re-sending; giving up until they agree: \(detail)"
                : "store check failed: \(detail)"))
        case .notComparable: break
        }
        actions.append(.notify(.checkConcluded(appliedUpTo: state.sync.appliedFromPeer)))
      }
    }
  }
}
