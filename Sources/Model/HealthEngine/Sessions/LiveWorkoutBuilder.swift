import FoundationEssentials
import HealthModel

/// One `HKLiveWorkoutBuilderDelegate` callback (workouts.md §2.6).
package enum BuilderCallback: Hashable, Sendable {
  /// `workoutBuilder(_:didCollectDataOf:)`: statistics of these types may have changed.
  case didCollectDataOf(Set<SampleType>)
  /// `workoutBuilderDidCollectEvent(_:)`: the event just collected (read `workoutEvents` / `elapsedTime` again).
  case didCollectEvent(WorkoutEvent)
  /// `workoutBuilder(_:didBegin:)`.
  case didBeginActivity(WorkoutActivity)
  /// `workoutBuilder(_:didEnd:)`.
  case didEndActivity(WorkoutActivity)
}

/// What ``LiveWorkoutBuilder/collect(_:sessionState:denied:)`` did with a batch of sensor samples: the samples it
/// kept (to save to the device's store, associated with the workout) and the delegate callback.
package struct LiveCollectResult: Hashable, Sendable {
  /// The collected samples, validated (canonical units, the builder's source).
  package var stored: [Sample]
  /// `didCollectDataOf` for the types collected, or nothing when none were.
  package var callbacks: [BuilderCallback]
}

/// The state of an `HKLiveWorkoutBuilder` (workouts.md §2.5, §2.6), held by the device beside its session.
///
/// Lifecycle: `beginCollection(at:)`, then sensor samples (``collect(_:sessionState:denied:)``), events forwarded from
/// the session, activities; `endCollection(at:)`; `finishWorkout()` (a ``WorkoutInput`` to save) or
/// `discardWorkout()`. Both of Apple's ending orders work (workouts.md §2.7): the builder does not look at the
/// session's state to end or finish, so it may end in `.stopped` (then `end()`) or after `.ended`.
package struct LiveWorkoutBuilder: Hashable, Sendable {
  /// Where the builder is in its life.
  package enum Phase: UInt8, Hashable, Sendable {
    /// Before `beginCollection`.
    case notStarted
    /// Between `beginCollection` and `endCollection`.
    case collecting
    /// After `endCollection`.
    case ended
    /// After `finishWorkout`.
    case finished
    /// After `discardWorkout`.
    case discarded
  }

  /// The session the builder belongs to (`associatedWorkoutBuilder()`).
  package var session: WorkoutSessionID
  /// The session's configuration.
  package var configuration: WorkoutConfiguration
  /// Who the collected samples are saved as.
  package var source: SampleSource
  /// The data source's `typesToCollect` and predicates.
  package var collection: LiveCollection
  /// `shouldCollectWorkoutEvents` (default true): whether the session's events reach the builder.
  package var shouldCollectWorkoutEvents = true
  /// The builder's phase.
  package private(set) var phase = Phase.notStarted
  /// `startDate` (`beginCollection`).
  package private(set) var start: Date?
  /// `endDate` (`endCollection`).
  package private(set) var end: Date?
  /// `workoutEvents`, in date order.
  package private(set) var events: [WorkoutEvent] = []
  /// `workoutActivities`.
  package private(set) var activities: [WorkoutActivity] = []
  /// The collected samples, in collection order.
  package private(set) var samples: [Sample] = []
  /// Each collected quantity type's statistics over the builder's whole interval so far, accumulated as samples are
  /// collected: ``statistics(for:)`` and a session's status answer from them without rescanning every sample.
  private var totals: [SampleType: Totals] = [:]
  /// `metadata`.
  package var metadata: Metadata = [:]

  /// A builder for `session` whose data source was made with the session's configuration.
  package init(session: WorkoutSessionID, configuration: WorkoutConfiguration, source: SampleSource) {
    self.session = session
    self.configuration = configuration
    self.source = source
    self.collection = LiveCollection(configuration: configuration)
  }

  private static func misuse(_ message: String) -> HealthError {
    .healthKit(.errorInvalidArgument, "HKLiveWorkoutBuilder: \(message)")
  }

  /// `beginCollection(withStart:)`.
  /// - Throws: code 3 when collection already began (or the builder finished or was discarded).
  package mutating func beginCollection(at date: Date) throws(HealthError) {
    guard phase == .notStarted else { throw Self.misuse("beginCollection was already called") }
    start = date
    phase = .collecting
  }

  /// Collects a batch of sensor samples (from the seeded sensor model). A sample is kept when the builder is
  /// collecting, the session is running (no data while paused or after stop: workouts.md §1.3, §2.2), its type is in
  /// `typesToCollect` and its predicate matches, it starts at or after the builder's start (HKWorkoutBuilder.h), it
  /// validates, and the wearer has not denied reading its type: a denied type's samples are dropped and the session
  /// runs on (workouts.md §4, "HR read denied"). One `didCollectDataOf` names the kept types.
  package mutating func collect(
    _ inputs: [SampleInput], sessionState: WorkoutSessionState, denied: Set<SampleType>
  ) -> LiveCollectResult {
    guard phase == .collecting, sessionState == .running, let start else {
      return LiveCollectResult(stored: [], callbacks: [])
    }
    var kept: [Sample] = []
    var types: Set<SampleType> = []
    for input in inputs where !denied.contains(input.type) && input.start >= start {
      guard let sample = try? input.validated(source: source), collection.collects(sample) else { continue }
      kept.append(sample)
      types.insert(sample.type)
    }
    append(kept)
    return LiveCollectResult(stored: kept, callbacks: types.isEmpty ? [] : [.didCollectDataOf(types)])
  }

  /// An event the session generated: collected unless `shouldCollectWorkoutEvents` is false or the builder is not
  /// collecting (DOCS `running-workout-sessions`: the session forwards its events to the builder by default).
  package mutating func sessionGenerated(_ event: WorkoutEvent) -> [BuilderCallback] {
    guard shouldCollectWorkoutEvents, phase == .collecting else { return [] }
    events.append(event)
    events.sort { $0.start < $1.start }
    return [.didCollectEvent(event)]
  }

  /// `addWorkoutEvents(_:)` from the app.
  /// - Throws: code 3 when not collecting, or for an event before the builder's start.
  package mutating func add(events new: [WorkoutEvent]) throws(HealthError) -> [BuilderCallback] {
    guard phase == .collecting, let start else { throw Self.misuse("addWorkoutEvents while not collecting") }
    if let early = new.first(where: { $0.start < start }) {
      throw Self.misuse("event at \(formatDate(early.start)) is before the builder's start \(formatDate(start))")
    }
    events = (events + new).sorted { $0.start < $1.start }
    return new.map { .didCollectEvent($0) }
  }

  /// `add(_:)` of the app's own samples, already saved: they are collected with the workout and its delegate hears
  /// `didCollectDataOf` (DOCS `adding-samples-to-a-workout`).
  /// - Throws: code 3 when not collecting, or for a sample before the builder's start (HKWorkoutBuilder.h).
  package func checkAdd(_ inputs: [SampleInput]) throws(HealthError) {
    guard phase == .collecting, let start else { throw Self.misuse("add(_:) while not collecting") }
    if let early = inputs.first(where: { $0.start < start }) {
      throw Self.misuse("sample at \(formatDate(early.start)) is before the builder's start \(formatDate(start))")
    }
  }

  /// Records samples ``checkAdd(_:)`` accepted and the store saved.
  package mutating func added(_ saved: [Sample]) -> [BuilderCallback] {
    append(saved)
    let types = Set(saved.map(\.type))
    return types.isEmpty ? [] : [.didCollectDataOf(types)]
  }

  /// The session began an activity: the builder records it, swaps the default types (``LiveCollection``) and tells
  /// its delegate.
  package mutating func sessionBegan(_ activity: WorkoutActivity) -> [BuilderCallback] {
    guard phase == .collecting || phase == .notStarted else { return [] }
    activities.append(activity)
    collection.activityBegan(activity.configuration)
    return [.didBeginActivity(activity)]
  }

  /// The session ended an activity.
  package mutating func sessionEnded(_ activity: WorkoutActivity) -> [BuilderCallback] {
    guard let index = activities.lastIndex(where: { $0.uuid == activity.uuid }) else { return [] }
    activities[index].end = activity.end
    return [.didEndActivity(activities[index])]
  }

  /// `currentWorkoutActivity`.
  package var currentActivity: WorkoutActivity? {
    guard let last = activities.last, last.end == nil else { return nil }
    return last
  }

  /// `elapsedTime(at:)`: from the start to `date` (at most the end) minus the paused periods the collected events
  /// describe (workouts.md §2.5); 0 before `beginCollection`.
  package func elapsedTime(at date: Date) -> Double {
    guard let start else { return 0 }
    let until = max(start, min(date, end ?? date))
    return Workout.derivedDuration(start: start, end: until, events: events.filter { $0.start <= until })
  }

  /// `statistics(for:)`: the collected samples of `type` (a quantity type) accumulated as the engine's statistics
  /// do — a sum for cumulative types; average (time-weighted for heart rate), minimum, maximum and most recent for
  /// discrete ones — over the builder's interval; nil when none was collected (workouts.md §1.1).
  package func statistics(for type: SampleType) -> Statistics? {
    statistics(for: type, from: nil, to: nil)
  }

  /// One type's accumulated statistics and the latest end among its samples.
  private struct Totals: Hashable, Sendable {
    var accumulator = StatisticsAccumulator()
    var last: Date
  }

  /// Adds `sample` to `totals` when it is a quantity (a sample's value counts once, for its whole duration).
  private static func add(_ sample: Sample, to totals: inout Totals) {
    guard let value = sample.quantityValue else { return }
    let length = sample.duration
    totals.accumulator.addPiece(value: value, length: length, fraction: 1, level: false)
    totals.accumulator.countSample(
      value: value, start: sample.start.timeIntervalSinceReferenceDate, end: sample.end.timeIntervalSinceReferenceDate,
      level: false)
    totals.accumulator.duration += length
    totals.last = max(totals.last, sample.end)
  }

  /// Collects `new` into ``samples`` and ``totals``.
  private mutating func append(_ new: [Sample]) {
    samples += new
    guard let start else { return }
    for sample in new where sample.type.descriptor.aggregation != nil {
      Self.add(sample, to: &totals[sample.type, default: Totals(last: start)])
    }
  }

  /// The statistics of `type` over `from ..< to` (the builder's whole interval when both are nil: from
  /// ``totals``); nil when no sample of it counts.
  private func statistics(for type: SampleType, from: Date?, to: Date?) -> Statistics? {
    guard let style = type.descriptor.aggregation, let start else { return nil }
    var totals = Totals(last: start)
    if from == nil, to == nil {
      guard let whole = self.totals[type] else { return nil }
      totals = whole
    } else {
      for sample in samples where sample.type == type {
        if let from, sample.start < from { continue }
        if let to, sample.start >= to { continue }
        Self.add(sample, to: &totals)
      }
    }
    let (accumulator, last) = (totals.accumulator, totals.last)
    guard accumulator.count > 0 else { return nil }
    let options: StatisticsOptions =
      style.isDiscrete ? [.discreteAverage, .discreteMin, .discreteMax, .mostRecent] : [.cumulativeSum]
    let effective: AggregationStyle = style == .discreteEquivalentContinuousLevel ? .discreteArithmetic : style
    return accumulator.result(
      start: from ?? start, end: to ?? end ?? last, options: options, style: effective)
  }

  /// `allStatistics`, as a workout stores them.
  package func workoutStatistics(from: Date? = nil, to: Date? = nil) -> [WorkoutStatistic] {
    let types = from == nil && to == nil ? Set(totals.keys) : Set(samples.lazy.map(\.type))
    return types.sorted().compactMap { type in
      guard let stats = statistics(for: type, from: from, to: to) else { return nil }
      return WorkoutStatistic(
        type: type, start: stats.start, end: stats.end, sum: stats.sum, minimum: stats.minimum,
        maximum: stats.maximum, average: stats.average, mostRecent: stats.mostRecent)
    }
  }

  /// `endCollection(withEnd:)`.
  /// - Throws: code 3 when not collecting, or for an end before the start.
  package mutating func endCollection(at date: Date) throws(HealthError) {
    guard phase == .collecting, let start else { throw Self.misuse("endCollection while not collecting") }
    guard date >= start else { throw Self.misuse("the end date is before the start date") }
    end = date
    phase = .ended
  }

  /// `finishWorkout()`: the workout to save, with its events, activities (open ones closed at the end, each with
  /// its own statistics), the statistics of everything collected and the collected samples associated
  /// (workouts.md §2.5). The device saves it (``DeviceState/saveWorkout``); saving follows the usual rules.
  /// - Throws: code 3 before `endCollection`, or after the builder finished or was discarded.
  package mutating func finishWorkout(uuid: UUID) throws(HealthError) -> WorkoutInput {
    guard phase == .ended, let start, let end else { throw Self.misuse("finishWorkout before endCollection") }
    let closed = activities.map { activity -> WorkoutActivity in
      var activity = activity
      let activityEnd = activity.end ?? end
      activity.end = activityEnd
      activity.statistics = workoutStatistics(from: activity.start, to: activityEnd)
      return activity
    }
    phase = .finished
    return WorkoutInput(
      uuid: uuid, activityType: configuration.activityType, start: start, end: end, events: events,
      activities: closed, statistics: workoutStatistics(), metadata: metadata, associated: samples.map(\.uuid))
  }

  /// `discardWorkout()`: ends without saving; samples already saved stay (workouts.md §2.5).
  /// - Throws: code 3 after the builder finished.
  package mutating func discard() throws(HealthError) {
    guard phase != .finished else { throw Self.misuse("discardWorkout after finishWorkout") }
    phase = .discarded
  }
}
