import FoundationEssentials
import HealthEngine
import HealthModel

/// One call an app (or the world acting on it) makes on a workout session or its live builder (the `workoutSession`
/// request, opcode 110; docs/protocol.md, "Workout sessions"). The device runs sessions (``DeviceState`` `live`);
/// the app's objects are views of them, kept current by the `workoutSession` and `workoutBuilder` events.
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
  /// The app set (true) or cleared (false) the session object's `delegate`.
  case setDelegate(WorkoutSessionID, Bool)
  /// `startMirroringToCompanionDevice()`; a refusal is the request's error.
  case startMirroring(WorkoutSessionID)
  /// `stopMirroringToCompanionDevice()`; a refusal is the request's error.
  case stopMirroring(WorkoutSessionID)
  /// `sendToRemoteWorkoutSession(data:)`: an accepted send answers its sequence number (``SessionStatus/sequence``)
  /// and completes later with a `workoutDataSent` event; a refusal is the request's error.
  case sendData(WorkoutSessionID, Data)
  /// `dataSource.enableCollection(for:predicate:)` of the session's builder.
  case enableCollection(WorkoutSessionID, SampleType, SampleFilter?)
  /// `dataSource.disableCollection(for:)`.
  case disableCollection(WorkoutSessionID, SampleType)
  /// `shouldCollectWorkoutEvents` of the builder.
  case shouldCollectEvents(WorkoutSessionID, Bool)
  /// `addWorkoutEvents(_:)` of the builder.
  case addEvents(WorkoutSessionID, [WorkoutEvent])
  /// `addMetadata(_:)` of the builder.
  case addMetadata(WorkoutSessionID, Metadata)
  /// `add(_:)` of the builder: the app's own samples, saved under the usual rules and collected with the workout.
  case addSamples(WorkoutSessionID, [SampleInput])
  /// `discardWorkout()` of the builder.
  case discard(WorkoutSessionID)
  /// `recoverActiveWorkoutSession()`: the app's session still holding the device's slot; `errorNoData` when there
  /// is nothing to recover (the API's nil).
  case recover
  /// The world: the app's process is now in this run state (foreground, background, suspended, not running).
  /// Answers the app's active session's status, or `errorNoData` when it has none.
  case runState(AppRunState)
  /// `startWatchApp(toHandle:)` on the phone: the watch app is launched and handed the configuration
  /// (`handle(_ workoutConfiguration:)`). Answers as `recover` does (usually `errorNoData`).
  case startWatchApp(WorkoutConfiguration)
  /// The world: the wearer's effort from the device's time on (``DeviceState/setWearerEffort(_:wall:)``). Answers
  /// the device's active session, or `errorNoData` when there is none (the change is made either way).
  case effort(Effort)
  /// The world: the watch is put on (true) or taken off (false) the wrist now. Answers as ``effort(_:)``.
  case wrist(on: Bool)

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
    case .setDelegate: "delegate"
    case .startMirroring: "startMirroringToCompanionDevice"
    case .stopMirroring: "stopMirroringToCompanionDevice"
    case .sendData: "sendToRemoteWorkoutSession"
    case .enableCollection: "enableCollection"
    case .disableCollection: "disableCollection"
    case .shouldCollectEvents: "shouldCollectWorkoutEvents"
    case .addEvents: "addWorkoutEvents"
    case .addMetadata: "addMetadata"
    case .addSamples: "add"
    case .discard: "discardWorkout"
    case .recover: "recoverActiveWorkoutSession"
    case .runState: "runState"
    case .startWatchApp: "startWatchApp"
    case .effort: "effort"
    case .wrist: "wrist"
    }
  }
}

/// A live builder as the device holds it (part of ``SessionStatus``): what `HKLiveWorkoutBuilder`'s properties read.
package struct BuilderStatus: Hashable, Sendable {
  /// The builder's phase.
  package var phase: LiveWorkoutBuilder.Phase
  /// `startDate`.
  package var start: Date?
  /// `endDate`.
  package var end: Date?
  /// `elapsedTime` at the device's time (pauses excluded).
  package var elapsed: Double
  /// `workoutEvents`.
  package var events: [WorkoutEvent]
  /// `workoutActivities`.
  package var activities: [WorkoutActivity]
  /// `allStatistics` of what was collected.
  package var statistics: [WorkoutStatistic]
  /// The data source's `typesToCollect`.
  package var types: [SampleType]
  /// `shouldCollectWorkoutEvents`.
  package var shouldCollectWorkoutEvents: Bool
  /// `metadata`.
  package var metadata: Metadata

  /// The status of `builder` at `now`.
  package init(_ builder: LiveWorkoutBuilder, at now: Date) {
    phase = builder.phase
    start = builder.start
    end = builder.end
    elapsed = builder.elapsedTime(at: now)
    events = builder.events
    activities = builder.activities
    statistics = builder.workoutStatistics()
    types = builder.collection.types
    shouldCollectWorkoutEvents = builder.shouldCollectWorkoutEvents
    metadata = builder.metadata
  }

  /// A status from its fields.
  package init(
    phase: LiveWorkoutBuilder.Phase, start: Date?, end: Date?, elapsed: Double, events: [WorkoutEvent],
    activities: [WorkoutActivity], statistics: [WorkoutStatistic], types: [SampleType],
    shouldCollectWorkoutEvents: Bool, metadata: Metadata
  ) {
    self.phase = phase
    self.start = start
    self.end = end
    self.elapsed = elapsed
    self.events = events
    self.activities = activities
    self.statistics = statistics
    self.types = types
    self.shouldCollectWorkoutEvents = shouldCollectWorkoutEvents
    self.metadata = metadata
  }
}

/// A session as the device holds it after a call (the answer to `workoutSession`).
package struct SessionStatus: Hashable, Sendable {
  /// The session object.
  package var id: WorkoutSessionID
  /// The owning app.
  package var app: String
  /// Its state (Apple's raw values).
  package var state: WorkoutSessionState
  /// Primary or mirrored.
  package var type: WorkoutSessionType
  /// `startDate`.
  package var start: Date?
  /// `endDate`.
  package var end: Date?
  /// After `finishWorkout`: 1 when the workout waits for the device to unlock (behavior.md E31), else 0.
  package var waiting: Bool
  /// `workoutConfiguration`.
  package var configuration: WorkoutConfiguration
  /// The activities begun (the last is `currentActivity` while open).
  package var activities: [WorkoutActivity]
  /// The events the session generated.
  package var events: [WorkoutEvent]
  /// After `sendData`: the accepted send's sequence number (its completion names it); else 0.
  package var sequence: UInt64
  /// The session's live builder, once `associatedWorkoutBuilder()` made it.
  package var builder: BuilderStatus?

  /// A status.
  package init(
    id: WorkoutSessionID, app: String = "", state: WorkoutSessionState, type: WorkoutSessionType, start: Date?,
    end: Date?, waiting: Bool = false, configuration: WorkoutConfiguration = WorkoutConfiguration(activityType: .other),
    activities: [WorkoutActivity] = [], events: [WorkoutEvent] = [], sequence: UInt64 = 0,
    builder: BuilderStatus? = nil
  ) {
    self.id = id
    self.app = app
    self.state = state
    self.type = type
    self.start = start
    self.end = end
    self.waiting = waiting
    self.configuration = configuration
    self.activities = activities
    self.events = events
    self.sequence = sequence
    self.builder = builder
  }
}
