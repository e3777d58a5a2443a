// Published-style medications code (iOS 26), in the shape of Apple's sample "Logging symptoms associated with a
// medication": the user picks the medications the app may read, and the app lists each one's taken doses.

import Foundation
import HealthKit

/// A medication as the app's list shows it.
public struct MedicationRow: Sendable, Equatable {
  /// The concept's identifier: stable across devices, what dose events name.
  public let concept: HKHealthConceptIdentifier
  /// The nickname, else the concept's display text.
  public let title: String
  /// Whether the user keeps a schedule for it.
  public let scheduled: Bool
}

/// Reads medications and their doses.
@available(iOS 26.0, watchOS 26.0, macOS 26.0, *)
public struct MedicationLog: Sendable {
  /// A store user.
  public init() {}

  /// Lets the user pick the medications this app may read (the sheet shows every time).
  public func requestAccess() async throws {
    try await HKHealthStore().requestPerObjectReadAuthorization(
      for: HKObjectType.userAnnotatedMedicationType(), predicate: nil)
  }

  /// The medications this app may read that are not archived, in the order the user added them.
  public func activeMedications() async throws -> [MedicationRow] {
    let query = HKUserAnnotatedMedicationQueryDescriptor(
      predicate: HKQuery.predicateForUserAnnotatedMedications(isArchived: false))
    return try await query.result(for: HKHealthStore()).map {
      MedicationRow(
        concept: $0.medication.identifier, title: $0.nickname ?? $0.medication.displayText,
        scheduled: $0.hasSchedule)
    }
  }

  /// The doses of `concept` the user marked taken since `start`, newest first.
  public func takenDoses(of concept: HKHealthConceptIdentifier, since start: Date) async throws
    -> [HKMedicationDoseEvent]
  {
    let predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
      HKQuery.predicateForMedicationDoseEvent(medicationConceptIdentifier: concept),
      HKQuery.predicateForMedicationDoseEvent(status: .taken),
      HKQuery.predicateForSamples(withStart: start, end: nil),
    ])
    let descriptor = HKSampleQueryDescriptor(
      predicates: [.sample(type: .medicationDoseEventType(), predicate: predicate)],
      sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)])
    let samples = try await descriptor.result(for: HKHealthStore())
    return samples.compactMap { $0 as? HKMedicationDoseEvent }
  }
}
