import Foundation
import HealthEngine

/// Whether `predicate` is `NSPredicate(value: true)`. swift-corelibs-foundation deprecates `predicateFormat` and
/// evaluating a block predicate would run app code, so this reads the predicate's stored kind (`boolean(true)`).
func isTruePredicate(_ predicate: NSPredicate) -> Bool {
  guard type(of: predicate) == NSPredicate.self else { return false }
  let kind = Mirror(reflecting: predicate).children.first { $0.label == "kind" }?.value
  return kind.map { String(describing: $0) } == "boolean(true)"
}

/// The `NSPredicate` that `HKQuery`'s factory methods return: it carries the structured filter the daemon applies.
final class HealthKitSimPredicate: NSPredicate {
  /// The filter.
  let filter: QueryFilter

  init(_ filter: QueryFilter) {
    self.filter = filter
    super.init(value: true)
  }

  required init?(coder: NSCoder) { nil }

  /// Evaluates the filter against an `HKSample` (anything else does not match).
  override func evaluate(with object: Any?) -> Bool {
    guard let sample = object as? HKSample else { return false }
    if let sources = filter.sources, !sources.contains(sample.sourceRevision.source.bundleIdentifier) { return false }
    if let range = filter.range {
      return range.matches(
        start: sample.startDate.timeIntervalSinceReferenceDate, end: sample.endDate.timeIntervalSinceReferenceDate)
    }
    return true
  }

  /// Evaluates the filter; substitution variables do not apply.
  override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
    evaluate(with: object)
  }

  /// A readable form of the filter.
  override var predicateFormat: String {
    var parts: [String] = []
    if let range = filter.range {
      if let start = range.start {
        parts.append(range.options.contains(.strictStartDate) ? "startDate >= \(start)" : "endDate >= \(start)")
      }
      if let end = range.end {
        parts.append(range.options.contains(.strictEndDate) ? "endDate <= \(end)" : "startDate < \(end)")
      }
    }
    if let sources = filter.sources { parts.append("source IN \(sources.sorted())") }
    return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
  }

  /// The predicate format.
  override var description: String { predicateFormat }
}
