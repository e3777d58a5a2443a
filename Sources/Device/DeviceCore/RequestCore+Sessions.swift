import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

/// `RequestCore`: workout session calls (opcode 110) and the delegate callbacks they and clock moves produce.
extension RequestCore {
  /// Runs one ``SessionCall`` of `bundleID` on the device's sessions: the session's status after it, and the events
  /// to journal (samples the live builder collected, a finished workout).
  static func sessionCall(_ call: SessionCall, _ bundleID: String, state: inout DeviceState, wall: Date)
    throws(HealthError) -> (SessionStatus, [DeviceEvent])
  {
    var events: [DeviceEvent] = []
    var waiting = false
    let id: WorkoutSessionID
    switch call {
    case .create(let uuid, let configuration):
      id = try state.createWorkoutSession(bundleID, uuid: uuid, configuration: configuration)
    case .command(let session, let command):
      id = session
      events = try state.workoutSessionCommand(bundleID, session, command, wall: wall)
    case .builder(let session):
      id = session
      _ = try state.liveWorkoutBuilder(bundleID, session)
    case .beginCollection(let session, let date):
      id = session
      events = try state.beginLiveCollection(bundleID, session, at: date, wall: wall)
    case .endCollection(let session, let date):
      id = session
      events = try state.endLiveCollection(bundleID, session, at: date, wall: wall)
    case .finishWorkout(let session, let workout):
      id = session
      events = try state.finishLiveWorkout(bundleID, session, uuid: workout, wall: wall)
      waiting = DeviceState.isWaitingForUnlock(events)
    case .status(let session):
      id = session
      events = state.collectLiveSamples(wall: wall)
    }
    guard let session = state.live.registry.session(id) else {
      throw .healthKit(.errorInvalidArgument, "Workout session \(id.uuid) is not known")
    }
    let status = SessionStatus(
      id: id, state: session.state, type: session.type, start: session.start, end: session.end, waiting: waiting)
    return (status, events)
  }

  /// The pushed events of session directives: each delegate callback to its app's connections (clients keep the
  /// ones for their objects). Peer messages and launches wait for mirroring (issue 33).
  static func sessionNotices(_ directives: [SessionDirective]) -> [DaemonEvent] {
    directives.compactMap { directive in
      switch directive {
      case .session(let app, let id, let callback): .workoutSession(app: app, session: id, callback)
      case .builder(let app, let id, let callback): .workoutBuilder(app: app, session: id, callback)
      case .store, .peer, .launch, .mirroringStarted, .sendCompleted: nil
      }
    }
  }
}
