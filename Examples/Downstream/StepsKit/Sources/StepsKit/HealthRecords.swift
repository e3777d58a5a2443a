// Published-style clinical-records code (iOS 14): a patient app asks for the user's health records only when the
// system says a sheet is needed, then lists one record type with its FHIR resource decoded from JSON. The app's
// Info.plist has NSHealthClinicalHealthRecordsShareUsageDescription and lists three required types.

import Foundation
import HealthKit

/// Reads the user's clinical records.
public struct HealthRecordsReader: Sendable {
  /// One record as the app shows it.
  public struct Item: Sendable, Equatable {
    /// The record's display name.
    public var title: String
    /// The FHIR resource type (`AllergyIntolerance`, `Observation` …).
    public var resourceType: String
    /// "DSTU2" or "R4".
    public var release: String
    /// The resource's `id` from its JSON.
    public var resourceID: String?
  }

  /// The record types the app reads.
  public static let types: Set<HKObjectType> = [
    HKObjectType.clinicalType(forIdentifier: .allergyRecord)!,
    HKObjectType.clinicalType(forIdentifier: .conditionRecord)!,
    HKObjectType.clinicalType(forIdentifier: .labResultRecord)!,
    HKObjectType.clinicalType(forIdentifier: .medicationRecord)!,
  ]

  /// A reader.
  public init() {}

  /// Asks for the records if the system would show a sheet; true when the request ran (false: nothing to ask).
  public func requestAuthorizationIfNeeded() async throws -> Bool {
    let store = HKHealthStore()
    let status: HKAuthorizationRequestStatus = try await withCheckedThrowingContinuation { continuation in
      store.getRequestStatusForAuthorization(toShare: [], read: Self.types) { status, error in
        if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: status) }
      }
    }
    guard status == .shouldRequest else { return false }
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      store.requestAuthorization(toShare: nil, read: Self.types) { success, error in
        if success {
          continuation.resume()
        } else {
          continuation.resume(throwing: error ?? HKError(.errorUserCanceled))
        }
      }
    }
    return true
  }

  /// The records of one type, newest first.
  public func records(_ identifier: HKClinicalTypeIdentifier) async throws -> [Item] {
    guard let type = HKObjectType.clinicalType(forIdentifier: identifier) else { return [] }
    let samples: [HKSample] = try await withCheckedThrowingContinuation { continuation in
      let query = HKSampleQuery(
        sampleType: type, predicate: nil, limit: 100,
        sortDescriptors: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)]
      ) { _, samples, error in
        if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: samples ?? []) }
      }
      HKHealthStore().execute(query)
    }
    return samples.compactMap { sample in
      guard let record = sample as? HKClinicalRecord, let resource = record.fhirResource else { return nil }
      let json = try? JSONSerialization.jsonObject(with: resource.data) as? [String: Any]
      let release = resource.fhirVersion.fhirRelease == .r4 ? "R4" : "DSTU2"
      return Item(
        title: record.displayName, resourceType: resource.resourceType.rawValue, release: release,
        resourceID: json?["id"] as? String)
    }
  }
}
