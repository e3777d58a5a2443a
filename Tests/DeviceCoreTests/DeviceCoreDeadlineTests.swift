import DeviceCore
import HealthEngine
import HealthModel
import Sync
import Testing
import Wire

/// The instants the `timer` is armed at in `actions` (nil: disarmed), in order.
func armed(_ timer: DeviceCore.Timer, in actions: [DeviceCore.Action]) -> [UInt64?] {
  actions.compactMap {
    guard case .armTimer(timer, let due) = $0 else { return nil }
    return .some(due)
  }
}

/// The log lines in `actions`, as `message key=value …`.
func logLines(_ actions: [DeviceCore.Action]) -> [String] {
  actions.compactMap {
    guard case .log(_, let message, let fields) = $0 else { return nil }
    return ([message] + fields.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
  }
}

/// The connections `actions` close after their queued bytes.
func closed(_ actions: [DeviceCore.Action]) -> [UInt64] {
  actions.compactMap { if case .closeAfterFlush(let id) = $0 { id } else { nil } }
}

/// One second of the monotonic clock, in nanoseconds.
let second: UInt64 = 1_000_000_000

@Suite("Device core: deadlines")
struct DeadlineTests {
  @Test("a client that says hello in time is kept at its deadline")
  func helloInTime() {
    var h = Harness(armsTimers: true, helloTimeout: 1.5)
    let accepted = h.turn(.accepted(connection: 5, pid: 77, at: 10 * second))
    #expect(armed(.hello, in: accepted) == [10 * second + 1_500_000_000])
    h.request(5, .hello(version: WireProtocol.version, client: "app"), id: 0)
    let due = h.turn(.timer(.hello, at: 10 * second + 1_500_000_000))
    #expect(kinds(due) == ["armTimer"])
    #expect(armed(.hello, in: due) == [nil])
    #expect(h.core.sessions[5]?.closing == false)
  }

  @Test("a client that does not say hello is told and closed at its deadline, not before")
  func helloMissed() {
    var h = Harness(armsTimers: true, helloTimeout: 1.5)
    h.turn(.accepted(connection: 5, pid: 77, at: 10 * second))
    let deadline = 10 * second + 1_500_000_000
    let early = h.turn(.timer(.hello, at: deadline - 1))
    #expect(closed(early).isEmpty && frames(to: 5, in: early).isEmpty)
    #expect(armed(.hello, in: early) == [deadline])
    let due = h.turn(.timer(.hello, at: deadline))
    #expect(logLines(due) == ["closing client: no hello within 1.5 s client=5 pid=77"])
    #expect(failure(to: 5, in: due)?.contains("no hello within 1.5 s; closing the connection") == true)
    #expect(closed(due) == [5])
    #expect(armed(.hello, in: due) == [nil])
    // Told once: a later timer sends nothing more.
    #expect(closed(h.turn(.timer(.hello, at: deadline + second))).isEmpty)
  }

  @Test("several clients' deadlines fire in accept order, each at its own instant")
  func severalHellos() {
    var h = Harness(armsTimers: true, helloTimeout: 2)
    #expect(armed(.hello, in: h.turn(.accepted(connection: 1, at: 0))) == [2 * second])
    // Only the oldest deadline is armed; later ones wait behind it.
    #expect(armed(.hello, in: h.turn(.accepted(connection: 2, at: second))).isEmpty)
    #expect(armed(.hello, in: h.turn(.accepted(connection: 3, at: 2 * second))).isEmpty)
    h.turn(.accepted(connection: 4, at: 2 * second))
    h.request(2, .hello(version: WireProtocol.version, client: "app"), id: 0)
    h.turn(.closed(connection: 4))
    let first = h.turn(.timer(.hello, at: 2 * second))
    #expect(closed(first) == [1])
    #expect(armed(.hello, in: first) == [3 * second])
    let second2 = h.turn(.timer(.hello, at: 3 * second))
    #expect(closed(second2).isEmpty)
    #expect(armed(.hello, in: second2) == [4 * second])
    let third = h.turn(.timer(.hello, at: 4 * second))
    #expect(closed(third) == [3])
    #expect(armed(.hello, in: third) == [nil])
    #expect(h.core.sessions[2]?.closing == false)
  }

  @Test("a client already being closed, or gone, gets nothing at its deadline")
  func helloClosing() {
    var h = Harness(armsTimers: true, helloTimeout: 1)
    h.turn(.accepted(connection: 5, at: 0))
    h.turn(.accepted(connection: 6, at: 0))
    h.turn(.accepted(connection: 7, at: 0))
    h.turn(.closing(connection: 5))
    h.request(6, .ping)  // refused before hello: closed after the reply
    h.turn(.closed(connection: 7))
    let due = h.turn(.timer(.hello, at: second))
    #expect(closed(due).isEmpty && logLines(due).isEmpty)
  }

  @Test("without the real clock's timers nothing is armed")
  func noTimers() {
    var h = Harness(armsTimers: false)
    #expect(armed(.hello, in: h.turn(.accepted(connection: 5, at: 0))).isEmpty)
  }

  static let secret = [UInt8](repeating: 0x5A, count: 32)

  @Test("a peer connection that does not complete the handshake is closed at its deadline, not before")
  func handshakeMissed() {
    var h = Harness(hasPeer: true, armsTimers: true, secret: Self.secret)
    h.turn(.start)
    let opened = h.turn(.peerOpened(nonce: [UInt8](repeating: 1, count: 32), pid: 9, at: 5 * second))
    #expect(armed(.handshake, in: opened) == [7 * second])
    #expect(kinds(opened).contains("peerSend"))  // the challenge
    let early = h.turn(.timer(.handshake, at: 7 * second - 1))
    #expect(!kinds(early).contains("peerClose") && logLines(early).isEmpty)
    let due = h.turn(.timer(.handshake, at: 7 * second))
    #expect(
      logLines(due).first == "peer connection did not complete the pairing handshake within 2 s; closing it pid=9")
    let reasons = due.compactMap { if case .peerClose(let reason) = $0 { reason } else { nil } }
    #expect(reasons == ["handshake not completed within 2 s"])
    #expect(h.core.handshakeDeadline == nil)
    #expect(!kinds(h.turn(.timer(.handshake, at: 8 * second))).contains("peerClose"))
  }

  @Test("a peer connection that closes before its deadline leaves no deadline armed")
  func handshakeClosed() {
    var h = Harness(hasPeer: true, armsTimers: true, secret: Self.secret)
    h.turn(.start)
    h.turn(.peerOpened(nonce: [UInt8](repeating: 1, count: 32), pid: nil, at: 0))
    #expect(armed(.handshake, in: h.turn(.peer(.closed))) == [nil])
    #expect(h.core.handshakeDeadline == nil)
    #expect(!kinds(h.turn(.timer(.handshake, at: 2 * second))).contains("peerClose"))
  }

  @Test("a peer connection that completes the handshake in time is kept, its deadline disarmed")
  func handshakeInTime() {
    var phone = Harness(device: .phone, hasPeer: true, armsTimers: true, secret: Self.secret)
    var watch = Harness(device: .watch, hasPeer: true, armsTimers: true, secret: Self.secret)
    phone.turn(.start)
    watch.turn(.start)
    var phoneActions = phone.turn(.peerOpened(nonce: [UInt8](repeating: 1, count: 32), pid: 9, at: 0))
    var watchActions = watch.turn(.peerOpened(nonce: [UInt8](repeating: 2, count: 32), pid: nil, at: 0))
    var allPhone = phoneActions
    for _ in 0..<16 {
      let toWatch = phoneActions.compactMap { if case .peerSend(let m, _) = $0 { m } else { nil } }
      let toPhone = watchActions.compactMap { if case .peerSend(let m, _) = $0 { m } else { nil } }
      if toWatch.isEmpty && toPhone.isEmpty { break }
      phoneActions = toPhone.flatMap { phone.turn(.peer(.received($0))) }
      watchActions = toWatch.flatMap { watch.turn(.peer(.received($0))) }
      allPhone += phoneActions
    }
    #expect(phone.core.peer.machine.isConnected && watch.core.peer.machine.isConnected)
    #expect(armed(.handshake, in: allPhone) == [2 * second, nil])
    #expect(phone.core.handshakeDeadline == nil && watch.core.handshakeDeadline == nil)
    #expect(!kinds(phone.turn(.timer(.handshake, at: 2 * second))).contains("peerClose"))
  }
}
