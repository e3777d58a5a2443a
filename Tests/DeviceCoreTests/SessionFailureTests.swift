import DeviceCore
import FoundationEssentials
import HealthEngine
import HealthModel
import Testing
import Wire

/// A request that fails after the sensor model ran (on the real clock, any call on a session measures up to now
/// first) still journals what was measured: the samples are in the store, so they must reach the journal and the
/// peer like any other change.
@Suite("Request core: a failed session call keeps what the sensors measured")
struct SessionFailureTests {
  static let run = AppRecord(
    bundleID: "com.example.run", displayName: "Run", writeUsageDescription: "w", readUsageDescription: "r")
  static let other = AppRecord(
    bundleID: "com.example.other", displayName: "Other", writeUsageDescription: nil, readUsageDescription: nil)
  static let heartRate = SampleType.lookup(name: "heartRate")!
  static let t0 = Date(timeIntervalSince1970: 1_767_600_000)

  static func context(_ wall: Date) -> RequestCore.Context {
    RequestCore.Context(
      wall: wall, hasPeer: false,
      link: LinkStatus(
        enabled: false, connected: false, holding: false, latency: 0,
        sync: DeviceSnapshot.SyncStatus(
          lastSeq: 0, peerAcked: 0, appliedFromPeer: 0, pendingEntries: 0, pendingItems: 0)),
      pid: 1, clients: 1)
  }

  /// The request's answer and effects, at `wall`.
  @discardableResult
  static func handle(_ request: Request, _ state: inout DeviceState, at wall: Date)
    -> (RequestCore.Answer, RequestCore.Effects)
  {
    let (answer, effects) = RequestCore.handle(request, state: &state, context: context(wall))
    return (answer, effects)
  }

  static func savedCount(_ events: [DeviceEvent]) -> Int {
    events.reduce(0) { count, event in
      if case .samplesSaved(let samples) = event {
        count + samples.count(where: { $0.type == heartRate })
      } else {
        count
      }
    }
  }

  @Test(arguments: [
    SessionCall.runState(.background), .recover, .status(WorkoutSessionID(uuid: UUID())),
  ])
  func aFailedWorldCallJournalsTheSamplesMeasuredBeforeIt(_ call: SessionCall) throws {
    var state = DeviceState(device: .watch)
    let types = [Self.heartRate, SampleType.lookup(name: "workout")!]
    Self.handle(.installApp(Self.run), &state, at: Self.t0)
    Self.handle(.installApp(Self.other), &state, at: Self.t0)
    Self.handle(.requestAuthorization(bundleID: Self.run.bundleID, share: types, read: types), &state, at: Self.t0)
    Self.handle(.answerPrompt(promptID: nil, bundleID: Self.run.bundleID, answer: .allowAll), &state, at: Self.t0)
    let configuration = WorkoutConfiguration(activityType: .running, location: .outdoor)
    let (created, _) = Self.handle(
      .workoutSession(bundleID: Self.run.bundleID, call: .create(uuid: UUID(), configuration: configuration)), &state,
      at: Self.t0)
    guard case .reply(.success(.sessionStatus(let status))) = created else {
      Issue.record("create failed: \(created)")
      return
    }
    for setup: SessionCall in [
      .builder(status.id), .command(status.id, .startActivity(Self.t0)),
      .beginCollection(status.id, Self.t0),
    ] {
      Self.handle(.workoutSession(bundleID: Self.run.bundleID, call: setup), &state, at: Self.t0)
    }
    // A minute later on the real clock, another app (no session of its own to recover or answer with; a session
    // nobody created) makes a call that fails after the sensors ran.
    let wall = Self.t0.addingTimeInterval(60)
    let (answer, effects) = Self.handle(.workoutSession(bundleID: Self.other.bundleID, call: call), &state, at: wall)
    guard case .reply(.failure) = answer else {
      Issue.record("expected a failure: \(answer)")
      return
    }
    #expect(Self.savedCount(effects.events) == 12, "a heart rate every 5 s for a minute, journaled")
  }
}
