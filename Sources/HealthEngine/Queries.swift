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

/// A sort key of a sample query (`HKSampleSortIdentifierStartDate` / `EndDate`).
package struct SampleSort: Hashable, Sendable {
  /// The date a sample query sorts by.
  package enum Field: UInt8, Sendable, Hashable {
    /// `HKSampleSortIdentifierStartDate`.
    case startDate = 0
    /// `HKSampleSortIdentifierEndDate`.
    case endDate = 1
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
  /// For collections: bucket length in seconds.
  package var interval: Double?
  /// For collections: the date buckets are aligned to.
  package var anchor: Date?
  /// Further conditions on the samples that contribute (metadata, identifiers, devices, values).
  package var filter: SampleFilter?

  /// Creates a statistics query.
  package init(
    type: SampleType, range: DateRange? = nil, sources: Set<String>? = nil, options: StatisticsOptions,
    interval: Double? = nil, anchor: Date? = nil, filter: SampleFilter? = nil
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

/// Accumulates one statistics bucket.
struct StatisticsAccumulator {
  /// Whether averages are equivalent continuous levels (decibels, `discreteEquivalentContinuousLevel`).
  let equivalentLevel: Bool
  var count = 0
  var sum = 0.0
  var weightedSum = 0.0
  var weight = 0.0
  var plainSum = 0.0
  var minimum = Double.infinity
  var maximum = -Double.infinity
  var mostRecentEnd = -Double.infinity
  var mostRecentValue = 0.0
  var duration = 0.0
  /// For equivalent levels: the highest level so far, and Σ 10^((level − highest) / 10) weighted by overlap
  /// (`weightedEnergy`) and unweighted (`plainEnergy`) — scaled to the highest level so no power overflows.
  var highestLevel = -Double.infinity
  var weightedEnergy = 0.0
  var plainEnergy = 0.0

  /// An empty bucket for a type of the given aggregation style.
  init(style: AggregationStyle) { equivalentLevel = style == .discreteEquivalentContinuousLevel }

  /// Adds a sample's contribution: `fraction` of its value for sums, its overlap in seconds for weights.
  mutating func add(value: Double, start: Double, end: Double, fraction: Double, overlap: Double) {
    if equivalentLevel { addLevel(value, overlap: overlap) }
    count += 1
    sum += value * fraction
    plainSum += value
    weightedSum += value * overlap
    weight += overlap
    minimum = Swift.min(minimum, value)
    maximum = Swift.max(maximum, value)
    if end >= mostRecentEnd {
      mostRecentEnd = end
      mostRecentValue = value
    }
    duration += overlap
  }

  /// Adds a level to the energy sums, rescaling them when it is the highest so far.
  private mutating func addLevel(_ level: Double, overlap: Double) {
    if level > highestLevel {
      let scale = highestLevel.isFinite ? pow(10, (highestLevel - level) / 10) : 0
      weightedEnergy *= scale
      plainEnergy *= scale
      highestLevel = level
    }
    let energy = pow(10, (level - highestLevel) / 10)
    weightedEnergy += energy * overlap
    plainEnergy += energy
  }

  /// The equivalent continuous level: 10·log10 of the mean energy, weighted by duration when samples have one
  /// (IEC 61672-1's Leq), else by count.
  private var equivalentContinuousLevel: Double {
    let mean = weight > 0 ? weightedEnergy / weight : plainEnergy / Double(count)
    return highestLevel + 10 * log10(mean)
  }

  func result(start: Date, end: Date, options: StatisticsOptions, style: AggregationStyle) -> Statistics {
    var stats = Statistics(start: start, end: end)
    stats.sampleCount = count
    guard count > 0 else { return stats }
    if options.contains(.cumulativeSum) { stats.sum = sum }
    if options.contains(.discreteAverage) {
      switch style {
      case .discreteEquivalentContinuousLevel: stats.average = equivalentContinuousLevel
      case .discreteTemporallyWeighted where weight > 0: stats.average = weightedSum / weight
      default: stats.average = plainSum / Double(count)
      }
    }
    if options.contains(.discreteMin) { stats.minimum = minimum }
    if options.contains(.discreteMax) { stats.maximum = maximum }
    if options.contains(.mostRecent) { stats.mostRecent = mostRecentValue }
    if options.contains(.duration) { stats.duration = duration }
    return stats
  }
}
