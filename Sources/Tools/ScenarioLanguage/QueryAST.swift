import FoundationEssentials
import HealthEngine
import HealthModel

/// A sample query as an expectation writes it: `<App> sees … <type> [modifiers]`.
package struct SampleQuerySpec: Hashable, Sendable {
  /// The querying app's name.
  package var app: String
  /// The type queried.
  package var type: SampleType
  /// `from <time> to <time> [strictly starting] [strictly ending]`.
  package var range: RangeSpec?
  /// `from <App>…`: `predicateForObjects(from:)` with these apps' sources (empty: every source).
  package var sources: [String] = []
  /// `sorted by startDate|endDate [descending] [then …]` (empty: HealthPair's start-date order).
  package var sort: [SampleSort] = []
  /// `limit <n>` (nil: no limit).
  package var limit: Int?
  /// `with <key>=<value>…`: `predicateForObjects(withMetadataKey:allowedValues:)`, one per key, all must match.
  package var metadata: [MetadataMatch] = []
  /// `outside correlations`: `predicateForObjectsWithNoCorrelation()`, applied by the daemon (behavior.md T11).
  package var outsideCorrelations = false

  /// Creates a query of `type` by `app` with no predicate.
  package init(app: String, type: SampleType) {
    self.app = app
    self.type = type
  }
}

/// One metadata predicate: `key=value` is `predicateForObjects(withMetadataKey:allowedValues:)` (the key present with
/// an equal value; numbers compare by value), `key!=value` is `predicateForObjects(withMetadataKey:operatorType:
/// .notEqualTo, value:)`, which a sample without the key passes (behavior.md Q9). The daemon applies it.
package struct MetadataMatch: Hashable, Sendable {
  /// The key (HealthKit's constant names are translated to their values).
  package var key: String
  /// The value it is compared with.
  package var value: MetadataValue
  /// `=` (true) or `!=` (false).
  package var equal: Bool

  /// Creates a predicate.
  package init(key: String, value: MetadataValue, equal: Bool = true) {
    self.key = key
    self.value = value
    self.equal = equal
  }

  /// The predicate as the daemon's query filter.
  package var filter: SampleFilter {
    .metadata(key: key, equal ? .oneOf([value]) : .compare(.notEqualTo, value))
  }
}

/// How a query that returns no normal result ends, as an expectation writes it.
package enum QueryOutcome: Hashable, Sendable {
  /// `is no data`: a statistics query fails with `errorNoData`; a collection has no value in any bucket; a sample
  /// query returns no samples.
  case noData
  /// `fails with <code> ["<fragment>"…]`: an `HKError` with this code whose message contains every fragment.
  case fails(HealthErrorCode, fragments: [String])
  /// `would terminate the app [with "<fragment>"…]`: an uncatchable exception whose message contains every fragment.
  case wouldTerminate([String])
}

/// An `HKStatisticsQuery` as an expectation writes it: `<App> <statistic> of <type> [on <date> | from … to …]
/// [from <App>…]`.
package struct StatisticsSpec: Hashable, Sendable {
  /// The querying app's name.
  package var app: String
  /// The statistic.
  package var kind: StatisticKind
  /// The quantity type.
  package var type: SampleType
  /// The date predicate (`on <date>` is the whole day).
  package var range: RangeSpec?
  /// `from <App>…`: restricts the statistics to these apps' samples.
  package var sources: [String] = []

  /// Creates a statistics query with no predicate.
  package init(app: String, kind: StatisticKind, type: SampleType) {
    self.app = app
    self.kind = kind
    self.type = type
  }
}

/// One source's value in a `by source:` block (`.separateBySource`).
package struct SourceValue: Hashable, Sendable {
  /// The source app's name.
  package var app: String
  /// The value in `unit`.
  package var value: Double
  /// The unit of the value.
  package var unit: HealthUnit
  /// The line's location.
  package var location: SourceLocation
}

/// What a statistics query should give.
package enum StatisticsOutcome: Hashable, Sendable {
  /// `is <value> <unit>`.
  case value(Double, HealthUnit)
  /// `by source:` + lines `<App> <value> <unit>`: `.separateBySource`, exactly these sources.
  case bySource([SourceValue])
  /// `is no data`, `fails with …`, `would terminate the app …`.
  case failure(QueryOutcome)
}

/// The interval of a statistics collection (`intervalComponents`).
package enum CollectionInterval: String, Hashable, Sendable, CaseIterable {
  /// One hour.
  case hour
  /// One day.
  case day
  /// Seven days (`DateComponents(day: 7)`), starting where the range starts.
  case week
  /// One calendar month.
  case month

  /// The interval in the device's calendar: an hour of elapsed time, a calendar day, 7 calendar days, a calendar
  /// month (behavior.md K3).
  package var calendarInterval: CalendarInterval { CalendarInterval(unit: rawValue)! }

  /// The adverb that names it before a statistic (`hourly sum of …`).
  package var adverb: String {
    switch self {
    case .hour: "hourly"
    case .day: "daily"
    case .week: "weekly"
    case .month: "monthly"
    }
  }
}

/// An `HKStatisticsCollectionQuery` as an expectation writes it: `<App> <statistic> of <type> by <interval> from
/// <time> to <time> [from <App>…]` (or `<App> daily <statistic> of …`).
package struct CollectionSpec: Hashable, Sendable {
  /// Creates a collection query with no source predicate.
  package init(app: String, kind: StatisticKind, type: SampleType, interval: CollectionInterval, range: RangeSpec) {
    self.app = app
    self.kind = kind
    self.type = type
    self.interval = interval
    self.range = range
  }

  /// The querying app's name.
  package var app: String
  /// The statistic.
  package var kind: StatisticKind
  /// The quantity type.
  package var type: SampleType
  /// The bucket length.
  package var interval: CollectionInterval
  /// The range the buckets cover; its start is the anchor date, so the first bucket starts there.
  package var range: RangeSpec
  /// `from <App>…`: restricts the statistics to these apps' samples.
  package var sources: [String] = []
}

/// What a statistics collection should give.
package enum CollectionOutcome: Hashable, Sendable {
  /// A block of lines `<start> <value> <unit>|none`: exactly these buckets.
  case buckets([ExpectedBucket])
  /// `is no data`, `fails with …`, `would terminate the app …`.
  case failure(QueryOutcome)
}

/// Counts of an app's sheets on one device, each checked when given (`<App>'s requests showed <n> sheets, answered
/// <n>, <n> presentations failed`).
package struct SheetCounts: Hashable, Sendable {
  /// Sheets raised by the app's requests (the trace's "sheet shown" entries, presentation failures included).
  package var shown: Int?
  /// Sheets the user answered (allowed, denied, or chose per type).
  package var answered: Int?
  /// Sheets the user cancelled.
  package var cancelled: Int?
  /// Sheets that failed to present.
  package var failed: Int?

  /// Creates counts with nothing to check.
  package init() {}

  /// Whether nothing is checked.
  package var isEmpty: Bool { shown == nil && answered == nil && cancelled == nil && failed == nil }
}
