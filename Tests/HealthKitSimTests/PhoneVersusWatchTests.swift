import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// Why phone and watch differ (Apple developer forums thread 772068), against real daemons: statistics
/// de-duplicate the two devices' samples by source order (behavior.md P1–P4), and collections follow the devices'
/// calendar (K1–K3).
@Suite("Phone versus watch, against real daemons")
struct PhoneVersusWatchTests {
  let walkerID = "com.example.walker"

  func steps(_ count: Double, from start: Date, minutes: Double) -> HKQuantitySample {
    HKQuantitySample(
      type: stepsType, quantity: HKQuantity(unit: .count(), doubleValue: count), start: start,
      end: start.addingTimeInterval(minutes * 60))
  }

  func withWalker(_ body: (HealthPair) async throws -> Void) async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      for device in [pair.phone, pair.watch] {
        try device.install(app: walkerID, name: "Walker", writeUsage: "Counts steps.", readUsage: "Shows steps.")
        try await device.authorize(walkerID, share: [stepsType], read: [stepsType])
      }
      try await body(pair)
    }
  }

  @Test func oneWalkCountsOnceOnBothDevicesAndTheOrderDecides() async throws {
    try await withWalker { pair in
      try await pair.phone.use(app: walkerID) { try await HKHealthStore().save(steps(5000, from: t0, minutes: 60)) }
      try await pair.watch.use(app: walkerID) { try await HKHealthStore().save(steps(4800, from: t0, minutes: 60)) }
      try await pair.waitForSync()
      let count = HKUnit.count()
      for device in [pair.phone, pair.watch] {
        let total = try await device.use(app: walkerID) {
          try await statistics(HKHealthStore(), stepsType, options: [.cumulativeSum, .separateBySource])
        }
        #expect(total.sumQuantity()?.doubleValue(for: count) == 4800, "the watch's samples win by default")
        #expect(total.sources == [HKSource(bundleIdentifier: walkerID)])
        #expect(total.sumQuantity(for: HKSource(bundleIdentifier: walkerID))?.doubleValue(for: count) == 4800)
        let all = try await device.use(app: walkerID) { try await samples(HKHealthStore(), stepsType) }
        #expect(all.count == 2, "sample queries return every sample")
      }
      try pair.phone.user.orderDataSources(
        of: stepsType, [HealthDataSource(app: walkerID, on: .phone), HealthDataSource(app: walkerID, on: .watch)])
      try await pair.waitForSync()
      for device in [pair.phone, pair.watch] {
        let total = try await device.use(app: walkerID) {
          try await statistics(HKHealthStore(), stepsType, options: .cumulativeSum)
        }
        #expect(total.sumQuantity()?.doubleValue(for: count) == 5000, "the order reached the \(device.kind)")
      }
      #expect(throws: HealthPairTestingError.self) {
        try pair.watch.user.orderDataSources(of: stepsType, [HealthDataSource(app: walkerID, on: .watch)])
      }
    }
  }

  /// Behavior.md P6: reordering the sources is not a change of samples. Running statistics collection queries and
  /// observer queries are not told, on the phone where the user reorders nor on the watch the order reaches; the
  /// collection's next update (here the phone's next walk, synced to the watch) is computed with the new order.
  @Test func aReorderAloneTellsNoRunningQueryOnEitherDevice() async throws {
    try await withWalker { pair in
      try await pair.phone.use(app: walkerID) { try await HKHealthStore().save(steps(5000, from: t0, minutes: 60)) }
      try await pair.watch.use(app: walkerID) { try await HKHealthStore().save(steps(4800, from: t0, minutes: 60)) }
      try await pair.waitForSync()
      let count = HKUnit.count()
      let store = HKHealthStore()
      var running: [(collections: Mailbox<[Double]>, observers: Mailbox<String>, queries: [HKQuery])] = []
      for device in [pair.phone, pair.watch] {
        let collections = Mailbox<[Double]>()
        let observers = Mailbox<String>()
        let collection = HKStatisticsCollectionQuery(
          quantityType: stepsType, quantitySamplePredicate: nil, options: .cumulativeSum, anchorDate: t0,
          intervalComponents: DateComponents(hour: 1))
        collection.initialResultsHandler = { _, result, _ in
          collections.post(result?.statistics().compactMap { $0.sumQuantity()?.doubleValue(for: count) } ?? [-1])
        }
        collection.statisticsUpdateHandler = { _, _, result, _ in
          collections.post(result?.statistics().compactMap { $0.sumQuantity()?.doubleValue(for: count) } ?? [-1])
        }
        let observer = HKObserverQuery(sampleType: stepsType, predicate: nil) { _, done, error in
          observers.post(error.map { "\($0)" } ?? "told")
          done()
        }
        device.use(app: walkerID) {
          store.execute(collection)
          store.execute(observer)
        }
        #expect(try await collections.next() == [4800], "the watch's samples win by default on the \(device.kind)")
        #expect(try await observers.next() == "told", "an observer query's first call")
        running.append((collections, observers, [collection, observer]))
      }
      defer { for query in running.flatMap(\.queries) { store.stop(query) } }
      try pair.phone.user.orderDataSources(
        of: stepsType, [HealthDataSource(app: walkerID, on: .phone), HealthDataSource(app: walkerID, on: .watch)])
      try await pair.waitForSync()
      // The next change of the type: events arrive in order, so anything the reorder had told would come first.
      try await pair.phone.use(app: walkerID) {
        try await HKHealthStore().save(steps(100, from: t0.addingTimeInterval(7200), minutes: 10))
      }
      try await pair.waitForSync()
      for (device, query) in zip([pair.phone, pair.watch], running) {
        #expect(try await query.collections.next() == [5000, 100], "recomputed in the new order on the \(device.kind)")
        #expect(try await query.observers.next() == "told")
        #expect(query.collections.all.count == 2, "initial results and one update on the \(device.kind)")
        #expect(query.observers.all.count == 2, "the first call and one for the walk on the \(device.kind)")
      }
    }
  }

  @Test func dailyIntervalsFollowTheDevicesTimeZone() async throws {
    try await withWalker { pair in
      try pair.setTimeZone("America/New_York")
      #expect(try pair.watch.timeZoneIdentifier() == "America/New_York")
      #expect(throws: HealthPairTestingError.self) { try pair.phone.setTimeZone("America/New_Yrok") }
      let calendar = try pair.phone.calendar()
      let saturday = calendar.date(from: DateComponents(year: 2026, month: 3, day: 7))!
      // One step every hour for three local days around the change to daylight saving time.
      let hourly = (0..<71).map { steps(1, from: saturday.addingTimeInterval(Double($0) * 3600), minutes: 0) }
      try await pair.phone.use(app: walkerID) { try await HKHealthStore().save(hourly) }
      let collection: HKStatisticsCollection = try await pair.phone.use(app: walkerID) {
        try await run(HKHealthStore()) { done in
          let query = HKStatisticsCollectionQuery(
            quantityType: stepsType,
            quantitySamplePredicate: HKQuery.predicateForSamples(
              withStart: saturday, end: calendar.date(byAdding: .day, value: 3, to: saturday)),
            options: .cumulativeSum, anchorDate: saturday, intervalComponents: DateComponents(day: 1))
          query.initialResultsHandler = { _, c, e in done(c.map { .success($0) } ?? .failure(e!)) }
          return query
        }
      }
      let days = collection.statistics()
      #expect(days.map { $0.sumQuantity()?.doubleValue(for: .count()) } == [24, 23, 24])
      #expect(days.map { $0.endDate.timeIntervalSince($0.startDate) / 3600 } == [24, 23, 24])
      #expect(days.map(\.startDate) == (0..<3).map { calendar.date(byAdding: .day, value: $0, to: saturday)! })
    }
  }
}
