import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

/// The statistics summary (StatisticsSummary.swift) against the scan it stands in for: on random stores kept up to
/// date through saves, deletions, sync, source reorders and restores, every `cumulativeSum` collection gives the
/// same sums to the bit and the same counts, whether buckets come from the summary or from the scan.
@Suite struct StatisticsSummaryTests {

  /// A random walk: starts on a 5-minute grid or anywhere (so boundaries are shared and not), 0–3 hours long,
  /// sometimes instantaneous, sometimes many hours, over twelve local days around the spring change in Paris.
  func input(_ rng: inout SeededGenerator, from first: Date) -> SampleInput {
    let onGrid = rng.next() % 2 == 0
    let offset = onGrid ? Double(rng.next() % (12 * 288)) * 300 : Double(rng.next() % (12 * 86_400_000)) / 1000
    let start = first.addingTimeInterval(offset - 7200)
    let length: Double
    switch rng.next() % 10 {
    case 0, 1: length = 0
    case 2: length = Double(rng.next() % 30) * 3600 + 17.25
    case 3: length = Double(rng.next() % 100_000) / 7
    default: length = Double(rng.next() % 37) * 300
    }
    let value = rng.next() % 3 == 0 ? Double(rng.next() % 100_000) / 97 : Double(1 + rng.next() % 500)
    return SampleInput(
      uuid: rng.uuid(), type: steps, value: .quantity(value, unit: "count"), start: start,
      end: start.addingTimeInterval(length))
  }

  /// The query shapes compared: daily, hourly, half-hourly, 10-minute (not on grains), weekly, and ranges that
  /// start or end inside a bucket.
  func queries(_ calendar: LocalCalendar, _ first: Date, _ rng: inout SeededGenerator) -> [StatisticsQuery] {
    let end = first.addingTimeInterval(12 * 86400)
    var result: [StatisticsQuery] = []
    let shapes: [(CalendarInterval, Date)] = [
      (CalendarInterval(days: 1), first), (CalendarInterval(seconds: 3600), first),
      (CalendarInterval(seconds: 1800), first.addingTimeInterval(900)), (CalendarInterval(seconds: 600), first),
      (CalendarInterval(days: 7), first), (CalendarInterval(days: 1), first.addingTimeInterval(3600 * 5)),
    ]
    for (interval, anchor) in shapes {
      result.append(
        StatisticsQuery(
          type: steps, range: DateRange(start: first, end: end), options: .cumulativeSum, interval: interval,
          anchor: anchor))
      let cutStart = first.addingTimeInterval(Double(rng.next() % 86400))
      let cutEnd = end.addingTimeInterval(-Double(rng.next() % 86400))
      result.append(
        StatisticsQuery(
          type: steps, range: DateRange(start: cutStart, end: cutEnd), options: .cumulativeSum, interval: interval,
          anchor: anchor))
    }
    return result
  }

  /// Every query's buckets from the summary and from the scan: the same bits.
  func compare(_ phone: DeviceState, _ queries: [StatisticsQuery], _ label: String) throws -> Int {
    var served = 0
    for query in queries {
      let calendar = phone.policy.calendar
      let anchor = query.anchor!.timeIntervalSince1970
      let reference = LocalCalendar.referenceOffset
      let from = query.range!.start!.timeIntervalSince1970
      let to = query.range!.end!.timeIntervalSince1970
      let first = calendar.indexUnix(from, anchor: anchor, interval: query.interval!)
      var last = max(first, calendar.indexUnix(to, anchor: anchor, interval: query.interval!))
      if last > first, calendar.addingUnix(query.interval!, times: last, to: anchor) >= to { last -= 1 }
      let bounds = (first...(last + 1)).map { calendar.addingUnix(query.interval!, times: $0, to: anchor) - reference }
      let summary = phone.grainSums(walker.bundleID, query, buckets: bounds, wall: t0, summary: true)
      let scan = phone.grainSums(walker.bundleID, query, buckets: bounds, wall: t0, summary: false)
      #expect((summary == nil) == (scan == nil), "\(label)")
      guard let summary, let scan else { continue }
      #expect(summary.counts == scan.counts, "\(label) \(query.interval!)")
      #expect(summary.sums.map(\.bitPattern) == scan.sums.map(\.bitPattern), "\(label) \(query.interval!)")
      if phone.store.summaryUsable(steps, order: phone.policy.sourceOrders[steps]) { served += 1 }
    }
    return served
  }

  @Test(arguments: Array(1...12) as [UInt64])
  func theSummaryEqualsTheScanToTheBit(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed &* 7919)
    var phone = makeDevice(.phone, apps: [walker, pedometer])
    var watch = makeDevice(.watch, apps: [walker])
    var policy = phone.policy
    policy.timeZone = try TimeZoneRule(identifier: seed % 3 == 0 ? "UTC+05:45" : "Europe/Paris")
    _ = try phone.setPolicy(policy)
    for app in [walker, pedometer] { try phone.grant(app.bundleID, share: [steps], read: [steps]) }
    try watch.grant(walker.bundleID, share: [steps], read: [steps])
    let first = phone.policy.calendar.date(year: 2026, month: 3, day: 22)
    var saved: [UUID] = []
    for round in 0..<4 {
      for _ in 0..<60 {
        let a = input(&rng, from: first)
        let b = input(&rng, from: first)
        let c = input(&rng, from: first)
        saved += [a.uuid, b.uuid]
        _ = try phone.save(walker.bundleID, [a], wall: t0)
        _ = try phone.save(pedometer.bundleID, [b], wall: t0)
        _ = try watch.save(walker.bundleID, [c], wall: t0)
      }
      // A batch out of date order, as an import or a sync batch brings them.
      _ = try phone.save(walker.bundleID, (0..<40).map { _ in input(&rng, from: first) }, wall: t0)
      _ = phone.receivePeerEntries(watch.outboundEntries(after: 0, maxItems: 100_000), wall: t0)
      let doomed = (0..<10).map { _ in saved[Int(rng.next() % UInt64(saved.count))] }
      _ = try? phone.delete(walker.bundleID, Array(Set(doomed)), wall: t0)
      let orders: [[SampleSource]] = [
        [], [SampleSource(bundleID: pedometer.bundleID, device: .phone)],
        [
          SampleSource(bundleID: walker.bundleID, device: .phone),
          SampleSource(bundleID: walker.bundleID, device: .watch),
        ],
      ]
      _ = try phone.setSourceOrder(steps, orders[round % 3], wall: t0)
      // Before the refresh a statistics request makes, the summary is stale and every bucket is scanned.
      #expect(try compare(phone, queries(phone.policy.calendar, first, &rng), "seed \(seed) round \(round) stale") == 0)
      phone.refreshStatisticsSummaries(for: steps)
      let served = try compare(phone, queries(phone.policy.calendar, first, &rng), "seed \(seed) round \(round)")
      #expect(served > 0, "the summary was never usable")
    }
    // A restored store builds its summary from scratch: the same answers as the one kept up to date.
    var restored = try DeviceState(
      restoring: phone.device, policy: phone.policy, virtualNow: phone.virtualNow, apps: phone.apps,
      decisions: phone.decisions, lockedOut: phone.lockedOut, store: SampleStore(restoring: phone.store.contents),
      sync: phone.sync, syncConflicts: phone.syncConflicts, syncConflictCount: phone.syncConflictCount)
    restored.refreshStatisticsSummaries()
    for query in queries(phone.policy.calendar, first, &rng) {
      let a = try phone.statisticsCollection(walker.bundleID, query, wall: t0)
      let b = try restored.statisticsCollection(walker.bundleID, query, wall: t0)
      #expect(a.map(\.sampleCount) == b.map(\.sampleCount))
      #expect(a.map { $0.sum?.bitPattern } == b.map { $0.sum?.bitPattern })
    }
  }

  @Test func anAppThatSeesOnlyItsOwnSamplesIsScanned() throws {
    // Share without read: the summary (every app's samples) is not this app's view; the scan answers.
    var phone = makeDevice(.phone, apps: [walker, pedometer])
    try phone.grant(walker.bundleID, share: [steps], read: [steps])
    try phone.grant(
      pedometer.bundleID, share: [steps], read: [steps],
      answer: .choices([Permission(steps, .share): true, Permission(steps, .read): false]))
    let walk = { (start: Double, value: Double) in
      SampleInput(
        uuid: UUID(), type: steps, value: .quantity(value, unit: "count"), start: t0.addingTimeInterval(start),
        end: t0.addingTimeInterval(start + 3600))
    }
    _ = try phone.save(walker.bundleID, [walk(0, 600)], wall: t0)
    _ = try phone.save(pedometer.bundleID, [walk(1800, 600)], wall: t0)
    let query = StatisticsQuery(
      type: steps, range: DateRange(start: t0.addingTimeInterval(-8 * 3600), end: t0.addingTimeInterval(16 * 3600)),
      options: .cumulativeSum, interval: CalendarInterval(days: 1), anchor: t0.addingTimeInterval(-8 * 3600))
    let everyone = try phone.statisticsCollection(walker.bundleID, query, wall: t0)
    let own = try phone.statisticsCollection(pedometer.bundleID, query, wall: t0)
    // Pedometer ranks first (by bundle identifier): 600 of its own, plus Walker's uncovered half hour.
    #expect(everyone.compactMap(\.sum) == [900])
    #expect(own.compactMap(\.sum) == [600])
  }
}
