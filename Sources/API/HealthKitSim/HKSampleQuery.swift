import Foundation
import HealthEngine
import HealthModel

/// Fetches the samples of one type that match a predicate, sorted and limited; the handler is called once.
///
/// Read privacy applies as on a device: with read permission the app sees every sample of the type; with only share
/// permission, its own samples; with neither, none (an empty result, never an error).
///
/// `@unchecked Sendable` for the reason ``HKQuery`` gives; handlers set after `init` sit behind a `Mutex`.
public final class HKSampleQuery: HKQuery, @unchecked Sendable {
  /// The maximum number of samples returned; ``HKObjectQueryNoLimit`` (0) for all.
  public let limit: Int
  /// The sort descriptors, as given.
  public let sortDescriptors: [NSSortDescriptor]?
  private let sort: Result<[SampleSort], any Error>
  private let resultsHandler: @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void

  /// Creates a query; `resultsHandler` receives the samples, or nil and an error.
  public init(
    sampleType: HKSampleType, predicate: NSPredicate?, limit: Int, sortDescriptors: [NSSortDescriptor]?,
    resultsHandler: @escaping @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void
  ) {
    self.limit = limit
    self.sortDescriptors = sortDescriptors
    self.sort = SampleSort.from(sortDescriptors)
    self.resultsHandler = resultsHandler
    super.init(objectType: sampleType, predicate: predicate)
  }

  /// Fetches the samples on the calling thread, blocking it for one round trip to the daemon (what `start` does on
  /// the query's queue).
  /// - Throws: what the handler would receive.
  func fetch(_ session: Session) throws -> [HKSample] {
    if WorkoutFetch.fetchesApart(objectType!) {
      return try WorkoutFetch.objects(
        session, type: objectType!, filter: try filter.get(), limit: limit, descriptors: sortDescriptors)
    }
    return try Self.fetch(session, type: objectType!, filter: try filter.get(), limit: limit, sort: try sort.get())
  }

  /// Fetches the samples of `type` passing `filter` on the calling thread, blocking it, without a query object (what
  /// ``HKSampleQueryDescriptor/result(for:)`` runs on a thread of its own for a correlation type).
  /// - Throws: what a sample query's handler would receive.
  static func fetch(
    _ session: Session, type: HKObjectType, filter: QueryFilter, limit: Int, sort: [SampleSort]
  ) throws -> [HKSample] {
    let api = Self.api
    if type is HKCorrelationType {
      // A sample query of a correlation type returns HKCorrelation objects (docs/behavior.md T11).
      return try HKCorrelation.fetch(
        session, type: type, filter: filter, members: [], limit: limit, sort: sort, api: api)
    }
    return try objects(session, try filter.sampleQuery(of: type, limit: limit, sort: sort))
  }

  /// The name errors of a sample query carry.
  static let api = "HKSampleQuery"

  /// The objects for the samples `query` finds (a type that is not a correlation type).
  /// - Throws: what a sample query's handler would receive.
  static func objects(_ session: Session, _ query: SampleQuery) throws -> [HKSample] {
    HKSample.make(try session.perform(.sampleQuery(session.bundleID, query), api: api))
  }

  override func start(_ session: Session) {
    run.queue.async { [self] in
      let result = Result { () throws -> [HKSample] in try fetch(session) }
      run.deliver {
        switch result {
        case .success(let samples): resultsHandler(self, samples, nil)
        case .failure(let error): resultsHandler(self, nil, error)
        }
      }
    }
  }

  override func fail(_ error: any Error) {
    run.deliver { resultsHandler(self, nil, error) }
  }
}
