import Foundation
import HealthEngine
import HealthModel
import HealthPairClient
import Synchronization
import Wire

/// The live builder of a workout session (watchOS 5 / iOS 26), obtained only through
/// `HKWorkoutSession.associatedWorkoutBuilder()` (its `init(healthStore:configuration:device:)` is unavailable, as
/// in HealthKit). The builder lives in the device beside its session: while the session runs, the sensor model's
/// samples of ``dataSource``'s `typesToCollect` are saved and collected, and the delegate hears `didCollectDataOf`;
/// the session's events and activities reach it (unless ``shouldCollectWorkoutEvents`` is false).
///
/// Every call goes to the device; the reading properties (`startDate`, `workoutEvents`, `statistics(for:)`,
/// ``elapsedTime``…) read the device's builder as it is now (a round trip; the last known values when the daemon
/// cannot answer). Without a data source nothing is collected automatically (HealthKit's rule): a builder whose
/// ``dataSource`` is nil at `beginCollection` collects only what the app adds.
///
/// HealthPair limits: activities come from the session (`beginNewActivity`, `endCurrentActivity`):
/// `addWorkoutActivity(_:)` and `updateActivity` fail with `errorInvalidArgument`; `add(_:)` saves and associates
/// new samples (samples already stored are refused with `errorInvalidArgument`); no route builder
/// (`seriesBuilder(for:)` is nil: record a route with `HKWorkoutRouteBuilder`).
public class HKLiveWorkoutBuilder: HKWorkoutBuilder, @unchecked Sendable {
  let core: SessionCore
  private let live: Mutex<Live>

  private struct Live {
    var session = WeakBox<HKWorkoutSession>()
    var delegate = WeakBox<AnyObject>()
    var dataSource: HKLiveWorkoutDataSource?
    var status: BuilderStatus?
  }

  /// The builder of `session`, as the device answered `associatedWorkoutBuilder()` (nil: a mirrored session's).
  init(session: HKWorkoutSession, status: BuilderStatus?) {
    core = session.core
    live = Mutex(Live(session: WeakBox(value: session), status: status))
    super.init(healthStore: HKHealthStore(), configuration: session.workoutConfiguration, device: HKDevice.local())
    core.builder = self
  }

  /// The delegate (held weakly): told of collected data, events and activities on the session's queue.
  public var delegate: (any HKLiveWorkoutBuilderDelegate)? {
    get { live.withLock { Carried(value: $0.delegate.value) }.value as? any HKLiveWorkoutBuilderDelegate }
    set {
      let carried = Carried(value: newValue as AnyObject?)
      live.withLock { $0.delegate.value = carried.value }
    }
  }

  /// The session the builder belongs to (held weakly).
  public var workoutSession: HKWorkoutSession? { live.withLock { $0.session.value } }

  /// Whether the session's events reach the builder (default true). Changing it after `beginCollection` is
  /// undefined in HealthKit; the device applies it from then on.
  public var shouldCollectWorkoutEvents: Bool {
    get { current?.shouldCollectWorkoutEvents ?? true }
    set {
      core.callReporting(
        .shouldCollectEvents(core.id, newValue), api: "HKLiveWorkoutBuilder.shouldCollectWorkoutEvents")
    }
  }

  /// Where the builder's samples come from. Assigning a data source attaches it: the device collects its
  /// `typesToCollect` with their predicates (the calls made on it before are applied now).
  public var dataSource: HKLiveWorkoutDataSource? {
    get { live.withLock { $0.dataSource } }
    set {
      live.withLock { $0.dataSource = newValue }
      newValue?.attach(core, deviceTypes: current?.types ?? [])
    }
  }

  /// The time recorded so far at the device's time, pause→resume intervals excluded.
  public var elapsedTime: TimeInterval { current?.elapsed ?? 0 }

  /// The activity begun and not ended (iOS 16 / watchOS 9), or nil between activities.
  public var currentWorkoutActivity: HKWorkoutActivity? {
    guard let status = current, let open = status.activities.last, open.end == nil else { return nil }
    return HKWorkoutActivity(open, events: status.events)
  }

  /// The device's builder now (a round trip), or the last known one when the daemon cannot answer.
  private var current: BuilderStatus? {
    if let fresh = try? core.call(.status(core.id), api: "HKLiveWorkoutBuilder").builder {
      live.withLock { $0.status = fresh }
      return fresh
    }
    return live.withLock { $0.status }
  }

  private func remember(_ status: SessionStatus) {
    if let builder = status.builder { live.withLock { $0.status = builder } }
  }

  // MARK: - Reading

  /// When collection began, or nil.
  public override var startDate: Date? { current?.start }
  /// When collection ended, or nil.
  public override var endDate: Date? { current?.end }
  /// The builder's metadata.
  public override var metadata: [String: Any] { MetadataPayload.valid(current?.metadata ?? [:]).dictionary ?? [:] }
  /// The events collected (the session's and the app's), date-ascending.
  public override var workoutEvents: [HKWorkoutEvent] { (current?.events ?? []).map(HKWorkoutEvent.init) }
  /// The activities so far (iOS 16 / watchOS 9).
  public override var workoutActivities: [HKWorkoutActivity] {
    guard let status = current else { return [] }
    return status.activities.map { HKWorkoutActivity($0, events: status.events) }
  }
  /// The statistics of every type collected so far.
  public override var allStatistics: [HKQuantityType: HKStatistics] {
    HKWorkout.statisticsByType(current?.statistics ?? [])
  }

  /// The statistics of `quantityType` collected so far, or nil when none was.
  public override func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
    current?.statistics.first { $0.type.identifier == quantityType.identifier }.map(HKWorkout.statistics)
  }

  /// The time recorded between the start and `date` (or the end, if earlier), less pause→resume intervals.
  public override func elapsedTime(at date: Date) -> TimeInterval {
    guard let status = current, let start = status.start else { return 0 }
    let end = min(date, status.end ?? date)
    guard end > start else { return 0 }
    return Workout.derivedDuration(start: start, end: end, events: status.events.filter { $0.start <= end })
  }

  /// None: a live builder records no route here (see the type's limits).
  public override func seriesBuilder(for seriesType: HKSeriesType) -> HKSeriesBuilder? { nil }

  // MARK: - Building

  /// Begins collection at `startDate`; from then on the device collects as the clock moves.
  /// - Throws: `HKError(.errorInvalidArgument)` when collection already began (or the session is mirrored).
  public override func beginCollection(at startDate: Date) async throws {
    let api = "HKLiveWorkoutBuilder.beginCollection(withStart:)"
    if dataSource == nil {
      // No data source: HealthKit collects nothing automatically; the device's defaults are switched off.
      for type in current?.types ?? [] { try await core.callAsync(.disableCollection(core.id, type), api: api) }
    }
    remember(try await core.callAsync(.beginCollection(core.id, startDate), api: api))
  }

  /// Saves the new samples and collects them with the workout.
  /// - Throws: `HKError(.errorInvalidArgument)` (not begun, finished, a sample already stored or starting before
  ///   the builder); the errors of `save`.
  public override func addSamples(_ samples: [HKSample]) async throws {
    let api = "HKLiveWorkoutBuilder.add(_:)"
    let (new, existing) = try HKHealthStore.split(samples, api: api)
    guard existing.isEmpty else {
      throw HKError(.errorInvalidArgument, message: "HKLiveWorkoutBuilder: HealthPair adds only unsaved samples")
    }
    remember(try await core.callAsync(.addSamples(core.id, new), api: api))
    HKHealthStore.markSaved(samples)
  }

  /// Adds events; the delegate hears `workoutBuilderDidCollectEvent` for each.
  /// - Throws: `HKError(.errorInvalidArgument)` (not begun, finished, an event outside the workout).
  public override func addWorkoutEvents(_ workoutEvents: [HKWorkoutEvent]) async throws {
    let api = "HKLiveWorkoutBuilder.addWorkoutEvents(_:)"
    let events = try workoutEvents.map { try $0.model(api: api) }
    remember(try await core.callAsync(.addEvents(core.id, events), api: api))
  }

  /// Merges `metadata` into the builder's.
  /// - Throws: `HKError(.errorInvalidArgument)` (finished); ``HKSimulatedTermination`` for a value HealthKit refuses.
  public override func addMetadata(_ metadata: [String: Any]) async throws {
    let api = "HKLiveWorkoutBuilder.addMetadata(_:)"
    let checked = try MetadataPayload(metadata).checked(api: api)
    remember(try await core.callAsync(.addMetadata(core.id, checked), api: api))
  }

  /// Refused: a live builder's activities come from its session (`beginNewActivity`).
  /// - Throws: `HKError(.errorInvalidArgument)` always.
  public override func addWorkoutActivity(_ workoutActivity: HKWorkoutActivity) async throws {
    throw Self.sessionActivities("addWorkoutActivity(_:)")
  }

  /// Refused: a live builder's activities come from its session (`endCurrentActivity(on:)`).
  /// - Throws: `HKError(.errorInvalidArgument)` always.
  public override func updateActivity(uuid UUID: UUID, end endDate: Date) async throws {
    throw Self.sessionActivities("updateActivity(uuid:end:)")
  }

  /// Refused: a live builder's activities come from its session.
  /// - Throws: `HKError(.errorInvalidArgument)` always.
  public override func updateActivity(uuid UUID: UUID, adding metadata: [String: Any]) async throws {
    throw Self.sessionActivities("updateActivity(uuid:adding:)")
  }

  private static func sessionActivities(_ call: String) -> HKError {
    HKError(
      .errorInvalidArgument,
      message: "HKLiveWorkoutBuilder.\(call): in HealthPair a live builder's activities come from its session "
        + "(beginNewActivity(configuration:date:metadata:), endCurrentActivity(on:))")
  }

  /// Ends collection at `endDate` (the session may be stopped or ended: both of Apple's orders work).
  /// - Throws: `HKError(.errorInvalidArgument)` (not begun, already ended, an end before the start).
  public override func endCollection(at endDate: Date) async throws {
    remember(
      try await core.callAsync(.endCollection(core.id, endDate), api: "HKLiveWorkoutBuilder.endCollection(withEnd:)"))
  }

  /// Saves the workout with its collected samples, events, activities, statistics and metadata, on this device, and
  /// returns it as stored; nil with no error on a locked device (saved and synced at unlock, behavior.md E31).
  /// - Throws: `HKError(.errorInvalidArgument)` (collection not ended, already finished); the errors of `save`.
  public override func finishWorkout() async throws -> HKWorkout? {
    let api = "HKLiveWorkoutBuilder.finishWorkout()"
    let uuid = UUID()
    let status = try await core.callAsync(.finishWorkout(core.id, workout: uuid), api: api)
    remember(status)
    if status.waiting { return nil }
    let session = core.session
    let query = SampleQuery(
      type: try HKObjectType.workoutType().simulatedType(), range: nil, sources: nil, limit: 1, sort: [],
      filter: .uuids([uuid]))
    // The workout as stored, read back by its UUID; built from the device's builder when the app may not read
    // workouts (share access to `workoutType()` alone is the usual request).
    if let stored = try? await session.performAsync(.workoutQuery(session.bundleID, query), api: api).first {
      let workout = HKWorkout(stored)
      HKHealthStore.markSaved([workout])
      return workout
    }
    guard let builder = status.builder, let start = builder.start, let end = builder.end else { return nil }
    let workout = HKWorkout(
      uuid: uuid, activityType: workoutConfiguration.activityType, start: start, end: end,
      events: builder.events.map(HKWorkoutEvent.init),
      activities: builder.activities.map { HKWorkoutActivity($0, events: builder.events) },
      statistics: builder.statistics, metadata: MetadataPayload.valid(builder.metadata))
    HKHealthStore.markSaved([workout])
    return workout
  }

  /// Ends the builder without saving a workout; the samples already collected stay saved. An error goes to
  /// ``HealthKitSim/issueHandler``.
  public override func discardWorkout() {
    core.callReporting(.discard(core.id), api: "HKLiveWorkoutBuilder.discardWorkout()")
  }
}
