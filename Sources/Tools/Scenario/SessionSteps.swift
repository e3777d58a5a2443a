import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage
import Wire

/// A workout session a step created, as the runner names it.
struct LiveSessionRef {
  /// The app that owns it (its name in the scenario).
  var app: String
  /// The session object on its device.
  var id: WorkoutSessionID
}

/// An app's workout session calls, its process's run state, and the world acting on the wearer (behavior.md
/// section X). Each call is made at the device's time (the runner's virtual clock); its outcome is the app's last
/// call and goes in the trace. A session call's error is the request's, or the `didFailWithError` its delegate heard
/// during the step (how HealthKit reports a refused `startActivity`, such as code 14 from the background).
extension RunContext {
  /// `<device>: <App> starts|prepares a workout session …`, `<verb> workout session <name>`, `finishes …`, and the
  /// app's run state.
  mutating func performSession(_ device: DeviceKind, _ name: String, _ step: SessionStep, _ failing: Step) throws {
    switch step {
    case .start(let spec): try createSession(device, name, spec, prepare: false)
    case .prepare(let spec): try createSession(device, name, spec, prepare: true)
    case .call(let session, let verb): try callSession(device, name, session, verb, failing)
    case .finish(let session, let workout): try finishSession(device, name, session, workout: workout, failing)
    case .runState(let state):
      let bundle = app(name).bundleID
      let c = client(device)
      // The answer is the app's active session, or errorNoData when it has none: either way the state changed.
      switch attempt({ () throws(ClientError) in try c.workoutSession(bundle, .runState(state)) }) {
      case .success: break
      case .failure(let error): guard error.healthError?.code == .errorNoData else { throw error }
      }
    case .mirror, .stopMirroring, .send, .startWatchApp: try performMirroring(device, name, step, failing)
    }
  }

  /// The session's key in ``sessions``.
  func sessionKey(_ device: DeviceKind, _ name: String) -> String { "\(device)/\(name)" }

  /// The named session, or a failure of `step`.
  func liveSession(_ device: DeviceKind, _ name: String, _ step: Step) throws -> LiveSessionRef {
    guard let ref = sessions[sessionKey(device, name)] else {
      throw fail(step, "a workout session named \(name) on the \(device)", "no step created one there")
    }
    return ref
  }

  /// The typical start (session, delegate, builder, `startActivity(with: now)`, `beginCollection(withStart: now)`,
  /// workouts.md §2.6), or the same up to `prepare()`.
  private mutating func createSession(_ device: DeviceKind, _ name: String, _ spec: SessionSpec, prepare: Bool)
    throws
  {
    let bundle = app(name).bundleID
    let configuration = WorkoutConfiguration(activityType: spec.activity, location: spec.location)
    let uuid = rng.uuid()
    let id = WorkoutSessionID(uuid: uuid)
    sessionCount += 1
    sessions[sessionKey(device, spec.name ?? "#\(sessionCount)")] = LiveSessionRef(app: name, id: id)
    sessionLabels[objectKey(device, id)] = spec.name ?? "#\(sessionCount)"
    let c = client(device)
    let now = now
    let result = try capture { () throws(ClientError) in
      _ = try c.workoutSession(bundle, .create(uuid: uuid, configuration: configuration))
      _ = try c.workoutSession(bundle, .setDelegate(id, true))
      _ = try c.workoutSession(bundle, .builder(id))
      if prepare {
        _ = try c.workoutSession(bundle, .command(id, .prepare))
      } else {
        _ = try c.workoutSession(bundle, .command(id, .startActivity(now)))
        _ = try c.workoutSession(bundle, .beginCollection(id, now))
      }
    }
    record(device, name, prepare ? "prepare" : "startActivity", delegateError(device, bundle, id, result))
  }

  /// One call on a named session: `startActivity` and `beginCollection` of a prepared one, `pause`, `resume`,
  /// `stopActivity`, `end`, or the builder's `discardWorkout()`.
  private mutating func callSession(
    _ device: DeviceKind, _ name: String, _ session: String, _ verb: SessionVerb, _ step: Step
  ) throws {
    let ref = try liveSession(device, session, step)
    let bundle = app(name).bundleID
    let c = client(device)
    let now = now
    let id = ref.id
    let call: String
    let calls: [SessionCall]
    switch verb {
    case .start: (call, calls) = ("startActivity", [.command(id, .startActivity(now)), .beginCollection(id, now)])
    case .pause: (call, calls) = ("pause", [.command(id, .pause)])
    case .resume: (call, calls) = ("resume", [.command(id, .resume)])
    case .stop: (call, calls) = ("stopActivity", [.command(id, .stopActivity(now))])
    case .end: (call, calls) = ("end", [.command(id, .end)])
    case .discard: (call, calls) = ("discardWorkout", [.discard(id)])
    }
    let result = try capture { () throws(ClientError) in
      for call in calls { _ = try c.workoutSession(bundle, call) }
    }
    record(device, name, call, delegateError(device, bundle, id, result))
  }

  /// The builder's `endCollection(withEnd: now)` and `finishWorkout()`; `as <workout>` names the saved workout for
  /// the workout expectations (E31: on a locked device it waits for the unlock).
  private mutating func finishSession(
    _ device: DeviceKind, _ name: String, _ session: String, workout: String?, _ step: Step
  ) throws {
    let ref = try liveSession(device, session, step)
    let bundle = app(name).bundleID
    let c = client(device)
    let now = now
    let uuid = rng.uuid()
    var status: SessionStatus?
    let result = try capture { () throws(ClientError) in
      _ = try c.workoutSession(bundle, .endCollection(ref.id, now))
      status = try c.workoutSession(bundle, .finishWorkout(ref.id, workout: uuid))
    }
    if let workout {
      names[workout] = uuid
      let builder = status?.builder
      let start = builder?.start ?? now
      let end = builder?.end ?? now
      let pauses = Self.pauses(builder?.events ?? [], end: end)
      workouts[workout] = SavedWorkout(
        uuid: uuid, active: WorkoutPlan.activeStretches(start: start, end: end, pauses: pauses), metres: nil,
        sampleTypes: Set(builder?.statistics.map(\.type) ?? []))
    }
    record(device, name, "finishWorkout", result)
  }

  /// The paused periods `events` describe (each `pause` to the next `resume`, or to `end`).
  static func pauses(_ events: [WorkoutEvent], end: Date) -> [DateInterval] {
    var pauses: [DateInterval] = []
    var paused: Date?
    for event in events {
      switch event.type {
      case .pause, .motionPaused: if paused == nil { paused = event.start }
      case .resume, .motionResumed:
        if let from = paused { pauses.append(DateInterval(start: from, end: max(from, event.start))) }
        paused = nil
      default: break
      }
    }
    if let from = paused { pauses.append(DateInterval(start: from, end: max(from, end))) }
    return pauses
  }

  /// `result`, or — when the calls returned normally — the first `didFailWithError` session `id` of `bundle`
  /// delivered during them (the events seen so far stay for the trace).
  private func delegateError(
    _ device: DeviceKind, _ bundle: String, _ id: WorkoutSessionID, _ result: Result<Void, HealthError>
  ) -> Result<Void, HealthError> {
    guard case .success = result else { return result }
    for event in recorder.peek(device) {
      if case .workoutSession(bundle, id, .didFail(let error)) = event { return .failure(error) }
    }
    return result
  }

  /// `<device>: the wearer's effort becomes …`, `watch: the watch is taken off|put back on`: a world call (any
  /// installed app carries it; the answer names the active session or says there is none).
  mutating func changeWearer(_ device: DeviceKind, _ change: WearerChange) throws {
    let bundle = installed[device]?.values.map(\.bundleID).sorted().first ?? ""
    let call: SessionCall =
      switch change {
      case .effort(let effort): .effort(effort)
      case .wrist(let on): .wrist(on: on)
      case .recordECG: preconditionFailure("recorded by recordECG(_:_:_:)")
      }
    let c = client(device)
    switch attempt({ () throws(ClientError) in try c.workoutSession(bundle, call) }) {
    case .success: break
    case .failure(let error):
      guard error.healthError?.code == .errorNoData else { throw error }
    }
  }
}
