import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

private let summaryType = SampleType.lookup(name: "activitySummary")!
private let moveTime = SampleType.lookup(name: "appleMoveTime")!
/// What the watch recorded (on the phone: synced copies), which the rings count (E11).
private let activity = SampleSource(bundleID: "com.apple.health.activity", device: .watch)

private func stored(_ type: SampleType, _ value: SampleValue, at date: Date, source: SampleSource = activity)
  -> Sample
{
  Sample(uuid: UUID(), type: type, value: value, start: date, end: date.addingTimeInterval(60), source: source)
}

/// A phone in Paris (UTC+1 in January) with the run app allowed to read activity summaries.
private func parisPhone() throws -> DeviceState {
  var device = makeDevice(.phone, apps: [runApp, waterApp])
  var policy = device.policy
  policy.timeZone = try TimeZoneRule(identifier: "Europe/Paris")
  _ = try device.setPolicy(policy)
  try device.grant(runApp.bundleID, read: [summaryType])
  return device
}

@Suite("Activity summaries (workouts.md §1.9; HealthPair model rings)")
struct ActivitySummaryTests {
  @Test func ringsArePerLocalDayOfTheDevicesTimeZone() throws {
    var device = try parisPhone()
    // 2026-01-05 23:30 UTC is 2026-01-06 00:30 in Paris; 22:30 UTC is still the 5th there.
    let lateUTC = parseDate("2026-01-05T23:30:00Z")!
    let earlierUTC = parseDate("2026-01-05T22:30:00Z")!
    device.apply(
      .samplesSaved([
        stored(activeEnergy, .quantity(100), at: earlierUTC), stored(activeEnergy, .quantity(50), at: lateUTC),
        stored(exercise, .quantity(12), at: earlierUTC), stored(moveTime, .quantity(7), at: lateUTC),
        stored(standHour, .category(0), at: earlierUTC), stored(standHour, .category(1), at: earlierUTC),
        stored(standHour, .category(0), at: lateUTC),
        // Saved by a phone app: not what the watch recorded, so it does not move the rings.
        stored(activeEnergy, .quantity(999), at: earlierUTC, source: SampleSource(bundleID: "w", device: .phone)),
      ]))
    let summaries = try device.activitySummaries(runApp.bundleID, from: nil, to: nil, wall: t0)
    try #require(summaries.count == 2)
    #expect(summaries.map(\.day) == [LocalDay(year: 2026, month: 1, day: 5), LocalDay(year: 2026, month: 1, day: 6)])
    #expect(summaries[0].activeEnergy == 100 && summaries[0].exerciseTime == 12 && summaries[0].standHours == 1)
    #expect(summaries[1].activeEnergy == 50 && summaries[1].moveTime == 7 && summaries[1].standHours == 1)
    #expect(summaries[0].activeEnergyGoal == 400 && summaries[0].standHoursGoal == 12, "the model's goals")
    let sixth = try device.activitySummaries(
      runApp.bundleID, from: LocalDay(year: 2026, month: 1, day: 6), to: LocalDay(year: 2026, month: 1, day: 6),
      wall: t0)
    #expect(sixth.map(\.activeEnergy) == [50])
  }

  @Test func anImportedSummaryWinsAndReadsFollowTheRules() throws {
    var device = try parisPhone()
    device.apply(.samplesSaved([stored(activeEnergy, .quantity(80), at: t0)]))
    let imported = ActivitySummary(
      day: LocalDay(year: 2026, month: 1, day: 5), activeEnergy: 500, activeEnergyGoal: 600, exerciseTimeGoal: 45)
    _ = try device.stageImportWorkouts(1, workouts: [], routes: [], summaries: [imported])
    _ = try device.commitImport(1, wall: t0)
    #expect(try device.activitySummaries(runApp.bundleID, from: nil, to: nil, wall: t0) == [imported])
    // Never asked: code 5; denied: no data.
    expectError(.errorAuthorizationNotDetermined) {
      _ = try device.activitySummaries(waterApp.bundleID, from: nil, to: nil, wall: t0)
    }
    try device.grant(waterApp.bundleID, read: [summaryType], answer: .denyAll)
    #expect(try device.activitySummaries(waterApp.bundleID, from: nil, to: nil, wall: t0).isEmpty)
    var bad = imported
    bad.activeEnergy = -.infinity
    expectError(.errorInvalidArgument) {
      _ = try device.stageImportWorkouts(2, workouts: [], routes: [], summaries: [bad])
    }
  }
}
