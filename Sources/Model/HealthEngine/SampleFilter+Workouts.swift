import FoundationEssentials
import HealthModel

/// Which of a workout's (or activity's) statistics of one quantity type a ``SampleFilter/workoutStatistic(_:_:_:_:)``
/// condition reads (`predicateForWorkouts(withSumQuantity:)`, `…MinimumQuantity…`, `…MaximumQuantity…`,
/// `…AverageQuantity…`; workouts.md §3.6).
package enum WorkoutStatisticKind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// The sum (cumulative types).
  case sum = 0
  /// The minimum (discrete types).
  case minimum = 1
  /// The maximum (discrete types).
  case maximum = 2
  /// The average (discrete types).
  case average = 3

  /// The statistic's value in `statistic`, or nil when it was not recorded.
  package func value(of statistic: WorkoutStatistic) -> Double? {
    switch self {
    case .sum: statistic.sum
    case .minimum: statistic.minimum
    case .maximum: statistic.maximum
    case .average: statistic.average
    }
  }

  /// `sum`, `minimum`, … as a predicate format writes it.
  package var description: String {
    switch self {
    case .sum: "sum"
    case .minimum: "minimum"
    case .maximum: "maximum"
    case .average: "average"
    }
  }
}

extension SampleFilter {
  /// Whether `workout` passes the filter. Sample-only conditions (``value(_:_:)``, ``quantity(_:_:unit:)``) never
  /// match a workout; ``associatedWith(_:)`` (a condition on samples) matches no workout; ``notInCorrelation`` lets
  /// it through (a workout is never a correlation's member).
  package func matches(_ workout: Workout) -> Bool {
    switch self {
    case .constant(let value): return value
    case .notInCorrelation: return true
    case .and(let parts): return parts.allSatisfy { $0.matches(workout) }
    case .or(let parts): return parts.contains { $0.matches(workout) }
    case .not(let part): return !part.matches(workout)
    case .dates(let range):
      return range.matches(
        start: workout.start.timeIntervalSinceReferenceDate, end: workout.end.timeIntervalSinceReferenceDate)
    case .sources(let bundles): return bundles.contains(workout.source.bundleID)
    case .uuids(let uuids): return uuids.contains(workout.uuid)
    case .metadata(let key, let condition): return condition.holds(for: workout.metadata[key])
    case .device(let property, let values):
      guard let value = property.value(metadata: workout.metadata, source: workout.source) else { return false }
      return values.contains(value)
    case .value, .quantity, .associatedWith, .electrocardiogram, .stateOfMindValence, .stateOfMind, .fhirResource,
      .cdaField, .medication:
      return false
    case .date(let field, let op, let instant):
      let date = (field == .start ? workout.start : workout.end).timeIntervalSinceReferenceDate
      return op.holds(Self.sign(date, instant, converted: false))
    case .workoutActivityType(let raws): return raws.contains(workout.activityType.rawValue)
    case .workoutDuration(let op, let seconds): return op.holds(Self.sign(workout.duration, seconds, converted: false))
    case .workoutStatistic(let type, let kind, let op, let other):
      guard let value = workout.statistic(for: type).flatMap(kind.value(of:)) else { return false }
      return op.holds(Self.sign(value, other, converted: false))
    case .workoutActivity(let inner): return workout.activities.contains { inner.matches(activity: $0) }
    }
  }

  /// Whether `activity` passes the filter, as the inner filter of ``workoutActivity(_:)``: activity type
  /// (its configuration's), duration (end − start; an open activity has none and fails duration conditions), dates,
  /// statistics, identifiers and metadata apply; every other condition matches nothing.
  package func matches(activity: WorkoutActivity) -> Bool {
    let start = activity.start.timeIntervalSinceReferenceDate
    let end = (activity.end ?? activity.start).timeIntervalSinceReferenceDate
    switch self {
    case .constant(let value): return value
    case .and(let parts): return parts.allSatisfy { $0.matches(activity: activity) }
    case .or(let parts): return parts.contains { $0.matches(activity: activity) }
    case .not(let part): return !part.matches(activity: activity)
    case .dates(let range): return range.matches(start: start, end: end)
    case .uuids(let uuids): return uuids.contains(activity.uuid)
    case .metadata(let key, let condition): return condition.holds(for: activity.metadata[key])
    case .date(let field, let op, let instant):
      return op.holds(Self.sign(field == .start ? start : end, instant, converted: false))
    case .workoutActivityType(let raws): return raws.contains(activity.configuration.activityType.rawValue)
    case .workoutDuration(let op, let seconds):
      guard activity.end != nil else { return false }
      return op.holds(Self.sign(end - start, seconds, converted: false))
    case .workoutStatistic(let type, let kind, let op, let other):
      guard let value = activity.statistics.first(where: { $0.type == type }).flatMap(kind.value(of:)) else {
        return false
      }
      return op.holds(Self.sign(value, other, converted: false))
    case .sources, .device, .value, .quantity, .notInCorrelation, .workoutActivity, .associatedWith,
      .electrocardiogram, .stateOfMindValence, .stateOfMind, .fhirResource, .cdaField, .medication:
      return false
    }
  }

  /// The filter with every ``associatedWith(_:)`` replaced by "one of the samples associated with that workout";
  /// `associated` gives the identifiers a workout names (empty for an unknown workout) and is asked only when the
  /// filter holds that case.
  package func resolvingAssociations(_ associated: (UUID) -> Set<UUID>) -> SampleFilter {
    guard mentionsAssociations else { return self }
    func resolve(_ f: SampleFilter) -> SampleFilter {
      switch f {
      case .associatedWith(let workout): .uuids(associated(workout))
      case .and(let parts): .and(parts.map(resolve))
      case .or(let parts): .or(parts.map(resolve))
      case .not(let part): .not(resolve(part))
      default: f
      }
    }
    return resolve(self)
  }

  /// The workouts every ``associatedWith(_:)`` in the filter names.
  package var associatedWorkouts: Set<UUID> {
    switch self {
    case .associatedWith(let workout): [workout]
    case .and(let parts), .or(let parts): parts.reduce(into: []) { $0.formUnion($1.associatedWorkouts) }
    case .not(let part): part.associatedWorkouts
    default: []
    }
  }

  /// Whether the filter holds ``associatedWith(_:)`` anywhere.
  package var mentionsAssociations: Bool {
    switch self {
    case .associatedWith: true
    case .and(let parts), .or(let parts): parts.contains { $0.mentionsAssociations }
    case .not(let part): part.mentionsAssociations
    default: false
    }
  }
}

extension SampleFilter {
  /// The sources a sample must come from when the filter requires it at its top level (`sources`, alone or as a
  /// conjunct), else nil: a scan can check a slot's source before it materializes the sample.
  package var topLevelSources: Set<String>? {
    switch self {
    case .sources(let names): names
    case .and(let parts):
      parts.lazy.compactMap { if case .sources(let names) = $0 { names } else { nil } }.first
    default: nil
    }
  }
}
