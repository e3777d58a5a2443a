import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Sync
@testable import Wire

let secret = Array("correct horse battery staple".utf8)
let nonceA = [UInt8](repeating: 0xA1, count: 32)
let nonceB = [UInt8](repeating: 0xB2, count: 32)

/// The phone's and the watch's log identities in these tests.
let phoneLog: UInt64 = 0x100
let watchLog: UInt64 = 0x200

func machine(
  _ role: SyncMachine.Role, secret: [UInt8] = secret, lastSeq: UInt64 = 0, acked: UInt64 = 0, applied: UInt64 = 0,
  log: UInt64? = nil, peerLog: UInt64? = nil, resend: Bool = false
) -> SyncMachine {
  var settings = SyncMachine.Settings()
  settings.window = 4
  return SyncMachine(
    role: role, device: role == .listener ? .phone : .watch, secret: secret,
    logID: log ?? (role == .listener ? phoneLog : watchLog),
    peerLogID: peerLog ?? (role == .listener ? watchLog : phoneLog),
    lastSeq: lastSeq, peerAcked: acked, appliedFromPeer: applied, resendRequested: resend, settings: settings)
}

/// The directives other than store checks (which have their own tests).
func withoutChecks(_ directives: [SyncMachine.Directive]) -> [SyncMachine.Directive] {
  directives.filter { if case .sendCheck = $0 { false } else { true } }
}

func sent(_ directives: [SyncMachine.Directive]) -> [PeerMessage] {
  directives.compactMap { if case .send(let m) = $0 { m } else { nil } }
}

/// Runs the handshake between two machines, delivering every message; returns the directives each produced.
func connect(_ phone: inout SyncMachine, _ watch: inout SyncMachine) -> (
  phone: [SyncMachine.Directive], watch: [SyncMachine.Directive]
) {
  var p = phone.handle(.opened(nonce: nonceA))
  var w = watch.handle(.opened(nonce: nonceB))
  var toWatch = sent(p)
  var toPhone = sent(w)
  while !toWatch.isEmpty || !toPhone.isEmpty {
    let nextToPhone = toWatch.flatMap { m -> [PeerMessage] in
      let d = watch.handle(.received(m))
      w += d
      return sent(d)
    }
    let nextToWatch = toPhone.flatMap { m -> [PeerMessage] in
      let d = phone.handle(.received(m))
      p += d
      return sent(d)
    }
    toPhone = nextToPhone
    toWatch = nextToWatch
  }
  return (p, w)
}

@Suite("Sync state machine")
struct SyncMachineTests {
  @Test func handshakeProvesTheSecretBothWaysThenResumes() {
    var phone = machine(.listener)
    var watch = machine(.connector)
    #expect(watch.start() == [.connect])
    #expect(phone.start().isEmpty)
    let (p, w) = connect(&phone, &watch)
    #expect(phone.isConnected && watch.isConnected)
    #expect(p.contains(.linkChanged(connected: true)) && w.contains(.linkChanged(connected: true)))
    #expect(sent(p).contains(.resume(appliedUpTo: 0, ofLog: watchLog, myLog: phoneLog)))
    #expect(sent(w).contains(.resume(appliedUpTo: 0, ofLog: phoneLog, myLog: watchLog)))
    #expect(!p.contains { if case .close = $0 { true } else { false } })
  }

  @Test func aConnectorWithoutTheSecretIsRefused() {
    var phone = machine(.listener)
    var impostor = machine(.connector, secret: Array("guess".utf8))
    let challenge = sent(phone.handle(.opened(nonce: nonceA)))
    _ = impostor.handle(.opened(nonce: nonceB))
    let proof = sent(impostor.handle(.received(challenge[0])))
    let answer = phone.handle(.received(proof[0]))
    guard case .close(let reason) = answer.first else {
      Issue.record("expected close, got \(answer)")
      return
    }
    #expect(reason.contains("pairing proof does not match"))
    #expect(!phone.isConnected)
  }

  @Test func aListenerWithoutTheSecretIsRefused() {
    var watch = machine(.connector)
    _ = watch.handle(.opened(nonce: nonceB))
    let proof = sent(watch.handle(.received(.challenge(version: WireProtocol.version, device: .phone, nonce: nonceA))))
    #expect(proof.count == 1)
    let forged = PeerMessage.digest(secret: Array("guess".utf8), role: "listener", nonce: nonceB)
    let answer = watch.handle(.received(.accept(digest: forged)))
    guard case .close(let reason) = answer.first else {
      Issue.record("expected close, got \(answer)")
      return
    }
    #expect(reason.contains("pairing proof does not match"))
    #expect(!watch.isConnected)
  }

  @Test func nothingButTheHandshakeIsAcceptedBeforeAuthentication() {
    var phone = machine(.listener)
    _ = phone.handle(.opened(nonce: nonceA))
    for message: PeerMessage in [
      .entries([SyncEntry(seq: 1, payload: .watchSettings(bundleID: "x", change: .reset))]), .ack(1, ofLog: phoneLog),
      .resume(appliedUpTo: 0, ofLog: watchLog, myLog: phoneLog), .newLog(9),
    ] {
      var copy = phone
      let d = copy.handle(.received(message))
      guard case .close = d.first else {
        Issue.record("\(message) must close, got \(d)")
        continue
      }
      #expect(!d.contains { if case .apply = $0 { true } else { false } })
    }
  }

  @Test func sendsFromTheResumePointWithinTheWindowAndPumpsOnAck() {
    var phone = machine(.listener, lastSeq: 10, acked: 2)
    var watch = machine(.connector, applied: 3)
    let (p, _) = connect(&phone, &watch)
    // The watch says it applied up to 3: that is an acknowledgement, and sending resumes at 4, window 4 → 4…6.
    #expect(p.contains(.persistAck(3)))
    #expect(p.contains(.sendEntries(fromSeq: 4, throughSeq: 7)))
    #expect(phone.handle(.localAppended(lastSeq: 12)).isEmpty, "the window is full")
    #expect(
      phone.handle(.received(.ack(5, ofLog: phoneLog))) == [.persistAck(5), .sendEntries(fromSeq: 8, throughSeq: 9)])
    #expect(phone.handle(.received(.ack(5, ofLog: phoneLog))).isEmpty, "a duplicate ack changes nothing")
    #expect(phone.handle(.received(.ack(9, ofLog: 0x999))).isEmpty, "an ack of another log changes nothing")
    #expect(
      phone.handle(.received(.ack(9, ofLog: phoneLog))) == [.persistAck(9), .sendEntries(fromSeq: 10, throughSeq: 12)])
  }

  @Test func receivedEntriesAreAppliedThenAcknowledged() {
    var phone = machine(.listener)
    var watch = machine(.connector)
    _ = connect(&phone, &watch)
    let entries = [SyncEntry(seq: 1, payload: .watchSettings(bundleID: "a", change: .reset))]
    #expect(watch.handle(.received(.entries(entries))) == [.apply(entries)])
    #expect(withoutChecks(watch.handle(.applied(upTo: 1))) == [.send(.ack(1, ofLog: phoneLog))])
    // A re-delivery is applied again (the engine ignores it) and acknowledged again.
    #expect(watch.handle(.received(.entries(entries))) == [.apply(entries)])
    #expect(withoutChecks(watch.handle(.applied(upTo: 1))) == [.send(.ack(1, ofLog: phoneLog))])
    // A gap closes the link rather than applying out of order.
    let gap = [SyncEntry(seq: 5, payload: .watchSettings(bundleID: "a", change: .reset))]
    guard case .close = watch.handle(.received(.entries(gap))).first else {
      Issue.record("a gap must close")
      return
    }
  }

  @Test func pipelinedEntriesBeforeTheFirstIsAppliedAreNotAGap() {
    var phone = machine(.listener)
    var watch = machine(.connector)
    _ = connect(&phone, &watch)
    let one = [SyncEntry(seq: 1, payload: .watchSettings(bundleID: "a", change: .reset))]
    let two = [SyncEntry(seq: 2, payload: .watchSettings(bundleID: "a", change: .turnAllOff))]
    #expect(watch.handle(.received(.entries(one))) == [.apply(one)])
    #expect(watch.handle(.received(.entries(two))) == [.apply(two)], "entry 2 follows entry 1, which is being applied")
    #expect(withoutChecks(watch.handle(.applied(upTo: 2))) == [.send(.ack(2, ofLog: phoneLog))])
    // After a reconnect only what was really applied counts.
    _ = watch.handle(.closed)
    var phone2 = machine(.listener, lastSeq: 5)
    _ = connect(&phone2, &watch)
    let five = [SyncEntry(seq: 5, payload: .watchSettings(bundleID: "a", change: .reset))]
    guard case .close = watch.handle(.received(.entries(five))).first else {
      Issue.record("a real gap must close")
      return
    }
  }

  @Test func holdQueuesAndReleaseResumes() {
    var phone = machine(.listener)
    var watch = machine(.connector)
    _ = connect(&phone, &watch)
    #expect(phone.handle(.control(.hold)).isEmpty)
    #expect(phone.handle(.localAppended(lastSeq: 2)).isEmpty)
    #expect(phone.handle(.control(.release)) == [.sendEntries(fromSeq: 1, throughSeq: 2)])
  }

  @Test func disconnectClosesAndRefusesUntilConnect() {
    var phone = machine(.listener)
    var watch = machine(.connector)
    _ = connect(&phone, &watch)
    #expect(watch.handle(.control(.disconnect)) == [.close(reason: "link disconnected by request")])
    #expect(watch.handle(.closed) == [.linkChanged(connected: false)], "no reconnect while disconnected")
    #expect(watch.handle(.reconnectTimer).isEmpty)
    #expect(watch.handle(.control(.connect)) == [.connect])
    var listener = machine(.listener)
    _ = listener.handle(.control(.disconnect))
    #expect(listener.handle(.opened(nonce: nonceA)) == [.close(reason: "the link is disconnected")])
  }

  @Test func reconnectBacksOffAndResetsAfterSuccess() {
    var watch = machine(.connector)
    #expect(watch.handle(.closed) == [.scheduleReconnect(after: 0.002)])
    #expect(watch.handle(.reconnectTimer) == [.connect])
    #expect(watch.handle(.closed) == [.scheduleReconnect(after: 0.004)])
    #expect(watch.handle(.reconnectTimer) == [.connect])
    for _ in 0..<10 {
      _ = watch.handle(.closed)
      _ = watch.handle(.reconnectTimer)
    }
    #expect(watch.handle(.closed) == [.scheduleReconnect(after: 0.1)], "capped")
    #expect(watch.handle(.control(.reconnectNow)) == [.connect])
    var phone = machine(.listener)
    _ = connect(&phone, &watch)
    #expect(watch.handle(.closed) == [.linkChanged(connected: false), .scheduleReconnect(after: 0.002)])
  }

  @Test func afterAReconnectSendingRestartsFromWhatThePeerApplied() {
    var phone = machine(.listener, lastSeq: 3)
    var watch = machine(.connector)
    _ = connect(&phone, &watch)
    _ = phone.handle(.closed)
    _ = watch.handle(.closed)
    // The watch applied 1 before the drop; the phone's unacknowledged 2…3 go again.
    _ = watch.handle(.applied(upTo: 1))
    let (p, _) = connect(&phone, &watch)
    #expect(p.contains(.sendEntries(fromSeq: 2, throughSeq: 3)))
  }

  @Test func protocolViolationsClose() {
    var phone = machine(.listener, lastSeq: 2)
    var watch = machine(.connector)
    _ = connect(&phone, &watch)
    guard case .close = phone.handle(.received(.ack(99, ofLog: phoneLog))).first else {
      Issue.record("ack beyond the log must close")
      return
    }
    guard case .close = phone.handle(.received(.resume(appliedUpTo: 0, ofLog: watchLog, myLog: phoneLog))).first else {
      Issue.record("a second resume must close")
      return
    }
    var phone3 = machine(.listener)
    _ = phone3.handle(.opened(nonce: nonceA))
    guard case .close = phone3.handle(.opened(nonce: nonceB)).first else {
      Issue.record("a second transport must close")
      return
    }
  }

  @Test func aWrongDeviceOrVersionIsRefused() {
    var watch = machine(.connector)
    _ = watch.handle(.opened(nonce: nonceB))
    guard case .close(let r1) = watch.handle(.received(.challenge(version: 99, device: .phone, nonce: nonceA))).first
    else {
      Issue.record("version")
      return
    }
    #expect(r1.contains("version"))
    var watch2 = machine(.connector)
    _ = watch2.handle(.opened(nonce: nonceB))
    guard
      case .close(let r2) = watch2.handle(
        .received(.challenge(version: WireProtocol.version, device: .watch, nonce: nonceA))
      ).first
    else {
      Issue.record("device")
      return
    }
    #expect(r2.contains("expected the phone"))
  }
}

/// Delivers messages between two connected machines until both are quiet, performing the shell's part of each
/// directive the way the daemon does (restart a log, adopt a peer log, apply entries from a model log, evaluate
/// store checks with `differ` deciding whether the stores differ). Returns every directive produced.
struct LinkedPair {
  var phone: SyncMachine
  var watch: SyncMachine
  /// Each side's outbound log length (its entries are opaque here).
  var phoneLog: [UInt64: UInt64] = [:]
  var differ: () -> String? = { nil }
  var restarts: [DeviceKind: Int] = [:]
  var adoptions: [DeviceKind: [UInt64]] = [:]
  /// Logs adopted as the answer to this side's re-send request.
  var answers: [DeviceKind: [UInt64]] = [:]
  /// Re-send requests journaled.
  var requests: [DeviceKind: Int] = [:]
  var concluded: [DeviceKind: [SyncCheckResult.Outcome]] = [:]
  var nextLogID: UInt64 = 0x1000

  mutating func run(phoneFirst p: [SyncMachine.Directive], watchFirst w: [SyncMachine.Directive]) {
    var queue: [(to: DeviceKind, message: PeerMessage)] = []
    func perform(_ device: DeviceKind, _ directives: [SyncMachine.Directive], _ self_: inout LinkedPair) {
      for directive in directives {
        switch directive {
        case .send(let m): queue.append((device.peer, m))
        case .sendEntries(let from, let through):
          queue.append(
            (
              device.peer,
              .entries(
                (from...through).map { SyncEntry(seq: $0, payload: .watchSettings(bundleID: "x", change: .reset)) })
            ))
        case .apply(let entries):
          let next = self_.handle(device, .applied(upTo: entries.last!.seq))
          perform(device, next, &self_)
        case .restartLog:
          self_.restarts[device, default: 0] += 1
          self_.nextLogID += 1
          let next = self_.handle(device, .logRestarted(logID: self_.nextLogID, lastSeq: 2))
          perform(device, next, &self_)
        case .adoptPeerLog(let id): self_.adoptions[device, default: []].append(id)
        case .adoptResentLog(let id):
          self_.adoptions[device, default: []].append(id)
          self_.answers[device, default: []].append(id)
        case .requestResend: self_.requests[device, default: 0] += 1
        case .sendCheck(let cursors):
          queue.append((device.peer, .check(SyncCheck(cursors: cursors, firstDay: .min, days: []))))
        case .evaluateCheck(let check):
          let next = self_.handle(device, .checkEvaluated(check, difference: self_.differ()))
          perform(device, next, &self_)
        case .checkConcluded(let outcome, _): self_.concluded[device, default: []].append(outcome)
        default: break
        }
      }
    }
    perform(.phone, p, &self)
    perform(.watch, w, &self)
    var rounds = 0
    while !queue.isEmpty && rounds < 1000 {
      rounds += 1
      let (to, message) = queue.removeFirst()
      let directives = handle(to, .received(message))
      perform(to, directives, &self)
    }
  }

  mutating func handle(_ device: DeviceKind, _ input: SyncMachine.Input) -> [SyncMachine.Directive] {
    device == .phone ? phone.handle(input) : watch.handle(input)
  }

  mutating func connect() {
    let p = phone.handle(.opened(nonce: nonceA))
    let w = watch.handle(.opened(nonce: nonceB))
    run(phoneFirst: p, watchFirst: w)
  }
}

@Suite("Sync healing: log identities, restarts and store checks")
struct SyncHealingTests {
  @Test func aCursorPastTheEndOfThisLogRestartsItAndThePeerAdoptsTheNewLog() {
    // The watch applied 20 entries of the phone's log; the phone's journal lost records and has only 8.
    var pair = LinkedPair(phone: machine(.listener, lastSeq: 8, acked: 8), watch: machine(.connector, applied: 20))
    pair.connect()
    #expect(pair.restarts[.phone] == 1, "the phone restarts its log instead of refusing the link")
    #expect(pair.adoptions[.watch] == [pair.phone.logID], "the watch adopts the new log in band")
    // What the phone's journal lost may include its own changes the watch applied: it asks for them back.
    #expect(pair.requests[.phone] == 1 && pair.restarts[.watch] == 1, "the watch re-sends everything it holds")
    #expect(pair.answers[.phone] == [pair.watch.logID] && !pair.phone.resendRequested)
    #expect(pair.watch.peerLogID == pair.phone.logID && pair.phone.logID != phoneLog)
    #expect(pair.watch.appliedFromPeer == 2, "the re-sent log was applied from its first entry")
    #expect(pair.phone.isConnected && pair.watch.isConnected, "no flapping")
    #expect(pair.phone.isVerified && pair.watch.isVerified, "a store check confirmed the pair afterwards")
  }

  @Test func aPeerThatForgotAcknowledgedEntriesMakesThisSideRestart() {
    // The phone had entries up to 30 acknowledged (and dropped); the watch's journal lost records: it resumes at 12.
    var pair = LinkedPair(phone: machine(.listener, lastSeq: 30, acked: 30), watch: machine(.connector, applied: 12))
    pair.connect()
    #expect(pair.restarts[.phone] == 1)
    #expect(pair.watch.appliedFromPeer == 2)
  }

  @Test func aSideWhoseJournalLostRecordsGetsThePeersWholeStoreEvenFromALogWithNothingAcknowledged() {
    // The watch's journal was cut at start; the phone's log has nothing acknowledged, so a resume from 0 alone would
    // only send that log again — not the watch's own deletions the phone applied (healthpair simulate --seed 4900).
    var pair = LinkedPair(phone: machine(.listener, lastSeq: 3), watch: machine(.connector, applied: 3, resend: true))
    pair.connect()
    #expect(pair.restarts[.phone] == 1, "the phone restarts its log: a re-send of everything it holds")
    #expect(pair.restarts[.watch] == nil && pair.requests[.phone] == nil)
    #expect(pair.answers[.watch] == [pair.phone.logID] && !pair.watch.resendRequested, "the new log answers it")
    #expect(pair.watch.appliedFromPeer == 2, "the re-sent log was applied from its first entry")
    #expect(pair.phone.isVerified && pair.watch.isVerified)
  }

  @Test func theRequestGoesOutAfterEveryResumeUntilANewLogAnswersIt() {
    var phone = machine(.listener, lastSeq: 3)
    var watch = machine(.connector, applied: 3, resend: true)
    let (p, w) = connect(&phone, &watch)
    let resume = PeerMessage.resume(appliedUpTo: 3, ofLog: phoneLog, myLog: watchLog)
    #expect(sent(w).filter { $0 == resume || $0 == .resendAll } == [resume, .resendAll], "resume first, then ask")
    #expect(p.contains { if case .restartLog = $0 { true } else { false } })
    #expect(!watch.isVerified, "never verified while the request is unanswered (digests do not cover deletions)")
    // The link drops before the phone's new log arrives: the request stands and goes out again.
    _ = phone.handle(.closed)
    _ = watch.handle(.closed)
    #expect(watch.resendRequested)
    var phone2 = machine(.listener, lastSeq: 3)
    let (_, again) = connect(&phone2, &watch)
    #expect(sent(again).contains(.resendAll))
    #expect(!again.contains { if case .sendCheck = $0 { true } else { false } }, "no store check meanwhile")
    #expect(watch.handle(.received(.newLog(0x901))) == [.adoptResentLog(0x901)])
    #expect(!watch.resendRequested)
    #expect(watch.handle(.received(.newLog(0x902))) == [.adoptPeerLog(0x902)], "a later new log is an ordinary one")
    // Adopting a log the peer's resume names does not answer a request: that log may be older than the request.
    var watch3 = machine(.connector, applied: 3, peerLog: 0x55, resend: true)
    var phone3 = machine(.listener, lastSeq: 3)
    let (_, w3) = connect(&phone3, &watch3)
    #expect(w3.contains(.adoptPeerLog(phoneLog)) && watch3.resendRequested)
  }

  @Test func aRequestBeforeTheResumeIsAProtocolViolation() {
    var phone = machine(.listener)
    _ = phone.handle(.opened(nonce: nonceA))
    guard case .close = phone.handle(.received(.resendAll)).first else {
      Issue.record("resendAll while authenticating must close")
      return
    }
  }

  @Test func aCursorIntoAnOlderLogCountsAsNothingApplied() {
    // The watch still counts in the phone's previous log; the phone has nothing acknowledged yet: send from 1.
    var phone = machine(.listener, lastSeq: 3)
    var watch = machine(.connector, applied: 7, peerLog: 0x55)
    let (p, w) = connect(&phone, &watch)
    #expect(w.contains(.adoptPeerLog(phoneLog)))
    #expect(p.contains(.sendEntries(fromSeq: 1, throughSeq: 3)))
    #expect(!p.contains { if case .restartLog = $0 { true } else { false } })
    #expect(watch.appliedFromPeer == 0)
  }

  @Test func aNewLogInBandResetsTheCursorAndLaterEntriesApply() {
    var phone = machine(.listener)
    var watch = machine(.connector, applied: 5)
    _ = connect(&phone, &watch)
    #expect(watch.handle(.received(.newLog(0x777))) == [.adoptPeerLog(0x777)])
    let one = [SyncEntry(seq: 1, payload: .watchSettings(bundleID: "a", change: .reset))]
    #expect(watch.handle(.received(.entries(one))) == [.apply(one)])
    #expect(withoutChecks(watch.handle(.applied(upTo: 1))) == [.send(.ack(1, ofLog: 0x777))])
  }

  @Test func aRestartedLogAnnouncesItselfAndSendsFromOne() {
    var phone = machine(.listener, lastSeq: 4, acked: 4)
    var watch = machine(.connector, applied: 4)
    _ = connect(&phone, &watch)
    let d = phone.handle(.logRestarted(logID: 0x900, lastSeq: 3))
    #expect(d == [.send(.newLog(0x900)), .sendEntries(fromSeq: 1, throughSeq: 3)])
    #expect(phone.cursors.log == 0x900 && phone.ackedUpTo == 0)
  }

  @Test func theConnectorChecksWhenCaughtUpAndAMatchVerifiesBothSides() {
    var pair = LinkedPair(phone: machine(.listener, lastSeq: 3), watch: machine(.connector))
    pair.connect()
    #expect(pair.concluded[.phone] == [.match] && pair.concluded[.watch] == [.match])
    #expect(pair.phone.isVerified && pair.watch.isVerified)
    // A new local entry un-verifies until the next check.
    _ = pair.phone.handle(.control(.hold))
    _ = pair.phone.handle(.localAppended(lastSeq: 4))
    #expect(!pair.phone.isVerified)
  }

  @Test func aMismatchMakesBothSidesResendThenGivesUpAfterTheLimit() {
    var pair = LinkedPair(phone: machine(.listener, lastSeq: 2), watch: machine(.connector, lastSeq: 2))
    pair.differ = { "stores differ on 2026-11-30: 3 samples here, 2 on the watch" }
    pair.connect()
    let limit = SyncMachine.Settings().maxRepairs
    #expect(pair.restarts[.phone] == limit && pair.restarts[.watch] == limit, "each failed check re-sends both stores")
    #expect(pair.phone.isDiverged && pair.watch.isDiverged)
    #expect(!pair.phone.isVerified && !pair.watch.isVerified, "never reported as verified while the stores differ")
    // Once the stores agree, the next check passes and the pair is no longer diverged.
    pair.differ = { nil }
    let p = pair.phone.handle(.control(.hold))
    pair.run(
      phoneFirst: p + pair.phone.handle(.control(.release)), watchFirst: pair.watch.handle(.localAppended(lastSeq: 3)))
    #expect(!pair.phone.isDiverged && pair.phone.isVerified && pair.watch.isVerified)
  }

  @Test func oneStoreCheckIsInFlightAtATimeAndTheNextGoesWithItsResult() throws {
    var pair = LinkedPair(phone: machine(.listener, lastSeq: 3), watch: machine(.connector))
    pair.connect()
    #expect(pair.watch.isVerified)
    func entry(_ seq: UInt64) -> [SyncEntry] {
      [SyncEntry(seq: seq, payload: .watchSettings(bundleID: "x", change: .reset))]
    }
    // The phone logs entries 4–6 (what it sends is delivered by hand below).
    _ = pair.phone.handle(.localAppended(lastSeq: 6))
    // Entry 4 applied: acknowledged, and a check of the new cursors goes out.
    #expect(pair.watch.handle(.received(.entries(entry(4)))) == [.apply(entry(4))])
    let first = pair.watch.handle(.applied(upTo: 4))
    let checked = pair.watch.cursors
    #expect(first == [.send(.ack(4, ofLog: phoneLog)), .sendCheck(checked)])
    // Entry 5 applied before that check's result: acknowledged at once, no second check while one is in flight.
    _ = pair.watch.handle(.received(.entries(entry(5))))
    #expect(pair.watch.handle(.applied(upTo: 5)) == [.send(.ack(5, ofLog: phoneLog))])
    // The result verifies what it checked (now old), and the check of the current cursors goes with it.
    let result = SyncCheckResult(outcome: .match, checked: checked, detail: "")
    let next = pair.watch.handle(.received(.checkResult(result)))
    #expect(next == [.checkConcluded(.match, detail: ""), .sendCheck(pair.watch.cursors)])
    #expect(!pair.watch.isVerified, "verified at entry 4, not 5")
    // Its result, a match, verifies the watch at the current cursors; nothing more is sent.
    let last = pair.watch.handle(
      .received(.checkResult(SyncCheckResult(outcome: .match, checked: pair.watch.cursors, detail: ""))))
    #expect(last == [.checkConcluded(.match, detail: "")])
    #expect(pair.watch.isVerified)
    // A connection closed with a check in flight forgets it: the next connection checks again.
    _ = pair.watch.handle(.received(.entries(entry(6))))
    #expect(pair.watch.handle(.applied(upTo: 6)).contains { if case .sendCheck = $0 { true } else { false } })
    _ = pair.watch.handle(.closed)
    _ = pair.phone.handle(.closed)
    pair.connect()
    #expect(pair.phone.isVerified && pair.watch.isVerified)
  }

  @Test func aCheckThatIsNoLongerComparableConcludesNothing() {
    var phone = machine(.listener, lastSeq: 3)
    var watch = machine(.connector, applied: 3)
    _ = connect(&phone, &watch)
    let stale = SyncCheck(
      cursors: SyncCursors(log: watchLog, lastSeq: 0, peerLog: phoneLog, applied: 1), firstDay: .min, days: [])
    let d = phone.handle(.checkEvaluated(stale, difference: "anything"))
    let outcomes = sent(d).compactMap { message -> SyncCheckResult.Outcome? in
      if case .checkResult(let r) = message { return r.outcome }
      return nil
    }
    #expect(outcomes == [.notComparable])
    #expect(phone.failedChecks == 0)
  }

  @Test func anInvalidLatencyNeverReachesTheTimers() {
    var phone = machine(.listener)
    for bad in [Double.infinity, -.infinity, .nan, -1, 300_000 * 86_400, 1e300] {
      _ = phone.handle(.control(.latency(bad)))
      #expect(phone.latency == 0, "\(bad)")
    }
    _ = phone.handle(.control(.latency(2)))
    #expect(phone.latency == 2)
  }
}
