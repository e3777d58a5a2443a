import Foundation
import HealthModel

// The object types apps put in authorization sets besides quantity, category and correlation types: workouts,
// activity summaries, electrocardiograms, audiograms, vision prescriptions, series, State of Mind, clinical records
// and documents. HealthKitSim authorizes, queries (empty results) and observes them; it stores no such objects.

/// The identifier of a clinical record type (`HKClinicalTypeIdentifierAllergyRecord`).
public struct HKClinicalTypeIdentifier: RawRepresentable, Hashable, Sendable {
  /// Apple's identifier string.
  public let rawValue: String
  /// Wraps an identifier string.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Wraps an identifier string.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Allergy records.
  public static let allergyRecord = Self("HKClinicalTypeIdentifierAllergyRecord")
  /// Clinical notes.
  public static let clinicalNoteRecord = Self("HKClinicalTypeIdentifierClinicalNoteRecord")
  /// Conditions.
  public static let conditionRecord = Self("HKClinicalTypeIdentifierConditionRecord")
  /// Insurance coverage.
  public static let coverageRecord = Self("HKClinicalTypeIdentifierCoverageRecord")
  /// Immunizations.
  public static let immunizationRecord = Self("HKClinicalTypeIdentifierImmunizationRecord")
  /// Lab results.
  public static let labResultRecord = Self("HKClinicalTypeIdentifierLabResultRecord")
  /// Medications.
  public static let medicationRecord = Self("HKClinicalTypeIdentifierMedicationRecord")
  /// Procedures.
  public static let procedureRecord = Self("HKClinicalTypeIdentifierProcedureRecord")
  /// Vital signs.
  public static let vitalSignRecord = Self("HKClinicalTypeIdentifierVitalSignRecord")
}

/// The identifier of a document type (`HKDocumentTypeIdentifierCDA`).
public struct HKDocumentTypeIdentifier: RawRepresentable, Hashable, Sendable {
  /// Apple's identifier string.
  public let rawValue: String
  /// Wraps an identifier string.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Wraps an identifier string.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Clinical Document Architecture documents.
  public static let CDA = Self("HKDocumentTypeIdentifierCDA")
}

/// `HKWorkoutTypeIdentifier`.
public let HKWorkoutTypeIdentifier = "HKWorkoutTypeIdentifier"
/// `HKWorkoutRouteTypeIdentifier`.
public let HKWorkoutRouteTypeIdentifier = "HKWorkoutRouteTypeIdentifier"
/// `HKDataTypeIdentifierHeartbeatSeries`.
public let HKDataTypeIdentifierHeartbeatSeries = "HKDataTypeIdentifierHeartbeatSeries"
/// `HKVisionPrescriptionTypeIdentifier`.
public let HKVisionPrescriptionTypeIdentifier = "HKVisionPrescriptionTypeIdentifier"

/// The workout type: `HKObjectType.workoutType()` (apps may share and read it).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKWorkoutType: HKSampleType, @unchecked Sendable {}
/// The activity summary type: `HKObjectType.activitySummaryType()`; not a sample type, and apps may only read it.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKActivitySummaryType: HKObjectType, @unchecked Sendable {}
/// The electrocardiogram type: `HKObjectType.electrocardiogramType()`; read-only (only Apple's ECG app records
/// them).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKElectrocardiogramType: HKSampleType, @unchecked Sendable {}
/// The audiogram type: `HKObjectType.audiogramSampleType()`.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKAudiogramSampleType: HKSampleType, @unchecked Sendable {}
/// The vision prescription type: `HKObjectType.visionPrescriptionType()`; apps may share it, and read it only
/// through per-object authorization.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKPrescriptionType: HKSampleType, @unchecked Sendable {}
/// The State of Mind type: `HKObjectType.stateOfMindType()`.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKStateOfMindType: HKSampleType, @unchecked Sendable {}

/// A series type: workout routes and heartbeat series.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKSeriesType: HKSampleType, @unchecked Sendable {
  /// The workout route type.
  public static func workoutRoute() -> HKSeriesType { HKSeriesType(identifier: HKWorkoutRouteTypeIdentifier) }
  /// The heartbeat series type.
  public static func heartbeat() -> HKSeriesType { HKSeriesType(identifier: HKDataTypeIdentifierHeartbeatSeries) }
}

/// A clinical record type (`HKObjectType.clinicalType(forIdentifier:)`): read-only, and requesting to read it needs
/// the Health Records entitlement (an app installed with `health-records`).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKClinicalType: HKSampleType, @unchecked Sendable {
  /// The type with this identifier.
  public init(_ identifier: HKClinicalTypeIdentifier) { super.init(identifier: identifier.rawValue) }
}

/// A document type (`HKObjectType.documentType(forIdentifier: .CDA)`).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKDocumentType: HKSampleType, @unchecked Sendable {
  /// The type with this identifier.
  public init(_ identifier: HKDocumentTypeIdentifier) { super.init(identifier: identifier.rawValue) }
}

extension HKObjectType {
  /// The workout type.
  public static func workoutType() -> HKWorkoutType { HKWorkoutType(identifier: HKWorkoutTypeIdentifier) }
  /// The activity summary type.
  public static func activitySummaryType() -> HKActivitySummaryType {
    HKActivitySummaryType(identifier: "HKActivitySummaryTypeIdentifier")
  }
  /// The electrocardiogram type.
  public static func electrocardiogramType() -> HKElectrocardiogramType {
    HKElectrocardiogramType(identifier: "HKDataTypeIdentifierElectrocardiogram")
  }
  /// The audiogram type.
  public static func audiogramSampleType() -> HKAudiogramSampleType {
    HKAudiogramSampleType(identifier: "HKDataTypeIdentifierAudiogram")
  }
  /// The vision prescription type.
  public static func visionPrescriptionType() -> HKPrescriptionType {
    HKPrescriptionType(identifier: HKVisionPrescriptionTypeIdentifier)
  }
  /// The State of Mind type.
  public static func stateOfMindType() -> HKStateOfMindType { HKStateOfMindType(identifier: "HKDataTypeStateOfMind") }
  /// The clinical type with this identifier, or nil for an identifier HealthKitSim does not know.
  public static func clinicalType(forIdentifier identifier: HKClinicalTypeIdentifier) -> HKClinicalType? {
    guard SampleType.lookup(name: identifier.rawValue)?.descriptor.objectKind == .clinicalRecord else { return nil }
    return HKClinicalType(identifier)
  }
  /// The document type with this identifier, or nil for an identifier HealthKitSim does not know.
  public static func documentType(forIdentifier identifier: HKDocumentTypeIdentifier) -> HKDocumentType? {
    guard SampleType.lookup(name: identifier.rawValue)?.descriptor.objectKind == .document else { return nil }
    return HKDocumentType(identifier)
  }
  /// The series type with this identifier (workout routes, heartbeat series), or nil.
  public static func seriesType(forIdentifier identifier: String) -> HKSeriesType? {
    guard SampleType.lookup(name: identifier)?.descriptor.objectKind == .series else { return nil }
    return HKSeriesType(identifier: identifier)
  }

  /// Whether apps read the type object by object: vision prescriptions and medications (through
  /// `requestPerObjectReadAuthorization`; requesting them with `requestAuthorization` would terminate the app) and
  /// CDA documents (through `HKDocumentQuery`'s sheet; requesting them does not raise, behavior.md O4).
  public func requiresPerObjectAuthorization() -> Bool {
    (try? simulatedType())?.descriptor.readsPerObject ?? false
  }

  /// The HealthKitSim class for a special object type.
  static func objectType(_ kind: ObjectKind, identifier: String) -> HKObjectType {
    switch kind {
    case .workout: HKWorkoutType(identifier: identifier)
    case .activitySummary: HKActivitySummaryType(identifier: identifier)
    case .electrocardiogram: HKElectrocardiogramType(identifier: identifier)
    case .audiogram: HKAudiogramSampleType(identifier: identifier)
    case .visionPrescription: HKPrescriptionType(identifier: identifier)
    case .series: HKSeriesType(identifier: identifier)
    case .stateOfMind: HKStateOfMindType(identifier: identifier)
    case .scoredAssessment: HKScoredAssessmentType(identifier: identifier)
    case .clinicalRecord: HKClinicalType(HKClinicalTypeIdentifier(identifier))
    case .document: HKDocumentType(HKDocumentTypeIdentifier(identifier))
    case .medication: HKUserAnnotatedMedicationType(identifier: identifier)
    case .medicationDoseEvent: HKMedicationDoseEventType(identifier: identifier)
    }
  }
}
