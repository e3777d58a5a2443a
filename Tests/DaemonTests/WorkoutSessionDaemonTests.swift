import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Wire

/// A workout session run by the watch daemon: the app's calls over the socket, the delegate callbacks pushed back,
/// the live builder collecting as the watch's virtual clock moves, and the finished workout reaching the phone.
@Suite("Workout sessions through the watch daemon (real processes)")
struct WorkoutSessionDaemonTests {
  static let runApp = AppRecord(
    bundleID: "com.example.run", displayName: "Run", writeUsageDescription: "Run saves your workouts.",
    readUsageDescription: "Run shows your workouts.")
  static let types = ["workout", "heartRate", "activeEnergyBurned", "basalEnergyBurned", "distanceWalkingRunning"]
    .map { SampleType.lookup(name: $0)! }

  @Test func aSessionCollectsAsTheWatchsClockMovesAndItsWorkoutReachesThePhone() throws {
    try withPair { pair in
      for client in [pair.phone, pair.watch] {
        try client.installApp(Self.runApp)
        try grant(client, Self.runApp.bundleID, share: Self.types, read: Self.types)
      }
      let watch = pair.watch
      let app = Self.runApp.bundleID
      _ = try watch.setClock(t0)
      watch.collectEvents()
      try watch.subscribe(.sessions)
      let run = WorkoutConfiguration(activityType: .running, location: .outdoor)
      let session = try watch.workoutSession(app, .create(uuid: UUID(), configuration: run)).id
      _ = try watch.workoutSession(app, .builder(session))
      #expect(try watch.workoutSession(app, .command(session, .startActivity(t0))).state == .running)
      _ = try watch.workoutSession(app, .beginCollection(session, t0))
      _ = try watch.advanceClock(seconds: 120)
      let stop = t0.addingTimeInterval(120)
      #expect(try watch.workoutSession(app, .command(session, .stopActivity(stop))).state == .stopped)
      _ = try watch.workoutSession(app, .endCollection(session, stop))
      let workoutID = UUID()
      #expect(try watch.workoutSession(app, .finishWorkout(session, workout: workoutID)).waiting == false)
      #expect(try watch.workoutSession(app, .command(session, .end)).state == .ended)
      try watch.ping()
      let events = watch.takeCollectedEvents()
      let changes = events.compactMap { event -> WorkoutSessionState? in
        if case .workoutSession(app, session, .didChange(let to, _, _)) = event { to } else { nil }
      }
      #expect(changes == [.running, .stopped, .ended])
      let heartRate = Self.types[1]
      #expect(
        events.contains {
          if case .workoutBuilder(app, session, .didCollectDataOf(let t)) = $0 { t.contains(heartRate) } else { false }
        })
      try pair.waitSynced(timeout: 20)
      let onPhone = try pair.phone.workoutQuery(app, SampleQuery(type: Self.types[0]))
      #expect(onPhone.map(\.uuid) == [workoutID])
      let beats = try pair.phone.sampleQuery(app, SampleQuery(type: heartRate, filter: .associatedWith(workoutID)))
      #expect(beats.count == 24, "a heart rate every 5 s for two minutes, saved on the watch, synced")
    }
  }

  @Test func anotherAppsSessionObjectIsRefusedAndAnUnknownCallIsALocatedError() throws {
    try withPair { pair in
      try pair.watch.installApp(Self.runApp)
      let session = try pair.watch.workoutSession(
        Self.runApp.bundleID,
        .create(uuid: UUID(), configuration: WorkoutConfiguration(activityType: .walking, location: .outdoor))
      ).id
      #expect(throws: ClientError.self) {
        _ = try pair.watch.workoutSession("com.example.other", .command(session, .prepare))
      }
      #expect(try pair.watch.workoutSession(Self.runApp.bundleID, .status(session)).state == .notStarted)
    }
  }
}
