import Foundation
import HealthKitSim
import HealthPairTesting
import Synchronization
import Testing

@Suite("Queries, against real daemons")
struct QueryTests {
  /// Water (read + write), Other (write only) and Dashboard (read only) with water samples from Water and Other.
  func withWaterData(_ body: (HealthPair, _ mine: [HKSample], _ theirs: [HKSample]) async throws -> Void) async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      try await pair.phone.authorize(otherID, share: [waterType], read: [waterType]) {
        try await $0.choose(share: [waterType])
      }
      try await pair.phone.authorize(dashboardID, read: [waterType])
      let mine = [water(250, at: t0), water(300, at: t0.addingTimeInterval(7200))]
      let theirs = [water(500, at: t0.addingTimeInterval(3600))]
      try await pair.phone.use(app: waterID) { try await HKHealthStore().save(mine) }
      try await pair.phone.use(app: otherID) { try await HKHealthStore().save(theirs) }
      try await body(pair, mine, theirs)
    }
  }

  @Test func readPermissionDecidesWhatASampleQuerySees() async throws {
    try await withWaterData { pair, mine, theirs in
      let store = HKHealthStore()
      let all = Set((mine + theirs).map(\.uuid))
      let byWater = try await pair.phone.use(app: waterID) { try await samples(store, waterType) }
      #expect(Set(byWater.map(\.uuid)) == all, "read granted: everything")
      let byOther = try await pair.phone.use(app: otherID) { try await samples(store, waterType) }
      #expect(byOther.map(\.uuid) == theirs.map(\.uuid), "share only: its own samples")
      // Never asked to read: healthd refuses the query (code 5), it does not answer with nothing.
      do {
        _ = try await pair.phone.use(app: returnID) { try await samples(store, waterType) }
        Issue.record("a query of a type whose read permission was never decided must fail")
      } catch let error as HKError {
        #expect(error.code == .errorAuthorizationNotDetermined)
        #expect(error.localizedDescription.contains("Authorization not determined"))
      }
      let byDashboard = try await pair.phone.use(app: dashboardID) { try await samples(store, waterType) }
      #expect(Set(byDashboard.map(\.uuid)) == all)
    }
  }

  @Test func sortLimitAndPredicates() async throws {
    try await withWaterData { pair, mine, theirs in
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let newestFirst = try await samples(
          store, waterType, sort: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)])
        #expect(newestFirst.map(\.uuid) == [mine[1].uuid, theirs[0].uuid, mine[0].uuid])
        let firstTwo = try await samples(
          store, waterType, limit: 2, sort: [NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: true)])
        #expect(firstTwo.map(\.uuid) == [mine[0].uuid, theirs[0].uuid])
        let firstHour = HKQuery.predicateForSamples(withStart: t0, end: t0.addingTimeInterval(3600))
        #expect(try await samples(store, waterType, predicate: firstHour).map(\.uuid) == [mine[0].uuid])
        let fromOther = HKQuery.predicateForObjects(from: HKSource(bundleIdentifier: otherID))
        #expect(try await samples(store, waterType, predicate: fromOther).map(\.uuid) == [theirs[0].uuid])
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [
          HKQuery.predicateForSamples(withStart: t0.addingTimeInterval(60), end: nil),
          HKQuery.predicateForObjects(from: [HKSource(bundleIdentifier: waterID)]),
        ])
        #expect(try await samples(store, waterType, predicate: both).map(\.uuid) == [mine[1].uuid])
        #expect(try await samples(store, waterType, predicate: NSPredicate(value: true)).count == 3)
      }
    }
  }

  @Test func unsupportedSortKeysAndPredicatesFailTheQuery() async throws {
    try await withWaterData { pair, _, _ in
      await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        await #expect {
          try await samples(store, waterType, sort: [NSSortDescriptor(key: "quantity", ascending: true)])
        } throws: { isHKError($0, .errorInvalidArgument) }
        // A block predicate would run app code on the daemon's side: HealthKitSim cannot send it.
        let block = NSCompoundPredicate(orPredicateWithSubpredicates: [
          HKQuery.predicateForSamples(withStart: t0, end: nil), NSPredicate(block: { _, _ in true }),
        ])
        await #expect { try await samples(store, waterType, predicate: block) } throws: {
          guard case .unsupported = $0 as? HealthKitSimError else { return false }
          return true
        }
      }
    }
  }

  @Test func statisticsSumWithinARangeAndPerSource() async throws {
    try await withWaterData { pair, _, _ in
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let total = try await statistics(store, waterType, options: [.cumulativeSum, .separateBySource])
        #expect(total.sumQuantity()?.doubleValue(for: .literUnit(with: .milli)) == 1050)
        #expect(total.sumQuantity(for: HKSource(bundleIdentifier: otherID))?.doubleValue(for: .liter()) == 0.5)
        #expect(Set(total.sources?.map(\.bundleIdentifier) ?? []) == [waterID, otherID])
        let firstHour = HKQuery.predicateForSamples(withStart: t0, end: t0.addingTimeInterval(3600))
        let early = try await statistics(store, waterType, predicate: firstHour, options: .cumulativeSum)
        #expect(early.sumQuantity()?.doubleValue(for: .literUnit(with: .milli)) == 250)
        #expect(early.sources == nil, "per-source results only with separateBySource")
        let nothing = HKQuery.predicateForSamples(
          withStart: t0.addingTimeInterval(-7200), end: t0.addingTimeInterval(-3600))
        await #expect { try await statistics(store, waterType, predicate: nothing, options: .cumulativeSum) } throws: {
          isHKError($0, .errorNoData)
        }
        await #expect { try await statistics(store, waterType, options: .discreteAverage) } throws: {
          ($0 as? HKSimulatedTermination)?.reason.contains("HKStatisticsOptionDiscreteAverage") == true
        }
      }
    }
  }

  @Test func aStatisticsCollectionHasOneIntervalPerHour() async throws {
    try await withWaterData { pair, _, _ in
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let collection: HKStatisticsCollection = try await run(store) { done in
          let query = HKStatisticsCollectionQuery(
            quantityType: waterType,
            quantitySamplePredicate: HKQuery.predicateForSamples(withStart: t0, end: t0.addingTimeInterval(4 * 3600)),
            options: .cumulativeSum, anchorDate: t0, intervalComponents: DateComponents(hour: 1))
          query.initialResultsHandler = { _, collection, error in
            done(collection.map { .success($0) } ?? .failure(error!))
          }
          return query
        }
        let mL = HKUnit.literUnit(with: .milli)
        #expect(collection.statistics().map { $0.sumQuantity()?.doubleValue(for: mL) } == [250, 500, 300])
        #expect(collection.statistics(for: t0.addingTimeInterval(3700))?.sumQuantity()?.doubleValue(for: mL) == 500)
        #expect(collection.statistics(for: t0.addingTimeInterval(3 * 3600 + 1)) == nil, "an empty hour")
        var hours: [Double?] = []
        collection.enumerateStatistics(from: t0, to: t0.addingTimeInterval(5 * 3600)) { statistics, _ in
          hours.append(statistics.sumQuantity()?.doubleValue(for: mL))
        }
        // Apple: "The final statistics come from the time interval that contains the end date": t0 + 5 h opens the
        // sixth hour, which comes too (empty).
        #expect(hours == [250, 500, 300, nil, nil, nil], "enumeration includes empty intervals, to the end date's")
        var upToThirdHour = 0
        collection.enumerateStatistics(from: t0.addingTimeInterval(1800), to: t0.addingTimeInterval(2 * 3600 - 1)) {
          _, _ in upToThirdHour += 1
        }
        #expect(upToThirdHour == 2, "the intervals holding the start and the end dates")
        // A date far from the anchor has an interval number beyond Int: no statistics, never a trap.
        #expect(collection.statistics(for: Date(timeIntervalSinceReferenceDate: 1e300)) == nil)
        #expect(collection.statistics(for: Date(timeIntervalSinceReferenceDate: .nan)) == nil)
        // Calendar intervals (behavior.md K3): a month from the anchor holds the whole morning.
        let months: HKStatisticsCollection = try await run(store) { done in
          let query = HKStatisticsCollectionQuery(
            quantityType: waterType, quantitySamplePredicate: nil, options: .cumulativeSum, anchorDate: t0,
            intervalComponents: DateComponents(month: 1))
          query.initialResultsHandler = { _, c, e in done(c.map { .success($0) } ?? .failure(e!)) }
          return query
        }
        #expect(months.statistics().map { $0.sumQuantity()?.doubleValue(for: mL) } == [1050])
        #expect(months.statistics().first?.endDate == Calendar.utc.date(byAdding: .month, value: 1, to: t0))
        // Components that do not move time forward would terminate the app.
        await #expect {
          let _: HKStatisticsCollection = try await run(store) { done in
            let query = HKStatisticsCollectionQuery(
              quantityType: waterType, quantitySamplePredicate: nil, options: .cumulativeSum, anchorDate: t0,
              intervalComponents: DateComponents(day: -1))
            query.initialResultsHandler = { _, c, e in done(c.map { .success($0) } ?? .failure(e!)) }
            return query
          }
        } throws: { $0 is HKSimulatedTermination }
      }
    }
  }

  @Test func anchoredQueriesReturnChangesSinceTheirAnchor() async throws {
    try await withWaterData { pair, mine, theirs in
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        typealias Batch = (added: [UUID], deleted: [UUID], anchor: HKQueryAnchor)
        func changes(since anchor: HKQueryAnchor?) async throws -> Batch {
          try await run(store) { done in
            HKAnchoredObjectQuery(type: waterType, predicate: nil, anchor: anchor, limit: HKObjectQueryNoLimit) {
              _, added, deleted, newAnchor, error in
              if let error { return done(.failure(error)) }
              done(.success((added!.map(\.uuid), deleted!.map(\.uuid), newAnchor!)))
            }
          }
        }
        let first = try await changes(since: nil)
        #expect(Set(first.added) == Set((mine + theirs).map(\.uuid)))
        #expect(first.deleted.isEmpty)
        let extra = water(100, at: t0.addingTimeInterval(60))
        try await store.save(extra)
        try await store.delete(mine[0])
        let second = try await changes(since: first.anchor)
        #expect(second.added == [extra.uuid])
        #expect(second.deleted == [mine[0].uuid])
        let third = try await changes(since: second.anchor)
        #expect(third.added.isEmpty && third.deleted.isEmpty)
      }
    }
  }

  @Test func executingAQueryTwiceWouldTerminate() async throws {
    try await withWaterData { pair, _, _ in
      let calls = Mailbox<Int>()
      let query = HKSampleQuery(sampleType: waterType, predicate: nil, limit: 0, sortDescriptors: nil) { _, s, _ in
        calls.post(s?.count ?? -1)
      }
      let store = HKHealthStore()
      let reports = pair.phone.use(app: waterID) {
        terminations {
          store.execute(query)
          store.execute(query)
        }
      }
      #expect(reports.count == 1)
      #expect(reports.first?.reason.contains("already been executed") == true)
      let count = try await calls.next()
      #expect(count == 3)
    }
  }
}

@Suite("Long-running queries: observer, anchored updates, collection updates, stop")
struct LongRunningQueryTests {
  @Test func anObserverQueryFiresAtStartAndWhenTheOtherDeviceSyncsAChange() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(dashboardID, read: [waterType])
      try await pair.watch.authorize(waterID, share: [waterType])
      let fired = Mailbox<Bool>()
      let store = HKHealthStore()
      let query = HKObserverQuery(sampleType: waterType, predicate: nil) { _, completion, error in
        fired.post(error == nil)
        completion()
      }
      pair.phone.use(app: dashboardID) { store.execute(query) }
      defer { store.stop(query) }
      #expect(try await fired.next() == true, "once at start")
      let fromWatch = water(330)
      try await pair.watch.use(app: waterID) { try await store.save(fromWatch) }
      #expect(try await fired.next() == true, "again when the watch's sample arrives by sync")
      let seen = try await pair.phone.use(app: dashboardID) { try await samples(store, waterType) }
      #expect(seen.map(\.uuid) == [fromWatch.uuid])
      #expect(seen.first?.sourceRevision.productType == "Watch")
      #expect(seen.first?.sourceRevision.operatingSystemVersion.majorVersion == 26, "the modelled SDK's")
    }
  }

  @Test func anObserverQueryIgnoresChangesTheAppCannotSee() async throws {
    try await withArticlePair { pair in
      // Share granted, read denied: sees its own samples.
      try await pair.phone.authorize(otherID, share: [waterType], read: [waterType]) {
        try await $0.choose(share: [waterType])
      }
      try await pair.phone.authorize(waterID, share: [waterType])
      let store = HKHealthStore()
      let fired = Mailbox<Int>()
      let count = Atomic<Int>(0)
      let query = HKObserverQuery(sampleType: waterType, predicate: nil) { _, _, _ in
        fired.post(count.add(1, ordering: .sequentiallyConsistent).newValue)
      }
      pair.phone.use(app: otherID) { store.execute(query) }
      defer { store.stop(query) }
      #expect(try await fired.next() == 1)
      try await pair.phone.use(app: waterID) { try await store.save(water(100)) }  // invisible to Other
      try await pair.phone.use(app: otherID) { try await store.save(water(200)) }  // visible
      #expect(try await fired.next() == 2, "the second call is for Other's own sample")
      #expect(fired.all == [1, 2])
    }
  }

  @Test func stopEndsAnObserverQueryForGood() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      let store = HKHealthStore()
      let stopped = Mailbox<Void>()
      let control = Mailbox<Void>()
      let victim = HKObserverQuery(sampleType: waterType, predicate: nil) { _, _, _ in stopped.post(()) }
      let witness = HKObserverQuery(sampleType: waterType, predicate: nil) { _, _, _ in control.post(()) }
      try await pair.phone.use(app: waterID) {
        store.execute(victim)
        store.execute(witness)
        _ = try await stopped.next()
        _ = try await control.next()
        store.stop(victim)
        store.stop(victim)  // stopping twice does nothing
        try await store.save(water(100))
        try await store.save(water(200))
        // The witness, listening to the same changes, fires; the stopped query never does again.
        _ = try await control.next()
      }
      store.stop(witness)
      #expect(stopped.all.count == 1)
    }
  }

  @Test func anAnchoredQueryWithAnUpdateHandlerReportsSyncedAdditionsAndDeletions() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(dashboardID, read: [mindfulType])
      try await pair.watch.authorize(returnID, share: [mindfulType])
      let store = HKHealthStore()
      let batches = Mailbox<[String]>()
      let query = HKAnchoredObjectQuery(type: mindfulType, predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) {
        _, added, deleted, _, _ in
        batches.post(["initial"] + (added ?? []).map { "+\($0.uuid)" } + (deleted ?? []).map { "-\($0.uuid)" })
      }
      query.updateHandler = { _, added, deleted, _, error in
        batches.post(
          (added ?? []).map { "+\($0.uuid)" } + (deleted ?? []).map { "-\($0.uuid)" } + (error.map { ["\($0)"] } ?? []))
      }
      pair.phone.use(app: dashboardID) { store.execute(query) }
      defer { store.stop(query) }
      #expect(try await batches.next() == ["initial"])
      let meditation = session(minutes: 10)
      try await pair.watch.use(app: returnID) { try await store.save(meditation) }
      #expect(try await batches.next() == ["+\(meditation.uuid)"])
      try await pair.watch.use(app: returnID) { try await store.delete(meditation) }
      #expect(try await batches.next() == ["-\(meditation.uuid)"])
    }
  }

  @Test func aStatisticsCollectionQueryWithAnUpdateHandlerRecomputes() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      let store = HKHealthStore()
      let sums = Mailbox<[Double]>()
      let query = HKStatisticsCollectionQuery(
        quantityType: waterType,
        quantitySamplePredicate: HKQuery.predicateForSamples(withStart: t0, end: t0.addingTimeInterval(86_400)),
        options: .cumulativeSum, anchorDate: t0, intervalComponents: DateComponents(day: 1))
      let mL = HKUnit.literUnit(with: .milli)
      query.initialResultsHandler = { _, collection, _ in
        sums.post(collection?.statistics().compactMap { $0.sumQuantity()?.doubleValue(for: mL) } ?? [-1])
      }
      query.statisticsUpdateHandler = { _, changed, collection, _ in
        sums.post(
          [changed?.sumQuantity()?.doubleValue(for: mL) ?? -1]
            + (collection?.statistics().compactMap { $0.sumQuantity()?.doubleValue(for: mL) } ?? []))
      }
      try await pair.phone.use(app: waterID) {
        store.execute(query)
        defer { store.stop(query) }
        #expect(try await sums.next() == [])
        try await store.save(water(250, at: t0.addingTimeInterval(600)))
        #expect(try await sums.next() == [250, 250])
        try await store.save(water(100, at: t0.addingTimeInterval(1200)))
        #expect(try await sums.next() == [350, 350])
      }
    }
  }
}

extension Calendar {
  /// The Gregorian calendar in UTC, the devices' zone until a test sets another.
  static var utc: Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }
}
