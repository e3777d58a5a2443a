// The object types HealthKit apps name in authorization sets besides quantity, category and correlation types
// (workouts, activity summaries, electrocardiograms, audiograms, vision prescriptions, series, State of Mind,
// scored assessments, clinical records, documents and medications), the entitlements that gate some of them, and
// background delivery's frequencies. Codes 70–99 of the catalog.

/// A special object type: requestable in authorization sets and queryable, but not stored as samples. Workouts,
/// workout routes and heartbeat series are stored beside the samples (HealthEngine's `WorkoutStore`) and read with
/// their own queries; activity summaries are computed per day, or imported; HealthPair stores no objects of the
/// other kinds (a sample query of them returns nothing).
package enum ObjectKind: Sendable, Hashable {
  /// `HKWorkoutType` (`HKObjectType.workoutType()`).
  case workout
  /// `HKActivitySummaryType`: not a sample type; apps may only read it.
  case activitySummary
  /// `HKElectrocardiogramType`: read-only (only Apple's ECG app records them).
  case electrocardiogram
  /// `HKAudiogramSampleType`.
  case audiogram
  /// `HKPrescriptionType` (`visionPrescriptionType()`): read only through per-object authorization.
  case visionPrescription
  /// `HKSeriesType` (workout routes, heartbeat series).
  case series
  /// `HKStateOfMindType` (iOS 18).
  case stateOfMind
  /// `HKScoredAssessmentType` (GAD-7, PHQ-9; iOS 18).
  case scoredAssessment
  /// `HKClinicalType`: read-only, and reading needs the Health Records entitlement.
  case clinicalRecord
  /// `HKDocumentType` (CDA documents).
  case document
  /// `HKUserAnnotatedMedicationType` (iOS 26): not a sample type; read only through per-object authorization.
  case medication
  /// `HKMedicationDoseEventType` (iOS 26): read-only, readable through its medication.
  case medicationDoseEvent
}

/// An entitlement an app can be installed with (its signed `.entitlements`), as the daemon checks them.
package enum Entitlement: UInt8, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
  /// `com.apple.developer.healthkit.background-delivery`: `enableBackgroundDelivery` fails with
  /// `errorAuthorizationDenied` without it (iOS 15 / watchOS 8 and later).
  case backgroundDelivery = 1
  /// `com.apple.developer.healthkit.access` containing `health-records`: without it, requesting read access to a
  /// clinical type raises "Authorization to read the following types is disallowed".
  case healthRecords = 2

  /// The entitlement key (and value, for health records) as it appears in an `.entitlements` file.
  package var key: String {
    switch self {
    case .backgroundDelivery: "com.apple.developer.healthkit.background-delivery"
    case .healthRecords: "com.apple.developer.healthkit.access: health-records"
    }
  }

  /// The short name scenarios, `ctl` and logs use (`background-delivery`, `health-records`).
  package var description: String {
    switch self {
    case .backgroundDelivery: "background-delivery"
    case .healthRecords: "health-records"
    }
  }

  /// Parses a short name or the full entitlement key.
  package init?(name: String) {
    switch name {
    case "background-delivery", "com.apple.developer.healthkit.background-delivery": self = .backgroundDelivery
    case "health-records", "com.apple.developer.healthkit.access": self = .healthRecords
    default: return nil
    }
  }

  /// Orders by raw value.
  package static func < (a: Entitlement, b: Entitlement) -> Bool { a.rawValue < b.rawValue }
}

/// How often background delivery may wake an app (`HKUpdateFrequency`), with Apple's raw values.
package enum UpdateFrequency: UInt8, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
  /// Every time a change is detected.
  case immediate = 1
  /// At most once an hour.
  case hourly = 2
  /// At most once a day.
  case daily = 3
  /// At most once a week.
  case weekly = 4

  /// The shortest time between two wakes, in seconds (0 for `immediate`).
  package var period: Double {
    switch self {
    case .immediate: 0
    case .hourly: 3600
    case .daily: 86_400
    case .weekly: 604_800
    }
  }

  /// The case name, as HealthKit spells it.
  package var description: String {
    switch self {
    case .immediate: "immediate"
    case .hourly: "hourly"
    case .daily: "daily"
    case .weekly: "weekly"
    }
  }

  /// Parses a case name.
  package init?(name: String) {
    guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
    self = match
  }

  /// Orders from most to least frequent (`immediate` < `weekly`).
  package static func < (a: UpdateFrequency, b: UpdateFrequency) -> Bool { a.rawValue < b.rawValue }
}

extension SampleTypeDescriptor {
  /// The special object kind, for types of codes 70–99.
  package var objectKind: ObjectKind? {
    if case .object(let kind) = kind { return kind }
    return nil
  }

  /// Whether reading the type goes through `requestPerObjectReadAuthorization` only (vision prescriptions,
  /// medications): a read request through `requestAuthorization` raises "Authorization to read the following types
  /// is disallowed" (Apple: `requiresPerObjectAuthorization()`; observed crash message).
  package var requiresPerObjectAuthorization: Bool {
    objectKind == .visionPrescription || objectKind == .medication
  }

  /// Whether apps read the type object by object, on per-object sheets (vision prescriptions, CDA documents,
  /// medications; HealthKit's `requiresPerObjectAuthorization()`). A CDA read request through `requestAuthorization`
  /// does not raise: its documents' sheet comes with the document query (behavior.md O2).
  package var readsPerObject: Bool {
    objectKind == .visionPrescription || objectKind == .document || objectKind == .medication
  }

  /// The entitlement an app needs to request read access to the type (clinical records: health records).
  package var readEntitlement: Entitlement? { objectKind == .clinicalRecord ? .healthRecords : nil }

  /// Whether HealthKit supports background delivery for the type: correlation types are not supported (Apple:
  /// `enableBackgroundDelivery(for:frequency:withCompletion:)`).
  package var supportsBackgroundDelivery: Bool { !isCorrelation }
}

extension SampleType {
  /// The special object types (codes 70–99). Sources: `HKObjectType` class methods and `HKTypeIdentifiers.h`
  /// identifiers; which may be shared from their documentation (activity summaries: "You cannot request
  /// permission to share"; electrocardiograms have no public initializer; clinical records are read-only —
  /// observed "Authorization to share … is disallowed" crashes, EddyVerbruggen/HealthKit#106).
  package static let objectTypeCatalog: [SampleTypeDescriptor] = [
    object(70, "workout", "HKWorkoutTypeIdentifier", .workout, share: true),
    object(71, "activitySummary", "HKActivitySummaryTypeIdentifier", .activitySummary, share: false),
    object(72, "electrocardiogram", "HKDataTypeIdentifierElectrocardiogram", .electrocardiogram, share: false),
    object(73, "audiogram", "HKDataTypeIdentifierAudiogram", .audiogram, share: true),
    object(74, "visionPrescription", "HKVisionPrescriptionTypeIdentifier", .visionPrescription, share: true),
    object(75, "workoutRoute", "HKWorkoutRouteTypeIdentifier", .series, share: true),
    object(76, "heartbeatSeries", "HKDataTypeIdentifierHeartbeatSeries", .series, share: true),
    object(77, "stateOfMind", "HKDataTypeStateOfMind", .stateOfMind, share: true),
    object(78, "GAD7", "HKScoredAssessmentTypeIdentifierGAD7", .scoredAssessment, share: true),
    object(79, "PHQ9", "HKScoredAssessmentTypeIdentifierPHQ9", .scoredAssessment, share: true),
    object(80, "allergyRecord", "HKClinicalTypeIdentifierAllergyRecord", .clinicalRecord, share: false),
    object(81, "clinicalNoteRecord", "HKClinicalTypeIdentifierClinicalNoteRecord", .clinicalRecord, share: false),
    object(82, "conditionRecord", "HKClinicalTypeIdentifierConditionRecord", .clinicalRecord, share: false),
    object(83, "coverageRecord", "HKClinicalTypeIdentifierCoverageRecord", .clinicalRecord, share: false),
    object(84, "immunizationRecord", "HKClinicalTypeIdentifierImmunizationRecord", .clinicalRecord, share: false),
    object(85, "labResultRecord", "HKClinicalTypeIdentifierLabResultRecord", .clinicalRecord, share: false),
    object(86, "medicationRecord", "HKClinicalTypeIdentifierMedicationRecord", .clinicalRecord, share: false),
    object(87, "procedureRecord", "HKClinicalTypeIdentifierProcedureRecord", .clinicalRecord, share: false),
    object(88, "vitalSignRecord", "HKClinicalTypeIdentifierVitalSignRecord", .clinicalRecord, share: false),
    object(90, "CDA", "HKDocumentTypeIdentifierCDA", .document, share: true),
    object(91, "userAnnotatedMedication", "HKDataTypeUserAnnotatedMedicationConcept", .medication, share: false),
    object(
      92, "medicationDoseEvent", "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent", .medicationDoseEvent,
      share: false),
  ]

  private static func object(_ code: UInt16, _ name: String, _ identifier: String, _ kind: ObjectKind, share: Bool)
    -> SampleTypeDescriptor
  {
    SampleTypeDescriptor(
      code: code, name: name, identifier: identifier, kind: .object(kind), appsMayShare: share, requiredMetadata: [])
  }
}
