import Foundation
import HealthEngine
import HealthModel

// The Medications API (iOS 26 / watchOS 26): the medications the user added in the Health app, read object by object
// through `requestPerObjectReadAuthorization(for: .userAnnotatedMedicationType(), predicate:)`, and their dose events,
// readable through their medication (behavior.md section Z). Apps create none of these objects.

/// `HKDataTypeIdentifierUserAnnotatedMedicationConcept`: the identifier of `userAnnotatedMedicationType()` (its
/// value lacks the word "Identifier", as on devices).
public let HKDataTypeIdentifierUserAnnotatedMedicationConcept = "HKDataTypeUserAnnotatedMedicationConcept"
/// `HKMedicationDoseEventTypeIdentifierMedicationDoseEvent`: the identifier of `medicationDoseEventType()`.
public let HKMedicationDoseEventTypeIdentifierMedicationDoseEvent =
  "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent"
/// The key path of a dose event's log status (`status`), compared with a `LogStatus` raw value.
public let HKPredicateKeyPathStatus = "status"
/// The key path of a dose event's log origin (`logOrigin`); declared, not read by `NSPredicate(format:)`.
public let HKPredicateKeyPathLogOrigin = "logOrigin"
/// The key path of a dose event's scheduled date (`scheduledDate`), compared with a date.
public let HKPredicateKeyPathScheduledDate = "scheduledDate"
/// The key path of a medication's or dose event's concept identifier (`medicationConceptIdentifier`), compared with
/// an ``HKHealthConceptIdentifier``.
public let HKPredicateKeyPathMedicationConceptIdentifier = "medicationConceptIdentifier"
/// The key path of a medication's archived flag (`isArchived`), compared with a Boolean.
public let HKUserAnnotatedMedicationPredicateKeyPathIsArchived = "isArchived"
/// The key path of a medication's schedule flag (`hasSchedule`), compared with a Boolean.
public let HKUserAnnotatedMedicationPredicateKeyPathHasSchedule = "hasSchedule"

/// A health concept's domain (`HKHealthConceptDomain`).
public struct HKHealthConceptDomain: RawRepresentable, Hashable, Sendable {
  /// The domain's string.
  public let rawValue: String
  /// Wraps a domain string.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// Medications.
  public static let medication = Self(rawValue: "HKHealthConceptDomainMedication")
}

/// A medication's general form (`HKMedicationGeneralForm`): the lowercase names as raw values.
public struct HKMedicationGeneralForm: RawRepresentable, Hashable, Sendable {
  /// The form's string.
  public let rawValue: String
  /// Wraps a form string.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// The "capsule" general form.
  public static let capsule = Self(rawValue: "capsule")
  /// The "cream" general form.
  public static let cream = Self(rawValue: "cream")
  /// The "device" general form.
  public static let device = Self(rawValue: "device")
  /// The "drops" general form.
  public static let drops = Self(rawValue: "drops")
  /// The "foam" general form.
  public static let foam = Self(rawValue: "foam")
  /// The "gel" general form.
  public static let gel = Self(rawValue: "gel")
  /// The "inhaler" general form.
  public static let inhaler = Self(rawValue: "inhaler")
  /// The "injection" general form.
  public static let injection = Self(rawValue: "injection")
  /// The "liquid" general form.
  public static let liquid = Self(rawValue: "liquid")
  /// The "lotion" general form.
  public static let lotion = Self(rawValue: "lotion")
  /// The "ointment" general form.
  public static let ointment = Self(rawValue: "ointment")
  /// The "patch" general form.
  public static let patch = Self(rawValue: "patch")
  /// The "powder" general form.
  public static let powder = Self(rawValue: "powder")
  /// The "spray" general form.
  public static let spray = Self(rawValue: "spray")
  /// The "suppository" general form.
  public static let suppository = Self(rawValue: "suppository")
  /// The "tablet" general form.
  public static let tablet = Self(rawValue: "tablet")
  /// The "topical" general form.
  public static let topical = Self(rawValue: "topical")
  /// The "unknown" general form.
  public static let unknown = Self(rawValue: "unknown")
}

/// The identifier of a health concept (`HKHealthConceptIdentifier`): the same on every device, equal to another of
/// the same concept; what dose events name their medication by.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKHealthConceptIdentifier: NSObject, @unchecked Sendable {
  /// The concept's domain.
  public let domain: HKHealthConceptDomain
  /// The underlying identifier (private in HealthKit).
  package let underlying: String

  /// The identifier of the concept `underlying` in `domain`.
  package init(_ underlying: String, domain: HKHealthConceptDomain = .medication) {
    self.underlying = underlying
    self.domain = domain
  }

  /// Equal to an identifier of the same domain and concept.
  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? HKHealthConceptIdentifier else { return false }
    return other.domain == domain && other.underlying == underlying
  }

  /// Hashes the domain and concept.
  public override var hash: Int { underlying.hashValue ^ domain.rawValue.hashValue }

  /// `<domain>:<identifier>`.
  public override var description: String { "\(domain.rawValue):\(underlying)" }
}

/// A code in an external terminology (`HKClinicalCoding`), modelled on FHIR's Coding.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKClinicalCoding: NSObject, @unchecked Sendable {
  /// The terminology's URI.
  public let system: String
  /// The terminology's version.
  public let version: String?
  /// The code.
  public let code: String

  /// Creates a coding.
  public init(system: String, version: String?, code: String) {
    self.system = system
    self.version = version
    self.code = code
  }

  /// Equal to a coding with the same system, version and code.
  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? HKClinicalCoding else { return false }
    return other.system == system && other.version == version && other.code == code
  }

  /// Hashes the system, version and code.
  public override var hash: Int {
    var hasher = Hasher()
    hasher.combine(system)
    hasher.combine(version)
    hasher.combine(code)
    return hasher.finalize()
  }
}

/// A medication concept (`HKMedicationConcept`): what the medication is.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKMedicationConcept: NSObject, @unchecked Sendable {
  /// The concept's identifier, the same across devices.
  public let identifier: HKHealthConceptIdentifier
  /// The name the Health app shows.
  public let displayText: String
  /// The general form.
  public let generalForm: HKMedicationGeneralForm
  /// Codes in external terminologies (RxNorm).
  public let relatedCodings: Set<HKClinicalCoding>

  init(_ medication: Medication) {
    identifier = HKHealthConceptIdentifier(medication.conceptID)
    displayText = medication.displayText
    generalForm = HKMedicationGeneralForm(rawValue: medication.generalForm)
    relatedCodings = Set(
      medication.codings.map { HKClinicalCoding(system: $0.system, version: $0.version, code: $0.code) })
  }
}

/// A medication the user added in the Health app (`HKUserAnnotatedMedication`), with the user's annotations.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKUserAnnotatedMedication: NSObject, @unchecked Sendable {
  /// The user's nickname for it.
  public let nickname: String?
  /// Whether the user archived it.
  public let isArchived: Bool
  /// Whether it has a schedule (scheduled medications can still be taken as needed).
  public let hasSchedule: Bool
  /// The medication itself.
  public let medication: HKMedicationConcept

  /// The object for a stored medication.
  package init(_ medication: Medication) {
    nickname = medication.nickname
    isArchived = medication.isArchived
    hasSchedule = medication.hasSchedule
    self.medication = HKMedicationConcept(medication)
  }
}

/// The medication type: `HKObjectType.userAnnotatedMedicationType()`; not a sample type; read only through
/// per-object authorization (requesting it with `requestAuthorization` would terminate the app).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKUserAnnotatedMedicationType: HKObjectType, @unchecked Sendable {}

/// The dose event type: `HKObjectType.medicationDoseEventType()`; read-only; its events are readable through their
/// medications.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKMedicationDoseEventType: HKSampleType, @unchecked Sendable {}

extension HKObjectType {
  /// The medication type.
  public static func userAnnotatedMedicationType() -> HKUserAnnotatedMedicationType {
    HKUserAnnotatedMedicationType(identifier: HKDataTypeIdentifierUserAnnotatedMedicationConcept)
  }
  /// The medication dose event type.
  public static func medicationDoseEventType() -> HKMedicationDoseEventType {
    HKMedicationDoseEventType(identifier: HKMedicationDoseEventTypeIdentifierMedicationDoseEvent)
  }
}

/// A logged dose of a medication (`HKMedicationDoseEvent`): written by the Health app or the watch's Medications
/// app, never by an app.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKMedicationDoseEvent: HKSample, @unchecked Sendable {
  /// What the person logged (Apple's raw values 1–6).
  public enum LogStatus: Int, Sendable {
    case notInteracted = 1
    case notificationNotSent = 2
    case snoozed = 3
    case taken = 4
    case skipped = 5
    case notLogged = 6
  }

  /// Scheduled or as needed (Apple's raw values).
  public enum ScheduleType: Int, Sendable {
    case asNeeded = 1
    case schedule = 2
  }

  /// The dose event type.
  public var medicationDoseEventType: HKMedicationDoseEventType { .medicationDoseEventType() }
  /// Scheduled or as needed.
  public let scheduleType: ScheduleType
  /// The medication's concept identifier.
  public let medicationConceptIdentifier: HKHealthConceptIdentifier
  /// When the dose was scheduled: set for `.schedule`, nil for `.asNeeded`.
  public let scheduledDate: Date?
  /// The scheduled amount.
  public let scheduledDoseQuantity: Double?
  /// The amount taken (by default the scheduled amount, or 1 as needed).
  public let doseQuantity: Double?
  /// What the person logged.
  public let logStatus: LogStatus
  /// The unit of the amounts (`count`).
  public var unit: HKUnit { .count() }

  /// The object for a stored dose event.
  package init(_ dose: MedicationDoseEvent) {
    scheduleType = ScheduleType(rawValue: dose.scheduleType.rawValue) ?? .asNeeded
    medicationConceptIdentifier = HKHealthConceptIdentifier(dose.conceptID)
    scheduledDate = dose.scheduledDate
    scheduledDoseQuantity = dose.scheduledDose
    doseQuantity = dose.dose
    logStatus = LogStatus(rawValue: dose.status.rawValue) ?? .notLogged
    super.init(
      uuid: dose.uuid, start: dose.date, end: dose.date, metadata: .valid(dose.metadata),
      origin: SampleOrigin(
        type: HKObjectType.medicationDoseEventType(), unit: nil, source: HKSourceRevision(dose.source)))
  }

  override var valueDescription: String? { "\(logStatus)" }
}
