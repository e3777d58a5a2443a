import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Wire

/// A workout through real daemons: saved on the watch with its samples and route, it reaches the phone as one unit;
/// deleted, its route goes with it on both devices.
@Suite("Workouts across the pair (real processes)")
struct WorkoutSyncTests {
  static let runApp = AppRecord(
    bundleID: "com.example.run", displayName: "Run", writeUsageDescription: "Run saves your workouts.",
    readUsageDescription: "Run shows your workouts.")
  static let workout = SampleType.lookup(name: "workout")!
  static let route = SampleType.lookup(name: "workoutRoute")!
  static let heartRate = SampleType.lookup(name: "heartRate")!

  @Test func aWorkoutSavedOnTheWatchReachesThePhoneWithItsSamplesAndRouteAndLeavesWithThem() throws {
    try withPair { pair in
      for client in [pair.phone, pair.watch] {
        try client.installApp(Self.runApp)
        let family = [Self.workout, Self.route, Self.heartRate]
        try grant(client, Self.runApp.bundleID, share: family, read: family)
      }
      let start = t0.addingTimeInterval(-3_600)
      let beats = (0..<10).map { i in
        SampleInput(
          uuid: UUID(), type: Self.heartRate, value: .quantity(140 + Double(i), unit: "count/min"),
          start: start.addingTimeInterval(Double(i) * 60), end: start.addingTimeInterval(Double(i) * 60))
      }
      try pair.watch.save(Self.runApp.bundleID, beats)
      let id = UUID()
      let input = WorkoutInput(
        uuid: id, activityType: .running, start: start, end: start.addingTimeInterval(1_800),
        associated: beats.map(\.uuid))
      let route = RouteInput(
        uuid: UUID(),
        locations: (0..<30).map { i in
          RouteLocation(
            timestamp: start.addingTimeInterval(Double(i) * 60), latitude: 48.85 + Double(i) * 1e-4, longitude: 2.35)
        })
      try pair.watch.saveWorkout(Self.runApp.bundleID, input, route: route)
      try pair.waitSynced(timeout: 20)

      let onPhone = try pair.phone.workoutQuery(Self.runApp.bundleID, SampleQuery(type: Self.workout))
      #expect(onPhone.map(\.uuid) == [id])
      #expect(onPhone.first?.source == SampleSource(bundleID: Self.runApp.bundleID, device: .watch))
      #expect(Set(onPhone.first?.associated ?? []) == Set(beats.map(\.uuid)))
      let associated = try pair.phone.sampleQuery(
        Self.runApp.bundleID, SampleQuery(type: Self.heartRate, filter: .associatedWith(id)))
      #expect(Set(associated.map(\.uuid)) == Set(beats.map(\.uuid)))
      let routes = try pair.phone.routeQuery(Self.runApp.bundleID, workout: id, SampleQuery(type: Self.route))
      #expect(routes.map(\.uuid) == [route.uuid])
      #expect(routes.first?.locations == route.locations)

      try pair.watch.delete(Self.runApp.bundleID, [id])
      try pair.waitSynced(timeout: 20)
      for client in [pair.phone, pair.watch] {
        #expect(try client.workoutQuery(Self.runApp.bundleID, SampleQuery(type: Self.workout)).isEmpty)
        #expect(try client.routeQuery(Self.runApp.bundleID, workout: nil, SampleQuery(type: Self.route)).isEmpty)
        #expect(try client.storedRoutes().isEmpty)
        #expect(try client.storedWorkouts().isEmpty)
      }
    }
  }
}
