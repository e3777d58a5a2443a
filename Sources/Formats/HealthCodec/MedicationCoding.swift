import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encodings of medications and their dose events, shared by the wire protocol, the journal and snapshots
// (docs/journal.md).
//
// coding      := system string | version optional string | code string
// medication  := concept string | displayText string | generalForm string | [coding] | nickname optional string
//                | isArchived bool | hasSchedule bool | added date | source
//                (the store identifier derives from the concept: it is not written)
// dose        := uuid | concept string | date | status u8 (1–6) | scheduledDate optional date
//                | scheduledDose optional f64 | dose optional f64 | metadata | source
//                (a reader refuses what ``MedicationDoseEvent/validate()`` refuses)
// medications := u8 6 | [medication, change u64] | [dose, change u64] | [app string, [uuid, on bool]]
//                (a snapshot's trailing section after the assessments section, written only when a medication or
//                dose is stored; absent: none; the choices are those naming medications)

/// The smallest encoded medication: empty strings, no codings, the shortest source.
package let minimumMedicationSize = 3 * 4 + 4 + 1 + 2 + 8 + 5
/// The smallest encoded dose event: no optional values or metadata, the shortest source.
package let minimumMedicationDoseSize = 16 + 4 + 8 + 1 + 3 + 4 + 5

extension BinaryWriter {
  /// A medication (layout above).
  package mutating func medication(_ m: Medication) {
    string(m.conceptID)
    string(m.displayText)
    string(m.generalForm)
    array(m.codings) { w, coding in
      w.string(coding.system)
      w.optional(coding.version) { $0.string($1) }
      w.string(coding.code)
    }
    optional(m.nickname) { $0.string($1) }
    bool(m.isArchived)
    bool(m.hasSchedule)
    date(m.added)
    source(m.source)
  }

  /// A dose event (layout above).
  package mutating func medicationDose(_ d: MedicationDoseEvent) {
    uuid(d.uuid)
    string(d.conceptID)
    date(d.date)
    u8(UInt8(d.status.rawValue))
    optional(d.scheduledDate) { $0.date($1) }
    optional(d.scheduledDose) { $0.f64($1) }
    optional(d.dose) { $0.f64($1) }
    metadata(d.metadata)
    source(d.source)
  }

  /// A snapshot's trailing medications section, when a medication or dose is stored (layout above).
  package mutating func medicationsSection(_ store: SpecialObjectStore) {
    guard !store.hasNoMedications else { return }
    u8(6)
    entries(store.medications.ordered) { $0.medication($1) }
    entries(store.medicationDoses.ordered) { $0.medicationDose($1) }
    objectChoicesList(store.objectReadChoices, of: store.medications.contains)
  }
}

extension BinaryReader {
  /// Reads a medication: one ``Medication/validate()`` accepts.
  package mutating func medication() throws(DecodeError) -> Medication {
    let start = offset
    let limit = Medication.maxTextLength
    let concept = try string(maxLength: limit)
    let display = try string(maxLength: limit)
    let form = try string(maxLength: limit)
    let codings = try array(minElementSize: 9) { r throws(DecodeError) in
      ClinicalCoding(
        system: try r.string(maxLength: limit),
        version: try r.optional { r throws(DecodeError) in try r.string(maxLength: limit) },
        code: try r.string(maxLength: limit))
    }
    let nickname = try optional { r throws(DecodeError) in try r.string(maxLength: limit) }
    let medication = Medication(
      conceptID: concept, displayText: display, generalForm: form, codings: codings, nickname: nickname,
      isArchived: try bool(), hasSchedule: try bool(), added: try finiteDate("medication date"), source: try source())
    guard medication.codings == codings, Set(codings).count == codings.count else {
      throw error("medication codings out of order or repeated")
    }
    do { try medication.validate() } catch {
      throw DecodeError(offset: reportBase + start, "medication '\(concept)' is not valid: \(error.message)")
    }
    return medication
  }

  /// Reads a dose event: one ``MedicationDoseEvent/validate()`` accepts.
  package mutating func medicationDose() throws(DecodeError) -> MedicationDoseEvent {
    let start = offset
    let uuid = try uuid()
    let concept = try string(maxLength: Medication.maxTextLength)
    let date = try finiteDate("dose date")
    let raw = try u8()
    guard let status = DoseLogStatus(rawValue: Int(raw)) else { throw error("unknown dose log status \(raw)") }
    let scheduled = try optional { r throws(DecodeError) in try r.finiteDate("scheduled date") }
    let scheduledDose = try optional { r throws(DecodeError) in try r.f64() }
    let amount = try optional { r throws(DecodeError) in try r.f64() }
    var dose = MedicationDoseEvent(
      uuid: uuid, conceptID: concept, date: date, status: status, scheduledDate: scheduled,
      metadata: try metadata(finite: true), source: try source())
    // As written, not defaulted: a stored event carries its amounts.
    dose.scheduledDose = scheduledDose
    dose.dose = amount
    do { try dose.validate() } catch {
      throw DecodeError(offset: reportBase + start, "dose event \(uuid) is not valid: \(error.message)")
    }
    return dose
  }

  /// Reads a snapshot's medications section after its tag into `store`, whose other shelves are read already.
  /// - Throws: ``DecodeError`` for a malformed list, an identifier another family holds, or a dose of a medication
  ///   the section does not hold.
  package mutating func medicationsSection(into store: inout SpecialObjectStore, changeCounter: UInt64)
    throws(DecodeError)
  {
    let medications = try entries(minValueSize: minimumMedicationSize) { r throws(DecodeError) in try r.medication() }
    let doses = try entries(minValueSize: minimumMedicationDoseSize) { r throws(DecodeError) in try r.medicationDose() }
    let concepts = Set(medications.map(\.value.conceptID))
    if let orphan = doses.first(where: { !concepts.contains($0.value.conceptID) }) {
      throw error("dose event \(orphan.value.uuid) names no stored medication '\(orphan.value.conceptID)'")
    }
    var choices = store.objectReadChoices
    for (app, chosen) in try objectChoicesList() {
      choices[app, default: [:]].merge(chosen) { _, new in new }
    }
    do {
      store = try SpecialObjectStore(
        restoring: store.electrocardiograms.ordered, audiograms: store.audiograms.ordered,
        statesOfMind: store.statesOfMind.ordered, clinicalRecords: store.clinicalRecords.ordered,
        visionPrescriptions: store.visionPrescriptions.ordered, objectReadChoices: choices,
        scoredAssessments: store.scoredAssessments.ordered, cdaDocuments: store.cdaDocuments.ordered,
        medications: medications, medicationDoses: doses, changeCounter: changeCounter)
    } catch {
      throw self.error(error.message)
    }
  }
}

extension Fields {
  /// `[medication]`.
  static let medications = RecordField<[Medication]>(
    write: { w, medications in w.array(medications) { $0.medication($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: minimumMedicationSize) { r throws(DecodeError) in try r.medication() }
    })
  /// `[dose]`.
  static let medicationDoses = RecordField<[MedicationDoseEvent]>(
    write: { w, doses in w.array(doses) { $0.medicationDose($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: minimumMedicationDoseSize) { r throws(DecodeError) in try r.medicationDose() }
    })
}
