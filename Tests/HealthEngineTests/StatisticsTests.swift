import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

/// Statistics as devices compute them: de-duplication by source order (docs/behavior.md P1–P4), calendar
/// intervals in the device's time zone (K1–K3), the options table (Q3).
@Suite struct StatisticsTests {

  func stepsInput(_ count: Double, from start: Date, minutes: Double) -> SampleInput {
    SampleInput(
      uuid: UUID(), type: steps, value: .quantity(count, unit: "count"), start: start,
      end: start.addingTimeInterval(minutes * 60))
  }

  func at(_ time: String) -> Date { parseDate("2026-01-05T\(time):00Z")! }

  /// A phone that holds `phoneSamples` saved by Walker on the phone and `watchSamples` saved by Walker on the
  /// watch (arrived by sync), Walker allowed to read and share steps on the phone.
  func pair(phone phoneSamples: [SampleInput], watch watchSamples: [SampleInput], apps: [AppRecord]? = nil)
    throws -> DeviceState
  {
    let apps = apps ?? [walker]
    var phone = makeDevice(.phone, apps: apps)
    var watch = makeDevice(.watch, apps: apps)
    for app in apps {
      try phone.grant(app.bundleID, share: [steps, heartRate], read: [steps, heartRate])
      try watch.grant(app.bundleID, share: [steps, heartRate], read: [steps, heartRate])
    }
    if !phoneSamples.isEmpty { _ = try phone.save(walker.bundleID, phoneSamples, wall: t0) }
    if !watchSamples.isEmpty { _ = try watch.save(walker.bundleID, watchSamples, wall: t0) }
    _ = phone.receivePeerEntries(watch.outboundEntries(after: 0, maxItems: 10_000), wall: t0)
    return phone
  }

  func sum(_ device: inout DeviceState, _ options: StatisticsOptions = .cumulativeSum, range: DateRange? = nil)
    throws -> Statistics
  {
    try device.statistics(walker.bundleID, StatisticsQuery(type: steps, range: range, options: options), wall: t0)
  }

  @Test func oneWalkCountedByPhoneAndWatchCountsOnce() throws {
    var phone = try pair(
      phone: [stepsInput(5000, from: at("08:00"), minutes: 60)],
      watch: [stepsInput(4800, from: at("08:00"), minutes: 60)])
    // By default the watch's samples win (the same app on both devices: the watch first, P3).
    #expect(try sum(&phone).sum == 4800)
    // Sample queries still return both.
    #expect(try phone.sampleQuery(walker.bundleID, SampleQuery(type: steps), wall: t0).count == 2)
  }

  @Test func lowerPrioritySamplesCountOnlyWhereNothingBetterCovers() throws {
    // Watch 08:00–09:00 600 steps; phone 08:30–09:30 600 steps: the phone's second half is not covered.
    var phone = try pair(
      phone: [stepsInput(600, from: at("08:30"), minutes: 60)],
      watch: [stepsInput(600, from: at("08:00"), minutes: 60)])
    #expect(try sum(&phone).sum == 900)
    // The user puts the phone first: now the watch's first half fills in.
    _ = try phone.setSourceOrder(steps, [SampleSource(bundleID: walker.bundleID, device: .phone)], wall: t0)
    #expect(try sum(&phone).sum == 900)
    _ = try phone.setSourceOrder(steps, [], wall: t0)
    // A range cuts both: 08:45–09:15 holds 15 min of the watch's walk and 15 min of the phone's (uncovered).
    let range = DateRange(start: at("08:45"), end: at("09:15"))
    #expect(try sum(&phone, range: range).sum == 300)
  }

  @Test func aPriorityChangeChangesTheTotal() throws {
    var phone = try pair(
      phone: [stepsInput(1000, from: at("08:00"), minutes: 60)],
      watch: [stepsInput(700, from: at("08:00"), minutes: 60), stepsInput(300, from: at("10:00"), minutes: 30)])
    #expect(try sum(&phone).sum == 1000)  // 700 (watch wins the hour) + 300
    _ = try phone.setSourceOrder(steps, [SampleSource(bundleID: walker.bundleID, device: .phone)], wall: t0)
    #expect(try sum(&phone).sum == 1300)  // 1000 (phone wins the hour) + 300 (only the watch at 10:00)
  }

  @Test func samplesOfOneSourceAlwaysAddUp() throws {
    var phone = try pair(
      phone: [stepsInput(100, from: at("08:00"), minutes: 60), stepsInput(50, from: at("08:30"), minutes: 10)],
      watch: [])
    #expect(try sum(&phone).sum == 150)
  }

  @Test func instantaneousSamplesOfALowerSourceInsideABetterOneDoNotCount() throws {
    var phone = try pair(
      phone: [stepsInput(40, from: at("08:10"), minutes: 0), stepsInput(60, from: at("11:00"), minutes: 0)],
      watch: [stepsInput(500, from: at("08:00"), minutes: 60)])
    #expect(try sum(&phone).sum == 560)
  }

  @Test func differentAppsFollowTheDefaultOrderByBundleIdentifier() throws {
    var phone = makeDevice(.phone, apps: [walker, pedometer])
    for app in [walker, pedometer] { try phone.grant(app.bundleID, share: [steps], read: [steps]) }
    _ = try phone.save(walker.bundleID, [stepsInput(900, from: at("08:00"), minutes: 60)], wall: t0)
    _ = try phone.save(pedometer.bundleID, [stepsInput(1000, from: at("08:00"), minutes: 60)], wall: t0)
    // com.example.pedometer sorts before com.example.walker.
    #expect(try sum(&phone).sum == 1000)
    _ = try phone.setSourceOrder(steps, [SampleSource(bundleID: walker.bundleID, device: .phone)], wall: t0)
    #expect(try sum(&phone).sum == 900)
    // Per source: each app's own samples, whatever the order.
    let parts = try sum(&phone, [.cumulativeSum, .separateBySource]).bySource
    #expect(parts[walker.bundleID]?.sum == 900)
    #expect(parts[pedometer.bundleID]?.sum == 1000)
  }

  @Test func perSourceStatisticsDeduplicateOneAppAcrossItsDevices() throws {
    var phone = try pair(
      phone: [stepsInput(5000, from: at("08:00"), minutes: 60)],
      watch: [stepsInput(4800, from: at("08:00"), minutes: 60), stepsInput(100, from: at("12:00"), minutes: 5)])
    let stats = try sum(&phone, [.cumulativeSum, .separateBySource])
    #expect(stats.sum == 4900)
    #expect(stats.bySource[walker.bundleID]?.sum == 4900)
    #expect(stats.bySource.count == 1)
  }

  @Test func discreteStatisticsUseOnlyTheWinningSamples() throws {
    func bpm(_ v: Double, _ time: String, minutes: Double) -> SampleInput {
      SampleInput(
        uuid: UUID(), type: heartRate, value: .quantity(v, unit: "count/min"), start: at(time),
        end: at(time).addingTimeInterval(minutes * 60))
    }
    var phone = makeDevice(.phone, apps: [walker])
    var watch = makeDevice(.watch, apps: [walker])
    try phone.grant(walker.bundleID, share: [heartRate], read: [heartRate])
    try watch.grant(walker.bundleID, share: [heartRate], read: [heartRate])
    _ = try phone.save(walker.bundleID, [bpm(120, "08:00", minutes: 10), bpm(60, "09:00", minutes: 10)], wall: t0)
    _ = try watch.save(walker.bundleID, [bpm(90, "08:00", minutes: 10)], wall: t0)
    _ = phone.receivePeerEntries(watch.outboundEntries(after: 0, maxItems: 100), wall: t0)
    let stats = try phone.statistics(
      walker.bundleID,
      StatisticsQuery(type: heartRate, options: [.discreteAverage, .discreteMax, .discreteMin, .mostRecent]), wall: t0)
    // The phone's 120 at 08:00 is hidden by the watch's 90; the phone's 60 at 09:00 stands alone.
    #expect(abs(stats.maximum! * 60 - 90) < 1e-9)
    #expect(abs(stats.minimum! * 60 - 60) < 1e-9)
    #expect(abs(stats.average! * 60 - 75) < 1e-9)
    #expect(abs(stats.mostRecent! * 60 - 60) < 1e-9)
    #expect(stats.mostRecentDates == at("09:00")...at("09:10"))
  }

  @Test func durationCountsCoveredTimeOnce() throws {
    var phone = try pair(
      phone: [stepsInput(600, from: at("08:30"), minutes: 60), stepsInput(10, from: at("08:40"), minutes: 10)],
      watch: [stepsInput(600, from: at("08:00"), minutes: 60)])
    let stats = try sum(&phone, [.cumulativeSum, .duration, .separateBySource])
    let covered = Double(90 * 60)
    #expect(stats.duration == covered, "\((stats.duration ?? 0) - covered)")
    #expect(stats.bySource[walker.bundleID]?.duration == covered)
  }

  /// `-[HKQuantityType supportsStatisticOptions:]` (Q3).
  @Test func theOptionsTable() throws {
    var phone = try pair(phone: [stepsInput(600, from: at("08:30"), minutes: 60)], watch: [])
    for refused: StatisticsOptions in [.discreteAverage, .discreteMin, .discreteMax, [.cumulativeSum, .discreteMax]] {
      expectError(.errorInvalidArgument, kind: .wouldTerminate) { _ = try sum(&phone, refused) }
    }
    for allowed: StatisticsOptions in [[], .mostRecent, .duration, .separateBySource, [.cumulativeSum, .mostRecent]] {
      _ = try sum(&phone, allowed)
    }
    let recent = try sum(&phone, .mostRecent)
    #expect(recent.mostRecent == 600 && recent.sum == nil)
    _ = try phone.save(
      walker.bundleID,
      [SampleInput(uuid: UUID(), type: heartRate, value: .quantity(1, unit: "count/s"), start: t0, end: t0)],
      wall: t0)
    expectError(.errorInvalidArgument, kind: .wouldTerminate) {
      _ = try phone.statistics(walker.bundleID, StatisticsQuery(type: heartRate, options: .cumulativeSum), wall: t0)
    }
    for allowed: StatisticsOptions in [.mostRecent, .duration, .separateBySource, .discreteAverage] {
      _ = try phone.statistics(walker.bundleID, StatisticsQuery(type: heartRate, options: allowed), wall: t0)
    }
  }

  @Test func dailyBucketsFollowTheDevicesTimeZoneAcrossDaylightSavingTime() throws {
    var phone = makeDevice(.phone, apps: [walker])
    var policy = phone.policy
    policy.timeZone = try TimeZoneRule(identifier: "Europe/Paris")
    _ = try phone.setPolicy(policy)
    try phone.grant(walker.bundleID, share: [steps], read: [steps])
    let calendar = phone.policy.calendar
    let first = calendar.date(year: 2026, month: 3, day: 28)
    // One step per hour over three local days.
    let hourly = (0..<(24 * 3)).map { h in
      SampleInput(
        uuid: UUID(), type: steps, value: .quantity(1, unit: "count"),
        start: first.addingTimeInterval(Double(h) * 3600),
        end: first.addingTimeInterval(Double(h) * 3600))
    }
    _ = try phone.save(walker.bundleID, hourly, wall: t0)
    let end = calendar.date(year: 2026, month: 3, day: 31)
    for options: StatisticsOptions in [.cumulativeSum, [.cumulativeSum, .duration]] {
      let buckets = try phone.statisticsCollection(
        walker.bundleID,
        StatisticsQuery(
          type: steps, range: DateRange(start: first, end: end), options: options, interval: CalendarInterval(days: 1),
          anchor: first), wall: t0)
      #expect(buckets.map { $0.end.timeIntervalSince($0.start) / 3600 } == [24, 23, 24])
      // Hourly samples from local midnight: the 23-hour day holds 23 of them (the last sample, at the range's
      // end, is outside it).
      #expect(buckets.map(\.sum) == [24, 23, 24])
    }
  }

  @Test func monthlyAndWeeklyIntervals() throws {
    var phone = try pair(phone: [], watch: [])
    let calendar = LocalCalendar.utc
    let samples = [("2026-01-31", 10.0), ("2026-02-01", 20.0), ("2026-02-28", 30.0), ("2026-03-01", 40.0)].map {
      SampleInput(
        uuid: UUID(), type: steps, value: .quantity($0.1, unit: "count"), start: parseDate($0.0)!,
        end: parseDate($0.0)!)
    }
    _ = try phone.save(walker.bundleID, samples, wall: t0)
    let jan = calendar.date(year: 2026, month: 1, day: 1)
    let months = try phone.statisticsCollection(
      walker.bundleID,
      StatisticsQuery(
        type: steps, range: DateRange(start: jan, end: calendar.date(year: 2026, month: 4, day: 1)),
        options: .cumulativeSum, interval: CalendarInterval(months: 1), anchor: jan), wall: t0)
    #expect(months.map(\.sum) == [10, 50, 40])
    #expect(months.map { $0.end.timeIntervalSince($0.start) / 86400 } == [31, 28, 31])
    // Weeks start where the anchor says: Mondays here (2026-01-26 is a Monday).
    let monday = calendar.date(year: 2026, month: 1, day: 26)
    let weeks = try phone.statisticsCollection(
      walker.bundleID,
      StatisticsQuery(
        type: steps, range: DateRange(start: monday, end: monday.addingTimeInterval(5 * 7 * 86400)),
        options: .cumulativeSum, interval: CalendarInterval(days: 7), anchor: monday), wall: t0)
    #expect(weeks.map(\.sum) == [30, nil, nil, nil, 70])
    // Intervals that do not move time forward would terminate the app.
    for bad in [CalendarInterval(), CalendarInterval(months: -1), CalendarInterval(months: 1, days: -1)] {
      expectError(.errorInvalidArgument, kind: .wouldTerminate) {
        _ = try phone.statisticsCollection(
          walker.bundleID, StatisticsQuery(type: steps, options: .cumulativeSum, interval: bad, anchor: jan), wall: t0)
      }
    }
  }

  @Test func collectionsDeduplicateInEachInterval() throws {
    var phone = try pair(
      phone: [stepsInput(1200, from: at("07:00"), minutes: 120)],
      watch: [stepsInput(500, from: at("08:00"), minutes: 60)])
    let hours = try phone.statisticsCollection(
      walker.bundleID,
      StatisticsQuery(
        type: steps, range: DateRange(start: at("07:00"), end: at("09:00")), options: .cumulativeSum, interval: 3600,
        anchor: at("00:00")), wall: t0)
    #expect(hours.map(\.sum) == [600, 500])
  }

  @Test func sourceOrdersTravelAndTheLaterWins() throws {
    var phone = makeDevice(.phone, apps: [walker])
    var watch = makeDevice(.watch, apps: [walker])
    let phoneFirst = [SampleSource(bundleID: walker.bundleID, device: .phone)]
    // The watch has no Health app source list.
    expectError(.unknownError, kind: .simulator) { _ = try watch.setSourceOrder(steps, phoneFirst, wall: t0) }
    _ = try phone.setSourceOrder(steps, phoneFirst, wall: t0)
    _ = watch.receivePeerEntries(phone.outboundEntries(after: 0, maxItems: 100), wall: t0)
    #expect(watch.policy.sourceOrders[steps]?.sources == phoneFirst)
    // An older order arriving later does not win.
    var stale = phone
    _ = try stale.setClock(t0.addingTimeInterval(-3600))
    _ = try stale.setSourceOrder(steps, [], wall: t0)
    _ = try phone.setClock(t0.addingTimeInterval(60))
    _ = try phone.setSourceOrder(steps, phoneFirst + [SampleSource(bundleID: "com.x", device: .watch)], wall: t0)
    var later = makeDevice(.watch, apps: [walker])
    _ = later.receivePeerEntries(phone.outboundEntries(after: 0, maxItems: 100), wall: t0)
    let received = later.policy.sourceOrders[steps]
    var older = later
    _ = older.receivePeerEntries(
      stale.outboundEntries(after: 0, maxItems: 100).map { SyncEntry(seq: $0.seq + 2, payload: $0.payload) },
      wall: t0)
    #expect(older.sync.appliedFromPeer == 4)
    #expect(older.policy.sourceOrders[steps] == received)
    expectError(.unknownError, kind: .simulator) {
      _ = try phone.setSourceOrder(steps, phoneFirst + phoneFirst, wall: t0)
    }
  }
}
