import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// The special object families' rows of `RequestTable` and `ReplyTable` (opcodes 120–147 and 150, reply tags
// 100–110; docs/protocol.md).

extension RequestTable {
  /// The watch's ECG app records an electrocardiogram.
  package static let recordElectrocardiogram = RequestDefinition(
    .recordElectrocardiogram, Codec.Recording.self, answer: ReplyTable.ok, make: Request.recordElectrocardiogram,
    match: { if case .recordElectrocardiogram(let r) = $0 { r } else { nil } })
  /// `HKSampleQuery` of electrocardiograms.
  package static let electrocardiogramQuery = RequestDefinition(
    .electrocardiogramQuery, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.electrocardiogramHeaders,
    make: Request.electrocardiogramQuery,
    match: { if case .electrocardiogramQuery(let b, let q) = $0 { (b, q) } else { nil } },
    call: { b, _ in AppCall(b) })
  /// `HKElectrocardiogramQuery`: one recording's voltages.
  package static let electrocardiogramVoltages = RequestDefinition(
    .electrocardiogramVoltages, Codec.Bundle.self, Codec.Identifier.self, answer: ReplyTable.voltages,
    make: Request.electrocardiogramVoltages,
    match: { if case .electrocardiogramVoltages(let b, let u) = $0 { (b, u) } else { nil } },
    call: { b, u in AppCall(b, [LogField("ecg", "\(u)")]) })
  /// Stages electrocardiograms of an import.
  package static let importElectrocardiograms = RequestDefinition(
    .importElectrocardiograms, Codec.ImportID.self, Codec.Many<Codec.StoredECG>.self, answer: ReplyTable.ok,
    make: Request.importElectrocardiograms,
    match: { if case .importElectrocardiograms(let i, let e) = $0 { (i, e) } else { nil } })
  /// One page of the stored electrocardiograms, with voltages.
  package static let storedElectrocardiograms = RequestDefinition(
    .storedElectrocardiograms, Codec.Count.self, answer: ReplyTable.electrocardiograms,
    make: Request.storedElectrocardiograms,
    match: { if case .storedElectrocardiograms(let offset) = $0 { offset } else { nil } })
  /// `save(_:)` of an array mixing object families, all or nothing.
  package static let saveFamilies = RequestDefinition(
    .saveFamilies, Codec.Bundle.self, Codec.Many<Codec.NewSample>.self, Codec.Many<Codec.NewCorrelation>.self,
    Codec.Many<Codec.NewWorkout>.self, Codec.Many<Codec.NewAudiogram>.self, Codec.Many<Codec.NewStateOfMind>.self,
    Codec.Many<Codec.NewVisionPrescription>.self, Codec.Many<Codec.NewScoredAssessment>.self,
    Codec.Many<Codec.NewCDADocument>.self, answer: ReplyTable.ok, make: Request.saveFamilies,
    match: {
      if case .saveFamilies(let b, let s, let c, let w, let a, let m, let p, let q, let d) = $0 {
        (b, s, c, w, a, m, p, q, d)
      } else {
        nil
      }
    },
    call: { b, s, c, w, a, m, p, q, d in
      AppCall(
        b,
        [
          ("samples", s.count), ("correlations", c.count), ("workouts", w.count), ("audiograms", a.count),
          ("statesOfMind", m.count), ("prescriptions", p.count), ("assessments", q.count), ("documents", d.count),
        ]
        .filter { $0.1 > 0 }.map { LogField($0.0, "\($0.1)") })
    })
  /// `save(_:)` of audiograms.
  package static let saveAudiograms = RequestDefinition(
    .saveAudiograms, Codec.Bundle.self, Codec.Many<Codec.NewAudiogram>.self, answer: ReplyTable.ok,
    make: Request.saveAudiograms,
    match: { if case .saveAudiograms(let b, let a) = $0 { (b, a) } else { nil } },
    call: { b, a in AppCall(b, [LogField("audiograms", "\(a.count)")]) })
  /// `HKSampleQuery` of audiograms.
  package static let audiogramQuery = RequestDefinition(
    .audiogramQuery, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.audiograms, make: Request.audiogramQuery,
    match: { if case .audiogramQuery(let b, let q) = $0 { (b, q) } else { nil } }, call: { b, _ in AppCall(b) })
  /// Stages audiograms of an import.
  package static let importAudiograms = RequestDefinition(
    .importAudiograms, Codec.ImportID.self, Codec.Many<Codec.StoredAudiogram>.self, answer: ReplyTable.ok,
    make: Request.importAudiograms,
    match: { if case .importAudiograms(let i, let a) = $0 { (i, a) } else { nil } })
  /// Every audiogram on the device.
  package static let storedAudiograms = RequestDefinition(
    .storedAudiograms, answer: ReplyTable.audiograms, make: { Request.storedAudiograms },
    match: { if case .storedAudiograms = $0 { () } else { nil } })
  /// `save(_:)` of States of Mind.
  package static let saveStatesOfMind = RequestDefinition(
    .saveStatesOfMind, Codec.Bundle.self, Codec.Many<Codec.NewStateOfMind>.self, answer: ReplyTable.ok,
    make: Request.saveStatesOfMind,
    match: { if case .saveStatesOfMind(let b, let s) = $0 { (b, s) } else { nil } },
    call: { b, s in AppCall(b, [LogField("states", "\(s.count)")]) })
  /// `HKSampleQuery` of States of Mind.
  package static let stateOfMindQuery = RequestDefinition(
    .stateOfMindQuery, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.statesOfMind,
    make: Request.stateOfMindQuery,
    match: { if case .stateOfMindQuery(let b, let q) = $0 { (b, q) } else { nil } }, call: { b, _ in AppCall(b) })
  /// A provider's clinical records arrive.
  package static let receiveClinicalRecords = RequestDefinition(
    .receiveClinicalRecords, Codec.Many<Codec.StoredClinicalRecord>.self, answer: ReplyTable.ok,
    make: Request.receiveClinicalRecords, match: { if case .receiveClinicalRecords(let r) = $0 { r } else { nil } })
  /// `HKSampleQuery` of a clinical type.
  package static let clinicalRecordQuery = RequestDefinition(
    .clinicalRecordQuery, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.clinicalRecords,
    make: Request.clinicalRecordQuery,
    match: { if case .clinicalRecordQuery(let b, let q) = $0 { (b, q) } else { nil } }, call: { b, _ in AppCall(b) })
  /// `save(_:)` of vision prescriptions.
  package static let saveVisionPrescriptions = RequestDefinition(
    .saveVisionPrescriptions, Codec.Bundle.self, Codec.Many<Codec.NewVisionPrescription>.self,
    answer: ReplyTable.ok, make: Request.saveVisionPrescriptions,
    match: { if case .saveVisionPrescriptions(let b, let p) = $0 { (b, p) } else { nil } },
    call: { b, p in AppCall(b, [LogField("prescriptions", "\(p.count)")]) })
  /// `HKSampleQuery` of vision prescriptions.
  package static let visionPrescriptionQuery = RequestDefinition(
    .visionPrescriptionQuery, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.visionPrescriptions,
    make: Request.visionPrescriptionQuery,
    match: { if case .visionPrescriptionQuery(let b, let q) = $0 { (b, q) } else { nil } },
    call: { b, _ in AppCall(b) })
  /// Stages vision prescriptions of an import.
  package static let importVisionPrescriptions = RequestDefinition(
    .importVisionPrescriptions, Codec.ImportID.self, Codec.Many<Codec.StoredVisionPrescription>.self,
    answer: ReplyTable.ok, make: Request.importVisionPrescriptions,
    match: { if case .importVisionPrescriptions(let i, let p) = $0 { (i, p) } else { nil } })
  /// Every vision prescription on the device.
  package static let storedVisionPrescriptions = RequestDefinition(
    .storedVisionPrescriptions, answer: ReplyTable.visionPrescriptions, make: { Request.storedVisionPrescriptions },
    match: { if case .storedVisionPrescriptions = $0 { () } else { nil } })
  /// Stages clinical records of an import.
  package static let importClinicalRecords = RequestDefinition(
    .importClinicalRecords, Codec.ImportID.self, Codec.Many<Codec.StoredClinicalRecord>.self, answer: ReplyTable.ok,
    make: Request.importClinicalRecords,
    match: { if case .importClinicalRecords(let i, let r) = $0 { (i, r) } else { nil } })
  /// Every clinical record on the device.
  package static let storedClinicalRecords = RequestDefinition(
    .storedClinicalRecords, answer: ReplyTable.clinicalRecords, make: { Request.storedClinicalRecords },
    match: { if case .storedClinicalRecords = $0 { () } else { nil } })
  /// `save(_:)` of scored assessments.
  package static let saveScoredAssessments = RequestDefinition(
    .saveScoredAssessments, Codec.Bundle.self, Codec.Many<Codec.NewScoredAssessment>.self, answer: ReplyTable.ok,
    make: Request.saveScoredAssessments,
    match: { if case .saveScoredAssessments(let b, let a) = $0 { (b, a) } else { nil } },
    call: { b, a in AppCall(b, [LogField("assessments", "\(a.count)")]) })
  /// `HKSampleQuery` of a scored assessment type.
  package static let scoredAssessmentQuery = RequestDefinition(
    .scoredAssessmentQuery, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.scoredAssessments,
    make: Request.scoredAssessmentQuery,
    match: { if case .scoredAssessmentQuery(let b, let q) = $0 { (b, q) } else { nil } },
    call: { b, q in AppCall(b, [LogField("type", q.type.name)]) })
  /// `save(_:)` of CDA documents.
  package static let saveCDADocuments = RequestDefinition(
    .saveCDADocuments, Codec.Bundle.self, Codec.Many<Codec.NewCDADocument>.self, answer: ReplyTable.ok,
    make: Request.saveCDADocuments,
    match: { if case .saveCDADocuments(let b, let d) = $0 { (b, d) } else { nil } },
    call: { b, d in AppCall(b, [LogField("documents", "\(d.count)")]) })
  /// `HKDocumentQuery` and `HKSampleQuery` of CDA documents.
  package static let cdaDocumentQuery = RequestDefinition(
    .cdaDocumentQuery, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.cdaDocuments,
    make: Request.cdaDocumentQuery,
    match: { if case .cdaDocumentQuery(let b, let q) = $0 { (b, q) } else { nil } }, call: { b, _ in AppCall(b) })
  /// The user adds medications.
  package static let addMedications = RequestDefinition(
    .addMedications, Codec.Many<Codec.StoredMedication>.self, answer: ReplyTable.ok, make: Request.addMedications,
    match: { if case .addMedications(let m) = $0 { m } else { nil } })
  /// The user logs medication doses.
  package static let logMedicationDoses = RequestDefinition(
    .logMedicationDoses, Codec.Many<Codec.StoredMedicationDose>.self, answer: ReplyTable.ok,
    make: Request.logMedicationDoses, match: { if case .logMedicationDoses(let d) = $0 { d } else { nil } })
  /// `HKUserAnnotatedMedicationQuery`.
  package static let medicationQuery = RequestDefinition(
    .medicationQuery, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.medications,
    make: Request.medicationQuery,
    match: { if case .medicationQuery(let b, let q) = $0 { (b, q) } else { nil } }, call: { b, _ in AppCall(b) })
  /// `HKSampleQuery` of medication dose events.
  package static let medicationDoseQuery = RequestDefinition(
    .medicationDoseQuery, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.medicationDoses,
    make: Request.medicationDoseQuery,
    match: { if case .medicationDoseQuery(let b, let q) = $0 { (b, q) } else { nil } }, call: { b, _ in AppCall(b) })
  /// `requestPerObjectReadAuthorization(for:predicate:)`.
  package static let requestPerObjectRead = RequestDefinition(
    .requestPerObjectRead, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.authorization,
    make: Request.requestPerObjectRead,
    match: { if case .requestPerObjectRead(let b, let q) = $0 { (b, q) } else { nil } },
    call: { b, q in AppCall(b, [LogField("type", q.type.name)]) })
}

extension ReplyTable {
  /// Electrocardiograms with their voltages.
  package static let electrocardiograms = ReplyDefinition(
    .electrocardiograms, Codec.Many<Codec.StoredECG>.self, make: Reply.electrocardiograms,
    match: { if case .electrocardiograms(let e) = $0 { e } else { nil } },
    log: { [LogField("results", "\($0.count)")] })
  /// Electrocardiogram headers: recordings whose voltages are left out.
  package static let electrocardiogramHeaders = ReplyDefinition(
    .electrocardiogramHeaders, Codec.Many<Codec.ECGHeader>.self, make: Reply.electrocardiogramHeaders,
    match: { if case .electrocardiogramHeaders(let e) = $0 { e } else { nil } },
    log: { [LogField("results", "\($0.count)")] })
  /// One recording's voltages.
  package static let voltages = ReplyDefinition(
    .voltages, Codec.Voltages.self, make: Reply.voltages,
    match: { if case .voltages(let v) = $0 { v } else { nil } }, log: { [LogField("voltages", "\($0.count)")] })
  /// Audiograms.
  package static let audiograms = ReplyDefinition(
    .audiograms, Codec.Many<Codec.StoredAudiogram>.self, make: Reply.audiograms,
    match: { if case .audiograms(let a) = $0 { a } else { nil } }, log: { [LogField("results", "\($0.count)")] })
  /// States of Mind.
  package static let statesOfMind = ReplyDefinition(
    .statesOfMind, Codec.Many<Codec.StoredStateOfMind>.self, make: Reply.statesOfMind,
    match: { if case .statesOfMind(let s) = $0 { s } else { nil } }, log: { [LogField("results", "\($0.count)")] })
  /// Clinical records.
  package static let clinicalRecords = ReplyDefinition(
    .clinicalRecords, Codec.Many<Codec.StoredClinicalRecord>.self, make: Reply.clinicalRecords,
    match: { if case .clinicalRecords(let r) = $0 { r } else { nil } }, log: { [LogField("results", "\($0.count)")] })
  /// Vision prescriptions.
  package static let visionPrescriptions = ReplyDefinition(
    .visionPrescriptions, Codec.Many<Codec.StoredVisionPrescription>.self, make: Reply.visionPrescriptions,
    match: { if case .visionPrescriptions(let p) = $0 { p } else { nil } },
    log: { [LogField("results", "\($0.count)")] })
  /// CDA documents.
  package static let cdaDocuments = ReplyDefinition(
    .cdaDocuments, Codec.Many<Codec.StoredCDADocument>.self, make: Reply.cdaDocuments,
    match: { if case .cdaDocuments(let d) = $0 { d } else { nil } }, log: { [LogField("results", "\($0.count)")] })
  /// Scored assessments.
  package static let scoredAssessments = ReplyDefinition(
    .scoredAssessments, Codec.Many<Codec.StoredScoredAssessment>.self, make: Reply.scoredAssessments,
    match: { if case .scoredAssessments(let a) = $0 { a } else { nil } },
    log: { [LogField("results", "\($0.count)")] })
  /// Medications.
  package static let medications = ReplyDefinition(
    .medications, Codec.Many<Codec.StoredMedication>.self, make: Reply.medications,
    match: { if case .medications(let m) = $0 { m } else { nil } }, log: { [LogField("results", "\($0.count)")] })
  /// Medication dose events.
  package static let medicationDoses = ReplyDefinition(
    .medicationDoses, Codec.Many<Codec.StoredMedicationDose>.self, make: Reply.medicationDoses,
    match: { if case .medicationDoses(let d) = $0 { d } else { nil } },
    log: { [LogField("results", "\($0.count)")] })
}
