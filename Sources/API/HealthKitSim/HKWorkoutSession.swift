import Foundation
import HealthEngine
import HealthModel
import HealthPairClient
import Synchronization
import Wire

/// A workout session (watchOS 2 / iOS 17; `init(healthStore:configuration:)` watchOS 5 / iOS 26): the workout runs
/// in the device (the daemon), which keeps the session, its sensors and its live builder; this object is the app's
/// view of it and receives its callbacks (workouts.md §2).
///
/// - Every call is asynchronous, as in HealthKit: the new state arrives through the delegate
///   (``HKWorkoutSessionDelegate``), on a serial background queue of the session, in the device's order (a failure's
///   `didFailWithError` before its `didChangeTo`). ``state`` changes when the delegate hears of it, not when the call
///   returns. Illegal calls are silent (no callback, no change; workouts.md §2.2).
/// - Starting or preparing needs the app in the foreground (code 14 through `didFailWithError` otherwise, unless a
///   `startWatchApp` launch allowed it); the device runs one session at a time, and a new one ends the one holding
///   it with code 8 (`didFailWithError`, then `didChangeTo ended`).
/// - Errors of the device a void call cannot return (the daemon unreachable) go to ``HealthKitSim/issueHandler``.
///
/// `@unchecked Sendable`: its state sits in a ``SessionCore`` behind `Mutex`es.
public final class HKWorkoutSession: NSObject, @unchecked Sendable {
  let core: SessionCore
  private let delegateBox = Mutex(WeakBox<AnyObject>())
  private let builderObject = Mutex<HKLiveWorkoutBuilder?>(nil)

  /// A new primary session for `workoutConfiguration`, in `notStarted`, on the configured device for the app.
  /// - Throws: ``HKError`` (`errorInvalidArgument` for a configuration the device refuses, `errorHealthDataUnavailable`
  ///   with no target configured); ``HealthKitSimError`` when the daemon cannot be reached.
  public init(healthStore: HKHealthStore, configuration workoutConfiguration: HKWorkoutConfiguration) throws {
    let api = "HKWorkoutSession.init(healthStore:configuration:)"
    let session = try Session.current(api: api)
    let uuid = UUID()
    core = try SessionCore(session: session, id: WorkoutSessionID(uuid: uuid), activate: false)
    let status = try session.perform(
      .workoutSession(session.bundleID, .create(uuid: uuid, configuration: workoutConfiguration.simulated)), api: api)
    core.absorb(status, first: true)
    super.init()
    core.activate(self)
  }

  /// A session object for a session the device already has (recovered, or mirrored from the companion): `core`
  /// listens already; its held callbacks run from now on.
  init(core: SessionCore, status: SessionStatus) {
    self.core = core
    core.absorb(status, first: true)
    super.init()
    core.activate(self)
  }

  private var snapshot: SessionStatus? { core.snapshot }

  // MARK: - Reading

  /// The session's delegate (held weakly). Setting or clearing it tells the device (a mirrored session's data
  /// channel needs one: "Remote session delegate is not set up.", code 3). A mirrored session holds its callbacks
  /// until its first delegate is set, which then hears them in order (docs/healthkit-api.md, "Differences", 21).
  public var delegate: (any HKWorkoutSessionDelegate)? {
    get { delegateBox.withLock { Carried(value: $0.value) }.value as? any HKWorkoutSessionDelegate }
    set {
      let carried = Carried(value: newValue as AnyObject?)
      let had = delegateBox.withLock { box -> Bool in
        let had = box.value != nil
        box.value = carried.value
        return had
      }
      if had != (newValue != nil) || newValue != nil {
        core.callReporting(.setDelegate(core.id, newValue != nil), api: "HKWorkoutSession.delegate")
      }
      if newValue != nil { core.delegateAssigned() }
    }
  }

  /// The state, as the delegate was last told (the first status before any callback).
  public var state: HKWorkoutSessionState { snapshot.map { HKWorkoutSessionState($0.state) } ?? .notStarted }
  /// Primary (created here) or mirrored (from the companion device).
  public var type: HKWorkoutSessionType { snapshot.map { HKWorkoutSessionType($0.type) } ?? .primary }
  /// A copy of the session's configuration: editing it changes nothing.
  public var workoutConfiguration: HKWorkoutConfiguration {
    HKWorkoutConfiguration(snapshot?.configuration ?? WorkoutConfiguration(activityType: .other))
  }
  /// When the session started running (`startActivity(with:)`), or nil.
  public var startDate: Date? { snapshot?.start }
  /// When the session ended, or nil.
  public var endDate: Date? { snapshot?.end }

  /// The activity in progress (iOS 17 / watchOS 9). HealthPair model (the header's property is non-optional and
  /// Apple does not say what it holds between activities): the activity begun and not ended, else one spanning the
  /// session with its configuration (the session's identifier, `startDate` or now, `endDate`).
  public var currentActivity: HKWorkoutActivity {
    let known = snapshot
    let events = known?.events ?? []
    if let open = known?.activities.last, open.end == nil { return HKWorkoutActivity(open, events: events) }
    let whole = WorkoutActivity(
      uuid: core.id.uuid, configuration: known?.configuration ?? WorkoutConfiguration(activityType: .other),
      start: known?.start ?? Date(), end: known?.end, metadata: [:], statistics: [])
    return HKWorkoutActivity(whole, events: events)
  }

  /// "[Primary]" or "[Mirrored]" with the state, as HealthKit's description names the role (workouts.md §3.2).
  public override var description: String {
    "<HKWorkoutSession \(core.id.uuid.uuidString) [\(type == .primary ? "Primary" : "Mirrored")] state \(state.rawValue)>"
  }

  // MARK: - Controlling

  /// Enters session mode with no activity yet (notStarted → prepared): sensors warm up, the app gets background
  /// runtime. Meant for a countdown.
  public func prepare() { command(.prepare, "prepare()") }

  /// Starts the activity at `date` (now when nil): notStarted or prepared → running; `startDate` is set.
  public func startActivity(with date: Date?) {
    command(.startActivity(date ?? deviceNow()), "startActivity(with:)")
  }

  /// Pauses (running → paused), generating a pause event. On a mirrored session it pauses the primary.
  public func pause() { command(.pause, "pause()") }

  /// Resumes (paused → running), generating a resume event. On a mirrored session it resumes the primary.
  public func resume() { command(.resume, "resume()") }

  /// Stops the activity at `date` (now when nil): running or paused → stopped; no new data, the app keeps its
  /// background runtime to save. On a mirrored session it stops the primary.
  public func stopActivity(with date: Date?) {
    command(.stopActivity(date ?? deviceNow()), "stopActivity(with:)")
  }

  /// Ends the session (→ ended): `endDate` is set, an open activity ends, mirroring stops. On a mirrored session it
  /// ends the primary.
  public func end() { command(.end, "end()") }

  /// Begins a new activity (iOS 17 / watchOS 9); the current one ends first.
  public func beginNewActivity(configuration: HKWorkoutConfiguration, date: Date, metadata: [String: Any]?) {
    let api = "HKWorkoutSession.beginNewActivity(configuration:date:metadata:)"
    do {
      let checked = try MetadataPayload(metadata).checked(api: api)
      try core.call(
        .command(
          core.id,
          .beginNewActivity(configuration.simulated, date: date, metadata: checked, uuid: UUID())),
        api: api)
    } catch {
      SessionCore.report(error, api: api)
    }
  }

  /// Ends the current activity at `date` (iOS 17 / watchOS 9).
  public func endCurrentActivity(on date: Date) { command(.endCurrentActivity(date), "endCurrentActivity(on:)") }

  /// The session's live builder, created on the first call; the same object every time. A mirrored session has
  /// none on the device: its builder's calls fail with `errorInvalidArgument`.
  public func associatedWorkoutBuilder() -> HKLiveWorkoutBuilder {
    builderObject.withLock { object in
      if let object { return object }
      let api = "HKWorkoutSession.associatedWorkoutBuilder()"
      var status: BuilderStatus?
      do { status = try core.call(.builder(core.id), api: api).builder } catch { SessionCore.report(error, api: api) }
      let builder = HKLiveWorkoutBuilder(session: self, status: status)
      object = builder
      return builder
    }
  }

  private func command(_ command: SessionCommand, _ name: String) {
    core.callReporting(.command(core.id, command), api: "HKWorkoutSession.\(name)")
  }

  /// The device's time (its virtual clock), for calls given no date; the host's time when it cannot be read.
  func deviceNow() -> Date {
    (try? core.session.client.dump().device.now) ?? Date()
  }

  // MARK: - Mirroring (watchOS 10 / iOS 17)

  /// Mirrors the session to the companion iPhone, launching its app in the background if needed (its
  /// `workoutSessionMirroringStartHandler` gets a mirrored session). May be called before `startActivity`.
  /// - Throws: `HKError(.errorInvalidArgument)` for an ended or mirrored session; the device's other refusals.
  public func startMirroringToCompanionDevice() async throws {
    try await core.callAsync(.startMirroring(core.id), api: "HKWorkoutSession.startMirroringToCompanionDevice()")
  }

  /// As `startMirroringToCompanionDevice()`; `completion` runs on a background queue.
  public func startMirroringToCompanionDevice(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    deliverWithTarget({ try await self.startMirroringToCompanionDevice() }) { result in
      completion(result.isSuccess, result.failure)
    }
  }

  /// Stops mirroring: the mirrored session gets `didDisconnectFromRemoteDeviceWithError`.
  /// - Throws: the device's refusal (not mirroring).
  public func stopMirroringToCompanionDevice() async throws {
    try await core.callAsync(.stopMirroring(core.id), api: "HKWorkoutSession.stopMirroringToCompanionDevice()")
  }

  /// As `stopMirroringToCompanionDevice()`; `completion` runs on a background queue.
  public func stopMirroringToCompanionDevice(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    deliverWithTarget({ try await self.stopMirroringToCompanionDevice() }) { result in
      completion(result.isSuccess, result.failure)
    }
  }

  /// Sends `data` to the remote (mirrored or primary) session; returns once the device reports it delivered.
  /// - Throws: `HKError(.errorInvalidArgument)` while not mirroring (at once); the delivery's error (the remote
  ///   session has no delegate, the 100 KB per 10 s limit, the link).
  public func sendToRemoteWorkoutSession(data: Data) async throws {
    let api = "HKWorkoutSession.sendToRemoteWorkoutSession(data:)"
    let accepted = try await core.callAsync(.sendData(core.id, data), api: api)
    try await core.completion(ofSend: accepted.sequence, api: api)
  }

  /// As `sendToRemoteWorkoutSession(data:)`; `completion` runs on a background queue.
  public func sendToRemoteWorkoutSession(data: Data, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    deliverWithTarget({ try await self.sendToRemoteWorkoutSession(data: data) }) { result in
      completion(result.isSuccess, result.failure)
    }
  }
}
