import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import ScenarioLanguage
import Wire

/// Mirroring a workout session to the companion device, the remote data channel, and the companion's mirrored
/// session objects (behavior.md X17–X22). Session messages cross the peer link asynchronously; once a scenario
/// mirrors, each step ends only when none is in flight (``settleSessionMessages(_:)``), so what each device heard in
/// a step does not depend on timing.
extension RunContext {
  /// `mirrors workout session <name> to the phone`, `stops mirroring workout session <name>`, `sends … over
  /// workout session <name>`, `starts the watch app for a workout …`.
  mutating func performMirroring(_ device: DeviceKind, _ name: String, _ step: SessionStep, _ failing: Step) throws {
    let bundle = app(name).bundleID
    let c = client(device)
    switch step {
    case .mirror(let session):
      let ref = try liveSession(device, session, failing)
      mirrors = true
      let result = try capture { () throws(ClientError) in _ = try c.workoutSession(bundle, .startMirroring(ref.id)) }
      record(device, name, "startMirroringToCompanionDevice", result)
    case .stopMirroring(let session):
      let ref = try liveSession(device, session, failing)
      let result = try capture { () throws(ClientError) in _ = try c.workoutSession(bundle, .stopMirroring(ref.id)) }
      record(device, name, "stopMirroringToCompanionDevice", result)
    case .send(let session, let payload):
      let ref = try liveSession(device, session, failing)
      mirrors = true
      var sequence: UInt64 = 0
      var result = try capture { () throws(ClientError) in
        sequence = try c.workoutSession(bundle, .sendData(ref.id, payload.data)).sequence
      }
      if case .success = result {
        // The completion comes once the other device answered: after the round trip the settle waits for.
        try settleSessionMessages(failing)
        for event in recorder.peek(device) {
          if case .workoutDataSent(bundle, ref.id, sequence, let error) = event, let error { result = .failure(error) }
        }
      }
      record(device, name, "sendToRemoteWorkoutSession", result)
    case .startWatchApp(let spec):
      mirrors = true
      let configuration = WorkoutConfiguration(activityType: spec.activity, location: spec.location)
      let result = try capture { () throws(ClientError) in
        switch attempt({ () throws(ClientError) in try c.workoutSession(bundle, .startWatchApp(configuration)) }) {
        case .success: break
        case .failure(let error): guard error.healthError?.code == .errorNoData else { throw error }
        }
      }
      record(device, name, "startWatchApp", result)
    case .start, .prepare, .call, .finish, .runState:
      return  // performSession's own steps
    }
  }

  /// Waits until no workout-session message is in flight between the devices (the link down counts as settled),
  /// once the scenario has used the session link; up to the run's timeout plus twice the link's latency (a message
  /// and its answer), and not at all while a daemon is down.
  /// - Throws: a failure of `step` when messages are still in flight then.
  func settleSessionMessages(_ step: Step) throws {
    guard mirrors, pair.process(.phone)?.exitStatus == nil, pair.process(.watch)?.exitStatus == nil else { return }
    let limit = timeout + 2 * latency
    do { try pair.waitSessionMessagesHandled(timeout: limit) } catch {
      throw fail(
        step, "no workout-session message in flight between the devices within \(formatDuration(limit))",
        "\(error)")
    }
  }

  /// The app's start handler for each mirrored session a device delivered in `events`: the object takes the name of
  /// the primary session it mirrors on the other device, and its delegate is set (as an app's handler does), so
  /// later steps and expectations on that device address the newest one.
  mutating func adoptMirrored(_ events: [DaemonEvent], device: DeviceKind) {
    for event in events {
      guard case .mirroringStarted(let bundle, let id) = event else { continue }
      let primary = sessions.first {
        $0.key.hasPrefix("\(device.peer)/") && $0.value.id == WorkoutSessionID(uuid: id.uuid)
      }
      let name = primary.map { String($0.key.dropFirst("\(device.peer)/".count)) } ?? id.uuid.uuidString
      sessions[sessionKey(device, name)] = LiveSessionRef(app: appName(bundle), id: id)
      sessionLabels[objectKey(device, id)] = id.generation > 1 ? "\(name) (mirrored, \(id.generation))" : name
      _ = try? client(device).workoutSession(bundle, .setDelegate(id, true))
    }
  }

  /// A session object's key in ``heard`` and ``sessionLabels``: its device, identifier and, for a mirrored
  /// object, its generation (each reconnection delivers a new object).
  func objectKey(_ device: DeviceKind, _ id: WorkoutSessionID) -> String {
    id.generation == 0
      ? sessionKey(device, id.uuid.uuidString) : sessionKey(device, "\(id.uuid.uuidString)/\(id.generation)")
  }
}
