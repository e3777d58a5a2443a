import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Sync
@testable import Wire

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

  @Test func aStatusCommandChangesNothing() {
    var watch = machine(.connector)
    #expect(watch.handle(.closed) == [.scheduleReconnect(after: 0.002)])
    #expect(watch.handle(.control(.status)) == [], "idle with a reconnect scheduled: no connection now")
    var phone = machine(.listener)
    _ = connect(&phone, &watch)
    #expect(phone.handle(.control(.status)) == [] && watch.handle(.control(.status)) == [])
    #expect(phone.isConnected && watch.isConnected)
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
