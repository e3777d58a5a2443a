import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

let runnerID = "com.example.runner"
let rivalID = "com.example.rival"

/// Records a session's and its builder's delegate callbacks as short strings, in the order they arrive.
final class SessionRecorder: NSObject, HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate, @unchecked Sendable {
  let log = Mailbox<String>()

  func workoutSession(
    _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
    from fromState: HKWorkoutSessionState, date: Date
  ) {
    log.post("state \(fromState)->\(toState)")
  }

  func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {
    log.post("fail \((error as? HKError)?.code.rawValue ?? -1)")
  }

  func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent) {
    log.post("event \(event.type == .pause ? "pause" : event.type == .resume ? "resume" : "other")")
  }

  func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
    log.post("data")
  }

  func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) { log.post("builder event") }

  /// The next `count` entries.
  func next(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
    var entries: [String] = []
    for _ in 0..<count { entries.append(try await log.next(sourceLocation: sourceLocation)) }
    return entries
  }
}

/// A running configuration outdoors.
func outdoorRun() -> HKWorkoutConfiguration {
  let configuration = HKWorkoutConfiguration()
  configuration.activityType = .running
  configuration.locationType = .outdoor
  return configuration
}

extension HealthDevice {
  /// Installs the runner and its rival, both allowed to save workouts and read heart rate, energy and distance.
  func installRunners() async throws {
    for app in [runnerID, rivalID] {
      try install(app: app, name: app, writeUsage: "Saves your runs.", readUsage: "Shows your heart rate.")
      try await authorize(
        app, share: [HKObjectType.workoutType()],
        read: [heartRateType, HKQuantityType(.activeEnergyBurned), HKQuantityType(.distanceWalkingRunning)])
    }
  }
}

@Suite("HKWorkoutSession and HKLiveWorkoutBuilder, against real daemons")
struct WorkoutSessionTests {
  @Test func aSessionGoesThroughItsStatesAndTellsItsDelegateInOrder() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await pair.watch.installRunners()
      try await pair.watch.use(app: runnerID) {
        let store = HKHealthStore()
        let session = try HKWorkoutSession(healthStore: store, configuration: outdoorRun())
        #expect(session.state == .notStarted && session.type == .primary)
        #expect(session.workoutConfiguration.activityType == .running)
        let recorder = SessionRecorder()
        session.delegate = recorder
        let builder = session.associatedWorkoutBuilder()
        #expect(builder === session.associatedWorkoutBuilder())
        #expect(builder.workoutSession === session)
        session.prepare()
        #expect(try await recorder.next(1) == ["state notStarted->prepared"])
        session.startActivity(with: t0)
        #expect(try await recorder.next(1) == ["state prepared->running"])
        #expect(session.state == .running && session.startDate == t0)
        session.pause()
        #expect(try await recorder.next(2) == ["state running->paused", "event pause"])
        session.resume()
        #expect(try await recorder.next(2) == ["state paused->running", "event resume"])
        session.end()
        #expect(try await recorder.next(1) == ["state running->ended"])
        #expect(session.state == .ended && session.endDate != nil)
      }
    }
  }

  @Test func anotherAppsSessionEndsTheFirstWithCode8() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await pair.watch.installRunners()
      let first = SessionRecorder()
      let firstSession = try await pair.watch.use(app: runnerID) {
        let session = try HKWorkoutSession(healthStore: HKHealthStore(), configuration: outdoorRun())
        session.delegate = first
        session.startActivity(with: t0)
        #expect(try await first.next(1) == ["state notStarted->running"])
        return session
      }
      let second = SessionRecorder()
      let secondSession = try await pair.watch.use(app: rivalID) {
        let session = try HKWorkoutSession(healthStore: HKHealthStore(), configuration: outdoorRun())
        session.delegate = second
        session.startActivity(with: t0)
        return session
      }
      #expect(try await first.next(2) == ["fail 8", "state running->ended"])
      #expect(try await second.next(1) == ["state notStarted->running"])
      #expect(firstSession.state == .ended && secondSession.state == .running)
    }
  }

  @Test func startingFromTheBackgroundFailsWithCode14() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await pair.watch.installRunners()
      try await pair.watch.use(app: runnerID) {
        let session = try HKWorkoutSession(healthStore: HKHealthStore(), configuration: outdoorRun())
        let recorder = SessionRecorder()
        session.delegate = recorder
        try pair.watch.setRunState(.background, app: runnerID)
        session.startActivity(with: t0)
        #expect(try await recorder.next(1) == ["fail 14"])
        #expect(session.state == .notStarted)
        try pair.watch.setRunState(.foreground, app: runnerID)
        session.startActivity(with: t0)
        #expect(try await recorder.next(1) == ["state notStarted->running"])
      }
    }
  }

  @Test func mirroringAnEndedSessionAndSendingWithoutMirroringFailWithCode3() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await pair.watch.installRunners()
      try await pair.watch.use(app: runnerID) {
        let session = try HKWorkoutSession(healthStore: HKHealthStore(), configuration: outdoorRun())
        let recorder = SessionRecorder()
        session.delegate = recorder
        session.startActivity(with: t0)
        #expect(try await recorder.next(1) == ["state notStarted->running"])
        do {
          try await session.sendToRemoteWorkoutSession(data: Data([1]))
          Issue.record("sending while not mirroring succeeded")
        } catch {
          #expect(isHKError(error, .errorInvalidArgument))
        }
        session.end()
        #expect(try await recorder.next(1) == ["state running->ended"])
        let refused = Mailbox<Int>()
        session.startMirroringToCompanionDevice { success, error in
          refused.post(success ? 0 : (error as? HKError)?.code.rawValue ?? -1)
        }
        #expect(try await refused.next() == HKError.Code.errorInvalidArgument.rawValue)
      }
    }
  }

  @Test func theDataSourceCollectsItsTypesAndTheBuilderReportsThem() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await pair.watch.installRunners()
      try await pair.watch.use(app: runnerID) {
        let store = HKHealthStore()
        let session = try HKWorkoutSession(healthStore: store, configuration: outdoorRun())
        let builder = session.associatedWorkoutBuilder()
        let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: outdoorRun())
        #expect(source.typesToCollect.contains(heartRateType))
        source.disableCollection(for: HKQuantityType(.activeEnergyBurned))
        #expect(!source.typesToCollect.contains(HKQuantityType(.activeEnergyBurned)))
        builder.dataSource = source
        let recorder = SessionRecorder()
        session.delegate = recorder
        builder.delegate = recorder
        session.startActivity(with: t0)
        try await builder.beginCollection(at: t0)
        #expect(try await recorder.next(1) == ["state notStarted->running"])
        try pair.watch.advanceClock(by: 300)
        #expect(try await recorder.next(1) == ["data"])
        #expect(builder.elapsedTime == 300)
        #expect(builder.statistics(for: heartRateType)?.averageQuantity() != nil)
        #expect(builder.statistics(for: HKQuantityType(.activeEnergyBurned)) == nil)
        #expect(builder.startDate == t0)
        session.end()
        #expect(try await recorder.next(1) == ["state running->ended"])
        try await builder.endCollection(at: t0 + 300)
        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.duration == 300 && workout.workoutActivityType == .running)
        #expect(try pair.watch.storedWorkouts().map(\.uuid) == [workout.uuid])
      }
    }
  }

  @Test func aRecoveredSessionComesBackInItsStateAndNoneIsNil() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await pair.watch.installRunners()
      try await pair.watch.use(app: runnerID) {
        let store = HKHealthStore()
        #expect(try await store.recoverActiveWorkoutSession() == nil)
        let session = try HKWorkoutSession(healthStore: store, configuration: outdoorRun())
        let recorder = SessionRecorder()
        session.delegate = recorder
        session.startActivity(with: t0)
        #expect(try await recorder.next(1) == ["state notStarted->running"])
        let recovered = try #require(try await store.recoverActiveWorkoutSession())
        #expect(recovered !== session && recovered.state == .running && recovered.startDate == t0)
        #expect(recovered.workoutConfiguration.activityType == .running)
      }
    }
  }
}
