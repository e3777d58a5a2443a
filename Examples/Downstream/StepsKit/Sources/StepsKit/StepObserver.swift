// Published-style HealthKit code: nothing here knows about HealthPair, and nothing was edited to build on Linux.

import Foundation
import HealthKit

/// Counts today's steps and keeps a background observer whose anchor lives in UserDefaults.
public final class StepObserver: NSObject, @unchecked Sendable {
  private let store = HKHealthStore()
  private let defaults: UserDefaults
  private let stepType = HKQuantityType(.stepCount)

  /// Creates an observer that keeps its anchor in `defaults`.
  public init(defaults: UserDefaults) {
    self.defaults = defaults
  }

  /// Asks to read steps.
  public func requestAccess() async throws {
    try await store.requestAuthorization(toShare: [], read: [stepType, HKObjectType.workoutType()])
  }

  /// Registers for background delivery.
  public func enableBackgroundDelivery() async throws {
    try await store.enableBackgroundDelivery(for: stepType, frequency: .hourly)
  }

  /// Steps between `start` and `end`, leaving out what the user typed in by hand (format predicates, as most
  /// published code writes them).
  public func steps(from start: Date, to end: Date) async throws -> Double {
    let predicate = NSPredicate(
      format: "%K >= %@ AND %K < %@ AND metadata.%K != YES", HKPredicateKeyPathStartDate, start as NSDate,
      HKPredicateKeyPathStartDate, end as NSDate, HKMetadataKeyWasUserEntered)
    return try await withCheckedThrowingContinuation { continuation in
      let query = HKStatisticsQuery(quantityType: stepType, quantitySamplePredicate: predicate, options: .cumulativeSum) {
        _, statistics, error in
        if let error {
          continuation.resume(throwing: error)
        } else {
          continuation.resume(returning: statistics?.sumQuantity()?.doubleValue(for: .count()) ?? 0)
        }
      }
      store.execute(query)
    }
  }

  /// The number of new step samples since the archived anchor; archives the new anchor.
  public func newSamples(then done: @escaping HealthKit.HKObserverQueryCompletionHandler) async throws -> Int {
    let previous = defaults.data(forKey: "anchor").flatMap {
      try? NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: $0)
    }
    let (count, anchor): (Int, HKQueryAnchor?) = try await withCheckedThrowingContinuation { continuation in
      let query = HKAnchoredObjectQuery(type: stepType, predicate: nil, anchor: previous, limit: HKObjectQueryNoLimit) {
        _, added, _, anchor, error in
        if let error {
          continuation.resume(throwing: error)
        } else {
          continuation.resume(returning: (added?.count ?? 0, anchor))
        }
      }
      store.execute(query)
    }
    if let anchor {
      defaults.set(
        try NSKeyedArchiver.archivedData(withRootObject: anchor, requiringSecureCoding: true), forKey: "anchor")
    }
    done()
    return count
  }
}
