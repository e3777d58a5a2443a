import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

@Suite("Workout queries, predicates and legacy saving, against real daemons")
struct WorkoutQueryTests {
  @available(*, deprecated)
  @Test func legacyWorkoutsAreQueriedByTypeDurationTotalsAndSortedByDuration() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let energy = { (kcal: Double) in HKQuantity(unit: .kilocalorie(), doubleValue: kcal) }
        let run = HKWorkout(
          activityType: .running, start: t0 - 7_200, end: t0 - 3_600, workoutEvents: nil,
          totalEnergyBurned: energy(500), totalDistance: HKQuantity(unit: .meter(), doubleValue: 10_000), metadata: nil)
        let walk = HKWorkout(
          activityType: .walking, start: t0 - 3_000, end: t0 - 1_200, duration: 0, totalEnergyBurned: energy(90),
          totalDistance: nil, metadata: nil)
        let yoga = HKWorkout(
          activityType: .yoga, start: t0 - 1_000, end: t0 - 400, duration: 0, totalEnergyBurned: nil,
          totalDistance: nil, metadata: nil)
        try await store.save([run, walk, yoga])
        let steps = HKQuantitySample(
          type: stepsType, quantity: HKQuantity(unit: .count(), doubleValue: 9_000), start: t0 - 7_200, end: t0 - 3_600)
        try await store.addSamples([steps], to: run)

        func query(_ predicate: NSPredicate?, sort: [NSSortDescriptor]? = nil, limit: Int = 0) async throws
          -> [HKWorkout]
        {
          let results = Mailbox<[HKWorkout]>()
          store.execute(
            HKSampleQuery(sampleType: .workoutType(), predicate: predicate, limit: limit, sortDescriptors: sort) {
              _, samples, _ in results.post(samples as? [HKWorkout] ?? [])
            })
          return try #require(try await results.next())
        }
        #expect(try await query(HKQuery.predicateForWorkouts(with: .running)).map(\.uuid) == [run.uuid])
        #expect(try await query(HKQuery.predicateForWorkouts(with: .greaterThan, duration: 1_000)).count == 2)
        #expect(
          try await query(HKQuery.predicateForWorkouts(with: .greaterThan, totalEnergyBurned: energy(100))).map(\.uuid)
            == [run.uuid])
        #expect(
          try await query(
            HKQuery.predicateForWorkouts(
              activityPredicate: HKQuery.predicateForWorkoutActivities(workoutActivityType: .yoga))
          ).map(\.uuid) == [yoga.uuid])
        #expect(
          try await query(
            NSPredicate(format: "%K == %d", HKPredicateKeyPathWorkoutType, HKWorkoutActivityType.walking.rawValue)
          )
          .map(\.uuid) == [walk.uuid])
        let byDuration = try await query(
          nil, sort: [NSSortDescriptor(key: HKWorkoutSortIdentifierDuration, ascending: false)], limit: 2)
        #expect(byDuration.map(\.uuid) == [run.uuid, walk.uuid])
        // Adding samples changes neither the totals nor the duration; the samples are the workout's.
        let stored = try #require(try await query(HKQuery.predicateForObjects(with: [run.uuid])).first)
        #expect(stored.duration == 3_600)
        #expect(stored.totalEnergyBurned?.doubleValue(for: .kilocalorie()) == 500)
        let linked = try await HKSampleQueryDescriptor(
          predicates: [.quantitySample(type: stepsType, predicate: HKQuery.predicateForObjects(from: stored))],
          sortDescriptors: []
        ).result(for: store)
        #expect(linked.map(\.uuid) == [steps.uuid])
        // Deleting a workout removes it.
        try await store.delete(stored)
        #expect(try await query(HKQuery.predicateForWorkouts(with: .running)).isEmpty)
      }
    }
  }

  @Test func quantitySeriesAndActivitySummaryQueriesAnswer() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        try await store.save([beatsPerMinute(80, at: t0 - 120), beatsPerMinute(90, at: t0 - 60)])
        let values = Mailbox<(Double?, Bool)>()
        store.execute(
          HKQuantitySeriesSampleQuery(quantityType: heartRateType, predicate: nil) { _, quantity, _, _, done, _ in
            values.post((quantity?.doubleValue(for: .count().unitDivided(by: .minute())), done))
          })
        var read: [(Double?, Bool)] = []
        while read.last?.1 != true { read.append(try #require(try await values.next())) }
        #expect(read.count == 3)
        #expect(read.compactMap(\.0).map { $0.rounded() } == [80, 90])
        let summaries = try await HKActivitySummaryQueryDescriptor(
          predicate: HKQuery.predicate(
            forActivitySummariesBetweenStart: DateComponents(year: 2026, month: 1, day: 1),
            end: DateComponents(year: 2026, month: 1, day: 5))
        ).result(for: store)
        #expect(summaries.allSatisfy { ($0.dateComponents(for: Calendar(identifier: .gregorian)).year ?? 0) == 2026 })
        let none = try await HKActivitySummaryQueryDescriptor(
          predicate: HKQuery.predicateForActivitySummary(with: DateComponents(year: 2026, month: 2, day: 30))
        ).result(for: store)
        #expect(none.isEmpty)
      }
    }
  }

  @available(*, deprecated)
  @Test func anchoredQueriesOfWorkoutsAndRoutesReturnWorkoutObjectsAndDeletions() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let workout = HKWorkout(activityType: .hiking, start: t0 - 3_600, end: t0)
        try await store.save(workout)
        let routeBuilder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await routeBuilder.insertRouteData(routeFixes(5, from: t0 - 3_600))
        _ = try await routeBuilder.finishRoute(with: workout, metadata: nil)
        let results = Mailbox<([HKSample], [HKDeletedObject], HKQueryAnchor?)>()
        store.execute(
          HKAnchoredObjectQuery(type: .workoutType(), predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) {
            _, added, deleted, anchor, _ in results.post((added ?? [], deleted ?? [], anchor))
          })
        let (added, _, anchor) = try #require(try await results.next())
        #expect(added.map(\.uuid) == [workout.uuid])
        #expect(added.first is HKWorkout)
        let routes = Mailbox<[HKSample]>()
        store.execute(
          HKAnchoredObjectQuery(
            type: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: workout), anchor: nil,
            limit: HKObjectQueryNoLimit
          ) { _, added, _, _, _ in routes.post(added ?? []) })
        #expect(try #require(try await routes.next()).compactMap { $0 as? HKWorkoutRoute }.map(\.count) == [5])
        try await store.delete(workout)
        store.execute(
          HKAnchoredObjectQuery(type: .workoutType(), predicate: nil, anchor: anchor, limit: HKObjectQueryNoLimit) {
            _, added, deleted, anchor, _ in results.post((added ?? [], deleted ?? [], anchor))
          })
        let (_, deleted, _) = try #require(try await results.next())
        #expect(deleted.map(\.uuid) == [workout.uuid])
        // Deleting a workout deletes its route.
        let left = try await HKSampleQueryDescriptor(
          predicates: [.sample(type: HKSeriesType.workoutRoute())], sortDescriptors: []
        ).result(for: store)
        #expect(left.isEmpty)
      }
    }
  }

  @available(*, deprecated)
  @Test func routeDescriptorsAndIntervalsAndSummaryHandlersAnswer() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorizeWorkouts()
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let workout = HKWorkout(activityType: .running, start: t0 - 600, end: t0)
        try await store.save(workout)
        let builder = HKWorkoutRouteBuilder(healthStore: store, device: nil)
        try await builder.insertRouteData(routeFixes(30, from: t0 - 600))
        let route = try await builder.finishRoute(with: workout, metadata: nil)
        var streamed: [Date] = []
        for try await location in HKWorkoutRouteQueryDescriptor(route).results(for: store) {
          streamed.append(location.timestamp)
        }
        #expect(streamed == (0..<30).map { t0 - 600 + Double($0) })
        let part = Mailbox<([Date], Bool)>()
        store.execute(
          HKWorkoutRouteQuery(route: route, dateInterval: DateInterval(start: t0 - 590, end: t0 - 581)) {
            _, locations, done, _ in part.post(((locations ?? []).map(\.timestamp), done))
          })
        let (dates, done) = try await part.next()
        #expect(dates.count == 10 && done)
        let summaries = Mailbox<Bool>()
        store.execute(
          HKActivitySummaryQuery(predicate: nil) { _, found, error in summaries.post(found != nil && error == nil) })
        #expect(try await summaries.next())
      }
    }
  }
}
