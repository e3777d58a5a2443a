import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

#if canImport(Glibc)
  import Glibc
#endif

/// Inputs the fuzzers found at the engine's edges: each is refused or answered, never a trap.
@Suite("Hostile engine inputs (fuzz regressions)")
struct HostileEngineInputTests {
  @Test func aCollectionWithAstronomicalBucketsIsAnInvalidArgument() throws {
    var phone = makeDevice()
    // Reading granted too: without it the query fails as not determined before any bucket is computed.
    try phone.grant(waterApp.bundleID, share: [steps], read: [steps])
    _ = try phone.save(
      waterApp.bundleID,
      [SampleInput(uuid: UUID(), type: steps, value: .quantity(5, unit: "count"), start: t0, end: t0)], wall: t0)
    // A tiny interval anchored far away: the bucket numbers do not fit an Int.
    let far = StatisticsQuery(
      type: steps, options: .cumulativeSum, interval: 1e-300, anchor: Date(timeIntervalSinceReferenceDate: -1e300))
    expectError(.errorInvalidArgument) { _ = try phone.statisticsCollection(waterApp.bundleID, far, wall: t0) }
    let ranged = StatisticsQuery(
      type: steps, range: DateRange(start: t0.addingTimeInterval(-86400), end: t0.addingTimeInterval(86400)),
      options: .cumulativeSum,
      interval: 1e-6, anchor: t0)
    expectError(.errorInvalidArgument) { _ = try phone.statisticsCollection(waterApp.bundleID, ranged, wall: t0) }
  }

  @Test func aPeerEntryAtTheLastSequenceNumberDoesNotOverflow() {
    var watch = makeDevice(.watch)
    let entry = SyncEntry(seq: UInt64.max, payload: .samples([]))
    #expect(watch.receivePeerEntries([entry], wall: t0).isEmpty, "a gap: not applied")
  }
}

/// Numbers a request carries (dates, durations, intervals, quantities) are refused when out of range, before
/// anything is journaled, so no clock, date or sum becomes infinite or NaN.
@Suite("Out-of-range request values")
struct OutOfRangeRequestTests {
  func simulatorError(
    _ body: () throws(HealthError) -> [DeviceEvent], sourceLocation: SourceLocation = #_sourceLocation
  ) -> HealthError? {
    do throws(HealthError) {
      let events = try body()
      Issue.record("accepted and journaled \(events)", sourceLocation: sourceLocation)
      return nil
    } catch {
      #expect(error.kind == .simulator, "\(error)", sourceLocation: sourceLocation)
      return error
    }
  }

  @Test func theClockRefusesNonFiniteAndFarDates() throws {
    var phone = makeDevice()
    for seconds in [Double.infinity, -.infinity, .nan, 1e300, -1e300] {
      let error = simulatorError { () throws(HealthError) in
        try phone.setClock(Date(timeIntervalSinceReferenceDate: seconds))
      }
      #expect(error?.message.contains("between 0001-01-01 and 3000-01-01") == true)
    }
    #expect(phone.virtualNow == t0, "nothing changed")
    let lastMoment = latestSampleDate.addingTimeInterval(-1)
    #expect(try phone.setClock(lastMoment) == [.clockSet(lastMoment)])
    _ = simulatorError { () throws(HealthError) in try phone.setClock(latestSampleDate) }
    #expect(try phone.setClock(earliestSampleDate) == [.clockSet(earliestSampleDate)])
    #expect(try phone.setClock(nil) == [.clockSet(nil)])
  }

  @Test func advancingTheClockCannotOverflowOrLeaveTheRange() throws {
    var phone = makeDevice()
    // now + 1e308 s would set the clock to the year 3e300: refused, the clock unchanged.
    for seconds in [1e308, Double.greatestFiniteMagnitude, 1e12] {
      let error = simulatorError { () throws(HealthError) in try phone.advanceClock(by: seconds, wall: t0) }
      #expect(error?.message.contains("from 2026-01-05T08:00:00Z") == true, "\(String(describing: error))")
    }
    _ = simulatorError { () throws(HealthError) in try phone.advanceClock(by: .infinity, wall: t0) }
    #expect(phone.virtualNow == t0)
    let toTheEnd = latestSampleDate.timeIntervalSince(t0) - 1
    #expect(try phone.advanceClock(by: toTheEnd, wall: t0) == [.clockSet(t0.addingTimeInterval(toTheEnd))])
  }

  @Test func retentionMustBeAPositiveDurationOfAtMost1e12Seconds() throws {
    var watch = makeDevice(.watch)
    for retention in [Double.infinity, .nan, 0, -1, 1e300, 1.0000001e12] {
      _ = simulatorError { () throws(HealthError) in
        try watch.setPolicy(DevicePolicy(reprompt: .strict, retention: retention))
      }
    }
    _ = try watch.setPolicy(DevicePolicy(reprompt: .strict, retention: 1e12))
  }

  @Test func queryDatesMustBeFinite() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [steps], read: [steps])
    let input = SampleInput(uuid: UUID(), type: steps, value: .quantity(5, unit: "count"), start: t0, end: t0 + 60)
    _ = try phone.save(waterApp.bundleID, [input], wall: t0)
    let nan = Date(timeIntervalSinceReferenceDate: .nan)
    for range in [
      DateRange(start: nan, end: nil), DateRange(start: nil, end: nan),
      DateRange(start: t0 - 60, end: Date(timeIntervalSinceReferenceDate: .infinity)),
    ] {
      // A non-finite bound would make the statistics sum NaN: refused.
      expectError(.errorInvalidArgument) {
        let query = StatisticsQuery(type: steps, range: range, options: .cumulativeSum)
        _ = try phone.statistics(waterApp.bundleID, query, wall: t0)
      }
      expectError(.errorInvalidArgument) {
        _ = try phone.sampleQuery(waterApp.bundleID, SampleQuery(type: steps, range: range), wall: t0)
      }
      expectError(.errorInvalidArgument) {
        _ = try phone.anchoredQuery(waterApp.bundleID, type: steps, anchor: 0, range: range, limit: 0, wall: t0)
      }
    }
    let badAnchor = StatisticsQuery(type: steps, options: .cumulativeSum, interval: 3600, anchor: nan)
    expectError(.errorInvalidArgument) { _ = try phone.statisticsCollection(waterApp.bundleID, badAnchor, wall: t0) }
  }

  @Test func aCollectionIntervalIsPositiveAndAtMost1e12Seconds() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [steps], read: [steps])
    let input = SampleInput(uuid: UUID(), type: steps, value: .quantity(5, unit: "count"), start: t0, end: t0)
    _ = try phone.save(waterApp.bundleID, [input], wall: t0)
    for interval in [1e300, Double.greatestFiniteMagnitude, .nan, 0] {
      // A bucket of 1.8e308 s would end at an infinite date: refused.
      let query = StatisticsQuery(
        type: steps, range: DateRange(start: t0, end: t0 + 1), options: .cumulativeSum, interval: .seconds(interval),
        anchor: t0)
      expectError(.errorInvalidArgument, kind: .wouldTerminate) {
        _ = try phone.statisticsCollection(waterApp.bundleID, query, wall: t0)
      }
    }
  }

  @Test func anOverflowingSaveLeavesStatisticsFinite() throws {
    var phone = makeDevice()
    try phone.grant(waterApp.bundleID, share: [water], read: [water])
    let huge = SampleInput(uuid: UUID(), type: water, value: .quantity(1e308, unit: "L"), start: t0, end: t0)
    expectError(.errorInvalidArgument) { _ = try phone.save(waterApp.bundleID, [huge], wall: t0) }
    _ = try phone.save(waterApp.bundleID, [waterInput(250)], wall: t0)
    let stats = try phone.statistics(waterApp.bundleID, StatisticsQuery(type: water, options: .cumulativeSum), wall: t0)
    #expect(stats.sum == 250)
  }
}
