import Dispatch
import Foundation
import HealthModel
import HealthPairClient
import Synchronization
import Wire

/// A store's workout-session handlers and the listeners that run them (``HKHealthStore``'s one stored property).
///
/// `@unchecked Sendable`: state behind a `Mutex`; the handlers are the app's closures, called on background queues
/// as HealthKit calls them.
final class SessionHooks: @unchecked Sendable {
  struct Hook<Handler> {
    var handler: Handler?
    var events: DeviceClient?
    var token: UInt64?
  }
  let mirroring = Mutex(Hook<(HKWorkoutSession) -> Void>())
  let configuration = Mutex(Hook<(HKWorkoutConfiguration) -> Void>())

  deinit {
    for hook in [mirroring.withLock { ($0.events, $0.token) }, configuration.withLock { ($0.events, $0.token) }] {
      if let events = hook.0, let token = hook.1 { events.removeListener(token) }
    }
  }
}

extension HKHealthStore {
  /// Runs each time the companion watch starts mirroring a workout session to this device (iOS 17): with a new
  /// mirrored ``HKWorkoutSession`` (a reconnection delivers another one; the old object is dead), on a background
  /// queue. Set it promptly at every launch. Applies to the app and device configured when it is set (with no
  /// target configured, setting it is reported to ``HealthKitSim/issueHandler`` and nothing runs).
  public var workoutSessionMirroringStartHandler: ((HKWorkoutSession) -> Void)? {
    get { sessionHooks.mirroring.withLock { Carried(value: $0.handler) }.value }
    set {
      let hooks = sessionHooks
      install(newValue, in: hooks.mirroring, api: "HKHealthStore.workoutSessionMirroringStartHandler") {
        session, event in
        guard case .mirroringStarted(let app, let id) = event, app == session.bundleID else { return }
        // On the reader thread: listen for the new object's callbacks now, so none is missed; read its status off
        // this thread.
        guard let core = try? SessionCore(session: session, id: id, activate: false) else { return }
        DispatchQueue(label: "HealthKitSim.mirroringStart").async {
          let api = "HKHealthStore.workoutSessionMirroringStartHandler"
          let status: SessionStatus
          do { status = try session.perform(.workoutSession(session.bundleID, .status(id)), api: api) } catch {
            SessionCore.report(error, api: api)
            return
          }
          let mirrored = HKWorkoutSession(core: core, status: status)
          guard let handler = hooks.mirroring.withLock({ Carried(value: $0.handler) }).value else { return }
          HealthKitSim.withTarget(session.target) { handler(mirrored) }
        }
      }
    }
  }

  /// HealthPair's stand-in for `WKApplicationDelegate.handle(_ workoutConfiguration:)` (watchOS): runs on the
  /// watch, on a background queue, each time the phone's `startWatchApp(toHandle:)` launches the app with a
  /// configuration; the app may then start a session although it is in the background. Set it on the watch's store
  /// for the app (resolved when it is set, as ``workoutSessionMirroringStartHandler``). Not HealthKit API.
  public var workoutConfigurationHandler: ((HKWorkoutConfiguration) -> Void)? {
    get { sessionHooks.configuration.withLock { Carried(value: $0.handler) }.value }
    set {
      let hooks = sessionHooks
      install(newValue, in: hooks.configuration, api: "HKHealthStore.workoutConfigurationHandler") {
        session, event in
        guard case .workoutConfigurationHandled(let app, let configuration) = event, app == session.bundleID else {
          return
        }
        DispatchQueue(label: "HealthKitSim.handleWorkoutConfiguration").async {
          guard let handler = hooks.configuration.withLock({ Carried(value: $0.handler) }).value else { return }
          HealthKitSim.withTarget(session.target) { handler(HKWorkoutConfiguration(configuration)) }
        }
      }
    }
  }

  /// Sets a handler and (re)places its listener on the current target's event connection.
  private func install<Handler>(
    _ handler: Handler?, in hook: borrowing Mutex<SessionHooks.Hook<Handler>>, api: String,
    listener: @escaping @Sendable (Session, DaemonEvent) -> Void
  ) {
    let carried = Carried(value: handler)
    let old = hook.withLock { h -> (DeviceClient?, UInt64?) in
      defer { (h.events, h.token) = (nil, nil) }
      h.handler = carried.value
      return (h.events, h.token)
    }
    if let events = old.0, let token = old.1 { events.removeListener(token) }
    guard handler != nil else { return }
    do {
      let session = try Session.current(api: api)
      let events = try session.events()
      let token = events.addListener { event in listener(session, event) }
      hook.withLock { h in (h.events, h.token) = (events, token) }
    } catch {
      SessionCore.report(error, api: api)
    }
  }

  // MARK: - Recovery and launching

  /// The app's workout session still running on the device after the app died or was relaunched (watchOS 5 /
  /// iOS 26), in its current state with its builder; nil when there is none. Set its delegates again; do not
  /// call `startActivity` or `beginCollection` again.
  /// - Throws: ``HKError``; ``HealthKitSimError`` when the daemon cannot be reached.
  public func recoverActiveWorkoutSession() async throws -> HKWorkoutSession? {
    let api = "HKHealthStore.recoverActiveWorkoutSession()"
    let session = try await Session.connected(api: api)
    let status: SessionStatus
    do {
      status = try await session.performAsync(.workoutSession(session.bundleID, .recover), api: api)
    } catch let error as HKError where error.code == .errorNoData {
      return nil
    }
    let core = try SessionCore(session: session, id: status.id, activate: false)
    let recovered = HKWorkoutSession(core: core, status: status)
    if status.builder != nil { _ = recovered.associatedWorkoutBuilder() }
    return recovered
  }

  /// As `recoverActiveWorkoutSession()`; `completion` runs on a background queue.
  public func recoverActiveWorkoutSession(
    completion: @escaping @Sendable (HKWorkoutSession?, (any Error)?) -> Void
  ) {
    deliverWithTarget({ try await self.recoverActiveWorkoutSession() }) { result in
      switch result {
      case .success(let session): completion(session, nil)
      case .failure(let error): completion(nil, error)
      }
    }
  }

  /// Launches or wakes the companion watch app and hands it `workoutConfiguration` (iOS only; the watch app's
  /// ``workoutConfigurationHandler`` runs, and it may start a session from the background). Success means only
  /// "launched".
  /// - Throws: ``HKError`` ("Unable to launch watch app" while the watch is unreachable); ``HealthKitSimError``
  ///   (called on the watch, or the daemon unreachable).
  public func startWatchApp(toHandle workoutConfiguration: HKWorkoutConfiguration) async throws {
    let api = "HKHealthStore.startWatchApp(toHandle:)"
    let session = try await Session.connected(api: api)
    do {
      _ = try await session.performAsync(
        .workoutSession(session.bundleID, .startWatchApp(workoutConfiguration.simulated)), api: api)
    } catch let error as HKError where error.code == .errorNoData {
      return
    }
  }

  /// As `startWatchApp(toHandle:)` (Apple's completion-handler spelling, `startWatchAppWithWorkoutConfiguration:`);
  /// `completion` runs on a background queue.
  public func startWatchApp(
    with workoutConfiguration: HKWorkoutConfiguration,
    completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    deliverWithTarget({ try await self.startWatchApp(toHandle: workoutConfiguration) }) { result in
      completion(result.isSuccess, result.failure)
    }
  }
}
