import FoundationEssentials
import HealthModel

/// `DeviceState`: the session calls beyond the lifecycle (``workoutSessionCommand(_:_:_:wall:)``): delegates,
/// mirroring, the data channel, the live data source, the builder's additions, recovery, the app's run state and
/// `startWatchApp`. Each runs the sensor model up to the device's time first, as every session call does.
extension DeviceState {
  /// The app set or cleared the delegate of its session object `id` (a receiving object without one answers
  /// "Remote session delegate is not set up", workouts.md §3.3).
  package mutating func setSessionDelegate(_ bundleID: String, _ id: WorkoutSessionID, present: Bool)
    throws(HealthError)
  {
    try requireOwnSession(bundleID, id)
    live.registry.setDelegate(id, present: present)
  }

  /// `startMirroringToCompanionDevice()` (``SessionRegistry/startMirroring(_:)``).
  /// - Throws: the completion's error.
  package mutating func startSessionMirroring(_ bundleID: String, _ id: WorkoutSessionID, wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    try requireOwnSession(bundleID, id)
    let events = collectLiveSamples(wall: wall)
    let (error, directives) = live.registry.startMirroring(id)
    if let error { throw error }
    return events + perform(directives)
  }

  /// `stopMirroringToCompanionDevice()` (``SessionRegistry/stopMirroring(_:)``).
  /// - Throws: the completion's error.
  package mutating func stopSessionMirroring(_ bundleID: String, _ id: WorkoutSessionID, wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    try requireOwnSession(bundleID, id)
    let events = collectLiveSamples(wall: wall)
    let (error, directives) = live.registry.stopMirroring(id)
    if let error { throw error }
    return events + perform(directives)
  }

  /// `sendToRemoteWorkoutSession(data:)` (``SessionRegistry/send(_:from:at:)``): the accepted send's sequence
  /// number; its completion follows when the peer answers.
  /// - Throws: the completion's immediate error (no data, not mirroring, over the limit).
  package mutating func sendSessionData(_ bundleID: String, _ id: WorkoutSessionID, _ data: Data, wall: Date)
    throws(HealthError) -> UInt64
  {
    try requireOwnSession(bundleID, id)
    switch live.registry.send(data, from: id, at: now(wall: wall)) {
    case .success(let sent):
      _ = perform(sent.directives)
      return sent.sequence
    case .failure(let error): throw error
    }
  }

  /// A change to the session's live builder or its data source (enable/disable collection,
  /// `shouldCollectWorkoutEvents`, events, metadata, discard), after the sensor model ran up to the device's time.
  package mutating func changeLiveBuilder(
    _ bundleID: String, _ id: WorkoutSessionID, wall: Date,
    _ body: (inout SessionRegistry) throws(HealthError) -> [SessionDirective]
  ) throws(HealthError) -> [DeviceEvent] {
    _ = try liveWorkoutBuilder(bundleID, id)
    let events = collectLiveSamples(wall: wall)
    let directives = try body(&live.registry)
    return events + perform(directives)
  }

  /// `add(_:)` of the session's live builder: the app's samples are saved under the usual rules (all or nothing,
  /// ``save(_:_:wall:)``) and collected with the workout.
  package mutating func addLiveSamples(_ bundleID: String, _ id: WorkoutSessionID, _ inputs: [SampleInput], wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    let builder = try liveWorkoutBuilder(bundleID, id)
    try builder.checkAdd(inputs)
    var events = collectLiveSamples(wall: wall)
    let saved = try save(bundleID, inputs, wall: wall)
    events += saved
    let samples = saved.flatMap { event -> [Sample] in
      switch event {
      case .samplesSaved(let samples), .samplesSavedWhileLocked(let samples): samples
      default: []
      }
    }
    let callbacks = (try? live.registry.withBuilder(id) { $0.added(samples) }) ?? []
    live.outbox += live.registry.deliver(callbacks.map { .builder(app: bundleID, id: id, $0) })
    return events
  }

  /// `recoverActiveWorkoutSession()`: the app's session still holding the device's slot.
  /// - Throws: `errorNoData` when there is nothing to recover (the API answers nil, workouts.md §2.6).
  package func recoverWorkoutSession(_ bundleID: String) throws(HealthError) -> WorkoutSessionID {
    _ = try installedAppRecord(bundleID)
    guard let id = live.registry.recover(bundleID) else {
      throw .healthKit(.errorNoData, "No active workout session to recover")
    }
    return id
  }

  /// `startWatchApp(toHandle:)` from the phone (``SessionRegistry/startWatchApp(_:_:)``).
  /// - Throws: "Unable to launch watch app" while the link is down; a simulator error on the watch.
  package mutating func startWatchApp(_ bundleID: String, _ configuration: WorkoutConfiguration) throws(HealthError) {
    _ = try installedAppRecord(bundleID)
    guard device == .phone else {
      throw .simulator("startWatchApp(toHandle:) is available on iOS only (workouts.md §2.1)")
    }
    switch live.registry.startWatchApp(bundleID, configuration) {
    case .success(let directives): _ = perform(directives)
    case .failure(let error): throw error
    }
  }

  /// A message from the paired device's session registry (over the peer link), at the device's time.
  package mutating func receiveSessionMessage(_ message: SessionPeerMessage, wall: Date) -> [DeviceEvent] {
    let events = collectLiveSamples(wall: wall)
    return events + perform(live.registry.receive(message, at: now(wall: wall)))
  }

  /// The peer link came up or went down (``SessionRegistry/linkChanged(up:at:)``).
  package mutating func sessionLinkChanged(up: Bool, wall: Date) -> [DeviceEvent] {
    let events = collectLiveSamples(wall: wall)
    return events + perform(live.registry.linkChanged(up: up, at: now(wall: wall)))
  }

  /// The wearer's effort from the device's time on: what was measured before keeps the old effort (the sensor model
  /// runs up to now first). With an active session the change is at its offset from the session's start; without
  /// one the wearer's whole profile becomes this effort.
  package mutating func setWearerEffort(_ effort: Effort, wall: Date) -> [DeviceEvent] {
    let events = collectLiveSamples(wall: wall)
    if let id = live.registry.active, let start = live.registry.session(id)?.start {
      live.wearer.effort.set(effort, from: max(0, now(wall: wall).timeIntervalSince(start)))
    } else {
      live.wearer.effort = EffortProfile(effort)
    }
    return events
  }

  /// The watch is put on (`on`) or taken off the wrist at the device's time: an off-wrist span opens or closes
  /// (``Wearer/offWrist``). Putting on a worn watch, or taking off a bare one, changes nothing.
  package mutating func setWrist(on: Bool, wall: Date) -> [DeviceEvent] {
    let events = collectLiveSamples(wall: wall)
    let now = now(wall: wall)
    let open = live.wearer.offWrist.lastIndex { $0.end == nil }
    if on, let open {
      live.wearer.offWrist[open].end = now
    } else if !on, open == nil {
      live.wearer.offWrist.append(TimeSpan(start: now))
    }
    return events
  }

  /// The device's active session (the one holding its slot), whatever its app.
  /// - Throws: `errorNoData` when there is none.
  package func activeWorkoutSession() throws(HealthError) -> WorkoutSessionID {
    guard let id = live.registry.active else { throw .healthKit(.errorNoData, "No active workout session") }
    return id
  }
}
