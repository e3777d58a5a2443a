import CoreLocation
import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

@Suite("HKWorkoutBuilder and the route and heartbeat builders, against real daemons")
struct WorkoutBuilderTests {
  @Test func aBuiltRunIsSavedWithItsSamplesEventsStatisticsAndRoute() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let builder = HKWorkoutBuilder(healthStore: store, configuration: runningConfiguration(), device: nil)
        #expect(builder.elapsedTime(at: t0) == 0)
        try await builder.beginCollection(at: t0)
        let route = try #require(builder.seriesBuilder(for: .workoutRoute()) as? HKWorkoutRouteBuilder)
        #expect(builder.seriesBuilder(for: .workoutRoute()) === route)
        #expect(builder.seriesBuilder(for: .heartbeat()) == nil)
        try await route.insertRouteData(routeFixes(250))
        try await builder.addSamples([
          meters(1_000, t0, t0 + 300), meters(1_500, t0 + 300, t0 + 600),
          beatsPerMinute(120, at: t0 + 60), beatsPerMinute(150, at: t0 + 500),
        ])
        // A sample starting before the builder is refused, and nothing is added.
        await #expect { try await builder.addSamples([meters(5, t0 - 10, t0)]) } throws: {
          isHKError($0, .errorInvalidArgument)
        }
        try await builder.addWorkoutEvents([
          HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: t0 + 200, duration: 0), metadata: nil),
          HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: t0 + 100, duration: 0), metadata: nil),
        ])
        #expect(builder.elapsedTime(at: t0 + 300) == 200)
        try await builder.addMetadata([HKMetadataKeyIndoorWorkout: false, HKMetadataKeyWorkoutBrandName: "Club"])
        try await builder.addMetadata([HKMetadataKeyWorkoutBrandName: "Track"])
        await #expect { try await builder.addMetadata(["bad": [1, 2]]) } throws: {
          isHKError($0, .errorInvalidArgument)
        }
        #expect(builder.metadata[HKMetadataKeyWorkoutBrandName] as? String == "Track")
        #expect(builder.metadata["bad"] == nil)
        let distance = builder.statistics(for: HKQuantityType(.distanceWalkingRunning))
        #expect(distance?.sumQuantity()?.doubleValue(for: .meter()) == 2_500)
        await #expect { _ = try await builder.finishWorkout() } throws: { isHKError($0, .errorInvalidArgument) }
        try await builder.endCollection(at: t0 + 600)
        let workout = try #require(try await builder.finishWorkout())
        #expect(workout.duration == 500)
        #expect(workout.workoutActivityType == .running)
        #expect(workout.workoutActivities.count == 1)
        #expect(workout.sourceRevision.source.bundleIdentifier == waterID)
        await #expect { try await builder.addSamples([meters(5, t0 + 10, t0 + 20)]) } throws: {
          isHKError($0, .errorInvalidArgument)
        }

        let found = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store)
        let stored = try #require(found.first)
        #expect(found.count == 1 && stored.uuid == workout.uuid)
        #expect(stored.duration == 500)
        #expect(stored.workoutEvents?.map(\.type) == [.pause, .resume])
        #expect(
          stored.statistics(for: HKQuantityType(.distanceWalkingRunning))?.sumQuantity()?.doubleValue(for: .meter())
            == 2_500)
        let heart = try #require(stored.statistics(for: heartRateType))
        let perMinute = HKUnit.count().unitDivided(by: .minute())
        #expect(abs((heart.maximumQuantity()?.doubleValue(for: perMinute) ?? 0) - 150) < 1e-9)
        #expect(abs((heart.averageQuantity()?.doubleValue(for: perMinute) ?? 0) - 135) < 1e-9)
        #expect(stored.metadata?[HKMetadataKeyWorkoutBrandName] as? String == "Track")
        #expect(stored.workoutActivities.count == 1)

        let associated = try await HKSampleQueryDescriptor(
          predicates: [
            .quantitySample(
              type: HKQuantityType(.distanceWalkingRunning), predicate: HKQuery.predicateForObjects(from: stored))
          ],
          sortDescriptors: []
        ).result(for: store)
        #expect(associated.count == 2)

        let routes = try await HKSampleQueryDescriptor(
          predicates: [
            .sample(type: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: stored))
          ],
          sortDescriptors: []
        ).result(for: store)
        let savedRoute = try #require(routes.first as? HKWorkoutRoute)
        #expect(savedRoute.count == 250)
        let batches = Mailbox<([CLLocation], Bool)>()
        store.execute(
          HKWorkoutRouteQuery(route: savedRoute) { _, locations, done, _ in batches.post((locations ?? [], done)) })
        var all: [CLLocation] = []
        var sizes: [Int] = []
        while true {
          let (batch, done) = try #require(try await batches.next())
          all += batch
          sizes.append(batch.count)
          if done { break }
        }
        #expect(sizes == [100, 100, 50])
        #expect(all.map(\.timestamp) == (0..<250).map { t0 + Double($0) })
        #expect(all.first?.speedAccuracy == 0.5 && all.first?.courseAccuracy == 10)
      }
    }
  }

  @Test func builderMisusesFailWithInvalidArgumentAndChangeNothing() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let builder = HKWorkoutBuilder(healthStore: HKHealthStore(), configuration: runningConfiguration(), device: nil)
        await #expect { try await builder.addWorkoutEvents([]) } throws: { isHKError($0, .errorInvalidArgument) }
        await #expect { try await builder.endCollection(at: t0) } throws: { isHKError($0, .errorInvalidArgument) }
        try await builder.beginCollection(at: t0)
        await #expect { try await builder.beginCollection(at: t0) } throws: { isHKError($0, .errorInvalidArgument) }
        let swim = HKWorkoutConfiguration()
        swim.activityType = .swimming
        let first = HKWorkoutActivity(workoutConfiguration: swim, start: t0, end: nil, metadata: nil)
        try await builder.addWorkoutActivity(first)
        let second = HKWorkoutActivity(
          workoutConfiguration: runningConfiguration(), start: t0 + 700, end: nil, metadata: nil)
        await #expect { try await builder.addWorkoutActivity(second) } throws: { error in
          isHKError(error, .errorInvalidArgument)
            && (error as? HKError)?.localizedDescription.contains("Cannot add new activity") == true
        }
        try await builder.updateActivity(uuid: first.uuid, end: t0 + 600)
        try await builder.updateActivity(uuid: first.uuid, adding: [HKMetadataKeySWOLFScore: 40])
        try await builder.addWorkoutActivity(second)
        #expect(builder.workoutActivities.map(\.uuid) == [first.uuid, second.uuid])
        #expect(builder.workoutActivities.first?.endDate == t0 + 600)
        await #expect { try await builder.updateActivity(uuid: UUID(), end: t0) } throws: {
          isHKError($0, .errorInvalidArgument)
        }
        await #expect { try await builder.endCollection(at: t0 - 1) } throws: { isHKError($0, .errorInvalidArgument) }
        builder.discardWorkout()
        await #expect { try await builder.endCollection(at: t0 + 900) } throws: { isHKError($0, .errorInvalidArgument) }
        let found = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(
          for: HKHealthStore())
        #expect(found.isEmpty)
      }
    }
  }

  @available(*, deprecated)
  @Test func aStandaloneRouteNeedsASavedWorkoutAndData() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let workout = HKWorkout(activityType: .walking, start: t0, end: t0 + 600)
        let empty = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await store.save(workout)
        await #expect { _ = try await empty.finishRoute(with: workout, metadata: nil) } throws: {
          isHKError($0, .errorNoData)
        }
        let unsaved = HKWorkout(activityType: .walking, start: t0, end: t0 + 600)
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await builder.insertRouteData(routeFixes(10))
        await #expect { _ = try await builder.finishRoute(with: unsaved, metadata: nil) } throws: { $0 is HKError }
        let route = try await builder.finishRoute(with: workout, metadata: ["com.example.smoothed": true])
        #expect(route.count == 10)
        await #expect { try await builder.insertRouteData(routeFixes(1)) } throws: {
          isHKError($0, .errorInvalidArgument)
        }
        let series = HKHeartbeatSeriesBuilder(healthStore: store, device: nil, start: t0)
        try await series.addHeartbeat(at: 0.8, precededByGap: false)
        try await series.addHeartbeat(at: 0.0, precededByGap: false)
        try await series.addHeartbeat(at: 1.7, precededByGap: true)
        await #expect { try await series.addHeartbeat(at: -1, precededByGap: false) } throws: {
          isHKError($0, .errorInvalidArgument)
        }
        let saved = try await series.finishSeries()
        #expect(saved.count == 3 && saved.endDate == t0 + 1.7)
        let beats = Mailbox<(TimeInterval, Bool, Bool)>()
        store.execute(
          HKHeartbeatSeriesQuery(heartbeatSeries: saved) { _, time, gap, done, _ in beats.post((time, gap, done)) })
        var read: [(TimeInterval, Bool, Bool)] = []
        while read.last?.2 != true { read.append(try #require(try await beats.next())) }
        #expect(read.map(\.0) == [0.0, 0.8, 1.7] && read.map(\.1) == [false, false, true])
      }
    }
  }
}
