import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage

/// An app's workout calls: saving a workout with its samples and route, a route for a named workout, the legacy
/// `add(_:to:)`, deleting a workout. Each call's outcome is the app's last call and goes in the trace.
extension RunContext {
  /// `<device>: <App> saves workout …`.
  mutating func saveWorkout(_ device: DeviceKind, _ name: String, _ spec: WorkoutSpec, _ step: Step) throws {
    throw fail(step, "the workout calls of the daemon", "not available in this build")
  }

  /// `<device>: <App> saves route … for workout <name>`.
  mutating func saveRoute(_ device: DeviceKind, _ name: String, _ route: RouteSpec, workout: String, _ step: Step)
    throws
  {
    throw fail(step, "the workout calls of the daemon", "not available in this build")
  }

  /// `<device>: <App> adds … to workout <name>`.
  mutating func addToWorkout(
    _ device: DeviceKind, _ name: String, samples: [SampleSpec], named: [String], workout: String, _ step: Step
  ) throws {
    throw fail(step, "the workout calls of the daemon", "not available in this build")
  }

  /// `<device>: <App> deletes workout <name>`.
  mutating func deleteWorkout(_ device: DeviceKind, _ name: String, workout: String, _ step: Step) throws {
    throw fail(step, "the workout calls of the daemon", "not available in this build")
  }
}
