import FoundationEssentials
import HealthModel

/// Where an app's process is, as the device core reports it: decides whether a workout session may start (code 14)
/// and whether callbacks are delivered now, held until the app resumes, or dropped.
package enum AppRunState: UInt8, Hashable, Sendable, CaseIterable {
  /// Running in the foreground: sessions may start; callbacks are delivered.
  case foreground
  /// Running in the background: callbacks are delivered; sessions may not start (code 14) except after a
  /// `startWatchApp` launch.
  case background
  /// Suspended: callbacks are held and delivered in order when it runs again (workouts.md §2.3, §3.3).
  case suspended
  /// No process (never launched, or it died): callbacks are dropped; the session itself runs on (recovery).
  case notRunning
}

/// What the device must do after a session call or input: pure values the device core turns into replies, events
/// and peer messages. The registry never calls out.
package enum SessionDirective: Hashable, Sendable {
  /// Deliver a `HKWorkoutSessionDelegate` callback to the app's session object `id`.
  case session(app: String, id: WorkoutSessionID, SessionCallback)
  /// Deliver a `HKLiveWorkoutBuilderDelegate` callback to the builder of session `id`.
  case builder(app: String, id: WorkoutSessionID, BuilderCallback)
  /// Save these collected samples to the device's store (the builder's source).
  case store([Sample])
  /// Send a message to the paired device's registry over the peer link.
  case peer(SessionPeerMessage)
  /// Launch the app in the background (its mirroring start handler must run; workouts.md §3.2).
  case launch(app: String)
  /// Call the app's `workoutSessionMirroringStartHandler` with the new mirrored session `id`.
  case mirroringStarted(app: String, id: WorkoutSessionID)
  /// Complete the app's `sendToRemoteWorkoutSession(data:)` call `sequence` (nil: success).
  case sendCompleted(app: String, id: WorkoutSessionID, sequence: UInt64, error: HealthError?)
  /// Call the watch app's `handle(_ workoutConfiguration:)` (the phone's `startWatchApp(toHandle:)` launched it).
  case handleConfiguration(app: String, WorkoutConfiguration)

  /// The app a delegate-side directive is for (nil for store, peer and launch directives).
  package var app: String? {
    switch self {
    case .session(let app, _, _), .builder(let app, _, _), .mirroringStarted(let app, _),
      .sendCompleted(let app, _, _, _), .handleConfiguration(let app, _):
      app
    case .store, .peer, .launch: nil
    }
  }
}

/// The workout sessions of one device, as pure values: at most one active session per device across apps, the
/// live builders, the apps' run states, mirroring to and from the paired device, and the remote data channel.
///
/// Every input is a method that returns ``SessionDirective``s; time is always a parameter. Sessions live here (the
/// daemon), not in apps: an app's process may die and the session runs on until ``recover(_:)``.
package struct SessionRegistry: Hashable, Sendable {
  /// The device this registry belongs to.
  package let device: DeviceKind
  /// Every session object this device knows, live or dead, by identity.
  package internal(set) var sessions: [WorkoutSessionID: WorkoutSession] = [:]
  /// The live builders, by their session.
  package internal(set) var builders: [WorkoutSessionID: LiveWorkoutBuilder] = [:]
  /// The primary session holding the device's one session slot (prepared, running, paused or stopped).
  package internal(set) var active: WorkoutSessionID?
  /// Session objects whose app set a delegate.
  package internal(set) var delegates: Set<WorkoutSessionID> = []
  /// Mirrored objects that are dead (after a disconnect or a newer generation).
  package internal(set) var dead: Set<WorkoutSessionID> = []
  /// The apps' run states; an app not listed is ``AppRunState/notRunning``.
  package internal(set) var runStates: [String: AppRunState] = [:]
  /// Apps launched by `startWatchApp` that may start one session from the background.
  package internal(set) var backgroundStartAllowed: Set<String> = []
  /// Callbacks held for suspended apps, in order.
  package internal(set) var held: [String: [SessionDirective]] = [:]
  /// Whether the peer link to the paired device is up.
  package internal(set) var linkUp = true
  /// Primary sessions that are mirroring, with the generation of the last mirrored object sent.
  package internal(set) var mirroring: [UUID: UInt32] = [:]
  /// The generation of the last mirrored object sent for each workout, kept after mirroring stops: mirroring the
  /// workout again sends a newer one (the companion's older objects are dead).
  package internal(set) var sentGenerations: [UUID: UInt32] = [:]
  /// The data channel's bookkeeping (rate windows, sends awaiting the peer's answer).
  package internal(set) var channel = RemoteDataChannel()

  /// An empty registry for `device`.
  package init(device: DeviceKind) { self.device = device }

  /// `HKWorkoutSession(healthStore:configuration:)`: a new primary session in `notStarted`. It takes the slot only
  /// when it is prepared or started.
  package mutating func create(app: String, uuid: UUID, configuration: WorkoutConfiguration) -> WorkoutSessionID {
    let id = WorkoutSessionID(uuid: uuid)
    sessions[id] = WorkoutSession(id: id, app: app, configuration: configuration)
    return id
  }

  /// The session object `id`, if the device knows it.
  package func session(_ id: WorkoutSessionID) -> WorkoutSession? { sessions[id] }

  /// Whether the object `id` still works (known and not a dead mirrored object).
  package func isLive(_ id: WorkoutSessionID) -> Bool { sessions[id] != nil && !dead.contains(id) }

  /// The app set (true) or cleared (false) the delegate of its session object `id`.
  package mutating func setDelegate(_ id: WorkoutSessionID, present: Bool) {
    if present { delegates.insert(id) } else { delegates.remove(id) }
  }

  /// `associatedWorkoutBuilder()`: created once per primary session, the same one after that (workouts.md §2.6);
  /// nil for an unknown or mirrored session (a mirrored session has no builder on iOS 17–18, §3.3).
  package mutating func associatedBuilder(_ id: WorkoutSessionID) -> LiveWorkoutBuilder? {
    guard let session = sessions[id], session.type == .primary else { return nil }
    if let builder = builders[id] { return builder }
    let builder = LiveWorkoutBuilder(
      session: id, configuration: session.configuration, source: SampleSource(bundleID: session.app, device: device))
    builders[id] = builder
    return builder
  }

  /// Changes the builder of `id` (the app's calls on it); returns nil when there is none.
  package mutating func withBuilder<T>(
    _ id: WorkoutSessionID, _ body: (inout LiveWorkoutBuilder) throws(HealthError) -> T
  ) throws(HealthError) -> T? {
    guard var builder = builders[id] else { return nil }
    let result = try body(&builder)
    builders[id] = builder
    return result
  }

  /// The app's `startWatchApp(toHandle:)` launched this (watch) app through `handle(workoutConfiguration:)`: it may
  /// prepare or start one session from the background (workouts.md §2.4; healthd's
  /// `allowBackgroundStartForApplicationIdentifier`, decompiled).
  package mutating func allowBackgroundStart(_ app: String) { backgroundStartAllowed.insert(app) }

  /// A call on the session object `id` at `now`.
  ///
  /// - A dead or unknown object ignores it. On a mirrored object `pause`, `resume`, `stopActivity` and `end` go to
  ///   the primary over the peer link (workouts.md §3.4; `end` is HealthPair model) and change nothing here until
  ///   the primary reports; other calls are ignored.
  /// - `prepare` or `startActivity` of a `notStarted` session from an app that is not in the foreground fails with
  ///   code 14 "Client application cannot start a workout session while in the background" (healthd, decompiled)
  ///   and changes nothing (HealthPair model), unless a `startWatchApp` launch allowed it (consumed here).
  /// - When a session takes the slot, the session holding it fails with code 8 and ends — `didFailWithError`, then
  ///   `didChangeTo ended` — before the new one proceeds, whichever app owns either (DOCS `hkerror/
  ///   erroranotherworkoutsessionstarted`, workouts.md §2.4).
  /// - Then ``WorkoutSession/apply(_:at:)``; the session's events and activities reach its builder, and a mirroring
  ///   session's changes reach the peer.
  package mutating func apply(_ command: SessionCommand, to id: WorkoutSessionID, at now: Date) -> [SessionDirective] {
    guard isLive(id), var session = sessions[id] else { return [] }
    if session.type == .mirrored {
      switch command {
      case .pause, .resume, .stopActivity, .end: return [.peer(.control(id.uuid, command))]
      case .prepare, .startActivity, .beginNewActivity, .endCurrentActivity: return []
      }
    }
    var directives: [SessionDirective] = []
    let takesSlot: Bool
    switch command {
    case .prepare, .startActivity: takesSlot = session.state == .notStarted
    case .pause, .resume, .stopActivity, .end, .beginNewActivity, .endCurrentActivity: takesSlot = false
    }
    if takesSlot {
      let state = runStates[session.app] ?? .notRunning
      if state != .foreground && backgroundStartAllowed.remove(session.app) == nil {
        let error = HealthError.healthKit(
          .errorBackgroundWorkoutSessionNotAllowed,
          "Client application cannot start a workout session while in the background")
        return deliver([.session(app: session.app, id: id, .didFail(error))])
      }
      if let holder = active, holder != id {
        directives += fail(
          holder,
          .healthKit(
            .errorAnotherWorkoutSessionStarted, "Another workout session was started (by \(session.app))"),
          at: now)
      }
    }
    let callbacks = session.apply(command, at: now)
    sessions[id] = session
    if takesSlot && session.state.isActive { active = id }
    directives += react(id, callbacks, at: now)
    return directives
  }

  /// A failure the system reports on session `id` (another session started, …): the session fails and ends
  /// (``WorkoutSession/fail(_:at:)``).
  package mutating func fail(_ id: WorkoutSessionID, _ error: HealthError, at now: Date) -> [SessionDirective] {
    guard isLive(id), var session = sessions[id] else { return [] }
    let callbacks = session.fail(error, at: now)
    sessions[id] = session
    return react(id, callbacks, at: now)
  }

  /// Turns a primary or mirrored session's callbacks into directives: each to the app's delegate; events and
  /// activities to the builder; for a mirroring primary, each change to the peer; an ended primary frees the slot
  /// and stops mirroring (workouts.md §3.2: "ending the session stops mirroring automatically").
  mutating func react(_ id: WorkoutSessionID, _ callbacks: [SessionCallback], at now: Date) -> [SessionDirective] {
    guard let session = sessions[id] else { return [] }
    var out: [SessionDirective] = []
    let mirrors = session.type == .primary && mirroring[id.uuid] != nil && linkUp
    for callback in callbacks {
      out.append(.session(app: session.app, id: id, callback))
      var builderCallbacks: [BuilderCallback] = []
      switch callback {
      case .didChange(let to, let from, let date):
        if mirrors { out.append(.peer(.stateChanged(id.uuid, to: to, from: from, date: date))) }
      case .didGenerate(let event):
        if mirrors { out.append(.peer(.event(id.uuid, event))) }
        builderCallbacks = (try? withBuilder(id) { $0.sessionGenerated(event) }) ?? []
      case .didBeginActivity(let activity, _):
        if mirrors { out.append(.peer(.activityBegan(id.uuid, activity))) }
        builderCallbacks = (try? withBuilder(id) { $0.sessionBegan(activity) }) ?? []
      case .didEndActivity(let activity, _):
        if mirrors { out.append(.peer(.activityEnded(id.uuid, activity))) }
        builderCallbacks = (try? withBuilder(id) { $0.sessionEnded(activity) }) ?? []
      case .didFail, .didReceiveData, .didDisconnect: break
      }
      out += builderCallbacks.map { .builder(app: session.app, id: id, $0) }
    }
    if session.type == .primary && session.state == .ended {
      if active == id { active = nil }
      if mirroring.removeValue(forKey: id.uuid) != nil && linkUp { out.append(.peer(.mirrorStop(id.uuid))) }
    }
    return deliver(out)
  }

  /// Sensor samples for the device's active session: its builder collects them
  /// (``LiveWorkoutBuilder/collect(_:sessionState:denied:)``); the kept ones are stored and the builder's delegate
  /// hears `didCollectDataOf`. Nothing happens without an active session with a builder.
  package mutating func sensorSamples(
    _ inputs: [SampleInput], denied: Set<SampleType>, at now: Date
  ) -> [SessionDirective] {
    guard let id = active, let session = sessions[id], var builder = builders[id] else { return [] }
    let result = builder.collect(inputs, sessionState: session.state, denied: denied)
    builders[id] = builder
    var out: [SessionDirective] = result.stored.isEmpty ? [] : [.store(result.stored)]
    out += result.callbacks.map { .builder(app: session.app, id: id, $0) }
    return deliver(out)
  }

  /// The app's process changed state. Resuming (foreground or background) delivers what was held, in order, with
  /// consecutive data for one session merged into one `didReceiveData` array (workouts.md §3.3: "a suspended app
  /// gets the buffered array when it resumes"). Dying (`notRunning`) drops what was held and the app's delegates;
  /// its sessions run on (workouts.md §2.6).
  package mutating func setRunState(_ app: String, _ state: AppRunState) -> [SessionDirective] {
    runStates[app] = state
    switch state {
    case .foreground, .background:
      return Self.merged(held.removeValue(forKey: app) ?? [])
    case .suspended:
      return []
    case .notRunning:
      held[app] = nil
      delegates = delegates.filter { sessions[$0]?.app != app }
      return []
    }
  }

  /// `recoverActiveWorkoutSession()`: the app's session still holding the slot, in its current state with its
  /// builder, or nil when there is nothing to recover (workouts.md §2.6). The app sets its delegates again.
  package func recover(_ app: String) -> WorkoutSessionID? {
    guard let id = active, let session = sessions[id], session.app == app, session.state != .ended else { return nil }
    return id
  }

  /// Routes directives by their app's run state: delivered when it runs, held while it is suspended, dropped when
  /// it has no process (store, peer and launch directives always pass).
  mutating func deliver(_ directives: [SessionDirective]) -> [SessionDirective] {
    var out: [SessionDirective] = []
    for directive in directives {
      guard let app = directive.app else {
        out.append(directive)
        continue
      }
      switch runStates[app] ?? .notRunning {
      case .foreground, .background: out.append(directive)
      case .suspended: held[app, default: []].append(directive)
      case .notRunning: break
      }
    }
    return out
  }

  /// `directives` with each run of `didReceiveData` for one session joined into one callback.
  static func merged(_ directives: [SessionDirective]) -> [SessionDirective] {
    var out: [SessionDirective] = []
    for directive in directives {
      if case .session(let app, let id, .didReceiveData(let data)) = directive,
        case .session(let lastApp, let lastID, .didReceiveData(let earlier))? = out.last, lastApp == app, lastID == id
      {
        out[out.count - 1] = .session(app: app, id: id, .didReceiveData(earlier + data))
        continue
      }
      out.append(directive)
    }
    return out
  }
}
