import FoundationEssentials
import HealthModel

/// A date predicate: `HKQuery.predicateForSamples(withStart:end:options:)`.
///
/// With no options a sample matches when `endDate >= start AND startDate < end` (Apple's documented NSPredicate
/// equivalent). `strictStartDate` requires `startDate >= start`; `strictEndDate` requires `endDate <= end`.
package struct DateRange: Hashable, Sendable {
  /// The range start, or nil for unbounded.
  package var start: Date?
  /// The range end, or nil for unbounded.
  package var end: Date?
  /// Strictness options.
  package var options: QueryOptions

  /// Creates a range.
  package init(start: Date?, end: Date?, options: QueryOptions = []) {
    self.start = start
    self.end = end
    self.options = options
  }

  /// A precomputed form for tight loops (the option checks go through generic `SetAlgebra` code otherwise).
  package struct Matcher: Sendable {
    let start: Double
    let end: Double
    let strictStart: Bool
    let strictEnd: Bool

    /// Whether a sample with these dates matches the range.
    @inline(__always)
    package func matches(start sampleStart: Double, end sampleEnd: Double) -> Bool {
      if strictStart ? sampleStart < start : sampleEnd < start { return false }
      if strictEnd { return sampleEnd <= end }
      return sampleStart < end
    }
  }

  /// The range as a ``Matcher``.
  package var matcher: Matcher {
    Matcher(
      start: start?.timeIntervalSinceReferenceDate ?? -.infinity, end: end?.timeIntervalSinceReferenceDate ?? .infinity,
      strictStart: options.contains(.strictStartDate), strictEnd: options.contains(.strictEndDate))
  }

  /// Whether a sample with these dates (seconds since the reference date) matches.
  package func matches(start sampleStart: Double, end sampleEnd: Double) -> Bool {
    if let s = start?.timeIntervalSinceReferenceDate {
      if options.contains(.strictStartDate) ? sampleStart < s : sampleEnd < s { return false }
    }
    if let e = end?.timeIntervalSinceReferenceDate {
      if options.contains(.strictEndDate) {
        if sampleEnd > e { return false }
        if sampleStart >= e && sampleEnd > sampleStart { return false }
      } else if sampleStart >= e {
        return false
      }
    }
    return true
  }
}
