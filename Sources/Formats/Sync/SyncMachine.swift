import HealthEngine
import HealthModel
import Wire

/// The peer link's protocol logic as a pure state machine: inputs in, directives out.
///
/// It knows nothing of sockets, files or clocks. The daemon shell feeds it what happened (a transport opened or
/// closed, a message arrived, the local log grew, entries were applied, a test changed the link) and performs the
/// directives it returns (send, apply, persist an acknowledgement, close, connect, schedule a reconnect).
///
/// Guarantees it maintains, given a shell that performs directives faithfully:
/// - nothing but the handshake is exchanged before both sides proved the pairing secret (a workout-session message
///   before that closes the link like any early message; once established each is handed over as
///   ``Directive/session(_:)``);
/// - entries are sent only after the peer said where to resume, from the entry after that point, in order;
/// - at most ``Settings/window`` entries are unacknowledged at a time;
/// - nothing is sent while the link is disabled or held; a release resumes from where sending stopped;
/// - a peer cursor that cannot be served (it points past this log's end, or before entries already dropped as
///   acknowledged) restarts this side's log under a new identity, re-sending everything, instead of flapping or
///   skipping entries; the peer adopts the new log in band;
/// - a side whose journal lost records asks the peer, durably, to re-send everything it holds (``resendRequested``):
///   the request goes out after every `resume` until the peer answers it with a new log, which re-sends the peer's
///   whole store — including what it had received from this side and this side lost;
/// - whenever both sides look caught up, the connector asks for a check of both stores' day digests; a mismatch
///   makes both sides re-send, at most ``Settings/maxRepairs`` times in a row before the pair is reported diverged.
package struct SyncMachine: Sendable {
  /// This side's role.
  package let role: Role
  /// This side's device.
  package let device: DeviceKind
  private let secret: [UInt8]
  /// Tunables.
  package var settings: Settings

  /// Where the connection is.
  package private(set) var phase = Phase.idle
  /// Whether the link is allowed.
  package private(set) var enabled = true
  /// Whether outbound entries are held.
  package private(set) var holding = false
  /// Added latency the shell applies to outbound messages, seconds.
  package private(set) var latency = 0.0
  /// Whether the peer told us where to resume.
  package private(set) var peerResumed = false
  /// This device's journal lost records (a torn tail cut at start, or a peer that applied entries this log no
  /// longer has), so the peer may hold changes this device made and lost — a deletion it applied — which are in no
  /// log: after every `resume` this side sends ``PeerMessage/resendAll``, and the peer answers by restarting its log,
  /// which re-sends its whole store. Durable (``SyncLedger/resendRequested``); cleared by the first `newLog` that
  /// arrives on a connection the request went out on (that log started after the peer applied everything this side
  /// had sent before it lost records).
  package private(set) var resendRequested: Bool
  /// Highest sequence number sent on this connection.
  package private(set) var sentUpTo: UInt64 = 0
  /// Highest sequence number the peer acknowledged.
  package private(set) var ackedUpTo: UInt64
  /// This side's outbound log identity.
  package private(set) var logID: UInt64
  /// The identity of the peer log ``appliedFromPeer`` counts in.
  package private(set) var peerLogID: UInt64
  /// Newest local outbound sequence number.
  package private(set) var localLastSeq: UInt64
  /// The newest entry of this log the peer can have seen: what the journal held when this machine was created, then
  /// every entry sent since. A peer that resumes beyond it applied entries this device's journal lost — even when
  /// new entries, appended after the restart and not yet sent, reuse their numbers.
  package private(set) var servedUpTo: UInt64
  /// Highest peer sequence number applied here.
  package private(set) var appliedFromPeer: UInt64
  /// Highest peer sequence number handed to the shell for applying on this connection (applied or not yet).
  package private(set) var receivedUpTo: UInt64
  /// The cursors at the last store check that passed (nil before one did).
  package private(set) var verified: SyncCursors?
  /// Store checks that failed in a row (reset by one that passes).
  package private(set) var failedChecks = 0
  /// The cursors the connector last asked to check on this connection.
  private var lastCheckSent: SyncCursors?
  /// A store check was sent on this connection and its result has not come back (``maybeCheck()`` sends no other).
  private var checkInFlight = false
  private var myNonce: [UInt8] = []
  private var reconnectDelay: Double
  private var reconnectScheduled = false

  /// Creates a machine from the durable cursors the journal restored.
  package init(
    role: Role, device: DeviceKind, secret: [UInt8], logID: UInt64, peerLogID: UInt64, lastSeq: UInt64,
    peerAcked: UInt64, appliedFromPeer: UInt64, resendRequested: Bool = false, settings: Settings = Settings()
  ) {
    self.role = role
    self.device = device
    self.secret = secret
    self.settings = settings
    self.logID = logID
    self.peerLogID = peerLogID
    self.localLastSeq = lastSeq
    self.servedUpTo = lastSeq
    self.ackedUpTo = peerAcked
    self.appliedFromPeer = appliedFromPeer
    self.receivedUpTo = appliedFromPeer
    self.resendRequested = resendRequested
    self.reconnectDelay = settings.initialReconnectDelay
  }

  /// Whether the link is authenticated and the peer has resumed.
  package var isConnected: Bool { phase == .established }

  /// This side's cursors now.
  package var cursors: SyncCursors {
    SyncCursors(log: logID, lastSeq: localLastSeq, peerLog: peerLogID, applied: appliedFromPeer)
  }

  /// Whether the last passing store check was at exactly the current cursors (never while a re-send this side asked
  /// for is unanswered: the stores' digests do not cover deletions).
  package var isVerified: Bool { verified == cursors && !resendRequested }

  /// Whether store checks kept failing after ``Settings/maxRepairs`` re-sends: the stores differ and HealthPair
  /// stopped trying until a check passes.
  package var isDiverged: Bool { failedChecks > settings.maxRepairs }

  /// The first directives after start-up: a connector connects at once.
  package mutating func start() -> [Directive] { role == .connector && enabled ? [.connect] : [] }

  /// Feeds one input and returns what to do, in order.
  package mutating func handle(_ input: Input) -> [Directive] {
    switch input {
    case .opened(let nonce):
      guard phase == .idle else { return [.close(reason: "a second transport opened while one is active")] }
      guard enabled else { return [.close(reason: "the link is disconnected")] }
      phase = .authenticating
      myNonce = nonce
      reconnectScheduled = false
      return role == .listener ? [.send(.challenge(version: WireProtocol.version, device: device, nonce: nonce))] : []

    case .closed:
      let wasEstablished = phase == .established
      phase = .idle
      peerResumed = false
      sentUpTo = ackedUpTo
      receivedUpTo = appliedFromPeer
      lastCheckSent = nil
      checkInFlight = false
      var directives: [Directive] = wasEstablished ? [.linkChanged(connected: false)] : []
      if role == .connector && enabled { directives += scheduleReconnect() }
      if wasEstablished { reconnectDelay = settings.initialReconnectDelay }
      return directives

    case .received(let message):
      return receive(message)

    case .localAppended(let lastSeq):
      localLastSeq = max(localLastSeq, lastSeq)
      return pump()

    case .applied(let upTo):
      appliedFromPeer = max(appliedFromPeer, upTo)
      receivedUpTo = max(receivedUpTo, appliedFromPeer)
      return phase == .established ? [.send(.ack(appliedFromPeer, ofLog: peerLogID))] + maybeCheck() : []

    case .logRestarted(let id, let lastSeq):
      logID = id
      localLastSeq = lastSeq
      servedUpTo = 0
      ackedUpTo = 0
      sentUpTo = 0
      guard phase == .established else { return [] }
      return [.send(.newLog(id))] + pump()

    case .checkEvaluated(let check, let difference):
      guard phase == .established else { return [] }
      guard cursors.caughtUp(with: check.cursors) else {
        return [.send(.checkResult(SyncCheckResult(outcome: .notComparable, checked: check.cursors, detail: "")))]
      }
      let outcome: SyncCheckResult.Outcome = difference == nil ? .match : .mismatch
      let result = SyncCheckResult(outcome: outcome, checked: check.cursors, detail: difference ?? "")
      return [.send(.checkResult(result))] + conclude(outcome, detail: result.detail)

    case .control(let command):
      return control(command)

    case .reconnectTimer:
      reconnectScheduled = false
      guard role == .connector, enabled, phase == .idle else { return [] }
      return [.connect]
    }
  }

  private mutating func scheduleReconnect() -> [Directive] {
    guard !reconnectScheduled else { return [] }
    reconnectScheduled = true
    let delay = reconnectDelay
    reconnectDelay = min(settings.maxReconnectDelay, reconnectDelay * 2)
    return [.scheduleReconnect(after: delay)]
  }

  private mutating func receive(_ message: PeerMessage) -> [Directive] {
    switch (phase, role, message) {
    case (.authenticating, .connector, .challenge(let version, let peerDevice, let nonce)):
      guard version == WireProtocol.version else {
        return [.close(reason: "peer speaks protocol version \(version), this daemon \(WireProtocol.version)")]
      }
      guard peerDevice == device.peer else {
        return [.close(reason: "peer claims to be a \(peerDevice), expected the \(device.peer)")]
      }
      return [
        .send(
          .proof(
            digest: PeerMessage.digest(secret: secret, role: "connector", nonce: nonce), device: device, nonce: myNonce)
        )
      ]

    case (.authenticating, .listener, .proof(let digest, let peerDevice, let nonce)):
      guard digest == PeerMessage.digest(secret: secret, role: "connector", nonce: myNonce) else {
        return [.close(reason: "pairing proof does not match: the connecting process does not hold the pairing secret")]
      }
      guard peerDevice == device.peer else {
        return [.close(reason: "peer claims to be a \(peerDevice), expected the \(device.peer)")]
      }
      return [.send(.accept(digest: PeerMessage.digest(secret: secret, role: "listener", nonce: nonce)))] + establish()

    case (.authenticating, .connector, .accept(let digest)):
      guard digest == PeerMessage.digest(secret: secret, role: "listener", nonce: myNonce) else {
        return [.close(reason: "pairing proof does not match: the listening process does not hold the pairing secret")]
      }
      return establish()

    case (.established, _, .resume(let appliedUpTo, let ofLog, let peerLog)):
      guard !peerResumed else { return [.close(reason: "the peer resumed twice")] }
      var directives: [Directive] = []
      if peerLog != peerLogID {
        // The peer's log restarted (or this side never saw it): its cursor starts from 0.
        peerLogID = peerLog
        appliedFromPeer = 0
        receivedUpTo = 0
        directives.append(.adoptPeerLog(peerLog))
      }
      peerResumed = true
      // A cursor into an older log of ours counts as nothing applied.
      let resumeAt = ofLog == logID ? appliedUpTo : 0
      if ofLog == logID && appliedUpTo > servedUpTo {
        // The lost records may include changes the peer applied and holds nowhere in its own log: ask for them too.
        var restart = directives
        if !resendRequested {
          resendRequested = true
          restart += [.requestResend, .send(.resendAll)]
        }
        return restart + [
          .restartLog(
            reason: "the \(device.peer) applied entry \(appliedUpTo) of this log, but the newest entry it can have "
              + "seen is \(servedUpTo): this device's journal lost records")
        ]
      }
      if resumeAt < ackedUpTo {
        return directives + [
          .restartLog(
            reason: "the \(device.peer) resumes after entry \(resumeAt), but entries up to \(ackedUpTo) were "
              + "acknowledged and dropped here: the \(device.peer)'s journal lost records")
        ]
      }
      sentUpTo = resumeAt
      if resumeAt > ackedUpTo {
        ackedUpTo = resumeAt
        directives.append(.persistAck(resumeAt))
      }
      return directives + pump() + maybeCheck()

    case (.established, _, .entries(let entries)):
      guard let first = entries.first, let last = entries.last else { return [] }
      // Messages can arrive faster than they are applied: the gap check is against what was handed out.
      let expected = max(appliedFromPeer, receivedUpTo) &+ 1
      if first.seq > expected {
        return [.close(reason: "entries start at \(first.seq), expected \(expected) or earlier")]
      }
      receivedUpTo = max(receivedUpTo, last.seq)
      return [.apply(entries)]

    case (.established, _, .ack(let seq, let ofLog)):
      // An acknowledgement of an older log of ours (in flight when it restarted) says nothing about this one.
      guard ofLog == logID else { return [] }
      guard seq <= localLastSeq else {
        return [.close(reason: "peer acknowledged \(seq), beyond the newest entry \(localLastSeq)")]
      }
      guard seq > ackedUpTo else { return [] }
      ackedUpTo = seq
      return [.persistAck(seq)] + pump() + maybeCheck()

    case (.established, _, .newLog(let id)):
      guard id != peerLogID else { return [] }
      peerLogID = id
      appliedFromPeer = 0
      receivedUpTo = 0
      // The request went out at this connection's start, so the peer started this log after it applied everything
      // this side sent before it lost records: the log re-sends all of it.
      guard resendRequested else { return [.adoptPeerLog(id)] }
      resendRequested = false
      return [.adoptResentLog(id)]

    case (.established, _, .resendAll) where peerResumed:
      return [
        .restartLog(
          reason: "the \(device.peer)'s journal lost records: re-sending everything this device holds, with what it "
            + "received from the \(device.peer)")
      ]

    case (.established, _, .session(let message)):
      // Live workout-session traffic: only on an authenticated link (before it, a protocol violation below).
      return [.session(message)]

    case (.established, .listener, .check(let check)) where peerResumed:
      return [.evaluateCheck(check)]

    case (.established, .connector, .checkResult(let result)) where peerResumed:
      // The answer to the check in flight: the cursors may have moved meanwhile, and then the next check goes now.
      checkInFlight = false
      guard result.outcome != .notComparable else { return maybeCheck() }
      return conclude(result.outcome, detail: result.detail, checked: result.checked) + maybeCheck()

    default:
      return [.close(reason: "unexpected \(Self.name(of: message)) while \(phase) as \(role.name)")]
    }
  }

  private mutating func establish() -> [Directive] {
    phase = .established
    reconnectDelay = settings.initialReconnectDelay
    var directives: [Directive] = [.send(.resume(appliedUpTo: appliedFromPeer, ofLog: peerLogID, myLog: logID))]
    if resendRequested { directives.append(.send(.resendAll)) }
    return directives + [.linkChanged(connected: true)]
  }

  /// The connector asks for a store check when both sides look caught up on this connection (everything it logged
  /// is acknowledged, everything it received is applied), the cursors moved since it last asked, and no check is in
  /// flight (behavior.md Y7, "one check at a time"): while one is, the cursors it asks about are already old, and
  /// the next check goes when its result comes back.
  private mutating func maybeCheck() -> [Directive] {
    guard role == .connector, phase == .established, peerResumed, enabled, !holding, !resendRequested,
      !checkInFlight, ackedUpTo == localLastSeq, receivedUpTo == appliedFromPeer, lastCheckSent != cursors
    else { return [] }
    lastCheckSent = cursors
    checkInFlight = true
    return [.sendCheck(cursors)]
  }

  /// Records a check's verdict: a match verifies the cursors it was about; a mismatch restarts this side's log
  /// (re-sending its store) unless the re-sends already failed ``Settings/maxRepairs`` times in a row.
  private mutating func conclude(
    _ outcome: SyncCheckResult.Outcome, detail: String, checked: SyncCursors? = nil
  ) -> [Directive] {
    switch outcome {
    case .match:
      failedChecks = 0
      verified = role == .connector ? checked : cursors
      return [.checkConcluded(.match, detail: detail)]
    case .mismatch:
      failedChecks += 1
      verified = nil
      var directives: [Directive] = [.checkConcluded(.mismatch, detail: detail)]
      if failedChecks <= settings.maxRepairs {
        directives.append(.restartLog(reason: "store check failed (\(detail)); re-sending this device's store"))
      }
      return directives
    case .notComparable:
      return []
    }
  }

  private mutating func pump() -> [Directive] {
    guard phase == .established, peerResumed, enabled, !holding, sentUpTo < localLastSeq else { return [] }
    let limit = ackedUpTo &+ settings.window
    guard sentUpTo < limit else { return [] }
    let through = min(localLastSeq, limit)
    let from = sentUpTo + 1
    sentUpTo = through
    servedUpTo = max(servedUpTo, through)
    return [.sendEntries(fromSeq: from, throughSeq: through)]
  }

  private mutating func control(_ command: LinkCommand) -> [Directive] {
    switch command {
    case .disconnect:
      enabled = false
      return phase == .idle ? [] : [.close(reason: "link disconnected by request")]
    case .connect:
      guard !enabled else { return [] }
      enabled = true
      reconnectDelay = settings.initialReconnectDelay
      return role == .connector && phase == .idle ? [.connect] : []
    case .hold:
      holding = true
      return []
    case .release:
      holding = false
      return pump() + maybeCheck()
    case .latency(let seconds):
      latency = Self.validLatency.contains(seconds) ? seconds : 0
      return []
    case .reconnectNow:
      guard role == .connector, enabled, phase == .idle else { return [] }
      reconnectScheduled = false
      reconnectDelay = settings.initialReconnectDelay
      return [.connect]
    case .status:
      return []
    }
  }

  /// The link latencies a ``LinkCommand/latency(_:)`` may set, seconds (up to a day; the shell refuses others).
  package static let validLatency: ClosedRange<Double> = 0...86_400

  private static func name(of message: PeerMessage) -> String {
    switch message {
    case .challenge: "challenge"
    case .proof: "proof"
    case .accept: "accept"
    case .resume: "resume"
    case .entries: "entries"
    case .ack: "ack"
    case .newLog: "newLog"
    case .resendAll: "resendAll"
    case .check: "check"
    case .checkResult: "checkResult"
    case .session(let message): "session \(message.name)"
    }
  }
}
