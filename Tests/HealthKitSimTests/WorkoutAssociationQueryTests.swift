import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

@Suite("predicateForObjects(from: workout) on long-running sample queries (E1, workouts.md §1.6–1.7)")
struct WorkoutAssociationQueryTests {
  @available(*, deprecated)
  @Test("an anchored query of a sample type with predicateForObjects(from:) returns the workout's samples")
  func anchoredSampleQueryOfAWorkoutsSamples() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let workout = HKWorkout(activityType: .running, start: t0 - 1_800, end: t0)
        try await store.save(workout)
        let during = beatsPerMinute(140, at: t0 - 900)
        let other = beatsPerMinute(70, at: t0 - 600)
        try await store.save(other)
        try await store.addSamples([during], to: workout)
        let results = Mailbox<[HKSample]>()
        store.execute(
          HKAnchoredObjectQuery(
            type: heartRateType, predicate: HKQuery.predicateForObjects(from: workout), anchor: nil,
            limit: HKObjectQueryNoLimit
          ) { _, added, _, _, _ in results.post(added ?? []) })
        #expect(try #require(try await results.next()).map(\.uuid) == [during.uuid])
      }
    }
  }

  @Test("an anchored query of heartbeat series or routes keeps only what its predicate matches")
  func anchoredSeriesAndRouteQueriesApplyTheirPredicate() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        var saved: [HKHeartbeatSeriesSample] = []
        for start in [t0 - 600, t0 - 300] {
          let builder = HKHeartbeatSeriesBuilder(healthStore: store, device: nil, start: start)
          try await builder.addHeartbeat(at: 0, precededByGap: false)
          try await builder.addHeartbeat(at: 0.9, precededByGap: false)
          saved.append(try await builder.finishSeries())
        }
        let results = Mailbox<[HKSample]>()
        store.execute(
          HKAnchoredObjectQuery(
            type: HKSeriesType.heartbeat(), predicate: HKQuery.predicateForObjects(with: [saved[1].uuid]), anchor: nil,
            limit: HKObjectQueryNoLimit
          ) { _, added, _, _, _ in results.post(added ?? []) })
        #expect(try #require(try await results.next()).map(\.uuid) == [saved[1].uuid])
        let workout = HKWorkout(activityType: .running, start: t0 - 1_800, end: t0)
        try await store.save(workout)
        var routes: [HKWorkoutRoute] = []
        for _ in 0..<2 {
          let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
          try await builder.insertRouteData(routeFixes(3, from: t0 - 1_800))
          routes.append(try await builder.finishRoute(with: workout, metadata: nil))
        }
        store.execute(
          HKAnchoredObjectQuery(
            type: HKSeriesType.workoutRoute(),
            predicate: NSCompoundPredicate(andPredicateWithSubpredicates: [
              HKQuery.predicateForObjects(from: workout), HKQuery.predicateForObjects(with: [routes[0].uuid]),
            ]), anchor: nil, limit: HKObjectQueryNoLimit
          ) { _, added, _, _, _ in results.post(added ?? []) })
        #expect(try #require(try await results.next()).map(\.uuid) == [routes[0].uuid])
      }
    }
  }
}

@Suite("Anchored workout queries filter before they limit")
struct AnchoredWorkoutLimitTests {
  @available(*, deprecated)
  @Test("a predicate and a limit return the first matching workouts, and the anchor stops after them")
  func predicateThenLimit() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let walk = HKWorkout(activityType: .walking, start: t0 - 7_200, end: t0 - 5_400)
        let run = HKWorkout(activityType: .running, start: t0 - 3_600, end: t0 - 1_800)
        let later = HKWorkout(activityType: .running, start: t0 - 1_200, end: t0 - 600)
        try await store.save(walk)
        try await store.save(run)
        try await store.save(later)
        let results = Mailbox<([HKSample], HKQueryAnchor?)>()
        store.execute(
          HKAnchoredObjectQuery(
            type: .workoutType(), predicate: HKQuery.predicateForWorkouts(with: .running), anchor: nil, limit: 1
          ) { _, added, _, anchor, _ in results.post((added ?? [], anchor)) })
        let (first, anchor) = try #require(try await results.next())
        #expect(first.map(\.uuid) == [run.uuid])
        store.execute(
          HKAnchoredObjectQuery(
            type: .workoutType(), predicate: HKQuery.predicateForWorkouts(with: .running), anchor: anchor, limit: 1
          ) { _, added, _, anchor, _ in results.post((added ?? [], anchor)) })
        #expect(try #require(try await results.next()).0.map(\.uuid) == [later.uuid])
      }
    }
  }
}
