import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

/// What a ``PeerCore`` asks of the process around it: the daemon (sockets, the journal file, epoll timers) or the
/// deterministic simulator (an in-memory network and journal bytes). Every side effect of the peer link goes
/// through these calls; the core itself does no I/O.
package protocol PeerShell {
  /// Queues events a sync operation produced (already applied to the state) for the next journal write.
  mutating func record(_ events: [DeviceEvent])
  /// Journals every queued event now; false when that failed (the device must stop: memory is ahead of disk).
  mutating func persistRecorded() -> Bool
  /// Sends a message to the peer, delayed by `latency` seconds (the link command's added latency).
  mutating func send(_ message: PeerMessage, latency: Double)
  /// Closes the transport and forgets it; true when there was one (the core then feeds
  /// ``SyncMachine/Input/closed`` itself).
  mutating func close(reason: String) -> Bool
  /// Tries to connect to the peer (the connector only); the core feeds the matching input itself.
  mutating func connect() -> PeerCore.ConnectOutcome
  /// Feeds ``SyncMachine/Input/reconnectTimer`` after this many seconds.
  mutating func scheduleReconnect(after seconds: Double)
  /// Something clients may want to hear about (pushed events, status waiters).
  mutating func notify(_ notice: PeerCore.Notice)
  /// A line for the device's log.
  mutating func logLine(_ level: PeerCore.LogLevel, _ message: @autoclosure () -> String)
  /// A fresh, random, non-zero sync log identity.
  mutating func freshLogID() -> UInt64
}

/// The peer link of one device as a pure core: the ``SyncMachine`` plus the bookkeeping that ties it to the device's
/// state and journal — applying received entries, acknowledging what is durable, restarting the log, evaluating
/// store checks at commit. The daemon and the deterministic pair simulator both drive it, so the rules they run are
/// the same code.
///
/// The shell calls ``handle(_:state:wall:shell:)`` for every input (a transport opened or closed, a message, a link
/// command, a timer) and ``afterCommit(state:wall:shell:)`` once the turn's events are journaled.
package struct PeerCore {
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
  }

  /// What a connection attempt gave.
  package enum ConnectOutcome: Sendable, Equatable {
    /// A transport opened; 32 fresh random bytes for its handshake.
    case opened(nonce: [UInt8])
    /// The peer was not reachable.
    case unreachable
    /// A transport is already open: nothing happened.
    case alreadyOpen
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

  /// Starts the link (a connector connects at once).
  package mutating func start<S: PeerShell>(state: inout DeviceState, wall: Date, shell: inout S) {
    perform(machine.start(), state: &state, wall: wall, shell: &shell)
  }

  /// Feeds one input to the machine and performs what it returns.
  package mutating func handle<S: PeerShell>(
    _ input: SyncMachine.Input, state: inout DeviceState, wall: Date, shell: inout S
  ) {
    perform(machine.handle(input), state: &state, wall: wall, shell: &shell)
  }

  /// Runs after the turn's events are journaled: acknowledges applied entries, announces local growth, evaluates
  /// store checks and performs a requested log restart (journaling it before it is announced). False when a
  /// journal write failed.
  package mutating func afterCommit<S: PeerShell>(state: inout DeviceState, wall: Date, shell: inout S) -> Bool {
    if needsAck {
      needsAck = false
      perform(machine.handle(.applied(upTo: state.sync.appliedFromPeer)), state: &state, wall: wall, shell: &shell)
    }
    let lastSeq = state.sync.lastSeq
    if lastSeq != notifiedSeq {
      notifiedSeq = lastSeq
      perform(machine.handle(.localAppended(lastSeq: lastSeq)), state: &state, wall: wall, shell: &shell)
    }
    if !pendingChecks.isEmpty {
      let checks = pendingChecks
      pendingChecks.removeAll()
      for check in checks {
        let difference = state.compareDigests(check.days, firstDay: check.firstDay, wall: wall)
        perform(
          machine.handle(.checkEvaluated(check, difference: difference)), state: &state, wall: wall, shell: &shell)
      }
    }
    if restartPending {
      restartPending = false
      shell.record(state.restartSyncLog(logID: shell.freshLogID()))
      guard shell.persistRecorded() else { return false }
      let sync = state.sync
      notifiedSeq = sync.lastSeq
      journaledAck = 0
      shell.logLine(.info, "sync log \(String(sync.logID, radix: 16)) started (\(sync.lastSeq) entries)")
      perform(
        machine.handle(.logRestarted(logID: sync.logID, lastSeq: sync.lastSeq)), state: &state, wall: wall,
        shell: &shell)
    }
    return true
  }

  /// The acknowledgement event to journal at shutdown, when the newest one is not journaled yet.
  package func shutdownAcknowledgement(state: DeviceState) -> DeviceEvent? {
    let acked = state.sync.peerAcked
    return acked > journaledAck ? .peerAcknowledged(acked) : nil
  }

  private mutating func perform<S: PeerShell>(
    _ directives: [SyncMachine.Directive], state: inout DeviceState, wall: Date, shell: inout S
  ) {
    for directive in directives {
      switch directive {
      case .send(let message):
        shell.send(message, latency: machine.latency)
      case .sendEntries(let from, let through):
        var after = from - 1
        while after < through {
          // Bounded by `through`: entries past the window are neither materialized nor sent.
          let entries = state.outboundEntries(after: after, through: through, maxItems: SyncLedger.maxItemsPerEntry * 2)
          guard let last = entries.last else { break }
          shell.send(.entries(entries), latency: machine.latency)
          after = last.seq
        }
      case .apply(let entries):
        shell.record(state.receivePeerEntries(entries, wall: wall))
        needsAck = true
      case .persistAck(let seq):
        // Applied in memory at once (it trims the outbound log); journaled only every `ackPersistInterval` entries.
        let events = state.receivePeerAck(seq)
        if seq >= journaledAck + Self.ackPersistInterval {
          shell.record(events)
          journaledAck = seq
        } else if !events.isEmpty {
          shell.notify(.peerAcknowledged(seq))
        }
      case .close(let reason):
        if shell.close(reason: reason) { perform(machine.handle(.closed), state: &state, wall: wall, shell: &shell) }
      case .connect:
        switch shell.connect() {
        case .opened(let nonce):
          perform(machine.handle(.opened(nonce: nonce)), state: &state, wall: wall, shell: &shell)
        case .unreachable: perform(machine.handle(.closed), state: &state, wall: wall, shell: &shell)
        case .alreadyOpen: break
        }
      case .scheduleReconnect(let after):
        shell.scheduleReconnect(after: after)
      case .linkChanged(let connected):
        shell.logLine(.info, connected ? "peer link up" : "peer link down")
        shell.notify(.linkChanged(connected: connected))
      case .adoptPeerLog(let id):
        shell.logLine(
          .info, "the \(machine.device.peer) started sync log \(String(id, radix: 16)); applying it from the start")
        shell.record(state.adoptPeerLog(id))
      case .requestResend:
        shell.logLine(
          .warning,
          "this device's journal lost records: asking the \(machine.device.peer) to re-send everything it holds")
        shell.record(state.requestPeerResend())
      case .adoptResentLog(let id):
        shell.logLine(
          .info,
          "the \(machine.device.peer) answered the re-send request with sync log \(String(id, radix: 16)); applying it "
            + "from the start")
        shell.record(state.adoptResentPeerLog(id))
      case .restartLog(let reason):
        // Done after the commit, once this turn's events are durable, so the new log is journaled before it is
        // announced.
        shell.logLine(.warning, "restarting the sync log: \(reason)")
        restartPending = true
      case .sendCheck(let cursors):
        let firstDay = state.syncCheckFirstDay(wall: wall)
        let days = state.store.dayDigests(from: firstDay)
        shell.send(.check(SyncCheck(cursors: cursors, firstDay: firstDay, days: days)), latency: machine.latency)
      case .evaluateCheck(let check):
        // Evaluated after the commit, when the machine's cursors have caught up with this turn's saves and applies.
        pendingChecks.append(check)
      case .checkConcluded(let outcome, let detail):
        switch outcome {
        case .match: shell.logLine(.debug, "store check passed at \(machine.cursors)")
        case .mismatch:
          shell.logLine(
            machine.isDiverged ? .error : .warning,
            machine.isDiverged
              ? "stores still differ after re-sending; giving up until they agree: \(detail)"
              : "store check failed: \(detail)")
        case .notComparable: break
        }
        shell.notify(.checkConcluded(appliedUpTo: state.sync.appliedFromPeer))
      }
    }
  }
}
