import FoundationEssentials
import HealthModel

// The C library's log10 and pow, for equivalent continuous levels (pure functions; no system call).
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A sort key of a sample query (`HKSampleSortIdentifierStartDate` / `EndDate`, and for workouts the
/// `HKWorkoutSortIdentifier…` keys, workouts.md §1.1).
package struct SampleSort: Hashable, Sendable {
  /// What a sample query sorts by.
  package enum Field: UInt8, Sendable, Hashable, CaseIterable {
    /// `HKSampleSortIdentifierStartDate`.
    case startDate = 0
    /// `HKSampleSortIdentifierEndDate`.
    case endDate = 1
    /// `HKWorkoutSortIdentifierDuration` (workouts only).
    case duration = 2
    /// `HKWorkoutSortIdentifierTotalDistance`: the sum of the workout's distance statistic (workouts only).
    case totalDistance = 3
    /// `HKWorkoutSortIdentifierTotalEnergyBurned`: the sum of active energy burned (workouts only).
    case totalEnergyBurned = 4
    /// `HKWorkoutSortIdentifierTotalSwimmingStrokeCount` (workouts only).
    case totalSwimmingStrokeCount = 5
    /// `HKWorkoutSortIdentifierTotalFlightsClimbed` (workouts only).
    case totalFlightsClimbed = 6

    /// Whether the key is a date every sample has (the others are workouts' own).
    package var isDate: Bool { self == .startDate || self == .endDate }
  }
  /// The field.
  package var field: Field
  /// Ascending or descending.
  package var ascending: Bool

  /// Creates a sort key.
  package init(_ field: Field, ascending: Bool) {
    self.field = field
    self.ascending = ascending
  }
}

/// An `HKSampleQuery`: samples of one type matching a date range and source filter.
package struct SampleQuery: Hashable, Sendable {
  /// The type queried.
  package var type: SampleType
  /// The date predicate, if any.
  package var range: DateRange?
  /// Restricts results to these bundle identifiers (`predicateForObjects(from:)`), if set.
  package var sources: Set<String>?
  /// The maximum number of results; 0 means no limit (`HKObjectQueryNoLimit`).
  package var limit: Int
  /// Sort keys; with none, samples come in start-date order (HealthPair model: Apple does not document it).
  package var sort: [SampleSort]
  /// Further conditions (metadata, identifiers, devices, values), applied before `limit`.
  package var filter: SampleFilter?

  /// Creates a query.
  package init(
    type: SampleType, range: DateRange? = nil, sources: Set<String>? = nil, limit: Int = 0,
    sort: [SampleSort] = [], filter: SampleFilter? = nil
  ) {
    self.type = type
    self.range = range
    self.sources = sources
    self.limit = limit
    self.sort = sort
    self.filter = filter
  }
}

/// An `HKStatisticsQuery` over one range, or an `HKStatisticsCollectionQuery` when ``interval`` is set.
package struct StatisticsQuery: Hashable, Sendable {
  /// The quantity type.
  package var type: SampleType
  /// The date predicate (for a collection, also the span of buckets computed).
  package var range: DateRange?
  /// Restricts to these bundle identifiers, if set.
  package var sources: Set<String>?
  /// Which statistics to compute.
  package var options: StatisticsOptions
  /// For collections: the interval (`intervalComponents`), in the device's calendar.
  package var interval: CalendarInterval?
  /// For collections: the date buckets are aligned to.
  package var anchor: Date?
  /// Further conditions on the samples that contribute (metadata, identifiers, devices, values).
  package var filter: SampleFilter?

  /// Creates a statistics query.
  package init(
    type: SampleType, range: DateRange? = nil, sources: Set<String>? = nil, options: StatisticsOptions,
    interval: CalendarInterval? = nil, anchor: Date? = nil, filter: SampleFilter? = nil
  ) {
    self.type = type
    self.range = range
    self.sources = sources
    self.options = options
    self.interval = interval
    self.anchor = anchor
    self.filter = filter
  }
}

/// The statistics of one range or bucket, in the type's canonical unit.
package struct Statistics: Hashable, Sendable {
  /// Start of the range or bucket.
  package var start: Date
  /// End of the range or bucket.
  package var end: Date
  /// How many samples contributed.
  package var sampleCount: Int
  /// `sumQuantity()`.
  package var sum: Double?
  /// `averageQuantity()`.
  package var average: Double?
  /// `minimumQuantity()`.
  package var minimum: Double?
  /// `maximumQuantity()`.
  package var maximum: Double?
  /// `mostRecentQuantity()`.
  package var mostRecent: Double?
  /// `mostRecentQuantityDateInterval()`: the start and end of the most recent sample.
  package var mostRecentDates: ClosedRange<Date>?
  /// `duration()`, in seconds.
  package var duration: Double?
  /// Per-source results when `separateBySource` was requested, keyed by bundle identifier.
  package var bySource: [String: Statistics]

  /// Creates an empty result for a range.
  package init(start: Date, end: Date) {
    self.start = start
    self.end = end
    self.sampleCount = 0
    self.bySource = [:]
  }
}

/// The result of an anchored object query.
package struct AnchoredResult: Hashable, Sendable {
  /// Samples added since the anchor, still present.
  package var added: [Sample]
  /// Deletions since the anchor (`HKDeletedObject`).
  package var deleted: [Tombstone]
  /// The anchor to pass next time.
  package var newAnchor: UInt64

  /// Creates a result.
  package init(added: [Sample], deleted: [Tombstone], newAnchor: UInt64) {
    self.added = added
    self.deleted = deleted
    self.newAnchor = newAnchor
  }
}
