import Foundation
import HealthModel

/// A part of a workout with its own configuration and dates (iOS 16 / watchOS 9; workouts.md §1.4): a leg of a
/// swim-bike-run, an interval of a session.
///
/// Every saved workout has at least one activity: when none is added, HealthKit adds one matching the workout's
/// type and interval (workouts.md §1.4), so queries return it. Immutable once made by a query; an activity the app
/// creates is immutable too (a builder's `updateActivity` makes a new one). `@unchecked Sendable` for the reason
/// ``HKObject`` gives.
public final class HKWorkoutActivity: NSObject, NSCopying, @unchecked Sendable {
  /// The activity's identifier.
  public let uuid: UUID
  /// The activity's configuration (a copy: editing it changes nothing stored).
  public let workoutConfiguration: HKWorkoutConfiguration
  /// When the activity started.
  public let startDate: Date
  /// When it ended; nil while a builder's activity is still open.
  public let endDate: Date?
  /// The workout's events inside the activity, date-ascending (set on activities a query returns).
  public let workoutEvents: [HKWorkoutEvent]
  /// The metadata as the simulator holds it.
  let metadataPayload: MetadataPayload
  /// The statistics of the samples inside the activity, in canonical units.
  let statisticValues: [WorkoutStatistic]

  /// An activity with a new UUID (iOS 16 / watchOS 9).
  public init(
    workoutConfiguration: HKWorkoutConfiguration, start startDate: Date, end endDate: Date?, metadata: [String: Any]?
  ) {
    self.uuid = .fresh()
    self.workoutConfiguration = workoutConfiguration.copy() as! HKWorkoutConfiguration
    self.startDate = startDate
    self.endDate = endDate
    self.workoutEvents = []
    self.metadataPayload = MetadataPayload(metadata)
    self.statisticValues = []
    super.init()
  }

  /// An activity of a stored workout, with the workout's events that fall inside it.
  init(_ activity: WorkoutActivity, events: [WorkoutEvent]) {
    self.uuid = activity.uuid
    self.workoutConfiguration = HKWorkoutConfiguration(activity.configuration)
    self.startDate = activity.start
    self.endDate = activity.end
    let end = activity.end ?? .distantFuture
    self.workoutEvents = events.filter { $0.start >= activity.start && $0.start <= end }.map(HKWorkoutEvent.init)
    self.metadataPayload = .valid(activity.metadata)
    self.statisticValues = activity.statistics
    super.init()
  }

  /// An activity with every field given.
  init(
    uuid: UUID, configuration: HKWorkoutConfiguration, start: Date, end: Date?, events: [HKWorkoutEvent],
    metadata: MetadataPayload, statistics: [WorkoutStatistic]
  ) {
    self.uuid = uuid
    self.workoutConfiguration = configuration
    self.startDate = start
    self.endDate = end
    self.workoutEvents = events
    self.metadataPayload = metadata
    self.statisticValues = statistics
    super.init()
  }

  /// A copy with another end date and metadata (what a builder's `updateActivity` records).
  init(_ activity: HKWorkoutActivity, end: Date?, metadata: MetadataPayload) {
    self.uuid = activity.uuid
    self.workoutConfiguration = activity.workoutConfiguration
    self.startDate = activity.startDate
    self.endDate = end
    self.workoutEvents = activity.workoutEvents
    self.metadataPayload = metadata
    self.statisticValues = activity.statisticValues
    super.init()
  }

  /// The metadata, or nil when there is none.
  public var metadata: [String: Any]? { metadataPayload.dictionary }

  /// End minus start, less the paused periods of ``workoutEvents``; 0 while the activity has no end.
  public var duration: TimeInterval {
    guard let endDate else { return 0 }
    return Workout.derivedDuration(start: startDate, end: endDate, events: workoutEvents.map(\.modelValue))
  }

  /// The statistics of each quantity type sampled during the activity.
  public var allStatistics: [HKQuantityType: HKStatistics] { HKWorkout.statisticsByType(statisticValues) }

  /// The statistics of `quantityType` during the activity, or nil when no samples of it were added.
  public func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
    statisticValues.first { $0.type.identifier == quantityType.identifier }.map(HKWorkout.statistics)
  }

  /// The activity itself: it is immutable.
  public func copy(with zone: NSZone? = nil) -> Any { self }

  /// Equal when the UUIDs are.
  public override func isEqual(_ object: Any?) -> Bool { (object as? HKWorkoutActivity)?.uuid == uuid }
  /// The UUID's hash.
  public override var hash: Int { uuid.hashValue }

  /// The activity as the model holds it.
  /// - Throws: ``HKSimulatedTermination`` for metadata HealthKit refuses.
  func model(api: String) throws -> WorkoutActivity {
    WorkoutActivity(
      uuid: uuid, configuration: workoutConfiguration.simulated, start: startDate, end: endDate,
      metadata: try metadataPayload.checked(api: api), statistics: statisticValues)
  }
}

extension HKWorkoutEvent {
  /// The event as the model holds it, its metadata dropped when HealthKit would refuse it (for derived durations).
  var modelValue: WorkoutEvent {
    WorkoutEvent(
      type: type.simulated, start: dateInterval.start, end: dateInterval.end,
      metadata: (try? metadataPayload.checked(api: "")) ?? [:])
  }
}
