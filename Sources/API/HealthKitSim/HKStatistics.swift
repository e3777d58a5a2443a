import Foundation
import HealthEngine
import HealthModel

/// The statistics of one time range (or one interval of a collection), in the type's canonical unit.
///
/// Quantities that the query's options did not ask for are nil, as are all quantities of an empty interval.
/// Overlapping samples of several sources are de-duplicated by the device's source order for the type, as the
/// Health app's Data Sources order does (behavior.md P1); per-source results (`separateBySource`) are each app's
/// own samples.
public final class HKStatistics: Sendable {
  /// The quantity type.
  public let quantityType: HKQuantityType
  /// The start of the range or interval.
  public let startDate: Date
  /// The end of the range or interval.
  public let endDate: Date
  /// The sources that contributed, when `separateBySource` was asked; else nil.
  public let sources: [HKSource]?
  private let values: Statistics
  private let unit: HKUnit

  /// Wraps the engine's statistics of `type`; `separateBySource` decides whether per-source results are exposed.
  init(_ values: Statistics, type: HKQuantityType, separateBySource: Bool) {
    self.quantityType = type
    self.startDate = values.start
    self.endDate = values.end
    self.values = values
    self.unit = type.canonicalUnit ?? .count()
    self.sources =
      separateBySource ? values.bySource.keys.sorted().map { HKSource(bundleIdentifier: $0) } : nil
  }

  private func quantity(_ value: Double?) -> HKQuantity? {
    value.map { HKQuantity(unit: unit, doubleValue: $0) }
  }

  private func part(_ source: HKSource) -> Statistics? {
    sources == nil ? nil : values.bySource[source.bundleIdentifier]
  }

  /// The sum (`cumulativeSum`); a sample partly inside the range counts in proportion to its overlap.
  public func sumQuantity() -> HKQuantity? { quantity(values.sum) }
  /// The average (`discreteAverage`); weighted by duration for temporally weighted types.
  public func averageQuantity() -> HKQuantity? { quantity(values.average) }
  /// The minimum (`discreteMin`).
  public func minimumQuantity() -> HKQuantity? { quantity(values.minimum) }
  /// The maximum (`discreteMax`).
  public func maximumQuantity() -> HKQuantity? { quantity(values.maximum) }
  /// The value of the sample that ends last (`mostRecent`).
  public func mostRecentQuantity() -> HKQuantity? { quantity(values.mostRecent) }
  /// The total time the samples cover (`duration`), in seconds: overlapping time counts once.
  public func duration() -> HKQuantity? { values.duration.map { HKQuantity(unit: .second(), doubleValue: $0) } }
  /// The start and end of the most recent sample (`mostRecent`).
  public func mostRecentQuantityDateInterval() -> DateInterval? {
    values.mostRecentDates.map { DateInterval(start: $0.lowerBound, end: $0.upperBound) }
  }

  /// The sum of one source's samples (needs `separateBySource`).
  public func sumQuantity(for source: HKSource) -> HKQuantity? { quantity(part(source)?.sum) }
  /// The average of one source's samples (needs `separateBySource`).
  public func averageQuantity(for source: HKSource) -> HKQuantity? { quantity(part(source)?.average) }
  /// The minimum of one source's samples (needs `separateBySource`).
  public func minimumQuantity(for source: HKSource) -> HKQuantity? { quantity(part(source)?.minimum) }
  /// The maximum of one source's samples (needs `separateBySource`).
  public func maximumQuantity(for source: HKSource) -> HKQuantity? { quantity(part(source)?.maximum) }
  /// The most recent value of one source's samples (needs `separateBySource`).
  public func mostRecentQuantity(for source: HKSource) -> HKQuantity? { quantity(part(source)?.mostRecent) }
  /// The start and end of one source's most recent sample (needs `separateBySource` and `mostRecent`).
  public func mostRecentQuantityDateInterval(for source: HKSource) -> DateInterval? {
    part(source)?.mostRecentDates.map { DateInterval(start: $0.lowerBound, end: $0.upperBound) }
  }
  /// The time one source's samples cover (needs `separateBySource` and `duration`).
  public func duration(for source: HKSource) -> HKQuantity? {
    part(source)?.duration.map { HKQuantity(unit: .second(), doubleValue: $0) }
  }

  /// Whether no sample contributed (an empty interval of a collection).
  var isEmpty: Bool { values.sampleCount == 0 }
  /// The engine's values, to tell whether an interval changed.
  var simulatedValues: Statistics { values }
}
