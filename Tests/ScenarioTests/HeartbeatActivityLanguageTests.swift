import FoundationEssentials
import TestSupport
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Scenario
@testable import ScenarioLanguage

/// The install line these tests start with (line 1), then a saved workout named `morning` (line 2).
private let hbHeader = """
  install Runner on phone and watch share workout heartRate activeEnergyBurned heartbeatSeries \
  read workout heartRate activeEnergyBurned heartbeatSeries
  watch: Runner saves workout running from 07:00 to 07:45 as morning

  """

/// Parses `text` after ``hbHeader`` and returns the steps after it.
private func hbSteps(_ text: String) throws -> [StepKind] {
  let scenario = try ScenarioParser.parse(hbHeader + text + "\nexpect link is up", file: "h.scenario").get()
  return scenario.steps.dropFirst(2).dropLast().map(\.kind)
}

/// The first diagnostic of `text` after ``hbHeader``: its error, line and column.
private func hbDiagnostic(_ text: String) -> (ScenarioError, Int, Int)? {
  switch ScenarioParser.parse(hbHeader + text + "\nexpect link is up", file: "h.scenario") {
  case .success: return nil
  case .failure(let d): return d.items.first.map { ($0.error, $0.location.line, $0.location.column) }
  }
}

@Suite("Scenario language: heartbeat series, events by type, workout activities")
struct HeartbeatActivityLanguageTests {
  @Test func aHeartbeatSeriesStepParsesIntoItsBeats() throws {
    let parsed = try hbSteps(
      "watch: Runner saves heartbeat series at 07:00 with beats every 0.8s for 60s gap at 20s for 5s as beats")
    guard case .saveHeartbeatSeries(.watch, "Runner", let spec) = parsed.first else {
      Issue.record("not a heartbeat series save: \(parsed)")
      return
    }
    #expect(spec.start == .timeOfDay(seconds: 7 * 3600))
    #expect(spec.interval == 0.8 && spec.span == 60)
    #expect(spec.gaps == [HeartbeatGapSpec(offset: 20, length: 5)])
    #expect(spec.name == "beats")
    let beats = spec.beats
    // 76 beats from 0 to 60 s, less the 7 at 20.0…24.8 s; the one at 25.6 s follows the gap.
    #expect(beats.count == 69)
    #expect(beats.first == Heartbeat(offset: 0))
    #expect(beats.last?.offset == 60)
    #expect(beats.filter(\.precededByGap).map(\.offset) == [25.6])
    #expect(zip(beats, beats.dropFirst()).allSatisfy { $0.offset < $1.offset })
  }

  @Test func heartbeatEventAndActivityExpectationsParseIntoTheirChecks() throws {
    let parsed = try hbSteps(
      """
      expect both: Runner sees 2 heartbeat series with 69 beats each and 1 gap from 07:00 to 08:00
      expect phone: Runner's workout morning has 2 pause events
      expect phone: Runner's workout morning has 3 activities of cycling
      expect phone: Runner's workout morning activity 2 lasts 50m
      expect phone: Runner's workout morning activity 1 average of heartRate is 120 count/min
      expect phone: Runner sees 1 workout with activity swimming or cycling
      """)
    #expect(parsed.count == 6)
    guard case .expect(.seesHeartbeatSeries(.both, let query, 2, let check)) = parsed[0] else {
      Issue.record("\(parsed[0])")
      return
    }
    #expect(query.type.name == "heartbeatSeries" && query.range != nil)
    #expect(check.beats == 69 && check.gaps == 1)
    #expect(parsed[1] == .expect(.workout(.phone, app: "Runner", name: "morning", .eventsOfType(.pause, 2))))
    #expect(parsed[2] == .expect(.workout(.phone, app: "Runner", name: "morning", .activities(3, .cycling))))
    #expect(parsed[3] == .expect(.workout(.phone, app: "Runner", name: "morning", .leg(2, .duration(3000)))))
    guard case .expect(.workout(_, _, _, .leg(1, .statistic(.average, let type, 120, _)))) = parsed[4] else {
      Issue.record("\(parsed[4])")
      return
    }
    #expect(type.name == "heartRate")
    guard case .expect(.seesWorkouts(.one(.phone), let spec, 1)) = parsed[5] else {
      Issue.record("\(parsed[5])")
      return
    }
    #expect(spec.withActivities == [WorkoutActivityType.swimming, .cycling])
  }

  @Test func aWorkoutsActivitiesParseInOrderAndTheirStatisticsCountTheSamplesInside() throws {
    let parsed = try hbSteps(
      "watch: Runner saves workout swimBikeRun from 07:00 to 09:00 activity swimming from 07:00 to 07:30 "
        + "activity cycling from 07:35 for 50m as tri")
    guard case .saveWorkout(_, _, let spec) = parsed.first else {
      Issue.record("\(parsed)")
      return
    }
    #expect(
      spec.activities == [
        WorkoutLegSpec(
          activity: .swimming, start: .timeOfDay(seconds: 25_200), end: .time(.timeOfDay(seconds: 27_000))),
        WorkoutLegSpec(activity: .cycling, start: .timeOfDay(seconds: 27_300), end: .duration(3000)),
      ])
    let t0 = Date(timeIntervalSinceReferenceDate: 0)
    let energy = SampleType.lookup(name: "activeEnergyBurned")!
    let heart = SampleType.lookup(name: "heartRate")!
    let samples = [
      SampleInput(
        uuid: UUID(), type: energy, value: .quantity(100, unit: "kcal"), start: t0, end: t0 + 100, metadata: [:]),
      SampleInput(
        uuid: UUID(), type: heart, value: .quantity(2, unit: "count/s"), start: t0 + 10, end: t0 + 10,
        metadata: [:]),
      SampleInput(
        uuid: UUID(), type: heart, value: .quantity(3, unit: "count/s"), start: t0 + 60, end: t0 + 60,
        metadata: [:]),
    ]
    let stats = WorkoutPlan.activityStatistics(samples, start: t0 + 50, end: t0 + 100)
    #expect(stats.first { $0.type == energy }?.sum == 50)
    let h = stats.first { $0.type == heart }
    #expect(h?.average == 3 && h?.minimum == 3 && h?.mostRecent == 3)
    #expect(WorkoutPlan.activityStatistics(samples, start: t0 + 200, end: t0 + 300).isEmpty)
  }

  static let errors: [ErrorCase] = [
    .init(
      source: "watch: Runner saves heartbeat series 07:00 with beats every 1s for 60s",
      error: .expected("'at <time>', the series' start", found: "07:00"), line: 3, column: 38),
    .init(
      source: "watch: Runner saves heartbeat series at 07:00 with beats every 10s for 60s",
      error: .expected("a beat interval from 0.25s to 5s", found: "10s"), line: 3, column: 64),
    .init(
      source: "watch: Runner saves heartbeat series at 07:00 with beats every 1s for 60s gap at 90s for 5s",
      error: .expected("a gap inside the series", found: "90s"), line: 3, column: 82),
    .init(
      source: "watch: Runner saves heartbeat series at 07:00 with beats every 1s for 60s gaps at 9s for 5s",
      error: .expected("'gap at <offset> for <duration>' or 'as <name>'", found: "gaps"), line: 3, column: 75),
    .init(
      source: "watch: Runner saves heartbeat series at 07:00 with beats every 1s for 60s as morning",
      error: .duplicateSampleName("morning"), line: 3, column: 78),
    .init(
      source: "expect phone: Runner sees 1 heartbeat series with 60 beets",
      error: .expected("'beats' or 'gaps'", found: "beets"), line: 3, column: 54),
    .init(
      source: "watch: Runner saves workout swimBikeRun from 07:00 to 08:00 activity swiming from 07:00 to 07:30",
      error: .unknownActivityType("swiming", suggestion: "swimming"), line: 3, column: 70),
    .init(
      source: "watch: Runner saves workout swimBikeRun from 07:00 to 08:00 activity swimming at 07:00",
      error: .expected("'from <time>', the activity's start", found: "at"), line: 3, column: 79),
    .init(
      source: "expect phone: Runner's workout morning activity 0 is running",
      error: .invalidNumber("0"), line: 3, column: 49),
    .init(
      source: "expect phone: Runner's workout morning activity 1 duration of heartRate is 1 s",
      error: .expected("'is', 'lasts' or a statistic such as 'sum of'", found: "duration"), line: 3, column: 51),
    .init(
      source: "expect phone: Runner sees 1 workout with activity runing",
      error: .unknownActivityType("runing", suggestion: "running"), line: 3, column: 51),
  ]

  @Test("A malformed heartbeat, event or activity form is a located diagnostic", arguments: errors)
  func errorCase(_ c: ErrorCase) {
    let found = hbDiagnostic(c.source)
    #expect(found?.0 == c.error, "\(String(describing: found))")
    #expect(found?.1 == c.line)
    #expect(found?.2 == c.column)
  }
}
