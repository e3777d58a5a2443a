import FoundationEssentials

/// A code in an external terminology (`HKClinicalCoding`): RxNorm's, for example.
package struct ClinicalCoding: Hashable, Sendable, Comparable {
  /// The terminology's URI (`http://www.nlm.nih.gov/research/umls/rxnorm`).
  package var system: String
  /// The terminology's version, if any.
  package var version: String?
  /// The code in it.
  package var code: String

  /// Creates a coding.
  package init(system: String, version: String? = nil, code: String) {
    self.system = system
    self.version = version
    self.code = code
  }

  /// Orders by system, version, code (a stable order for encodings).
  package static func < (a: ClinicalCoding, b: ClinicalCoding) -> Bool {
    (a.system, a.version ?? "", a.code) < (b.system, b.version ?? "", b.code)
  }

  /// RxNorm's system URI, as Apple's documentation gives it.
  package static let rxNormSystem = "http://www.nlm.nih.gov/research/umls/rxnorm"
}

/// A medication the user added in the Health app (`HKUserAnnotatedMedication` with its `HKMedicationConcept`, iOS 26):
/// only the user's world adds one; apps read it object by object (behavior.md section Z).
package struct Medication: Hashable, Sendable {
  /// The store's identifier of the medication, derived from ``conceptID`` (``identifier(for:)``), so both devices
  /// name it alike. Apps never see it: they compare concept identifiers.
  package var uuid: UUID
  /// The concept's underlying identifier (`HKHealthConceptIdentifier`, domain medication): what dose events name.
  package var conceptID: String
  /// The concept's display text (`displayText`).
  package var displayText: String
  /// The concept's general form (`HKMedicationGeneralForm`'s raw value: one of ``generalForms``).
  package var generalForm: String
  /// The concept's related codings, sorted.
  package var codings: [ClinicalCoding]
  /// The user's nickname for it, if any.
  package var nickname: String?
  /// Whether the user archived it.
  package var isArchived: Bool
  /// Whether it has a schedule.
  package var hasSchedule: Bool
  /// When the user added it.
  package var added: Date
  /// The app and device it was added with (the Health app on that device).
  package var source: SampleSource

  /// Creates a medication; ``validate()`` checks its fields.
  package init(
    conceptID: String, displayText: String, generalForm: String = "unknown", codings: [ClinicalCoding] = [],
    nickname: String? = nil, isArchived: Bool = false, hasSchedule: Bool = false, added: Date,
    source: SampleSource
  ) {
    self.uuid = Self.identifier(for: conceptID)
    self.conceptID = conceptID
    self.displayText = displayText
    self.generalForm = generalForm
    self.codings = codings.sorted()
    self.nickname = nickname
    self.isArchived = isArchived
    self.hasSchedule = hasSchedule
    self.added = added
    self.source = source
  }

  /// The store identifier of the medication with concept `conceptID`: a name-based identifier (FNV-1a over the
  /// concept, version nibble 5), the same on every device.
  package static func identifier(for conceptID: String) -> UUID {
    var a: UInt64 = 0xcbf2_9ce4_8422_2325
    var b: UInt64 = 0x8422_2325_cbf2_9ce4
    for byte in "medication:\(conceptID)".utf8 {
      a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
      b = (b ^ UInt64(byte) ^ (a >> 29)) &* 0x100_0000_01b3
    }
    var bytes = [UInt8](repeating: 0, count: 16)
    for i in 0..<8 {
      bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i)))
      bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i)))
    }
    bytes[6] = (bytes[6] & 0x0F) | 0x50
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
        bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }

  /// `HKMedicationGeneralForm`'s values (its raw values are the lowercase names).
  package static let generalForms: Set<String> = [
    "capsule", "cream", "device", "drops", "foam", "gel", "inhaler", "injection", "liquid", "lotion", "ointment",
    "patch", "powder", "spray", "suppository", "tablet", "topical", "unknown",
  ]

  /// The longest concept identifier, display text, nickname or coding field accepted (bytes of UTF-8).
  package static let maxTextLength = 256

  /// The most codings one medication carries.
  package static let maxCodings = 16

  /// Checks the fields as the Health app's entry would produce them: a concept identifier and display text that are
  /// not empty, a known general form, texts and codings within their limits, a finite date.
  /// - Throws: `errorInvalidArgument` naming the field.
  package func validate() throws(HealthError) {
    func text(_ value: String, _ name: String, empty: Bool = false) throws(HealthError) {
      guard empty || !value.isEmpty else {
        throw .healthKit(.errorInvalidArgument, "the medication's \(name) is empty")
      }
      guard value.utf8.count <= Self.maxTextLength else {
        throw .healthKit(.errorInvalidArgument, "the medication's \(name) is over \(Self.maxTextLength) bytes")
      }
    }
    try text(conceptID, "concept identifier")
    try text(displayText, "display text")
    if let nickname { try text(nickname, "nickname") }
    guard Self.generalForms.contains(generalForm) else {
      throw .healthKit(
        .errorInvalidArgument,
        "'\(generalForm)' is not a medication general form (\(Self.generalForms.sorted().joined(separator: ", ")))")
    }
    guard codings.count <= Self.maxCodings else {
      throw .healthKit(.errorInvalidArgument, "a medication carries at most \(Self.maxCodings) codings")
    }
    for coding in codings {
      try text(coding.system, "coding system")
      try text(coding.code, "coding code")
      if let version = coding.version { try text(version, "coding version", empty: true) }
    }
    guard added.timeIntervalSinceReferenceDate.isFinite else {
      throw .healthKit(.errorInvalidArgument, "the medication's date is not finite")
    }
    guard uuid == Self.identifier(for: conceptID) else {
      throw .healthKit(.errorInvalidArgument, "the medication's identifier does not derive from its concept")
    }
  }
}

/// `HKMedicationDoseEvent.LogStatus`, with Apple's raw values.
package enum DoseLogStatus: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `notInteracted`: a scheduled dose the person did not log.
  case notInteracted = 1
  /// `notificationNotSent`: the reminder could not be delivered.
  case notificationNotSent = 2
  /// `snoozed`: the person snoozed the reminder.
  case snoozed = 3
  /// `taken`.
  case taken = 4
  /// `skipped`.
  case skipped = 5
  /// `notLogged`: the person undid a logged status.
  case notLogged = 6

  /// The Swift case name (`taken`).
  package var description: String {
    switch self {
    case .notInteracted: "notInteracted"
    case .notificationNotSent: "notificationNotSent"
    case .snoozed: "snoozed"
    case .taken: "taken"
    case .skipped: "skipped"
    case .notLogged: "notLogged"
    }
  }

  /// Parses a case name.
  package init?(name: String) {
    guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
    self = match
  }
}

/// `HKMedicationDoseEvent.ScheduleType`, with Apple's raw values.
package enum DoseScheduleType: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `asNeeded`: logged without a schedule.
  case asNeeded = 1
  /// `schedule`: a scheduled dose.
  case schedule = 2

  /// The Swift case name.
  package var description: String { self == .asNeeded ? "asNeeded" : "schedule" }
}

/// A logged dose of a medication (`HKMedicationDoseEvent`, iOS 26): written by the Health app on the iPhone or the
/// Medications app on the watch, never by an app; read through its medication (behavior.md section Z).
package struct MedicationDoseEvent: Hashable, Sendable {
  /// The sample's identifier.
  package var uuid: UUID
  /// The concept identifier of its medication (``Medication/conceptID``).
  package var conceptID: String
  /// When it was logged (start and end).
  package var date: Date
  /// What the person logged.
  package var status: DoseLogStatus
  /// Scheduled or as needed.
  package var scheduleType: DoseScheduleType
  /// When the dose was scheduled: set for `schedule`, nil for `asNeeded`.
  package var scheduledDate: Date?
  /// The scheduled amount (scheduled doses only).
  package var scheduledDose: Double?
  /// The amount taken: by default the scheduled amount, or 1 as needed.
  package var dose: Double?
  /// The sample's metadata.
  package var metadata: Metadata
  /// The app and device that logged it.
  package var source: SampleSource

  /// Creates a dose event; ``validate()`` checks it. `dose` nil takes the default (the scheduled amount, else 1) for
  /// a taken dose.
  package init(
    uuid: UUID, conceptID: String, date: Date, status: DoseLogStatus, scheduledDate: Date? = nil,
    scheduledDose: Double? = nil, dose: Double? = nil, metadata: Metadata = [:], source: SampleSource
  ) {
    self.uuid = uuid
    self.conceptID = conceptID
    self.date = date
    self.status = status
    self.scheduleType = scheduledDate == nil ? .asNeeded : .schedule
    self.scheduledDate = scheduledDate
    self.scheduledDose = scheduledDate == nil ? nil : (scheduledDose ?? 1)
    self.dose = dose ?? (status == .taken ? (self.scheduledDose ?? 1) : nil)
    self.metadata = metadata
    self.source = source
  }

  /// The end of the sample: its date.
  package var end: Date { date }

  /// `HKMedicationDoseEvent.unit`: doses count units of the medication's form.
  package static let unit = "count"

  /// Checks the event: finite dates, a scheduled date exactly for scheduled doses, amounts positive and finite.
  /// - Throws: `errorInvalidArgument` naming the field.
  package func validate() throws(HealthError) {
    try checkObjectDates(date, date, "HKMedicationDoseEvent")
    guard !conceptID.isEmpty, conceptID.utf8.count <= Medication.maxTextLength else {
      throw .healthKit(.errorInvalidArgument, "a dose event names a medication concept of 1–256 bytes")
    }
    guard (scheduleType == .schedule) == (scheduledDate != nil) else {
      throw .healthKit(.errorInvalidArgument, "a scheduled dose has a scheduled date; an as-needed one has none")
    }
    if let scheduledDate, !scheduledDate.timeIntervalSinceReferenceDate.isFinite {
      throw .healthKit(.errorInvalidArgument, "the scheduled date is not finite")
    }
    for amount in [scheduledDose, dose].compactMap({ $0 }) where !(amount.isFinite && amount > 0) {
      throw .healthKit(.errorInvalidArgument, "a dose amount must be positive and finite, not \(amount)")
    }
    if scheduleType == .asNeeded, scheduledDose != nil {
      throw .healthKit(.errorInvalidArgument, "an as-needed dose has no scheduled amount")
    }
    try metadata.checkValues()
  }
}
