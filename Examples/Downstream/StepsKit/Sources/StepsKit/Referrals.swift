// Published-style health-records code (iOS 10): a clinic app saves the CDA referral letters it writes, and a
// patient app lists the ones the user lets it read, with an HKDocumentQuery.

import Foundation
import HealthKit

/// Saves and lists CDA referral letters.
public struct Referrals: Sendable {
  /// A store user.
  public init() {}

  static let type = HKObjectType.documentType(forIdentifier: .CDA)!

  /// Asks to save and read CDA documents.
  public func requestAccess() async throws {
    try await HKHealthStore().requestAuthorization(toShare: [Self.type], read: [Self.type])
  }

  /// Saves a CDA document; throws HealthKit's validation error for one that is not valid CDA.
  public func save(_ xml: Data, on date: Date) async throws {
    let sample = try HKCDADocumentSample(data: xml, start: date, end: date, metadata: nil)
    try await HKHealthStore().save(sample)
  }

  /// The titles of the documents the app may read, oldest first (the user is asked about new ones first).
  public func titles() async throws -> [String] {
    try await withCheckedThrowingContinuation { continuation in
      let collected = Collected()
      let query = HKDocumentQuery(
        documentType: Self.type, predicate: nil, limit: HKObjectQueryNoLimit,
        sortDescriptors: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)],
        includeDocumentData: false
      ) { _, results, done, error in
        if let error {
          continuation.resume(throwing: error)
          return
        }
        let titles = collected.append(
          (results ?? []).compactMap { ($0 as? HKCDADocumentSample)?.document?.title })
        if done { continuation.resume(returning: titles) }
      }
      HKHealthStore().execute(query)
    }
  }

  private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var titles: [String] = []
    func append(_ more: [String]) -> [String] {
      lock.lock()
      defer { lock.unlock() }
      titles += more
      return titles
    }
  }
}
