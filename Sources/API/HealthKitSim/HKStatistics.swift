import Foundation
import HealthEngine
import HealthModel

/// The statistics of one time range (or one interval of a collection), in the type's canonical unit.
///
/// Quantities that the query's options did not ask for are nil, as are all quantities of an empty interval.
/// Overlapping samples of several sources are de-duplicated by the device's source order for the type, as the
/// Health app's Data Sources order does (behavior.md P1); per-source results (`separateBySource`) are each app's
/// own samples.
///
/// An `NSObject` that adopts `NSSecureCoding`, as on a device, so a watch app can archive its live builder's
/// statistics (`NSKeyedArchiver.archivedData(withRootObject: statistics, requiringSecureCoding: true)`) and send them
/// to the phone over a mirrored session, which unarchives them with
/// `NSKeyedUnarchiver.unarchivedArrayOfObjects(ofClass: HKStatistics.self, from: data)` — Apple's multi-device
/// workout sample does.
///
/// `@unchecked Sendable`: immutable — every stored property is a `let` (an `NSObject` subclass cannot be checked by
/// the compiler).
public final class HKStatistics: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
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
    super.init()
  }

  /// True: an archive of statistics decodes only as statistics.
  public static var supportsSecureCoding: Bool { true }

  /// Archives the type, whether sources were separated, and every value (per source too).
  public func encode(with coder: NSCoder) {
    coder.encode(quantityType.identifier as NSString, forKey: "HKStatisticsType")
    coder.encode(sources != nil, forKey: "HKStatisticsSeparateBySource")
    Self.encode(values, prefix: "HKStatistics.", into: coder)
  }

  /// Unarchives statistics; nil when the archive names no type or holds no range.
  public init?(coder: NSCoder) {
    guard let identifier = coder.decodeObject(of: NSString.self, forKey: "HKStatisticsType"),
      let values = Self.decode(prefix: "HKStatistics.", from: coder, depth: 0)
    else { return nil }
    let type = HKQuantityType(HKQuantityTypeIdentifier(rawValue: identifier as String))
    let separate = coder.decodeBool(forKey: "HKStatisticsSeparateBySource")
    self.quantityType = type
    self.startDate = values.start
    self.endDate = values.end
    self.values = values
    self.unit = type.canonicalUnit ?? .count()
    self.sources = separate ? values.bySource.keys.sorted().map { HKSource(bundleIdentifier: $0) } : nil
    super.init()
  }

  /// The statistics themselves: they are immutable.
  public func copy(with zone: NSZone? = nil) -> Any { self }

  /// The optional values and their archive keys.
  private static var optionalValues: [(String, WritableKeyPath<Statistics, Double?>)] {
    [
      ("sum", \.sum), ("average", \.average), ("minimum", \.minimum), ("maximum", \.maximum),
      ("mostRecent", \.mostRecent), ("duration", \.duration),
    ]
  }

  private static func encode(_ values: Statistics, prefix: String, into coder: NSCoder) {
    coder.encode(values.start.timeIntervalSinceReferenceDate, forKey: prefix + "start")
    coder.encode(values.end.timeIntervalSinceReferenceDate, forKey: prefix + "end")
    coder.encode(values.sampleCount, forKey: prefix + "count")
    for (key, path) in optionalValues {
      if let value = values[keyPath: path] { coder.encode(value, forKey: prefix + key) }
    }
    if let dates = values.mostRecentDates {
      coder.encode(dates.lowerBound.timeIntervalSinceReferenceDate, forKey: prefix + "mostRecentStart")
      coder.encode(dates.upperBound.timeIntervalSinceReferenceDate, forKey: prefix + "mostRecentEnd")
    }
    let sources = values.bySource.keys.sorted()
    coder.encode(sources.map { $0 as NSString } as NSArray, forKey: prefix + "sources")
    for (index, source) in sources.enumerated() {
      encode(values.bySource[source]!, prefix: prefix + "source\(index).", into: coder)
    }
  }

  private static func decode(prefix: String, from coder: NSCoder, depth: Int) -> Statistics? {
    guard depth < 2, coder.containsValue(forKey: prefix + "start"), coder.containsValue(forKey: prefix + "end") else {
      return nil
    }
    var values = Statistics(
      start: Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: prefix + "start")),
      end: Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: prefix + "end")))
    values.sampleCount = max(0, coder.decodeInteger(forKey: prefix + "count"))
    for (key, path) in optionalValues where coder.containsValue(forKey: prefix + key) {
      values[keyPath: path] = coder.decodeDouble(forKey: prefix + key)
    }
    if coder.containsValue(forKey: prefix + "mostRecentStart") {
      let start = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: prefix + "mostRecentStart"))
      let end = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: prefix + "mostRecentEnd"))
      if start <= end { values.mostRecentDates = start...end }
    }
    let sources = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: prefix + "sources") as? [String] ?? []
    for (index, source) in sources.enumerated() {
      guard let part = decode(prefix: prefix + "source\(index).", from: coder, depth: depth + 1) else { return nil }
      values.bySource[source] = part
    }
    return values
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
