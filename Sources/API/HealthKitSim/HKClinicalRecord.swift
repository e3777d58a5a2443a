import Foundation
import HealthEngine
import HealthModel

/// A FHIR resource type (`HKFHIRResourceType`, iOS 12): the resource's `resourceType` string.
public struct HKFHIRResourceType: RawRepresentable, Hashable, Sendable {
  /// The FHIR name (`Observation`).
  public let rawValue: String
  /// A resource type of that name.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// `AllergyIntolerance`.
  public static let allergyIntolerance = Self(rawValue: "AllergyIntolerance")
  /// `Condition`.
  public static let condition = Self(rawValue: "Condition")
  /// `Coverage`.
  public static let coverage = Self(rawValue: "Coverage")
  /// `DiagnosticReport`.
  public static let diagnosticReport = Self(rawValue: "DiagnosticReport")
  /// `DocumentReference`.
  public static let documentReference = Self(rawValue: "DocumentReference")
  /// `ExplanationOfBenefit`.
  public static let explanationOfBenefit = Self(rawValue: "ExplanationOfBenefit")
  /// `Immunization`.
  public static let immunization = Self(rawValue: "Immunization")
  /// `MedicationDispense`.
  public static let medicationDispense = Self(rawValue: "MedicationDispense")
  /// `MedicationOrder` (DSTU2).
  public static let medicationOrder = Self(rawValue: "MedicationOrder")
  /// `MedicationRequest` (R4).
  public static let medicationRequest = Self(rawValue: "MedicationRequest")
  /// `MedicationStatement`.
  public static let medicationStatement = Self(rawValue: "MedicationStatement")
  /// `Observation`.
  public static let observation = Self(rawValue: "Observation")
  /// `Procedure`.
  public static let procedure = Self(rawValue: "Procedure")
}

/// A FHIR release (`HKFHIRRelease`, iOS 14).
public struct HKFHIRRelease: RawRepresentable, Hashable, Sendable {
  /// The release's name.
  public let rawValue: String
  /// A release of that name.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// DSTU2.
  public static let dstu2 = Self(rawValue: "DSTU2")
  /// R4.
  public static let r4 = Self(rawValue: "R4")
  /// A release HealthKit does not name.
  public static let unknown = Self(rawValue: "Unknown")
}

/// A FHIR version (`HKFHIRVersion`, iOS 14): `major.minor.patch` and its release.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKFHIRVersion: NSObject, @unchecked Sendable {
  /// The major version.
  public let majorVersion: Int
  /// The minor version.
  public let minorVersion: Int
  /// The patch version.
  public let patchVersion: Int

  /// `major.minor.patch`.
  public var stringRepresentation: String { "\(majorVersion).\(minorVersion).\(patchVersion)" }
  /// The release: DSTU2 for 1.0.x, R4 for 4.0.x, else unknown.
  public var fhirRelease: HKFHIRRelease {
    switch (majorVersion, minorVersion) {
    case (1, 0): .dstu2
    case (4, 0): .r4
    default: .unknown
    }
  }

  /// The version `versionString` (`4.0.1`).
  /// - Throws: `HKError(.errorInvalidArgument)` for a string that is not three numbers.
  public init(fromVersionString versionString: String) throws {
    let parts = versionString.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
    guard parts.count == 3, let major = parts[0], let minor = parts[1], let patch = parts[2] else {
      throw HKError(.errorInvalidArgument, message: "Invalid FHIR version string '\(versionString)'")
    }
    majorVersion = major
    minorVersion = minor
    patchVersion = patch
  }

  /// DSTU2's version HealthKit uses, 1.0.2.
  public static func primaryDSTU2() -> HKFHIRVersion { try! HKFHIRVersion(fromVersionString: "1.0.2") }
  /// R4's version HealthKit uses, 4.0.1.
  public static func primaryR4() -> HKFHIRVersion { try! HKFHIRVersion(fromVersionString: "4.0.1") }

  /// `major.minor.patch`.
  public override var description: String { stringRepresentation }
}

/// A FHIR resource as the provider sent it (`HKFHIRResource`, iOS 12): its type, identifier, JSON and where it is
/// served.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKFHIRResource: NSObject, @unchecked Sendable {
  /// The resource type.
  public let resourceType: HKFHIRResourceType
  /// The resource's identifier at the provider.
  public let identifier: String
  /// The resource's JSON.
  public let data: Data
  /// Where the provider serves it.
  public let sourceURL: URL?
  /// The FHIR version the resource is written in.
  public let fhirVersion: HKFHIRVersion

  init(_ record: ClinicalRecord) {
    resourceType = HKFHIRResourceType(rawValue: record.resourceType)
    identifier = record.identifier
    data = Data(record.data)
    sourceURL = record.sourceURL.flatMap(URL.init(string:))
    fhirVersion = (try? HKFHIRVersion(fromVersionString: record.fhirVersion)) ?? .primaryR4()
  }
}

/// A health record from a provider (`HKClinicalRecord`, iOS 12): read-only to apps, which read it with the Health
/// Records entitlement and read permission for its clinical type (behavior.md F1–F3).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKClinicalRecord: HKSample, @unchecked Sendable {
  /// The record's clinical type.
  public var clinicalType: HKClinicalType { sampleType as! HKClinicalType }
  /// The name the Health app shows.
  public let displayName: String
  /// The FHIR resource.
  public let fhirResource: HKFHIRResource?

  /// The object for a stored record.
  package init(_ record: ClinicalRecord) {
    displayName = record.displayName
    fhirResource = HKFHIRResource(record)
    super.init(
      uuid: record.uuid, start: record.date, end: record.date, metadata: .valid([:]),
      origin: SampleOrigin(
        type: HKClinicalType(HKClinicalTypeIdentifier(rawValue: record.type.identifier)), unit: nil,
        source: HKSourceRevision(record.source)))
  }

  override var valueDescription: String? { displayName }
}

extension HKQuery {
  /// Clinical records whose FHIR resource is of `resourceType`.
  public static func predicateForClinicalRecords(withFHIRResourceType resourceType: HKFHIRResourceType)
    -> NSPredicate
  {
    HealthKitSimPredicate(.fhirResource(resourceType.rawValue, identifier: nil))
  }

  /// The clinical records from `source` whose FHIR resource is of `resourceType` with `identifier`.
  public static func predicateForClinicalRecords(
    from source: HKSource, fhirResourceType resourceType: HKFHIRResourceType, identifier: String
  ) -> NSPredicate {
    HealthKitSimPredicate(
      .and([.sources([source.bundleIdentifier]), .fhirResource(resourceType.rawValue, identifier: identifier)]))
  }
}
