import FoundationEssentials
import Testing

@testable import HealthModel
@testable import Scenario
@testable import ScenarioLanguage

/// The deterministic parts of a `saves workout` step: active stretches, sample instants and route fixes.
@Suite("Scenario runner: workout plans")
struct WorkoutPlanTests {
  let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)

  @Test func stretchesLeaveOutPausesClippedToTheWorkout() {
    let stretches = WorkoutPlan.activeStretches(
      start: t0, end: t0 + 3600,
      pauses: [
        DateInterval(start: t0 + 1800, end: t0 + 2100), DateInterval(start: t0 + 600, end: t0 + 900),
        DateInterval(start: t0 + 3500, end: t0 + 4000),
      ])
    #expect(
      stretches == [
        DateInterval(start: t0, end: t0 + 600), DateInterval(start: t0 + 900, end: t0 + 1800),
        DateInterval(start: t0 + 2100, end: t0 + 3500),
      ])
    #expect(WorkoutPlan.activeSeconds(until: t0 + 1000, in: stretches) == 700)
  }

  @Test func ticksFallOnTheIntervalAndNeverInAPause() {
    let stretches = [DateInterval(start: t0, end: t0 + 10), DateInterval(start: t0 + 20, end: t0 + 30)]
    let ticks = WorkoutPlan.ticks(every: 5, over: stretches)
    #expect(ticks == [t0, t0 + 5, t0 + 20, t0 + 25])
  }

  @Test func routeFixesHeadNorthAtTheDistancesSpeed() {
    let stretches = [DateInterval(start: t0, end: t0 + 100)]
    let route = RouteSpec(interval: 10, latitude: 52, longitude: 4)
    let fixes = WorkoutPlan.locations(route, over: stretches, metres: 500)
    #expect(fixes.count == 10)
    #expect(fixes.allSatisfy { $0.longitude == 4 && $0.speed == 5 })
    #expect(fixes[0].latitude == 52)
    #expect(abs(fixes[9].latitude - (52 + 450 / 111_320)) < 1e-12)
    let fixed = WorkoutPlan.locations(
      RouteSpec(interval: 50, latitude: 0, longitude: 0, speed: 2), over: stretches, metres: 500)
    #expect(fixed.map(\.speed) == [2, 2])
  }
}
