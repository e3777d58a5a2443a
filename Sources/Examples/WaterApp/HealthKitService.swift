// Water's HealthKit service, from the article ("HealthKit + SwiftUI on iOS 26"). The two snippets are kept as
// published; the only change is `import HealthKit` → `import HealthKitSim`. Members the article uses but does not
// show (`isAuthorized`, `authorizationStatus`, `isHealthDataAvailable`, the history read) are written here from its
// description.

import Foundation
import HealthKitSim
import Observation
import Synchronization

@Observable
final class HealthKitService {
  static let shared = HealthKitService()

  private let healthStore = HKHealthStore()
  private let waterType = HKQuantityType(.dietaryWater)

  // MARK: - State the article uses without showing

  /// What the service last learned from HealthKit; guarded by its mutex (the service is used from the main actor
  /// and from its own async methods).
  private struct State {
    var isAuthorized = false
    var authorizationStatus = HKAuthorizationStatus.notDetermined
  }
  @ObservationIgnored private let state = Mutex(State())

  /// Whether Water may save water: the share status is `sharingAuthorized` (the read decision is never known).
  var isAuthorized: Bool {
    get {
      access(keyPath: \.isAuthorized)
      return state.withLock { $0.isAuthorized }
    }
    set { withMutation(keyPath: \.isAuthorized) { state.withLock { $0.isAuthorized = newValue } } }
  }

  /// The share status of dietaryWater, as last checked.
  var authorizationStatus: HKAuthorizationStatus {
    get {
      access(keyPath: \.authorizationStatus)
      return state.withLock { $0.authorizationStatus }
    }
    set { withMutation(keyPath: \.authorizationStatus) { state.withLock { $0.authorizationStatus = newValue } } }
  }

  /// Whether HealthKit is available on this device.
  var isHealthDataAvailable: Bool { HKHealthStore.isHealthDataAvailable() }

  // MARK: - From the article

  func logWater(amount: Double, date: Date = .now) async throws -> UUID {
    guard isAuthorized else { throw HealthKitError.notAuthorized }

    let quantity = HKQuantity(unit: .literUnit(with: .milli), doubleValue: amount)
    let sample = HKQuantitySample(
      type: waterType,
      quantity: quantity,
      start: date,
      end: date,
      metadata: [HKMetadataKeyWasUserEntered: true]
    )

    try await healthStore.save(sample)
    return sample.uuid
  }

  private var typesToShare: Set<HKSampleType> { [waterType] }
  private var typesToRead: Set<HKSampleType> { [waterType] }

  func requestAuthorization() async throws {
    guard isHealthDataAvailable else { throw HealthKitError.notAvailable }

    try await healthStore.requestAuthorization(toShare: typesToShare, read: typesToRead)

    await MainActor.run { checkAuthorizationStatus() }
  }

  func checkAuthorizationStatus() {
    authorizationStatus = healthStore.authorizationStatus(for: waterType)
    isAuthorized = authorizationStatus == .sharingAuthorized
  }

  // MARK: - Today's history (the article's "async wrapper for sample queries")

  /// The water entries of the UTC day containing `day`, newest first.
  ///
  /// If the user denied read access, HealthKit returns only Water's own entries (or none): there is no "read
  /// denied" signal, so the history simply shows what comes back.
  func todayEntries(on day: Date = .now) async throws -> [WaterEntry] {
    let start = WaterEntry.calendar.startOfDay(for: day)
    let end = start.addingTimeInterval(86_400)
    let predicate = HKQuery.predicateForSamples(withStart: start, end: end, options: .strictStartDate)
    let newestFirst = NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)
    return try await withCheckedThrowingContinuation { continuation in
      let query = HKSampleQuery(
        sampleType: waterType, predicate: predicate, limit: HKObjectQueryNoLimit,
        sortDescriptors: [newestFirst]
      ) { _, samples, error in
        if let error {
          continuation.resume(throwing: error)
          return
        }
        let entries = (samples ?? []).compactMap { $0 as? HKQuantitySample }.map { sample in
          WaterEntry(
            id: sample.uuid, milliliters: sample.quantity.doubleValue(for: .literUnit(with: .milli)),
            date: sample.startDate, source: sample.sourceRevision.source.bundleIdentifier)
        }
        continuation.resume(returning: entries)
      }
      healthStore.execute(query)
    }
  }
}

// Every mutable property of the service lives behind `state`'s mutex (the observation registrar is itself
// Sendable), and the store and type are immutable Sendable values: the service is safe to share, which
// `static let shared` requires in Swift 6.
extension HealthKitService: @unchecked Sendable {}
