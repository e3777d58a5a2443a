import Foundation
import HealthEngine
import HealthModel

/// Computes statistics (sum, average, min, max, most recent) over the samples of a quantity type that match a
/// predicate; the handler is called once. With no matching sample the handler receives `HKError(.errorNoData)`.
///
/// `@unchecked Sendable` for the reason ``HKQuery`` gives; handlers set after `init` sit behind a `Mutex`.
public final class HKStatisticsQuery: HKQuery, @unchecked Sendable {
  /// The statistics asked for.
  public let options: HKStatisticsOptions
  private let completionHandler: @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void

  /// Creates a query; `completionHandler` receives the statistics, or nil and an error.
  public init(
    quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions = [],
    completionHandler handler: @escaping @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void
  ) {
    self.options = options
    self.completionHandler = handler
    super.init(objectType: quantityType, predicate: quantitySamplePredicate)
  }

  /// The quantity type.
  public var quantityType: HKQuantityType { objectType as! HKQuantityType }

  override func start(_ session: Session) {
    run.queue.async { [self] in
      let api = "HKStatisticsQuery"
      let result = Result { () throws -> HKStatistics in
        let query = StatisticsQuery(
          type: try quantityType.simulatedType(), range: try filter.get().range, sources: try filter.get().sources,
          options: options.simulated, filter: try filter.get().extra)
        let values = try session.perform(.statistics(session.bundleID, query), api: api)
        return HKStatistics(values, type: quantityType, separateBySource: options.contains(.separateBySource))
      }
      run.deliver {
        switch result {
        case .success(let statistics): completionHandler(self, statistics, nil)
        case .failure(let error): completionHandler(self, nil, error)
        }
      }
    }
  }

  override func fail(_ error: any Error) {
    run.deliver { completionHandler(self, nil, error) }
  }
}
