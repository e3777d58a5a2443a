import Foundation
import HealthEngine
import HealthModel

/// Finds the apps that saved samples of a type the app may see (matching a predicate); the handler is called once
/// with the set of sources.
///
/// Read privacy applies as for sample queries: with only share permission the app finds itself at most.
///
/// `@unchecked Sendable` for the reason ``HKQuery`` gives; handlers set after `init` sit behind a `Mutex`.
public final class HKSourceQuery: HKQuery, @unchecked Sendable {
  private let completionHandler: @Sendable (HKSourceQuery, Set<HKSource>?, (any Error)?) -> Void

  /// Creates a query; `completionHandler` receives the sources, or nil and an error.
  public init(
    sampleType: HKSampleType, samplePredicate objectPredicate: NSPredicate?,
    completionHandler: @escaping @Sendable (HKSourceQuery, Set<HKSource>?, (any Error)?) -> Void
  ) {
    self.completionHandler = completionHandler
    super.init(objectType: sampleType, predicate: objectPredicate)
  }

  override func start(_ session: Session) {
    run.queue.async { [self] in
      let result = Result { try Self.sources(session, type: try objectType!.simulatedType(), filter: try filter.get()) }
      run.deliver {
        switch result {
        case .success(let sources): completionHandler(self, sources, nil)
        case .failure(let error): completionHandler(self, nil, error)
        }
      }
    }
  }

  override func fail(_ error: any Error) {
    run.deliver { completionHandler(self, nil, error) }
  }

  /// The sources of the samples the app sees.
  static func sources(_ session: Session, type: SampleType, filter: QueryFilter) throws -> Set<HKSource> {
    let api = "HKSourceQuery"
    let query = SampleQuery(type: type, range: filter.range, sources: filter.sources, filter: filter.extra)
    let samples = try session.perform(.sampleQuery(session.bundleID, query), api: api)
    return Set(samples.map { HKSource(bundleIdentifier: $0.source.bundleID) })
  }
}
