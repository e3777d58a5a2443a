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
    var sequence: UInt64 = 0
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
    case .setDelegate(let session, let present):
      id = session
      try state.setSessionDelegate(bundleID, session, present: present)
    case .startMirroring(let session):
      id = session
      events = try state.startSessionMirroring(bundleID, session, wall: wall)
    case .stopMirroring(let session):
      id = session
      events = try state.stopSessionMirroring(bundleID, session, wall: wall)
    case .sendData(let session, let data):
      id = session
      sequence = try state.sendSessionData(bundleID, session, data, wall: wall)
    case .enableCollection(let session, let type, let filter):
      id = session
      events = try state.changeLiveBuilder(bundleID, session, wall: wall) { registry throws(HealthError) in
        try registry.enableCollection(session, type, predicate: filter)
        return []
      }
    case .disableCollection(let session, let type):
      id = session
      events = try state.changeLiveBuilder(bundleID, session, wall: wall) { registry throws(HealthError) in
        try registry.disableCollection(session, type)
        return []
      }
    case .shouldCollectEvents(let session, let value):
      id = session
      events = try state.changeLiveBuilder(bundleID, session, wall: wall) { registry throws(HealthError) in
        try registry.setShouldCollectWorkoutEvents(session, value)
        return []
      }
    case .addEvents(let session, let added):
      id = session
      events = try state.changeLiveBuilder(bundleID, session, wall: wall) { registry throws(HealthError) in
        try registry.addWorkoutEvents(session, added)
      }
    case .addMetadata(let session, let metadata):
      id = session
      events = try state.changeLiveBuilder(bundleID, session, wall: wall) { registry throws(HealthError) in
        try registry.addBuilderMetadata(session, metadata)
        return []
      }
    case .addSamples(let session, let inputs):
      id = session
      events = try state.addLiveSamples(bundleID, session, inputs, wall: wall)
    case .discard(let session):
      id = session
      events = try state.changeLiveBuilder(bundleID, session, wall: wall) { registry throws(HealthError) in
        try registry.discardWorkout(session)
        return []
      }
    case .recover:
      events = state.collectLiveSamples(wall: wall)
      id = try state.recoverWorkoutSession(bundleID)
    case .runState(let runState):
      events = state.collectLiveSamples(wall: wall)
      state.setAppRunState(bundleID, runState)
      id = try state.recoverWorkoutSession(bundleID)
    case .startWatchApp(let configuration):
      try state.startWatchApp(bundleID, configuration)
      id = try state.recoverWorkoutSession(bundleID)
    case .effort(let effort):
      events = state.setWearerEffort(effort, wall: wall)
      id = try state.activeWorkoutSession()
    case .wrist(let on):
      events = state.setWrist(on: on, wall: wall)
      id = try state.activeWorkoutSession()
    }
    guard let session = state.live.registry.session(id) else {
      throw .healthKit(.errorInvalidArgument, "Workout session \(id.uuid) is not known")
    }
    let builder = state.live.registry.builders[id].map { BuilderStatus($0, at: state.now(wall: wall)) }
    let status = SessionStatus(
      id: id, app: session.app, state: session.state, type: session.type, start: session.start, end: session.end,
      waiting: waiting, configuration: session.configuration, activities: session.activities,
      events: session.events, sequence: sequence, builder: builder)
    return (status, events)
  }

  /// Session directives as a request's effects: callbacks as notices (``sessionNotices(_:)``), messages for the
  /// paired device as ``Effects/sessionMessages``, launches as log lines (the registry already marked the app
  /// background).
  static func sessionEffects(_ directives: [SessionDirective], into effects: inout Effects) {
    guard !directives.isEmpty else { return }
    effects.notices += sessionNotices(directives)
    for directive in directives {
      switch directive {
      case .peer(let message): effects.sessionMessages.append(message)
      case .launch(let app):
        let message = "app launched in the background for its workout session"
        effects.notes.append(Note(level: .info, message: message, fields: [Field("app", app)]))
      case .session, .builder, .mirroringStarted, .sendCompleted, .handleConfiguration, .store: break
      }
    }
  }

  /// The pushed events of session directives: each delegate callback to its app's connections (clients keep the
  /// ones for their objects). Peer messages, stores and launches are the device core's.
  static func sessionNotices(_ directives: [SessionDirective]) -> [DaemonEvent] {
    directives.compactMap { directive in
      switch directive {
      case .session(let app, let id, let callback): .workoutSession(app: app, session: id, callback)
      case .builder(let app, let id, let callback): .workoutBuilder(app: app, session: id, callback)
      case .mirroringStarted(let app, let id): .mirroringStarted(app: app, session: id)
      case .sendCompleted(let app, let id, let sequence, let error):
        .workoutDataSent(app: app, session: id, sequence: sequence, error: error)
      case .handleConfiguration(let app, let configuration):
        .workoutConfigurationHandled(app: app, configuration)
      case .store, .peer, .launch: nil
      }
    }
  }
}
