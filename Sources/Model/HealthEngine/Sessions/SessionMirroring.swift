import FoundationEssentials
import HealthModel

/// What the primary sends so the companion can build a mirrored session object (healthd's mirroring request
/// carries the session UUID, the configuration and the source bundle identifier: workouts.md §3.5, decompiled).
package struct MirroredSnapshot: Hashable, Sendable {
  /// The workout session's identifier.
  package var uuid: UUID
  /// The mirrored object's generation: 1 for the first, one more after each reconnection.
  package var generation: UInt32
  /// The primary's app.
  package var app: String
  /// The configuration.
  package var configuration: WorkoutConfiguration
  /// The primary's state, dates, activities and events when the snapshot was taken.
  package var state: WorkoutSessionState
  /// `startDate`.
  package var start: Date?
  /// `endDate`.
  package var end: Date?
  /// The activities so far.
  package var activities: [WorkoutActivity]
  /// The events so far.
  package var events: [WorkoutEvent]

  /// The snapshot of `session` for generation `generation`.
  package init(_ session: WorkoutSession, generation: UInt32) {
    uuid = session.id.uuid
    self.generation = generation
    app = session.app
    configuration = session.configuration
    state = session.state
    start = session.start
    end = session.end
    activities = session.activities
    events = session.events
  }
}

/// A message between the two devices' registries over the peer link, identified by the workout session's UUID.
package enum SessionPeerMessage: Hashable, Sendable {
  /// Primary → companion: deliver a new mirrored session (the start handler runs).
  case mirrorStart(MirroredSnapshot)
  /// Primary → companion: mirroring ended (stopMirroring, or the session ended); the mirrored object dies.
  case mirrorStop(UUID)
  /// Primary → companion: the state changed (the date is the primary's, the same on both devices).
  case stateChanged(UUID, to: WorkoutSessionState, from: WorkoutSessionState, date: Date)
  /// Primary → companion: the session generated an event.
  case event(UUID, WorkoutEvent)
  /// Primary → companion: an activity began.
  case activityBegan(UUID, WorkoutActivity)
  /// Primary → companion: an activity ended.
  case activityEnded(UUID, WorkoutActivity)
  /// Companion → primary: a call on the mirrored object that acts on the primary (pause, resume, stop, end).
  case control(UUID, SessionCommand)
  /// Either way: `sendToRemoteWorkoutSession(data:)` call `sequence`.
  case data(UUID, sequence: UInt64, Data)
  /// The answer to `data`: nil when delivered (or held for a suspended app), else the error for the sender.
  case dataAnswer(UUID, sequence: UInt64, error: HealthError?)
  /// Phone → watch: `startWatchApp(toHandle:)` of this app with this configuration.
  case startWatchApp(app: String, WorkoutConfiguration)
}

extension SessionRegistry {
  /// `startWatchApp(toHandle:)` on the phone: the watch launches the app and hands it the configuration
  /// (workouts.md §3.1), which may then start one session from the background. With the link down it fails with
  /// code 0 "Unable to launch watch app" ([Observed] the error text, kvs-coder/health_kit_reporter PR #27; the code is
  /// HealthPair model).
  package func startWatchApp(_ app: String, _ configuration: WorkoutConfiguration) -> Result<
    [SessionDirective], HealthError
  > {
    guard linkUp else { return .failure(.healthKit(.unknownError, "Unable to launch watch app")) }
    return .success([.peer(.startWatchApp(app: app, configuration))])
  }

  /// The live mirrored object of workout `uuid` on this device, if any.
  package func liveMirrored(_ uuid: UUID) -> WorkoutSessionID? {
    sessions.keys.filter { $0.uuid == uuid && sessions[$0]?.type == .mirrored && !dead.contains($0) }.max()
  }

  /// The primary session of workout `uuid` on this device, if any.
  package func primary(_ uuid: UUID) -> WorkoutSessionID? {
    let id = WorkoutSessionID(uuid: uuid)
    return sessions[id]?.type == .primary ? id : nil
  }

  /// `startMirroringToCompanionDevice()` on session `id`; the completion's error is returned (nil: success).
  ///
  /// - A mirrored session: code 3 "Cannot start mirroring from a mirrored session" (decompiled, workouts.md §3.4).
  /// - An ended session: code 3 "Cannot start mirroring for a workout session that is ended or ending." (decompiled;
  ///   DOCS: it "fails if the session has ended"). It may be called before `startActivity` (§3.2).
  /// - Already mirroring: success, nothing sent (healthd ignores the request, decompiled).
  /// - Otherwise success as soon as the session is marked mirroring — healthd completes after recording the flag,
  ///   before the companion answers (decompiled) — and the companion gets a new mirrored session now if the link
  ///   is up, else when it comes up (HealthPair model for an unreachable phone: the request waits for the link).
  package mutating func startMirroring(_ id: WorkoutSessionID) -> (error: HealthError?, directives: [SessionDirective])
  {
    guard isLive(id), let session = sessions[id] else {
      return (.healthKit(.errorInvalidArgument, "Workout session \(id) doesn't exist"), [])
    }
    guard session.type == .primary else {
      return (.healthKit(.errorInvalidArgument, "Cannot start mirroring from a mirrored session"), [])
    }
    guard session.state != .ended else {
      return (
        .healthKit(.errorInvalidArgument, "Cannot start mirroring for a workout session that is ended or ending."), []
      )
    }
    guard mirroring[id.uuid] == nil else { return (nil, []) }
    mirroring[id.uuid] = 0
    return (nil, linkUp ? [sendMirrorStart(id.uuid)] : [])
  }

  /// `stopMirroringToCompanionDevice()`: the companion's mirrored object hears `didDisconnect…` and dies (DOCS,
  /// workouts.md §3.2). Not mirroring: code 3 "Session is not mirroring." (decompiled).
  package mutating func stopMirroring(_ id: WorkoutSessionID) -> (error: HealthError?, directives: [SessionDirective]) {
    guard isLive(id), sessions[id]?.type == .primary, mirroring.removeValue(forKey: id.uuid) != nil else {
      return (.healthKit(.errorInvalidArgument, "Session is not mirroring."), [])
    }
    return (nil, linkUp ? [.peer(.mirrorStop(id.uuid))] : [])
  }

  /// The peer link went down or came up.
  ///
  /// - Down, on the companion: every live mirrored object hears `didDisconnectFromRemoteDeviceWithError` and is
  ///   dead (DOCS, workouts.md §3.2, §3.5). On the primary: nothing is reported and the session keeps running and
  ///   mirroring (HealthPair model: Apple does not say what the primary's delegate hears; its session "retries").
  /// - Up, on the primary: each mirroring session that has not ended sends a new mirrored session, one generation
  ///   later, which reaches the companion's start handler (DOCS `workoutsessionmirroringstarthandler`: "can fire
  ///   several times in one workout", each time a new object).
  package mutating func linkChanged(up: Bool, at now: Date) -> [SessionDirective] {
    guard up != linkUp else { return [] }
    linkUp = up
    if up {
      return mirroring.keys.sorted { $0.uuidString < $1.uuidString }.compactMap { uuid in
        guard let id = primary(uuid), sessions[id]?.state != .ended else { return nil }
        return sendMirrorStart(uuid)
      }
    }
    let lost = sessions.keys.filter { sessions[$0]?.type == .mirrored && !dead.contains($0) }.sorted()
    return lost.flatMap { disconnect($0, .healthKit(.unknownError, "The connection to the remote device was lost")) }
  }

  /// The next generation's mirrored session for workout `uuid`.
  private mutating func sendMirrorStart(_ uuid: UUID) -> SessionDirective {
    let generation = max(mirroring[uuid] ?? 0, sentGenerations[uuid] ?? 0) + 1
    mirroring[uuid] = generation
    sentGenerations[uuid] = generation
    return .peer(.mirrorStart(MirroredSnapshot(sessions[WorkoutSessionID(uuid: uuid)]!, generation: generation)))
  }

  /// Kills the mirrored object `id` with `didDisconnect…(error)`.
  private mutating func disconnect(_ id: WorkoutSessionID, _ error: HealthError) -> [SessionDirective] {
    guard let session = sessions[id], !dead.contains(id) else { return [] }
    dead.insert(id)
    delegates.remove(id)
    return deliver([.session(app: session.app, id: id, .didDisconnect(error))])
  }

  /// A message from the paired device's registry, at `now`.
  ///
  /// - `mirrorStart`: older objects of the workout die; a new mirrored object (type `.mirrored`, the primary's state
  ///   and dates) is delivered through the start handler, launching the app in the background first when it is not
  ///   running (DOCS, workouts.md §3.2).
  /// - `stateChanged`, `event`, `activity…`: the mirrored object follows the primary and its delegate hears the
  ///   same callbacks, with the primary's dates (§3.4; [Observed] the date is the same on both devices).
  /// - `mirrorStop`: `didChangeTo` has come first when the session ended; then `didDisconnect…` and the object dies
  ///   ([Observed] a trailing disconnect after a workout ends, Kraftli; workouts.md §3.2).
  /// - `control`: the call acts on the primary (§3.4); no foreground rule applies.
  /// - `data`, `dataAnswer`: ``receiveData(_:sequence:_:at:)``, ``receiveAnswer(sequence:error:)``.
  package mutating func receive(_ message: SessionPeerMessage, at now: Date) -> [SessionDirective] {
    switch message {
    case .mirrorStart(let snapshot):
      var out: [SessionDirective] = []
      let older = sessions.keys.filter { $0.uuid == snapshot.uuid && sessions[$0]?.type == .mirrored }
      for id in older.sorted() where !dead.contains(id) {
        out += disconnect(id, .healthKit(.unknownError, "A newer mirrored session replaced this one"))
      }
      let id = WorkoutSessionID(uuid: snapshot.uuid, generation: snapshot.generation)
      var session = WorkoutSession(id: id, app: snapshot.app, type: .mirrored, configuration: snapshot.configuration)
      session.state = snapshot.state
      session.start = snapshot.start
      session.end = snapshot.end
      session.activities = snapshot.activities
      session.events = snapshot.events
      sessions[id] = session
      if (runStates[snapshot.app] ?? .notRunning) == .notRunning {
        runStates[snapshot.app] = .background
        out.append(.launch(app: snapshot.app))
      }
      return out + deliver([.mirroringStarted(app: snapshot.app, id: id)])
    case .mirrorStop(let uuid):
      guard let id = liveMirrored(uuid) else { return [] }
      return disconnect(id, .healthKit(.unknownError, "The remote workout session stopped mirroring"))
    case .stateChanged(let uuid, let to, _, let date):
      guard let id = liveMirrored(uuid), var session = sessions[id] else { return [] }
      let from = session.state
      session.state = to
      switch to {
      case .running: if session.start == nil { session.start = date }
      case .stopped: session.stop = date
      case .ended: session.end = date
      case .notStarted, .prepared, .paused: break
      }
      sessions[id] = session
      return react(id, [.didChange(to: to, from: from, date: date)], at: now)
    case .event(let uuid, let event):
      guard let id = liveMirrored(uuid) else { return [] }
      sessions[id]?.events.append(event)
      return react(id, [.didGenerate(event)], at: now)
    case .activityBegan(let uuid, let activity):
      guard let id = liveMirrored(uuid) else { return [] }
      sessions[id]?.activities.append(activity)
      return react(id, [.didBeginActivity(activity, date: activity.start)], at: now)
    case .activityEnded(let uuid, let activity):
      guard let id = liveMirrored(uuid),
        let index = sessions[id]?.activities.lastIndex(where: {
          $0.uuid == activity.uuid
        })
      else { return [] }
      sessions[id]?.activities[index].end = activity.end
      return react(id, [.didEndActivity(activity, date: activity.end ?? now)], at: now)
    case .control(let uuid, let command):
      guard let id = primary(uuid) else { return [] }
      return apply(command, to: id, at: now)
    case .data(let uuid, let sequence, let data):
      return receiveData(uuid, sequence: sequence, data, at: now)
    case .dataAnswer(_, let sequence, let error):
      return receiveAnswer(sequence: sequence, error: error)
    case .startWatchApp(let app, let configuration):
      allowBackgroundStart(app)
      var out: [SessionDirective] = []
      if (runStates[app] ?? .notRunning) == .notRunning {
        runStates[app] = .background
        out.append(.launch(app: app))
      }
      return out + deliver([.handleConfiguration(app: app, configuration)])
    }
  }
}
