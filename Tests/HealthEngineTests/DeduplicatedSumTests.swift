import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

/// The grain sweep of `cumulativeSum` collections (``SampleStore/sumByGrains``, and the statistics summaries built by
/// it) against the general sweep it stands in for: the same counts, and sums within rounding, on random samples of
/// several sources.
@Suite struct DeduplicatedSumTests {

  /// A phone in Paris holding random step samples of Walker and Pedometer on the phone and Walker on the watch:
  /// walks of 0–90 minutes (some instantaneous, some sharing an instant), over ten local days around the spring
  /// change to summer time.
  func store(seed: UInt64, samples: Int) throws -> (DeviceState, Date, Date) {
    var rng = SeededGenerator(seed: seed)
    var phone = makeDevice(.phone, apps: [walker, pedometer])
    var watch = makeDevice(.watch, apps: [walker])
    var policy = phone.policy
    policy.timeZone = try TimeZoneRule(identifier: "Europe/Paris")
    _ = try phone.setPolicy(policy)
    for app in [walker, pedometer] { try phone.grant(app.bundleID, share: [steps], read: [steps]) }
    try watch.grant(walker.bundleID, share: [steps], read: [steps])
    let first = phone.policy.calendar.date(year: 2026, month: 3, day: 24)
    func input() -> SampleInput {
      // Starts on a 5-minute grid, so samples often share starts, ends and bucket boundaries.
      let start = first.addingTimeInterval(Double(rng.next() % (10 * 288)) * 300 - 3600)
      let minutes = rng.next() % 4 == 0 ? 0 : Double(rng.next() % 19) * 5
      return SampleInput(
        uuid: rng.uuid(), type: steps, value: .quantity(Double(1 + rng.next() % 500), unit: "count"), start: start,
        end: start.addingTimeInterval(minutes * 60))
    }
    for _ in 0..<samples / 3 {
      _ = try phone.save(walker.bundleID, [input()], wall: t0)
      _ = try phone.save(pedometer.bundleID, [input()], wall: t0)
      _ = try watch.save(walker.bundleID, [input()], wall: t0)
    }
    _ = phone.receivePeerEntries(watch.outboundEntries(after: 0, maxItems: 100_000), wall: t0)
    return (phone, first, phone.policy.calendar.date(year: 2026, month: 4, day: 3))
  }

  @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
  func theOnePassSumEqualsTheGeneralSweep(seed: UInt64) throws {
    var (phone, first, end) = try store(seed: seed, samples: 600)
    for order in [[], [SampleSource(bundleID: pedometer.bundleID, device: .phone)]] {
      _ = try phone.setSourceOrder(steps, order, wall: t0)
      for hours in [24.0, 1] {
        let interval = hours == 24 ? CalendarInterval(days: 1) : CalendarInterval(seconds: 3600)
        // cumulativeSum alone takes the grain path; with separateBySource the general sweep runs.
        func run(_ options: StatisticsOptions) throws -> [Statistics] {
          try phone.statisticsCollection(
            walker.bundleID,
            StatisticsQuery(
              type: steps, range: DateRange(start: first, end: end), options: options, interval: interval,
              anchor: first), wall: t0)
        }
        let fast = try run(.cumulativeSum)
        let general = try run([.cumulativeSum, .separateBySource])
        #expect(fast.count == general.count)
        for (a, b) in zip(fast, general) {
          #expect(a.start == b.start && a.end == b.end)
          #expect(a.sampleCount == b.sampleCount, "\(a.start)")
          #expect(abs((a.sum ?? 0) - (b.sum ?? 0)) <= 1e-9 * max(1, abs(b.sum ?? 0)), "\(a.start)")
          #expect((a.sum == nil) == (b.sum == nil))
        }
      }
    }
  }

  @Test func deepOverlapFallsBackToTheGeneralSweep() throws {
    // More samples at one instant than the grain sweep follows: the general sweep answers, the same way.
    var phone = makeDevice(.phone, apps: [walker, pedometer])
    for app in [walker, pedometer] { try phone.grant(app.bundleID, share: [steps], read: [steps]) }
    let n = SampleStore.maxOverlapForFastSum + 10
    for app in [walker, pedometer] {
      let walks = (0..<n).map { i in
        SampleInput(
          uuid: UUID(), type: steps, value: .quantity(10, unit: "count"),
          start: t0.addingTimeInterval(Double(i)), end: t0.addingTimeInterval(7200 + Double(i)))
      }
      _ = try phone.save(app.bundleID, walks, wall: t0)
    }
    let range = DateRange(start: t0.addingTimeInterval(-86400), end: t0.addingTimeInterval(86400))
    let query = StatisticsQuery(
      type: steps, range: range, options: .cumulativeSum, interval: CalendarInterval(days: 1),
      anchor: range.start!)
    let total = try phone.statisticsCollection(walker.bundleID, query, wall: t0).compactMap(\.sum).reduce(0, +)
    // Both apps' walks cover the same times: the pedometer (first by bundle identifier) wins everywhere.
    #expect(abs(total - Double(n) * 10) < 1e-6)
  }
}
