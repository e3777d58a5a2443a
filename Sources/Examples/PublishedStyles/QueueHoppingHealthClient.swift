// The Combine-free wrapper style: every call hops onto the wrapper's own serial DispatchQueue, HealthKit's
// callbacks hop back onto it, and results are handed to the caller on a queue the caller chose. State is touched
// only on the wrapper's queue.

import Dispatch
import Foundation
import HealthKit

/// A wrapper that serializes its work on a private queue.
public final class QueueHoppingHealthClient: @unchecked Sendable {
  private let queue = DispatchQueue(label: "QueueHoppingHealthClient")
  private let callbackQueue: DispatchQueue
  private let store = HKHealthStore()
  private var lastTotals: [String: Double] = [:]

  /// Creates a client that reports on `callbackQueue`.
  public init(callbackQueue: DispatchQueue) {
    self.callbackQueue = callbackQueue
  }

  /// Requests `types` for reading and sharing.
  public func authorize(
    share: Set<HKSampleType>, read: Set<HKObjectType>, completion: @escaping @Sendable (Result<Void, Error>) -> Void
  ) {
    queue.async { [self] in
      store.requestAuthorization(toShare: share, read: read) { [self] success, error in
        queue.async { [self] in
          let result: Result<Void, Error> = success ? .success(()) : .failure(error ?? HKError(.unknownError))
          callbackQueue.async { completion(result) }
        }
      }
    }
  }

  /// Sums `identifier` over `start`..<`end` in `unit`; the last total is cached on the wrapper's queue.
  public func total(
    _ identifier: HKQuantityTypeIdentifier, unit: HKUnit, from start: Date, to end: Date,
    completion: @escaping @Sendable (Result<Double, Error>) -> Void
  ) {
    queue.async { [self] in
      let predicate = HKQuery.predicateForSamples(withStart: start, end: end)
      let query = HKStatisticsQuery(
        quantityType: HKQuantityType(identifier), quantitySamplePredicate: predicate, options: .cumulativeSum
      ) { [self] _, statistics, error in
        queue.async { [self] in
          let result: Result<Double, Error>
          if let error = error as? HKError, error.code == .errorNoData {
            result = .success(0)
          } else if let error {
            result = .failure(error)
          } else {
            result = .success(statistics?.sumQuantity()?.doubleValue(for: unit) ?? 0)
          }
          if case .success(let value) = result { lastTotals[identifier.rawValue] = value }
          callbackQueue.async { completion(result) }
        }
      }
      store.execute(query)
    }
  }

  /// The last total computed for `identifier`, read on the wrapper's queue.
  public func cachedTotal(_ identifier: HKQuantityTypeIdentifier) -> Double? {
    queue.sync { lastTotals[identifier.rawValue] }
  }
}
