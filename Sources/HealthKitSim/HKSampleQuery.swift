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

  /// Fetches the samples on the calling thread: one round trip to the daemon (what `start` does on the query's
  /// queue, and what ``HKSampleQueryDescriptor/result(for:)`` does in the awaiting task).
  /// - Throws: what the handler would receive.
  func fetch(_ session: Session) throws -> [HKSample] {
    let api = "HKSampleQuery"
    if objectType is HKCorrelationType {
      // A sample query of a correlation type returns HKCorrelation objects (docs/behavior.md T11).
      return try HKCorrelation.fetch(
        session, type: objectType!, filter: try filter.get(), members: [], limit: limit, sort: try sort.get(), api: api)
    }
    let query = SampleQuery(
      type: try objectType!.simulatedType(), range: try filter.get().range, sources: try filter.get().sources,
      limit: limit, sort: try sort.get(), filter: try filter.get().extra)
    return HKSample.make(try session.perform(.sampleQuery(session.bundleID, query), api: api))
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
