import Foundation
import HealthEngine
import HealthModel

/// "No limit" for a query's `limit` (0).
public let HKObjectQueryNoLimit = 0

/// The base of every query: the type it reads and its predicate. Run one with ``HKHealthStore/execute(_:)`` and end
/// it with ``HKHealthStore/stop(_:)``.
///
/// A query runs once: executing it again is reported to ``HealthKitSim/terminationHandler`` (a device raises an
/// exception) and ignored. Its handlers run on a serial background queue of the query's own, one at a time; after
/// `stop(_:)` returns, no handler of the query is called again (a handler running on another thread is waited for;
/// a handler may stop its own query).
///
/// Declared `@unchecked Sendable`: the query's public properties are immutable, and its run state lives in a
/// lock-protected ``QueryRun``.
public class HKQuery: @unchecked Sendable {
  /// The type the query reads.
  public let objectType: HKObjectType?
  /// The predicate, as given.
  public let predicate: NSPredicate?
  /// The predicate decomposed into what the daemon filters on (or why it cannot be).
  let filter: Result<QueryFilter, any Error>
  /// The query's execution state and handler gate.
  let run = QueryRun()

  init(objectType: HKObjectType?, predicate: NSPredicate?) {
    self.objectType = objectType
    self.predicate = predicate
    self.filter = QueryFilter.decompose(predicate)
  }

  /// The sample type the query reads.
  public var sampleType: HKSampleType? { objectType as? HKSampleType }

  /// Starts the query against `session`; called once by `execute(_:)` on the caller's thread. Subclasses register
  /// what must be in place before `execute` returns, then do the rest on ``QueryRun/queue``.
  func start(_ session: Session) {}

  /// Reports a failure to start (no target, daemon unreachable) through the query's handler.
  func fail(_ error: any Error) {}

  // MARK: - Predicates

  /// Samples whose interval matches `startDate`…`endDate`: by default `endDate >= start AND startDate < end`;
  /// `.strictStartDate` requires `startDate >= start`, `.strictEndDate` requires `endDate <= end`.
  public static func predicateForSamples(withStart startDate: Date?, end endDate: Date?, options: HKQueryOptions = [])
    -> NSPredicate
  {
    HealthKitSimPredicate(
      QueryFilter(
        range: DateRange(start: startDate, end: endDate, options: QueryOptions(rawValue: UInt32(options.rawValue)))))
  }

  /// Objects saved by `source`.
  public static func predicateForObjects(from source: HKSource) -> NSPredicate {
    predicateForObjects(from: [source])
  }

  /// Objects saved by any of `sources`.
  public static func predicateForObjects(from sources: Set<HKSource>) -> NSPredicate {
    HealthKitSimPredicate(QueryFilter(sources: Set(sources.map(\.bundleIdentifier))))
  }
}
