import Foundation
import HealthEngine
import HealthModel
import HealthPairClient
import Synchronization

/// Builds and saves a workout (iOS 12 / watchOS 5; workouts.md §2.5): begin collection, add samples, events,
/// activities and metadata, end collection, then finish (which saves the workout) or discard.
///
/// It is not tied to a workout session, so it can record past workouts. Rules, in Apple's words where Apple has
/// them (HKWorkoutBuilder.h) and as HealthPair models elsewhere — every misuse fails with
/// `HKError(.errorInvalidArgument)` and a message naming it, and leaves the builder unchanged:
/// - `beginCollection(at:)` comes before anything else, once.
/// - `add(_:)` saves the samples not yet stored now, under the rules of `save`, and associates all of them with the
///   workout; each sample's start must not be before the builder's start date. Statistics are computed from the
///   added quantity samples (HealthPair model: a cumulative type's sum; a discrete type's minimum, maximum,
///   arithmetic average and most recent value, in the canonical unit).
/// - `addMetadata(_:)` merges like `addEntriesFromDictionary`; a failed add (a value HealthKit refuses) leaves the
///   metadata unchanged.
/// - `addWorkoutActivity(_:)` fails while the last activity has no end ("Cannot add new activity before ending
///   current activity.", workouts.md §1.4), and for an activity starting before the builder or before the end of
///   the previous one (activities may not overlap).
/// - `endCollection(at:)` comes after begin, once, with an end not before the start; `finishWorkout()` after it.
///   Samples, events and metadata may still be added between them (HealthPair model); activities still open are
///   ended at the workout's end.
/// - After `finishWorkout()` or `discardWorkout()` every call fails (HealthPair model; Apple: "an error after
///   finishWorkout"). Discarding keeps the samples already added (Apple).
/// - The route comes from `seriesBuilder(for: .workoutRoute())` and is saved with the workout, as one unit.
///
/// Declared `@unchecked Sendable`: its state sits behind a `Mutex`; the public properties read snapshots of it.
public class HKWorkoutBuilder: NSObject, @unchecked Sendable {
  /// The device that records the workout (kept with it), if given.
  public let device: HKDevice?
  /// A copy of the configuration the builder was made with.
  public let workoutConfiguration: HKWorkoutConfiguration
  let state = Mutex(BuilderState())

  /// A builder; nothing happens until `beginCollection`. The configuration is copied.
  public init(healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?) {
    self.device = device
    self.workoutConfiguration = configuration.copy() as! HKWorkoutConfiguration
    super.init()
  }

  // MARK: - Reading

  /// When collection began (nil before `beginCollection`).
  public var startDate: Date? { state.withLock { $0.start } }
  /// When collection ended (nil before `endCollection`).
  public var endDate: Date? { state.withLock { $0.end } }
  /// The metadata added so far.
  public var metadata: [String: Any] { MetadataPayload.valid(state.withLock { $0.metadata }).dictionary ?? [:] }
  /// The events added so far, date-ascending.
  public var workoutEvents: [HKWorkoutEvent] { state.withLock { $0.events } }
  /// The activities added so far, date-ascending (iOS 16).
  public var workoutActivities: [HKWorkoutActivity] { state.withLock { $0.activities } }
  /// The statistics of each quantity type added so far (iOS 16).
  public var allStatistics: [HKQuantityType: HKStatistics] {
    HKWorkout.statisticsByType(state.withLock { $0.statistics(from: nil, to: nil) })
  }

  /// The statistics of `quantityType`'s samples added so far, or nil when none were.
  public func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
    state.withLock { $0.statistics(from: nil, to: nil) }.first { $0.type.identifier == quantityType.identifier }
      .map(HKWorkout.statistics)
  }

  /// The time recorded between the start and `date` (or the end, if earlier), less the pause→resume intervals of
  /// the events; 0 before `beginCollection`.
  public func elapsedTime(at date: Date) -> TimeInterval {
    state.withLock { state in
      guard let start = state.start else { return 0 }
      let end = min(date, state.end ?? date)
      guard end > start else { return 0 }
      return Workout.derivedDuration(
        start: start, end: end, events: state.events.filter { $0.dateInterval.start <= end }.map(\.modelValue))
    }
  }

  /// The series builder of `seriesType`: the route builder of this workout for ``HKSeriesType/workoutRoute()``
  /// (the same object every time; its route is saved by `finishWorkout()` — do not call `finishRoute`), nil for
  /// other types.
  public func seriesBuilder(for seriesType: HKSeriesType) -> HKSeriesBuilder? {
    guard seriesType.identifier == HKWorkoutRouteTypeIdentifier else { return nil }
    return state.withLock { state in
      if let route = state.route { return route }
      let route = HKWorkoutRouteBuilder(owned: device)
      state.route = route
      return route
    }
  }

  // MARK: - Building (async)

  /// Begins collection at `startDate`.
  /// - Throws: `HKError(.errorInvalidArgument)` when collection already began.
  public func beginCollection(at startDate: Date) async throws {
    try state.withLock { try $0.begin(startDate) }
  }

  /// Saves the samples not yet stored and associates every sample with the workout.
  /// - Throws: `HKError(.errorInvalidArgument)` (not begun, finished, a sample starting before the builder); the
  ///   errors of `save` (4, 5, 3).
  public func addSamples(_ samples: [HKSample]) async throws {
    let api = "HKWorkoutBuilder.addSamples(_:)"
    try state.withLock { try $0.check(samples) }
    let session = try await Session.connected(api: api)
    let (new, _) = try HKHealthStore.split(samples, api: api)
    if !new.isEmpty { try await session.performAsync(.save(session.bundleID, new), api: api) }
    HKHealthStore.markSaved(samples)
    state.withLock { $0.record(samples) }
  }

  /// Adds events (any order; kept date-ascending).
  /// - Throws: `HKError(.errorInvalidArgument)` (not begun, finished, an event before the start).
  public func addWorkoutEvents(_ workoutEvents: [HKWorkoutEvent]) async throws {
    try state.withLock { try $0.add(workoutEvents) }
  }

  /// Merges `metadata` into the builder's; nothing changes when it fails.
  /// - Throws: `HKError(.errorInvalidArgument)` (finished, a value HealthKit refuses).
  public func addMetadata(_ metadata: [String: Any]) async throws {
    try state.withLock { try $0.merge(metadata) }
  }

  /// Adds an activity (iOS 16).
  /// - Throws: `HKError(.errorInvalidArgument)` (see the type's rules).
  public func addWorkoutActivity(_ workoutActivity: HKWorkoutActivity) async throws {
    try state.withLock { try $0.add(workoutActivity) }
  }

  /// Sets the end of the activity `UUID` (iOS 16).
  /// - Throws: `HKError(.errorInvalidArgument)` for an unknown activity or an end before its start.
  public func updateActivity(uuid UUID: UUID, end endDate: Date) async throws {
    try state.withLock { try $0.update(UUID, end: endDate, metadata: nil) }
  }

  /// Merges `metadata` into the activity `UUID`'s (iOS 16).
  /// - Throws: `HKError(.errorInvalidArgument)` for an unknown activity or a value HealthKit refuses.
  public func updateActivity(uuid UUID: UUID, adding metadata: [String: Any]) async throws {
    try state.withLock { try $0.update(UUID, end: nil, metadata: metadata) }
  }

  /// Ends collection at `endDate`.
  /// - Throws: `HKError(.errorInvalidArgument)` (not begun, already ended, an end before the start).
  public func endCollection(at endDate: Date) async throws {
    try state.withLock { try $0.finishCollection(endDate) }
  }

  /// Saves the workout with its samples, events, activities, statistics, metadata and route, as one unit, and
  /// returns it as stored (its source, and the activity HealthKit adds when none was added). On a locked device it
  /// returns nil with no error: the workout is saved and reaches queries, and the other device, once the device
  /// unlocks (behavior.md E31).
  /// - Throws: `HKError(.errorInvalidArgument)` (collection not ended, already finished); the errors of `save`.
  public func finishWorkout() async throws -> HKWorkout? {
    let api = "HKWorkoutBuilder.finishWorkout()"
    let (workout, route) = try state.withLock { try $0.workout(configuration: workoutConfiguration, device: device) }
    let session = try await Session.connected(api: api)
    let waiting = try await session.performAsync(
      .saveWorkout(
        session.bundleID, try workout.workoutInput(api: api, associated: state.withLock { $0.associated }),
        route: route), api: api)
    state.withLock { $0.phase = .finished }
    HKHealthStore.markSaved([workout])
    if waiting > 0 { return nil }
    // The workout as stored (its source, and the activity HealthKit adds when none was): read back by its UUID; the
    // builder's own object when the app may not read it.
    let query = SampleQuery(
      type: try HKObjectType.workoutType().simulatedType(), range: nil, sources: nil, limit: 1, sort: [],
      filter: .uuids([workout.uuid]))
    if let stored = try? await session.performAsync(.workoutQuery(session.bundleID, query), api: api).first {
      let object = HKWorkout(stored)
      HKHealthStore.markSaved([object])
      return object
    }
    return workout
  }

  /// Ends the builder without saving a workout; the samples already added stay saved, and the route's data is
  /// deleted.
  public func discardWorkout() {
    let route = state.withLock { state -> HKWorkoutRouteBuilder? in
      state.phase = .discarded
      return state.route
    }
    route?.discard()
  }

  // MARK: - Building (completion handlers, on a background queue)

  /// As `beginCollection(at:)`.
  public func beginCollection(withStart startDate: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    run(completion) { try await self.beginCollection(at: startDate) }
  }

  /// As `addSamples(_:)`.
  public func add(_ samples: [HKSample], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    run(completion) { try await self.addSamples(samples) }
  }

  /// As `addWorkoutEvents(_:)`.
  public func addWorkoutEvents(
    _ workoutEvents: [HKWorkoutEvent], completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    run(completion) { try await self.addWorkoutEvents(workoutEvents) }
  }

  /// As `addMetadata(_:)`.
  public func addMetadata(_ metadata: [String: Any], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    let payload = UncheckedMetadata(metadata)
    run(completion) { try await self.addMetadata(payload.value) }
  }

  /// As `addWorkoutActivity(_:)`.
  public func addWorkoutActivity(
    _ workoutActivity: HKWorkoutActivity, completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    run(completion) { try await self.addWorkoutActivity(workoutActivity) }
  }

  /// As `updateActivity(uuid:end:)`.
  public func updateActivity(
    uuid UUID: UUID, end endDate: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    run(completion) { try await self.updateActivity(uuid: UUID, end: endDate) }
  }

  /// As `updateActivity(uuid:adding:)`.
  public func updateActivity(
    uuid UUID: UUID, adding metadata: [String: Any], completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    let payload = UncheckedMetadata(metadata)
    run(completion) { try await self.updateActivity(uuid: UUID, adding: payload.value) }
  }

  /// As `endCollection(at:)`.
  public func endCollection(withEnd endDate: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    run(completion) { try await self.endCollection(at: endDate) }
  }

  /// As `finishWorkout()`; `completion` receives the workout or the error.
  public func finishWorkout(completion: @escaping @Sendable (HKWorkout?, (any Error)?) -> Void) {
    deliverWithTarget({ try await self.finishWorkout() }) { result in
      switch result {
      case .success(let workout): completion(workout, nil)
      case .failure(let error): completion(nil, error)
      }
    }
  }

  private func run(
    _ completion: @escaping @Sendable (Bool, (any Error)?) -> Void, _ work: @escaping @Sendable () async throws -> Void
  ) {
    deliverWithTarget(work) { result in completion(result.isSuccess, result.failure) }
  }
}

/// An app's metadata dictionary carried into a completion-handler call (`[String: Any]` is not Sendable; the values
/// HealthKit accepts are immutable).
struct UncheckedMetadata: @unchecked Sendable {
  let value: [String: Any]
  init(_ value: [String: Any]) { self.value = value }
}

extension HKWorkout {
  /// The workout as the daemon's save takes it, naming `associated` samples.
  func workoutInput(api: String, associated: [UUID]) throws -> WorkoutInput {
    var input = try workoutInput(api: api)
    input.associated = associated
    return input
  }
}
