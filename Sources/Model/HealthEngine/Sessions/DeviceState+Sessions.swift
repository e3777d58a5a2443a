import FoundationEssentials
import HealthModel

/// A device's live workouts: its session registry, how far the sensor model has run for the active session, and the
/// wearer the model measures. Not durable (HealthPair model): a daemon restart is the device restarting, which ends
/// every session; what the builders collected is in the store already.
package struct LiveWorkouts: Hashable, Sendable {
  /// The device's sessions, builders and app run states.
  package internal(set) var registry: SessionRegistry
  /// The instant up to which the active session's samples were generated (nil: no session collecting).
  package internal(set) var collectedUpTo: Date?
  /// The person wearing the device, as the sensor model sees them.
  package var wearer = Wearer()
  /// Callbacks and peer messages for the device core to deliver, oldest first
  /// (``DeviceState/takeSessionDirectives()``).
  package internal(set) var outbox: [SessionDirective] = []
  /// While a request runs, every event the sensor model produced in it (nil between requests): a request that
  /// fails after its sensors ran still journals what they measured (``DeviceState/endRequestCollections()``).
  package internal(set) var requestCollected: [DeviceEvent]?

  /// No sessions on `device`.
  package init(device: DeviceKind) { registry = SessionRegistry(device: device) }
}

/// `DeviceState`: workout sessions and their live builders, run by the device (workouts.md §2; the pure layer is
/// ``SessionRegistry``). Every call first runs the sensor model up to the device's time, so what the builder
/// collected while the virtual clock moved is stored (and its `didCollectDataOf` queued) before the call acts.
/// Callbacks go to ``LiveWorkouts/outbox``; collected samples are saved under the session's app as events.
extension DeviceState {
  /// Hands the device core the queued session directives (delegate callbacks, peer messages), oldest first.
  package mutating func takeSessionDirectives() -> [SessionDirective] {
    defer { live.outbox = [] }
    return live.outbox
  }

  /// `HKWorkoutSession(healthStore:configuration:)` on this device: a new primary session of the app, in
  /// `notStarted`.
  /// - Throws: a simulator error for an app that is not installed; `errorInvalidArgument` for an identifier in use.
  package mutating func createWorkoutSession(_ bundleID: String, uuid: UUID, configuration: WorkoutConfiguration)
    throws(HealthError) -> WorkoutSessionID
  {
    _ = try installedAppRecord(bundleID)
    guard live.registry.session(WorkoutSessionID(uuid: uuid)) == nil else {
      throw .healthKit(.errorInvalidArgument, "A workout session with UUID \(uuid) already exists")
    }
    if live.registry.runStates[bundleID] == nil { live.outbox += live.registry.setRunState(bundleID, .foreground) }
    return live.registry.create(app: bundleID, uuid: uuid, configuration: configuration)
  }

  /// The app's run state changed (the device core reports a connection opening or the app's last one closing).
  package mutating func setAppRunState(_ bundleID: String, _ state: AppRunState) {
    live.outbox += live.registry.setRunState(bundleID, state)
  }

  /// A call on the app's session object `id` (`prepare`, `startActivity`, `pause`, …) at the device's time, after
  /// the sensor model has run up to it. Returns the events to journal (collected samples).
  /// - Throws: `errorInvalidArgument` when the object is not the app's.
  package mutating func workoutSessionCommand(
    _ bundleID: String, _ id: WorkoutSessionID, _ command: SessionCommand, wall: Date
  ) throws(HealthError) -> [DeviceEvent] {
    try requireOwnSession(bundleID, id)
    var events = collectLiveSamples(wall: wall)
    let now = now(wall: wall)
    events += perform(live.registry.apply(command, to: id, at: now))
    if live.registry.active == id, live.collectedUpTo == nil { live.collectedUpTo = now }
    return events
  }

  /// `associatedWorkoutBuilder()` of the app's primary session `id`: its live builder, created once.
  /// - Throws: `errorInvalidArgument` when the object is not the app's, or is mirrored (no builder).
  package mutating func liveWorkoutBuilder(_ bundleID: String, _ id: WorkoutSessionID) throws(HealthError)
    -> LiveWorkoutBuilder
  {
    try requireOwnSession(bundleID, id)
    guard let builder = live.registry.associatedBuilder(id) else {
      throw .healthKit(.errorInvalidArgument, "A mirrored workout session has no workout builder")
    }
    return builder
  }

  /// `beginCollection(withStart:)` of the session's builder; collection runs from `date` as the clock moves.
  package mutating func beginLiveCollection(_ bundleID: String, _ id: WorkoutSessionID, at date: Date, wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    _ = try liveWorkoutBuilder(bundleID, id)
    let events = collectLiveSamples(wall: wall)
    try live.registry.beginCollection(id, at: date)
    if live.registry.active == id { live.collectedUpTo = max(live.collectedUpTo ?? date, date) }
    return events
  }

  /// `endCollection(withEnd:)`: what the sensors measured up to the device's time is collected first.
  package mutating func endLiveCollection(_ bundleID: String, _ id: WorkoutSessionID, at date: Date, wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    _ = try liveWorkoutBuilder(bundleID, id)
    let events = collectLiveSamples(wall: wall)
    try live.registry.endCollection(id, at: date)
    return events
  }

  /// `finishWorkout()` of the session's builder: saves the workout with everything collected (the usual save rules,
  /// ``saveWorkout(_:_:route:wall:)``; while locked it waits for the unlock, E31).
  package mutating func finishLiveWorkout(_ bundleID: String, _ id: WorkoutSessionID, uuid: UUID, wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    _ = try liveWorkoutBuilder(bundleID, id)
    let input = try live.registry.finishWorkout(id, uuid: uuid)
    return try saveWorkout(bundleID, input, route: nil, wall: wall)
  }

  /// Runs the sensor model for the active session from where it stopped to the device's time: the builder keeps
  /// what it collects (types the app may not read are dropped: the session runs on without them, workouts.md §4;
  /// share access to `workoutType()` alone suffices, as in Apple's sample), the kept samples are saved as the app's,
  /// and the builder's delegate hears `didCollectDataOf`.
  package mutating func collectLiveSamples(wall: Date) -> [DeviceEvent] {
    let now = now(wall: wall)
    guard let id = live.registry.active, let session = live.registry.session(id), let start = session.start,
      let from = live.collectedUpTo, now > from, let builder = live.registry.builders[id]
    else { return [] }
    live.collectedUpTo = now
    let sensors = SensorSession(
      configuration: session.configuration, start: start, seed: Self.sensorSeed(id), running: session.runningSpans)
    let types = Set(builder.collection.types)
    let inputs = SensorModel.samples(session: sensors, wearer: live.wearer, from: from, to: now, types: types)
    let denied = types.filter { decision(session.app, Permission($0, .read)) != .authorized }
    let events = perform(live.registry.sensorSamples(inputs, denied: denied, at: now))
    live.requestCollected? += events
    return events
  }

  /// A request starts: from now on ``collectLiveSamples(wall:)`` also keeps its events for
  /// ``endRequestCollections()``.
  package mutating func beginRequestCollections() { live.requestCollected = [] }

  /// The request ended: the events the sensor model produced during it, oldest first (a failed request journals
  /// them; a successful one returned them already).
  package mutating func endRequestCollections() -> [DeviceEvent] {
    defer { live.requestCollected = nil }
    return live.requestCollected ?? []
  }

  /// The session's sensor seed: its identifier's first eight bytes (the same session gives the same samples).
  package static func sensorSeed(_ id: WorkoutSessionID) -> UInt64 {
    withUnsafeBytes(of: id.uuid.uuid) { $0.load(as: UInt64.self) }
  }

  /// Turns directives into events (collected samples to save) and queues the rest for the device core.
  mutating func perform(_ directives: [SessionDirective]) -> [DeviceEvent] {
    var events: [DeviceEvent] = []
    for directive in directives {
      guard case .store(let samples) = directive else {
        live.outbox.append(directive)
        continue
      }
      events += commitEvents([isLocked ? .samplesSavedWhileLocked(samples) : .samplesSaved(samples)])
    }
    return events
  }

  func requireOwnSession(_ bundleID: String, _ id: WorkoutSessionID) throws(HealthError) {
    _ = try installedAppRecord(bundleID)
    guard let session = live.registry.session(id), session.app == bundleID else {
      throw .healthKit(.errorInvalidArgument, "Workout session \(id.uuid) is not this app's")
    }
  }
}

extension WorkoutSession {
  /// The spans in which the session ran: from its start to each `pause`, from each `resume` to the next, the last
  /// open while it runs, closed at its stop (or end).
  package var runningSpans: [TimeSpan] {
    guard let start else { return [] }
    var spans: [TimeSpan] = []
    var open: Date? = start
    for event in events {
      switch event.type {
      case .pause, .motionPaused:
        if let from = open { spans.append(TimeSpan(start: from, end: event.start)) }
        open = nil
      case .resume, .motionResumed:
        if open == nil { open = event.start }
      default: break
      }
    }
    if let from = open { spans.append(TimeSpan(start: from, end: stop ?? end)) }
    return spans
  }
}
