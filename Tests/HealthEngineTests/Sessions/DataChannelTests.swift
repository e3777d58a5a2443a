import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

func bytes(_ count: Int, _ fill: UInt8 = 1) -> Data { Data(repeating: fill, count: count) }

extension SessionPair {
  /// Sends `data` from `id` on `device` and carries the message; the send's result and what both sides did.
  mutating func send(_ data: Data, from id: WorkoutSessionID, on device: DeviceKind, at now: Date)
    -> (result: Result<SentData, HealthError>, directives: [(DeviceKind, SessionDirective)])
  {
    let result = device == .watch ? watch.send(data, from: id, at: now) : phone.send(data, from: id, at: now)
    guard case .success(let sent) = result else { return (result, []) }
    return (result, pump(sent.directives, from: device, at: now))
  }

  /// The completions among `directives`.
  static func completions(_ directives: [(DeviceKind, SessionDirective)]) -> [HealthError?] {
    directives.compactMap {
      if case .sendCompleted(_, _, _, let error) = $0.1 { return error }
      return nil
    }
  }

  /// The data arrays delivered on `device`.
  static func received(_ directives: [(DeviceKind, SessionDirective)], on device: DeviceKind) -> [[Data]] {
    heard(directives, on: device).compactMap {
      if case .didReceiveData(let data) = $0 { return data }
      return nil
    }
  }
}

@Suite("Workout sessions: the remote data channel (workouts.md §3.3)")
struct DataChannelTests {
  @Test func dataGoesBothWaysInOrderWithCompletions() {
    var pair = SessionPair()
    let (primary, mirrored) = pair.mirroredRun()
    pair.watch.setDelegate(primary, present: true)
    pair.phone.setDelegate(mirrored, present: true)
    let first = pair.send(bytes(10, 1), from: primary, on: .watch, at: at(10))
    let second = pair.send(bytes(10, 2), from: primary, on: .watch, at: at(11))
    #expect(SessionPair.received(first.directives + second.directives, on: .phone) == [[bytes(10, 1)], [bytes(10, 2)]])
    #expect(SessionPair.completions(first.directives + second.directives) == [nil, nil])
    let back = pair.send(bytes(5, 9), from: mirrored, on: .phone, at: at(12))
    #expect(SessionPair.received(back.directives, on: .watch) == [[bytes(5, 9)]])
    #expect(SessionPair.completions(back.directives) == [nil])
  }

  @Test func aReceiverWithoutADelegateAnswersCode3() {
    var pair = SessionPair()
    let (primary, mirrored) = pair.mirroredRun()
    let sent = pair.send(bytes(3), from: primary, on: .watch, at: at(10))
    #expect(SessionPair.completions(sent.directives).first??.message == "Remote session delegate is not set up.")
    pair.phone.setDelegate(mirrored, present: true)
    let again = pair.send(bytes(3), from: primary, on: .watch, at: at(11))
    #expect(SessionPair.completions(again.directives) == [nil])
  }

  @Test func aNotStartedPrimaryRefusesDataFromThePhone() throws {
    var pair = SessionPair()
    let id = pair.watch.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    pair.watch.setDelegate(id, present: true)
    let mirrored = try #require(
      SessionPair.handed(pair.pump(pair.watch.startMirroring(id).directives, from: .watch, at: at(0))).first)
    let sent = pair.send(bytes(3), from: mirrored, on: .phone, at: at(1))
    #expect(SessionPair.completions(sent.directives).first??.code == .errorInvalidArgument)
  }

  @Test func sendingWhileNotMirroringOrEmptyFails() {
    var pair = SessionPair()
    let lone = pair.watch.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    _ = pair.watch.apply(.startActivity(at(0)), to: lone, at: at(0))
    #expect(
      pair.watch.send(bytes(3), from: lone, at: at(1))
        == .failure(
          .healthKit(
            .errorInvalidArgument, "Workout session is not currently mirroring to the companion device.")))
    let (primary, mirrored) = pair.mirroredRun()
    #expect(pair.watch.send(Data(), from: primary, at: at(5)) == .failure(.healthKit(.errorNoData, "No data to send.")))
    _ = pair.link(up: false, at: at(6))
    guard case .failure(let error) = pair.phone.send(bytes(3), from: mirrored, at: at(7)) else {
      Issue.record("the dead mirrored object cannot send")
      return
    }
    #expect(error.code == .errorInvalidArgument)
    guard case .failure = pair.watch.send(bytes(3), from: primary, at: at(7)) else {
      Issue.record("the primary cannot send while the link is down")
      return
    }
  }

  @Test func theRateLimitIs100KBInAnySlidingTenSeconds() {
    var pair = SessionPair()
    let (primary, mirrored) = pair.mirroredRun()
    pair.phone.setDelegate(mirrored, present: true)
    let half = RemoteDataChannel.limit / 2
    #expect(pair.send(bytes(half), from: primary, on: .watch, at: at(0)).result.isSuccess)
    #expect(pair.send(bytes(half), from: primary, on: .watch, at: at(5)).result.isSuccess)
    let over = pair.send(bytes(1), from: primary, on: .watch, at: at(9.9))
    guard case .failure(let error) = over.result else {
      Issue.record("expected code 13")
      return
    }
    #expect(error.code == .errorDataSizeExceeded)
    #expect(over.directives.isEmpty, "a refused send sends nothing")
    #expect(pair.send(bytes(half), from: primary, on: .watch, at: at(10)).result.isSuccess, "the first left the window")
    #expect(!pair.send(bytes(1), from: primary, on: .watch, at: at(14)).result.isSuccess, "sliding, not fixed")
    #expect(
      pair.send(bytes(RemoteDataChannel.limit / 2), from: mirrored, on: .phone, at: at(14)).result.isSuccess,
      "each side has its own budget")
    #expect(!pair.send(bytes(RemoteDataChannel.limit + 1), from: mirrored, on: .phone, at: at(100)).result.isSuccess)
  }

  @Test func aSuspendedAppGetsTheBufferedDataAsOneArrayInOrderWhenItResumes() {
    var pair = SessionPair()
    let (primary, mirrored) = pair.mirroredRun()
    pair.phone.setDelegate(mirrored, present: true)
    _ = pair.phone.setRunState(watchApp, .suspended)
    var heard: [[Data]] = []
    for index in 0..<3 {
      let sent = pair.send(bytes(4, UInt8(index)), from: primary, on: .watch, at: at(Double(10 + index)))
      heard += SessionPair.received(sent.directives, on: .phone)
      #expect(SessionPair.completions(sent.directives) == [nil], "buffered counts as delivered")
    }
    #expect(heard.isEmpty)
    _ = pair.pump(pair.watch.apply(.pause, to: primary, at: at(20)), from: .watch, at: at(20))
    let resumed = pair.phone.setRunState(watchApp, .background).map { (DeviceKind.phone, $0) }
    #expect(SessionPair.received(resumed, on: .phone) == [[bytes(4, 0), bytes(4, 1), bytes(4, 2)]])
    #expect(changes(SessionPair.heard(resumed, on: .phone)) == ["running→paused"], "then the state change")
  }
}

extension Result {
  var isSuccess: Bool {
    if case .success = self { return true }
    return false
  }
}
