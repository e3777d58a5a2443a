import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Sync
@testable import Wire

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
