import Foundation
import HealthEngine
import HealthModel

/// What a query's predicate asks the daemon to filter on: a date range and a set of source bundle identifiers
/// (the fast paths the store indexes), and whatever else the predicate says (metadata, identifiers, devices,
/// values, disjunctions, negations) as a ``SampleFilter`` evaluated sample by sample.
struct QueryFilter: Hashable, Sendable {
  /// The date range, if any.
  var range: DateRange?
  /// The bundle identifiers of the sources to keep, if restricted.
  var sources: Set<String>?
  /// The rest of the predicate, if any.
  var extra: SampleFilter?

  /// The daemon's sample query of `type` with this filter.
  /// - Throws: ``HealthKitSimError/unsupported(_:)`` for a type HealthKitSim does not simulate.
  func sampleQuery(of type: HKObjectType, limit: Int, sort: [SampleSort]) throws -> SampleQuery {
    SampleQuery(
      type: try type.simulatedType(), range: range, sources: sources, limit: limit, sort: sort, filter: extra)
  }

  /// Splits a predicate's condition: top-level conjuncts that are a date range or sources go to the fast paths
  /// (several ranges intersect when no bound is set by two of them with different strictness — `startDate >= a AND
  /// startDate < b` is `predicateForSamples(withStart: a, end: b, options: .strictStartDate)`; others stay in
  /// ``extra``), the rest to ``extra``.
  init(_ node: SampleFilter) {
    var rest: [SampleFilter] = []
    func add(_ node: SampleFilter) {
      switch node {
      case .and(let parts): parts.forEach(add)
      case .constant(true): break
      case .dates(let b):
        if let a = range {
          guard let both = Self.intersection(a, b) else {
            rest.append(node)
            return
          }
          range = both
        } else {
          range = b
        }
      case .sources(let b): sources = sources.map { $0.intersection(b) } ?? b
      default: rest.append(node)
      }
    }
    add(node)
    extra = rest.isEmpty ? nil : rest.count == 1 ? rest[0] : .and(rest)
  }

  /// Both ranges as one, or nil when a bound both set differs in strictness. Each option applies to its own bound
  /// only (`strictStartDate` to the start, `strictEndDate` to the end: `DateRange.matches`).
  static func intersection(_ a: DateRange, _ b: DateRange) -> DateRange? {
    func bound(_ x: Date?, _ xStrict: Bool, _ y: Date?, _ yStrict: Bool, later: Bool) -> (Date?, Bool)? {
      guard let x else { return (y, yStrict) }
      guard let y else { return (x, xStrict) }
      guard xStrict == yStrict else { return nil }
      return (later ? max(x, y) : min(x, y), xStrict)
    }
    guard
      let start = bound(
        a.start, a.options.contains(.strictStartDate), b.start, b.options.contains(.strictStartDate), later: true),
      let end = bound(
        a.end, a.options.contains(.strictEndDate), b.end, b.options.contains(.strictEndDate), later: false)
    else { return nil }
    var options: QueryOptions = []
    if start.0 != nil && start.1 { options.insert(.strictStartDate) }
    if end.0 != nil && end.1 { options.insert(.strictEndDate) }
    return DateRange(start: start.0, end: end.0, options: options)
  }

  /// No restriction.
  init() {}

  /// A date range and sources.
  init(range: DateRange? = nil, sources: Set<String>? = nil) {
    self.range = range
    self.sources = sources
  }

  /// Decomposes a predicate built by `HKQuery`'s factory methods, combined with `NSCompoundPredicate` (and, or,
  /// not); `NSPredicate(value:)` is a constant.
  static func decompose(_ predicate: NSPredicate?) -> Result<QueryFilter, any Error> {
    Result { QueryFilter(try node(of: predicate)) }
  }

  /// The condition a predicate expresses.
  /// - Throws: ``HealthKitSimError/unsupported(_:)`` for a format-string or block predicate.
  static func node(of predicate: NSPredicate?) throws -> SampleFilter {
    guard let predicate else { return .constant(true) }
    if let ours = predicate as? HealthKitSimPredicate { return ours.node }
    if let compound = predicate as? NSCompoundPredicate {
      let parts = try compound.subpredicates.map { try node(of: $0) }
      switch compound.compoundPredicateType {
      case .and: return .and(parts)
      case .or: return .or(parts)
      case .not:
        guard parts.count == 1 else {
          throw HealthKitSimError.unsupported("a NOT predicate must have exactly one subpredicate")
        }
        return .not(parts[0])
      @unknown default:
        throw HealthKitSimError.unsupported("unknown NSCompoundPredicate type")
      }
    }
    if let format = FormatPredicates.shared.condition(of: predicate) { return try format.get() }
    if isConstantPredicate(predicate, value: true) { return .constant(true) }
    if isConstantPredicate(predicate, value: false) { return .constant(false) }
    throw HealthKitSimError.unsupported(
      "HealthKitSim understands the predicates HKQuery's factory methods make (dates, sources, devices, "
        + "metadata, identifiers, quantities, category values) and NSPredicate(format:) over those key paths, "
        + "combined with NSCompoundPredicate and NSPredicate(value:); not a block predicate ('\(predicate)')")
  }

  /// Whether a sample the daemon returned passes ``sources`` and ``extra`` (for queries filtered here).
  func matches(_ sample: Sample) -> Bool {
    if let sources, !sources.contains(sample.source.bundleID) { return false }
    return extra?.matches(sample) ?? true
  }

  /// Whether a deletion passes ``sources`` and what of ``extra`` a deletion can be checked against.
  func matches(_ tombstone: Tombstone) -> Bool {
    if let sources, !sources.contains(tombstone.source.bundleID) { return false }
    return extra?.matches(tombstone) ?? true
  }
}
