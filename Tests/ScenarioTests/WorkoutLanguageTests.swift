import FoundationEssentials
import TestSupport
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Scenario
@testable import ScenarioLanguage

/// The install line the workout forms' tests start with (line 1), then a saved workout named `morning` (line 2).
private let workoutHeader = """
  install Runner on phone and watch share workout workoutRoute activeEnergyBurned heartRate distanceWalkingRunning \
  read workout workoutRoute activeEnergyBurned heartRate activitySummary
  watch: Runner saves workout running from 07:00 to 07:45 as morning

  """

/// Parses `text` after ``workoutHeader`` and returns the steps after it.
private func workoutSteps(_ text: String) throws -> [StepKind] {
  let scenario = try ScenarioParser.parse(workoutHeader + text + "\nexpect link is up", file: "w.scenario").get()
  return scenario.steps.dropFirst(2).dropLast().map(\.kind)
}

/// The first diagnostic of `text` after ``workoutHeader``: its error, line and column.
private func workoutDiagnostic(_ text: String) -> (ScenarioError, Int, Int)? {
  switch ScenarioParser.parse(workoutHeader + text + "\nexpect link is up", file: "w.scenario") {
  case .success: return nil
  case .failure(let d): return d.items.first.map { ($0.error, $0.location.line, $0.location.column) }
  }
}

private let energy = SampleType.lookup(name: "activeEnergyBurned")!
private let heartRate = SampleType.lookup(name: "heartRate")!

@Suite("Scenario language: workouts")
struct WorkoutLanguageTests {
  @Test func aWorkoutWithEveryClauseParsesIntoItsSpec() throws {
    let steps = try workoutSteps(
      "watch: Runner saves workout running from 07:00 to 07:45 paused 07:10 to 07:15 paused from 07:20 for 1m "
        + "energy 350 kcal distance 5 km heart rate every 5s at 140 bpm series stepCount every 1m at 160 count "
        + "route 1 Hz from 52.37,4.89 outdoor with HKMetadataKeyWeatherTemperature=20 as run")
    guard case .saveWorkout(.watch, "Runner", let spec) = steps.first else {
      Issue.record("not a workout save: \(steps)")
      return
    }
    #expect(spec.activity == .running)
    #expect(spec.start == .timeOfDay(seconds: 7 * 3600))
    #expect(spec.end == .time(.timeOfDay(seconds: 7 * 3600 + 45 * 60)))
    #expect(
      spec.pauses == [
        WorkoutPauseSpec(start: .timeOfDay(seconds: 25_800), end: .time(.timeOfDay(seconds: 26_100))),
        WorkoutPauseSpec(start: .timeOfDay(seconds: 26_400), end: .duration(60)),
      ])
    #expect(
      spec.totals == [
        WorkoutTotalSpec(type: energy, value: 350, unit: "kcal"),
        WorkoutTotalSpec(type: SampleType.lookup(name: "distanceWalkingRunning")!, value: 5, unit: "km"),
      ])
    #expect(
      spec.series == [
        WorkoutSeriesSpec(type: heartRate, interval: 5, value: 140, unit: "count/min"),
        WorkoutSeriesSpec(type: SampleType.lookup(name: "stepCount")!, interval: 60, value: 160, unit: "count"),
      ])
    #expect(spec.route == RouteSpec(interval: 1, latitude: 52.37, longitude: 4.89))
    #expect(spec.location == .outdoor)
    #expect(spec.metadata.count == 1)
    #expect(spec.name == "run")
  }

  @Test func distanceFollowsTheActivityUnlessATypeIsNamed() throws {
    let steps = try workoutSteps(
      """
      phone: Runner saves workout cycling from 08:00 for 1h distance 20 km indoor
      phone: Runner saves workout running from 09:00 for 1h distance 3 mi distanceCycling route every 5s from -33.9,151.2 at 2.5 m/s
      """)
    guard case .saveWorkout(_, _, let cycling) = steps[0], case .saveWorkout(_, _, let named) = steps[1] else {
      Issue.record("\(steps)")
      return
    }
    #expect(cycling.totals.map(\.type.name) == ["distanceCycling"])
    #expect(cycling.location == .indoor)
    #expect(cycling.end == .duration(3600))
    #expect(named.totals == [WorkoutTotalSpec(type: SampleType.lookup(name: "distanceCycling")!, value: 3, unit: "mi")])
    #expect(named.route == RouteSpec(interval: 5, latitude: -33.9, longitude: 151.2, speed: 2.5))
  }

  @Test func routesAddsAndDeletesNameTheWorkout() throws {
    let steps = try workoutSteps(
      """
      watch: Runner saves 150 count/min heartRate at 07:30 as beat
      watch: Runner saves route 2 Hz from 52.37,4.89 for workout morning
      watch: Runner adds 20 kcal activeEnergyBurned from 07:40 to 07:45 plus 120 count/min heartRate at 07:44 to workout morning
      watch: Runner adds beat to workout morning
      phone: Runner deletes workout morning
      """)
    #expect(
      steps[1]
        == .saveRoute(
          .watch, app: "Runner", RouteSpec(interval: 0.5, latitude: 52.37, longitude: 4.89), workout: "morning"))
    guard case .addToWorkout(.watch, "Runner", let samples, [], "morning") = steps[2] else {
      Issue.record("\(steps[2])")
      return
    }
    #expect(samples.map(\.type) == [energy, heartRate])
    #expect(samples[0].end == .time(.timeOfDay(seconds: 7 * 3600 + 45 * 60)))
    #expect(steps[3] == .addToWorkout(.watch, app: "Runner", samples: [], named: ["beat"], workout: "morning"))
    #expect(steps[4] == .deleteWorkout(.phone, app: "Runner", workout: "morning"))
  }

  @Test func expectationsParseIntoTheirChecks() throws {
    let steps = try workoutSteps(
      """
      expect both: Runner sees 1 workout of running or walking lasting at least 30m from 07:00 to 08:00 from Runner
      expect phone: Runner sees no workouts
      expect phone: Runner's workout morning lasts 40m
      expect phone: Runner's workout morning is running
      expect phone: Runner's workout morning is not found
      expect watch: Runner's workout morning sum of activeEnergyBurned is 350 kcal
      expect watch: Runner's workout morning average of heartRate is 140 count/min
      expect watch: Runner's workout morning has no heartRate statistics
      expect watch: Runner's workout morning has 480 heartRate samples
      expect watch: Runner's workout morning has 3 samples
      expect watch: Runner's workout morning has 1 route with 2400 locations
      expect watch: Runner's workout morning has no route
      expect watch: Runner's workout morning has 2 events
      expect phone: Runner sees activity summary 2026-01-05: move 350 kcal, move goal 1500 kJ, exercise 45 min, stand 2 h, paused
      expect phone: Runner sees no activity summary for 2026-01-06
      expect phone: Runner's activity summary query for 2026-01-05 fails with errorAuthorizationNotDetermined
      """)
    var query = WorkoutQuerySpec(app: "Runner")
    query.activities = [.running, .walking]
    query.minimumDuration = 1800
    query.query.range = RangeSpec(start: .timeOfDay(seconds: 25_200), end: .timeOfDay(seconds: 28_800), options: [])
    query.query.sources = ["Runner"]
    #expect(steps[0] == .expect(.seesWorkouts(.both, query, 1)))
    #expect(steps[1] == .expect(.seesWorkouts(.one(.phone), WorkoutQuerySpec(app: "Runner"), 0)))
    let checks: [WorkoutCheck] = steps[2...12].compactMap {
      if case .expect(.workout(_, "Runner", "morning", let check)) = $0 { return check }
      return nil
    }
    let kcal = try HealthUnit(parsing: "kcal")
    let bpm = try HealthUnit(parsing: "count/min")
    #expect(
      checks == [
        .duration(2400), .activity(.running), .notFound, .statistic(.sum, energy, value: 350, unit: kcal),
        .statistic(.average, heartRate, value: 140, unit: bpm), .noStatistic(heartRate), .samples(heartRate, 480),
        .samples(nil, 3), .routes(1, locations: 2400), .routes(0, locations: nil), .events(2),
      ])
    guard case .expect(.activitySummary(.one(.phone), "Runner", let day, let summary?)) = steps[13] else {
      Issue.record("\(steps[13])")
      return
    }
    #expect(day == LocalDay(year: 2026, month: 1, day: 5))
    #expect(summary.values.map(\.ring) == [.move, .moveGoal, .exercise, .stand])
    #expect(abs(summary.values[1].value - 1500 / 4.184) < 0.01)
    #expect(summary.values.map(\.value)[2...] == [45, 2])
    #expect(summary.paused == true)
    #expect(
      steps[14] == .expect(.activitySummary(.one(.phone), app: "Runner", LocalDay(year: 2026, month: 1, day: 6), nil)))
    #expect(
      steps[15]
        == .expect(
          .activitySummaryQuery(
            .phone, app: "Runner", LocalDay(year: 2026, month: 1, day: 5),
            .fails(.errorAuthorizationNotDetermined, fragments: []))))
  }

  @Test func aWorkoutStepIsAnAppStepInTheDevicesLane() throws {
    let scenario = try ScenarioParser.parse(
      workoutHeader + "expect both: Runner's workout morning lasts 45m\n", file: "w.scenario"
    ).get()
    #expect(scenario.steps[1].category == .app && scenario.steps[1].lane == .watch)
    guard case .expect(.onBoth(let phone, let watch)) = scenario.steps[2].kind else {
      Issue.record("\(scenario.steps[2].kind)")
      return
    }
    #expect(phone == .workout(.phone, app: "Runner", name: "morning", .duration(2700)))
    #expect(watch == .workout(.watch, app: "Runner", name: "morning", .duration(2700)))
  }

  static let errors: [ErrorCase] = [
    .init(
      source: "watch: Runner saves workout runing from 07:00 to 07:45",
      error: .unknownActivityType("runing", suggestion: "running"), line: 3, column: 29),
    .init(
      source: "watch: Runner saves workout running at 07:00",
      error: .expected("'from <time>' and the workout's end", found: "at"), line: 3, column: 37),
    .init(
      source: "watch: Runner saves workout running from 07:00 to 07:45 energi 300 kcal",
      error: .unknownStatus("energi", valid: ParseState.workoutClauses, suggestion: "energy"), line: 3, column: 57),
    .init(
      source: "watch: Runner saves workout running from 07:00 to 07:45 energy 300 mL",
      error: .incompatibleUnit(unit: "mL", type: "activeEnergyBurned"), line: 3, column: 68),
    .init(
      source: "watch: Runner saves workout running from 07:00 to 07:45 heart rate every 0s at 140 bpm",
      error: .expected("an interval of at least 1s", found: "0s"), line: 3, column: 74),
    .init(
      source: "watch: Runner saves workout running from 07:00 to 07:45 route 1 Hz from 95,4.89",
      error: .expected("a latitude from -90 to 90", found: "95"), line: 3, column: 73),
    .init(
      source: "watch: Runner saves workout running from 07:00 to 07:45 as morning",
      error: .duplicateSampleName("morning"), line: 3, column: 60),
    .init(
      source: "watch: Runner saves route 1 Hz from 52.37,4.89 for workout evening",
      error: .unknownWorkout("evening", suggestion: nil), line: 3, column: 60),
    .init(
      source: "watch: Runner adds 20 kcal activeEnergyBurned at 07:50",
      error: .expected("the samples, then 'to workout <name>'", found: "20"), line: 3, column: 20),
    .init(
      source: "phone: Runner deletes morning",
      error: .expected("a sample's name ('deletes workout morning' deletes a workout)", found: "morning"), line: 3,
      column: 23),
    .init(
      source: "expect phone: Runner's workout mornin lasts 40m",
      error: .unknownWorkout("mornin", suggestion: "morning"), line: 3, column: 32),
    .init(
      source: "expect phone: Runner's workout morning sum of workout is 1 kcal",
      error: .expected("a quantity type", found: "workout"), line: 3, column: 47),
    .init(
      source: "expect phone: Runner sees activity summary 2026-13-05",
      error: .invalidDate("2026-13-05"), line: 3, column: 44),
    .init(
      source: "expect phone: Runner sees activity summary 2026-01-05: move 2 min",
      error: .incompatibleUnit(unit: "min", type: "the move ring"), line: 3, column: 63),
    .init(
      source: "expect phone: Runner sees activity summary 2026-01-05: stnd 2",
      error: .unknownStatus(
        "stnd", valid: ActivityRing.allCases.map(\.rawValue), suggestion: "stand"), line: 3, column: 56),
  ]

  @Test("A malformed workout form is a located diagnostic", arguments: errors)
  func errorCase(_ c: ErrorCase) {
    let found = workoutDiagnostic(c.source)
    #expect(found?.0 == c.error, "\(String(describing: found))")
    #expect(found?.1 == c.line)
    #expect(found?.2 == c.column)
  }
}
