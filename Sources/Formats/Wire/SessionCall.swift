import FoundationEssentials
import HealthEngine
import HealthModel

/// One call an app makes on a workout session or its live builder (the `workoutSession` request, opcode 110;
/// docs/protocol.md, "Workout sessions"). The device runs sessions (``DeviceState`` `live`); the app's objects are
/// views of them, kept current by the `workoutSession` and `workoutBuilder` events.
package enum SessionCall: Hashable, Sendable {
  /// `HKWorkoutSession(healthStore:configuration:)`: a new primary session with this identifier.
  case create(uuid: UUID, configuration: WorkoutConfiguration)
  /// `prepare`, `startActivity(with:)`, `pause`, `resume`, `stopActivity(with:)`, `end`, `beginNewActivity…`,
  /// `endCurrentActivity(on:)`.
  case command(WorkoutSessionID, SessionCommand)
  /// `associatedWorkoutBuilder()`: the session's live builder, created once.
  case builder(WorkoutSessionID)
  /// `beginCollection(withStart:)` of the session's builder.
  case beginCollection(WorkoutSessionID, Date)
  /// `endCollection(withEnd:)` of the session's builder.
  case endCollection(WorkoutSessionID, Date)
  /// `finishWorkout()` of the session's builder: saves the workout with this identifier.
  case finishWorkout(WorkoutSessionID, workout: UUID)
  /// The session as it is now (after the sensor model ran up to the device's time).
  case status(WorkoutSessionID)

  /// The API's name, for logs.
  package var name: String {
    switch self {
    case .create: "HKWorkoutSession.init"
    case .command(_, let command): command.name
    case .builder: "associatedWorkoutBuilder"
    case .beginCollection: "beginCollection"
    case .endCollection: "endCollection"
    case .finishWorkout: "finishWorkout"
    case .status: "status"
    }
  }
}

/// A session as the device holds it after a call (the answer to `workoutSession`).
package struct SessionStatus: Hashable, Sendable {
  /// The session object.
  package var id: WorkoutSessionID
  /// Its state (Apple's raw values).
  package var state: WorkoutSessionState
  /// Primary or mirrored.
  package var type: WorkoutSessionType
  /// `startDate` and `endDate`.
  package var start: Date?
  /// `endDate`.
  package var end: Date?
  /// After `finishWorkout`: 1 when the workout waits for the device to unlock (behavior.md E31), else 0.
  package var waiting: Bool

  /// A status.
  package init(
    id: WorkoutSessionID, state: WorkoutSessionState, type: WorkoutSessionType, start: Date?, end: Date?,
    waiting: Bool = false
  ) {
    self.id = id
    self.state = state
    self.type = type
    self.start = start
    self.end = end
    self.waiting = waiting
  }
}
