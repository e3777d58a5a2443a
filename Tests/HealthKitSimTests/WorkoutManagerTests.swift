import Foundation
import HealthKitSim
import HealthPairTesting
import PublishedStyles
import Testing

/// Sources/Examples/PublishedStyles/WorkoutManager.swift (Apple's watch workout sample in shape; it imports
/// `HealthKit`), unchanged, against a real pair.
@Suite("Published-style workout session code (WorkoutManager), against real daemons")
struct WorkoutManagerTests {
  /// Waits (with a deadline) until `condition` holds, re-checking after each change the manager reports.
  func waitUntil(
    _ manager: WorkoutManager, _ changes: Mailbox<Int>, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
  ) async throws {
    while !condition() { _ = try await changes.next(sourceLocation: sourceLocation) }
  }

  @Test func anOutdoorRunOfTenMinutesIsMeasuredAndSavedOnTheWatch() async throws {
    // The real clock: the manager starts at `Date()`, as Apple's sample does.
    try await withHealthPair(HealthPairOptions()) { pair in
      try pair.watch.install(
        app: runnerID, name: "Runner", writeUsage: "Saves your runs.", readUsage: "Shows your heart rate.")
      try await pair.watch.use(app: runnerID) {
        let manager = WorkoutManager()
        let changes = Mailbox<Int>()
        manager.onChange = { changes.post(0) }
        let asked = Mailbox<Bool>()
        manager.requestAuthorization { asked.post($0) }
        try await pair.watch.user.allowAll()
        #expect(try await asked.next())
        // The device's time is the host's plus the advance: what the run lasts is bounded by the host time the
        // test takes, however loaded the machine is.
        let began = Date()
        manager.startWorkout(workoutType: .running)
        try await waitUntil(manager, changes) { manager.metrics.running && manager.metrics.collecting }
        try pair.watch.advanceClock(by: 600)
        try await waitUntil(manager, changes) { manager.metrics.heartRate > 0 && manager.metrics.distance > 0 }
        let metrics = manager.metrics
        #expect((60...220).contains(metrics.heartRate) && (60...220).contains(metrics.averageHeartRate))
        #expect(metrics.activeEnergy > 0)
        #expect((599...(600 + Date().timeIntervalSince(began))).contains(manager.elapsedTime))
        manager.endWorkout()
        try await waitUntil(manager, changes) { manager.workout != nil }
        let workout = try #require(manager.workout)
        #expect(workout.workoutActivityType == .running)
        #expect((599...(600 + Date().timeIntervalSince(began))).contains(workout.duration))
        #expect(workout.statistics(for: HKQuantityType(.heartRate)) != nil)
        #expect(try pair.watch.storedWorkouts().map(\.uuid) == [workout.uuid])
        #expect(manager.metrics.sessionState == HKWorkoutSessionState.ended.rawValue)
      }
    }
  }

  @Test func aSecondAppsWorkoutEndsTheFirstWithCode8() async throws {
    try await withHealthPair(HealthPairOptions()) { pair in
      try await pair.watch.installRunners()
      let first = WorkoutManager()
      let changes = Mailbox<Int>()
      first.onChange = { changes.post(0) }
      try await pair.watch.use(app: runnerID) {
        first.startWorkout(workoutType: .running)
        try await waitUntil(first, changes) { first.metrics.running }
      }
      let second = WorkoutManager()
      let secondChanges = Mailbox<Int>()
      second.onChange = { secondChanges.post(0) }
      try await pair.watch.use(app: rivalID) {
        second.startWorkout(workoutType: .cycling)
      }
      try await waitUntil(first, changes) { first.metrics.sessionState == HKWorkoutSessionState.ended.rawValue }
      #expect(first.metrics.errors == [HKError.Code.errorAnotherWorkoutSessionStarted.rawValue])
      try await waitUntil(second, secondChanges) { second.metrics.running }
    }
  }

  @Test func startingInTheBackgroundFailsWithCode14() async throws {
    try await withHealthPair(HealthPairOptions()) { pair in
      try await pair.watch.installRunners()
      try pair.watch.setRunState(.background, app: runnerID)
      let manager = WorkoutManager()
      let changes = Mailbox<Int>()
      manager.onChange = { changes.post(0) }
      try await pair.watch.use(app: runnerID) {
        manager.startWorkout(workoutType: .running)
      }
      try await waitUntil(manager, changes) { !manager.metrics.errors.isEmpty }
      #expect(manager.metrics.errors == [HKError.Code.errorBackgroundWorkoutSessionNotAllowed.rawValue])
      #expect(!manager.metrics.running)
    }
  }
}
