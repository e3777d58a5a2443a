import HealthEngine
import HealthModel
import Wire

// The machine's vocabulary: roles, phases and tunables, the inputs the shell feeds it and the directives it returns.
extension SyncMachine {
  /// Which side of the link this is.
  package enum Role: Sendable, Equatable {
    /// Accepts the connection and opens the handshake (the phone).
    case listener
    /// Connects and answers the handshake (the watch).
    case connector

    var name: String { self == .listener ? "listener" : "connector" }
  }

  /// Where the connection is.
  package enum Phase: Sendable, Equatable {
    /// No transport.
    case idle
    /// Connected, proving the pairing secret.
    case authenticating
    /// Authenticated; sync may flow once the peer sent `resume`.
    case established
  }

  /// Tunables.
  package struct Settings: Sendable, Equatable {
    /// Unacknowledged entries allowed in flight.
    package var window: UInt64 = 32
    /// First reconnect delay, seconds (doubles up to ``maxReconnectDelay``).
    package var initialReconnectDelay = 0.002
    /// Longest reconnect delay, seconds.
    package var maxReconnectDelay = 0.1
    /// Re-sends after failed store checks before the pair is declared diverged (no more re-sends until a check
    /// passes).
    package var maxRepairs = 3
    /// Creates default settings.
    package init() {}
  }

  /// What happened.
  package enum Input: Sendable, Equatable {
    /// A transport opened; `nonce` is 32 fresh random bytes for this handshake.
    case opened(nonce: [UInt8])
    /// The transport closed (peer gone, error, or a close directive performed).
    case closed
    /// A message arrived.
    case received(PeerMessage)
    /// The local outbound log's newest sequence number is now this.
    case localAppended(lastSeq: UInt64)
    /// Peer entries up to this sequence number are applied and journaled.
    case applied(upTo: UInt64)
    /// A test or the command line changed the link.
    case control(LinkCommand)
    /// A scheduled reconnect is due.
    case reconnectTimer
    /// The shell restarted the outbound log (after a ``Directive/restartLog(reason:)``): its identity and newest
    /// sequence number.
    case logRestarted(logID: UInt64, lastSeq: UInt64)
    /// The shell compared a check's digests with its store (after ``Directive/evaluateCheck(_:)``): nil when they
    /// agree, else what differs.
    case checkEvaluated(SyncCheck, difference: String?)
  }

  /// What the shell must do.
  package enum Directive: Sendable, Equatable {
    /// Send a message.
    case send(PeerMessage)
    /// Send the outbound log entries `fromSeq...throughSeq` (split into messages as the shell sees fit).
    case sendEntries(fromSeq: UInt64, throughSeq: UInt64)
    /// Apply these received entries to the device (idempotently), journal, then feed `.applied`.
    case apply([SyncEntry])
    /// The peer has everything up to this sequence number: record it durably.
    case persistAck(UInt64)
    /// Close the transport, logging the reason.
    case close(reason: String)
    /// Try to connect (connector only).
    case connect
    /// Feed `.reconnectTimer` after this many seconds.
    case scheduleReconnect(after: Double)
    /// The link came up or went down (for events and the log).
    case linkChanged(connected: Bool)
    /// The peer's log has a new identity: journal the adoption (its cursor starts from 0) before applying more.
    case adoptPeerLog(UInt64)
    /// This device's journal lost records the peer may hold: journal a request that the peer re-send everything it
    /// holds (kept across restarts until answered). The machine sends ``PeerMessage/resendAll`` itself.
    case requestResend
    /// The peer started a new log after this side asked for a re-send: journal its adoption (its cursor starts
    /// from 0) and that the request is answered, before applying more.
    case adoptResentLog(UInt64)
    /// This side's log cannot serve the peer: restart it under a fresh identity (re-sending every live sample and
    /// deletion), journal that, then feed ``Input/logRestarted(logID:lastSeq:)``.
    case restartLog(reason: String)
    /// Send a ``PeerMessage/check(_:)`` built from the store's day digests at these cursors (connector).
    case sendCheck(SyncCursors)
    /// Compare the check's digests with the store and feed ``Input/checkEvaluated(_:difference:)`` (listener).
    case evaluateCheck(SyncCheck)
    /// A store check concluded (for the log and status): the outcome and its detail.
    case checkConcluded(SyncCheckResult.Outcome, detail: String)
    /// The peer's workout-session registry sent this (the link is established): hand it to this device's sessions.
    case session(SessionPeerMessage)
  }
}
