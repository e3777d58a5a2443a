import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage

/// What an app's workout and activity summary queries return.
extension RunContext {
  /// `<App> sees <n> workouts …`.
  func checkSeesWorkouts(_ devices: Devices, _ spec: WorkoutQuerySpec, _ expected: Int, _ step: Step) throws {
    throw fail(step, "the workout queries of the daemon", "not available in this build")
  }

  /// `<App>'s workout <name> …`.
  func checkWorkout(_ device: DeviceKind, _ name: String, _ workout: String, _ check: WorkoutCheck, _ step: Step)
    throws
  {
    throw fail(step, "the workout queries of the daemon", "not available in this build")
  }

  /// `<App> sees [no] activity summary <date> …`.
  func checkActivitySummary(
    _ devices: Devices, _ name: String, _ day: LocalDay, _ check: ActivitySummaryCheck?, _ step: Step
  ) throws {
    throw fail(step, "the activity summary queries of the daemon", "not available in this build")
  }

  /// `<App>'s activity summary query … <outcome>`.
  func checkActivitySummaryQuery(
    _ device: DeviceKind, _ name: String, _ day: LocalDay?, _ outcome: QueryOutcome, _ step: Step
  ) throws {
    throw fail(step, "the activity summary queries of the daemon", "not available in this build")
  }
}
