import Foundation
import HealthEngine
import HealthModel

/// What a query's predicate asks the daemon to filter on: a date range and a set of source bundle identifiers.
struct QueryFilter: Hashable, Sendable {
  /// The date range, if any.
  var range: DateRange?
  /// The bundle identifiers of the sources to keep, if restricted.
  var sources: Set<String>?

  /// The conjunction of two filters.
  /// - Throws: ``HealthKitSimError/unsupported(_:)`` for two date ranges with different options.
  func and(_ other: QueryFilter) throws(HealthKitSimError) -> QueryFilter {
    var result = self
    if let b = other.range {
      if let a = range {
        guard a.options == b.options else {
          throw .unsupported("HealthKitSim cannot combine date predicates with different options")
        }
        let start = [a.start, b.start].compactMap { $0 }.max()
        let end = [a.end, b.end].compactMap { $0 }.min()
        result.range = DateRange(start: start, end: end, options: a.options)
      } else {
        result.range = b
      }
    }
    if let b = other.sources { result.sources = sources.map { $0.intersection(b) } ?? b }
    return result
  }

  /// Decomposes a predicate built by `HKQuery`'s factory methods, optionally combined with
  /// `NSCompoundPredicate(andPredicateWithSubpredicates:)`; `NSPredicate(value: true)` matches everything.
  static func decompose(_ predicate: NSPredicate?) -> Result<QueryFilter, any Error> {
    Result { try filter(of: predicate) }
  }

  private static func filter(of predicate: NSPredicate?) throws -> QueryFilter {
    guard let predicate else { return QueryFilter() }
    if let ours = predicate as? HealthKitSimPredicate { return ours.filter }
    if let compound = predicate as? NSCompoundPredicate, compound.compoundPredicateType == .and {
      var result = QueryFilter()
      for sub in compound.subpredicates { result = try result.and(try filter(of: sub)) }
      return result
    }
    if isTruePredicate(predicate) { return QueryFilter() }
    throw HealthKitSimError.unsupported(
      "HealthKitSim understands predicates made by HKQuery.predicateForSamples(withStart:end:options:) and "
        + "HKQuery.predicateForObjects(from:), combined with NSCompoundPredicate(andPredicateWithSubpredicates:); "
        + "not '\(predicate)'")
  }
}
