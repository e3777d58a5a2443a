import FoundationEssentials

/// One `HKWorkoutEvent`: a type, a date interval (zero length except for laps and segments) and metadata.
package struct WorkoutEvent: Hashable, Sendable {
  /// The event type.
  package var type: WorkoutEventType
  /// Start of the event's `dateInterval`.
  package var start: Date
  /// End of the event's `dateInterval` (equal to `start` except for laps and segments).
  package var end: Date
  /// The event's metadata.
  package var metadata: Metadata

  /// Creates an event.
  package init(type: WorkoutEventType, start: Date, end: Date? = nil, metadata: Metadata = [:]) {
    self.type = type
    self.start = start
    self.end = end ?? start
    self.metadata = metadata
  }
}

/// `HKWorkoutConfiguration`: activity type, location, swimming location and lap length.
package struct WorkoutConfiguration: Hashable, Sendable {
  /// The activity type.
  package var activityType: WorkoutActivityType
  /// Indoor, outdoor or unknown.
  package var location: WorkoutLocationType
  /// Pool, open water or unknown.
  package var swimmingLocation: SwimmingLocationType
  /// The pool's lap length in metres (pool swims), if set.
  package var lapLength: Double?

  /// Creates a configuration.
  package init(
    activityType: WorkoutActivityType, location: WorkoutLocationType = .unknown,
    swimmingLocation: SwimmingLocationType = .unknown, lapLength: Double? = nil
  ) {
    self.activityType = activityType
    self.location = location
    self.swimmingLocation = swimmingLocation
    self.lapLength = lapLength
  }
}

/// One quantity type's statistics over a workout or an activity, in the type's canonical unit (what
/// `HKWorkout.statistics(for:)` returns): a sum for cumulative types, minimum, maximum and average for discrete ones.
package struct WorkoutStatistic: Hashable, Sendable {
  /// The quantity type.
  package var type: SampleType
  /// Start of the interval the statistics cover.
  package var start: Date
  /// End of that interval.
  package var end: Date
  /// The sum (cumulative types).
  package var sum: Double?
  /// The minimum (discrete types).
  package var minimum: Double?
  /// The maximum (discrete types).
  package var maximum: Double?
  /// The average (discrete types).
  package var average: Double?
  /// The most recent value (discrete types).
  package var mostRecent: Double?

  /// Creates statistics.
  package init(
    type: SampleType, start: Date, end: Date, sum: Double? = nil, minimum: Double? = nil, maximum: Double? = nil,
    average: Double? = nil, mostRecent: Double? = nil
  ) {
    self.type = type
    self.start = start
    self.end = end
    self.sum = sum
    self.minimum = minimum
    self.maximum = maximum
    self.average = average
    self.mostRecent = mostRecent
  }
}

/// One `HKWorkoutActivity` (iOS 16 / watchOS 9): a part of a workout with its own configuration and dates.
package struct WorkoutActivity: Hashable, Sendable {
  /// The activity's identifier.
  package var uuid: UUID
  /// The activity's configuration.
  package var configuration: WorkoutConfiguration
  /// Start of the activity.
  package var start: Date
  /// End of the activity (nil while a builder's current activity is open).
  package var end: Date?
  /// The activity's metadata.
  package var metadata: Metadata
  /// Statistics of the samples inside the activity, by type.
  package var statistics: [WorkoutStatistic]

  /// Creates an activity.
  package init(
    uuid: UUID, configuration: WorkoutConfiguration, start: Date, end: Date?, metadata: Metadata = [:],
    statistics: [WorkoutStatistic] = []
  ) {
    self.uuid = uuid
    self.configuration = configuration
    self.start = start
    self.end = end
    self.metadata = metadata
    self.statistics = statistics
  }
}

/// A stored workout (`HKWorkout`): an activity type over an interval, with events, activities, statistics,
/// metadata, and the identifiers of the samples associated with it.
///
/// The statistics are fixed when the workout is saved (a builder's `finishWorkout`, a legacy initializer's totals,
/// an export's `WorkoutStatistics`): samples added later with `add(_:to:)` are associated but change neither the
/// totals nor the duration, as Apple documents.
package struct Workout: Hashable, Sendable {
  /// The workout's identifier.
  package var uuid: UUID
  /// The workout's activity type.
  package var activityType: WorkoutActivityType
  /// Start of the workout.
  package var start: Date
  /// End of the workout.
  package var end: Date
  /// The workout's duration in seconds: as saved (a legacy initializer may give it), else ``derivedDuration``.
  package var duration: Double
  /// Events, date-ascending.
  package var events: [WorkoutEvent]
  /// Activities, date-ascending; never empty once validated (HealthKit adds one matching the workout).
  package var activities: [WorkoutActivity]
  /// Statistics by type, fixed when the workout was saved.
  package var statistics: [WorkoutStatistic]
  /// The workout's metadata.
  package var metadata: Metadata
  /// The app and device that saved it.
  package var source: SampleSource
  /// The samples associated with the workout, in the order they were added.
  package var associated: [UUID]

  /// Creates a workout.
  package init(
    uuid: UUID, activityType: WorkoutActivityType, start: Date, end: Date, duration: Double,
    events: [WorkoutEvent] = [], activities: [WorkoutActivity] = [], statistics: [WorkoutStatistic] = [],
    metadata: Metadata = [:], source: SampleSource, associated: [UUID] = []
  ) {
    self.uuid = uuid
    self.activityType = activityType
    self.start = start
    self.end = end
    self.duration = duration
    self.events = events
    self.activities = activities
    self.statistics = statistics
    self.metadata = metadata
    self.source = source
    self.associated = associated
  }

  /// The statistics of `type`, or nil when none were recorded (`statistics(for:)`).
  package func statistic(for type: SampleType) -> WorkoutStatistic? { statistics.first { $0.type == type } }

  /// Start to end minus the paused periods `events` describe: each `pause` (or `motionPaused`) up to the next
  /// `resume` (or `motionResumed`), or to `end` when none follows.
  package static func derivedDuration(start: Date, end: Date, events: [WorkoutEvent]) -> Double {
    var paused = 0.0
    var pausedAt: Date?
    for event in events.sorted(by: { $0.start < $1.start }) {
      switch event.type {
      case .pause, .motionPaused:
        if pausedAt == nil { pausedAt = max(event.start, start) }
      case .resume, .motionResumed:
        if let from = pausedAt {
          paused += max(0, min(event.start, end).timeIntervalSince(from))
          pausedAt = nil
        }
      default: break
      }
    }
    if let from = pausedAt { paused += max(0, end.timeIntervalSince(from)) }
    return max(0, end.timeIntervalSince(start) - paused)
  }
}

/// A workout as an app hands it to `save` or a builder's `finishWorkout`.
package struct WorkoutInput: Hashable, Sendable {
  /// The identifier the app's object carries.
  package var uuid: UUID
  /// The activity type.
  package var activityType: WorkoutActivityType
  /// Start of the workout.
  package var start: Date
  /// End of the workout.
  package var end: Date
  /// A duration a legacy initializer gave explicitly; nil derives it from the events.
  package var duration: Double?
  /// Events, in any order (validation sorts and checks them).
  package var events: [WorkoutEvent]
  /// Activities; empty adds one matching the workout.
  package var activities: [WorkoutActivity]
  /// Statistics or totals, in canonical units.
  package var statistics: [WorkoutStatistic]
  /// Metadata.
  package var metadata: Metadata
  /// Samples already stored that the workout names (a builder's `add(_:)`).
  package var associated: [UUID]

  /// Creates an input workout.
  package init(
    uuid: UUID, activityType: WorkoutActivityType, start: Date, end: Date, duration: Double? = nil,
    events: [WorkoutEvent] = [], activities: [WorkoutActivity] = [], statistics: [WorkoutStatistic] = [],
    metadata: Metadata = [:], associated: [UUID] = []
  ) {
    self.uuid = uuid
    self.activityType = activityType
    self.start = start
    self.end = end
    self.duration = duration
    self.events = events
    self.activities = activities
    self.statistics = statistics
    self.metadata = metadata
    self.associated = associated
  }
}
