import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

// The special object families' operations (docs/protocol.md, opcodes 120–143; medications' are in
// `DeviceOperation+Medications.swift`): one named factory per request, each the request's row in
// `RequestTable+Objects.swift` with its fields labelled.

extension DeviceOperation where Value == Void {
  /// The watch's ECG app records `recording` (the user's world; fails on the iPhone).
  package static func recordElectrocardiogram(_ recording: ECGRecording) -> Self {
    Self(RequestTable.recordElectrocardiogram, recording)
  }
  /// Stages electrocardiograms of an import; stored at ``importCommit(_:characteristics:)``.
  package static func importElectrocardiograms(_ importID: UInt64, _ ecgs: [Electrocardiogram]) -> Self {
    Self(RequestTable.importElectrocardiograms, importID, ecgs)
  }
  /// `save(_:)` of an array mixing object families, all or nothing (empty lists for the families it lacks).
  package static func saveFamilies(
    _ bundleID: String, samples: [SampleInput] = [], correlations: [CorrelationInput] = [],
    workouts: [WorkoutInput] = [], audiograms: [AudiogramInput] = [], statesOfMind: [StateOfMindInput] = [],
    prescriptions: [VisionPrescription] = [], assessments: [ScoredAssessmentInput] = [], documents: [CDADocument] = []
  ) -> Self {
    Self(
      RequestTable.saveFamilies, bundleID, samples, correlations, workouts, audiograms, statesOfMind, prescriptions,
      assessments, documents)
  }
  /// `save(_:)` of audiograms, all or nothing.
  package static func saveAudiograms(_ bundleID: String, _ audiograms: [AudiogramInput]) -> Self {
    Self(RequestTable.saveAudiograms, bundleID, audiograms)
  }
  /// Stages audiograms of an import; stored at its commit.
  package static func importAudiograms(_ importID: UInt64, _ audiograms: [Audiogram]) -> Self {
    Self(RequestTable.importAudiograms, importID, audiograms)
  }
  /// `save(_:)` of States of Mind, all or nothing.
  package static func saveStatesOfMind(_ bundleID: String, _ states: [StateOfMindInput]) -> Self {
    Self(RequestTable.saveStatesOfMind, bundleID, states)
  }
  /// `save(_:)` of GAD-7 and PHQ-9 assessments, all or nothing.
  package static func saveScoredAssessments(_ bundleID: String, _ assessments: [ScoredAssessmentInput]) -> Self {
    Self(RequestTable.saveScoredAssessments, bundleID, assessments)
  }
  /// `save(_:)` of CDA documents, all or nothing (the iPhone only).
  package static func saveCDADocuments(_ bundleID: String, _ documents: [CDADocument]) -> Self {
    Self(RequestTable.saveCDADocuments, bundleID, documents)
  }
  /// A provider's clinical records arrive on the iPhone (the user's world; fails on the watch).
  package static func receiveClinicalRecords(_ records: [ClinicalRecord]) -> Self {
    Self(RequestTable.receiveClinicalRecords, records)
  }
  /// Stages clinical records of an import; stored at its commit (the watch leaves them out).
  package static func importClinicalRecords(_ importID: UInt64, _ records: [ClinicalRecord]) -> Self {
    Self(RequestTable.importClinicalRecords, importID, records)
  }
  /// Stages vision prescriptions of an import; stored at its commit (the watch leaves them out).
  package static func importVisionPrescriptions(_ importID: UInt64, _ prescriptions: [VisionPrescription]) -> Self {
    Self(RequestTable.importVisionPrescriptions, importID, prescriptions)
  }
  /// `save(_:)` of vision prescriptions, all or nothing (the device sets their source).
  package static func saveVisionPrescriptions(_ bundleID: String, _ prescriptions: [VisionPrescription]) -> Self {
    Self(RequestTable.saveVisionPrescriptions, bundleID, prescriptions)
  }
}

extension DeviceOperation where Value == [VisionPrescription] {
  /// `HKSampleQuery` of vision prescriptions: the ones the app may read, object by object.
  package static func visionPrescriptionQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.visionPrescriptionQuery, bundleID, query)
  }
  /// Every vision prescription on the device, whatever app saved it (exports, tests).
  package static var storedVisionPrescriptions: Self { Self(RequestTable.storedVisionPrescriptions) }
}

extension DeviceOperation where Value == AuthorizationCallResult {
  /// `requestPerObjectReadAuthorization(for:predicate:)` of the query's type, listing what its range, sources and
  /// filter match: completes when the user answers the sheet.
  package static func requestPerObjectRead(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.requestPerObjectRead, bundleID, query)
  }
}

extension DeviceOperation where Value == [ClinicalRecord] {
  /// Every clinical record on the device (exports, tests).
  package static var storedClinicalRecords: Self { Self(RequestTable.storedClinicalRecords) }
  /// `HKSampleQuery` of a clinical type: the records of it the app may read.
  package static func clinicalRecordQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.clinicalRecordQuery, bundleID, query)
  }
}

extension DeviceOperation where Value == [StateOfMind] {
  /// `HKSampleQuery` of States of Mind: the ones the app may read.
  package static func stateOfMindQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.stateOfMindQuery, bundleID, query)
  }
}

extension DeviceOperation where Value == [ScoredAssessment] {
  /// `HKSampleQuery` of a scored assessment type: the assessments of it the app may read.
  package static func scoredAssessmentQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.scoredAssessmentQuery, bundleID, query)
  }
}

extension DeviceOperation where Value == [CDADocument] {
  /// `HKDocumentQuery` (after its sheet) and `HKSampleQuery` of CDA documents: the documents the app may read.
  package static func cdaDocumentQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.cdaDocumentQuery, bundleID, query)
  }
}

extension DeviceOperation where Value == [Audiogram] {
  /// `HKSampleQuery` of audiograms: the ones the app may read.
  package static func audiogramQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.audiogramQuery, bundleID, query)
  }
  /// Every audiogram on the device, whatever app saved it (exports, tests).
  package static var storedAudiograms: Self { Self(RequestTable.storedAudiograms) }
}

extension DeviceOperation where Value == [Electrocardiogram] {
  /// `HKSampleQuery` of electrocardiograms: the recordings the app may read, without their voltages.
  package static func electrocardiogramQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.electrocardiogramQuery, bundleID, query)
  }
  /// One page (from position `offset`, at most 32) of the stored electrocardiograms with their voltages (exports,
  /// tests).
  package static func storedElectrocardiograms(offset: Int) -> Self {
    Self(RequestTable.storedElectrocardiograms, offset)
  }
}

extension DeviceOperation where Value == [Float] {
  /// `HKElectrocardiogramQuery`: the voltages of the recording `uuid`, microvolts, in time order.
  package static func electrocardiogramVoltages(_ bundleID: String, _ uuid: UUID) -> Self {
    Self(RequestTable.electrocardiogramVoltages, bundleID, uuid)
  }
}

extension DeviceClient {
  /// The watch's ECG app records `recording`.
  package func recordElectrocardiogram(_ recording: ECGRecording) throws(ClientError) {
    try perform(.recordElectrocardiogram(recording))
  }
  /// Electrocardiograms the app may read (headers).
  package func electrocardiogramQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError)
    -> [Electrocardiogram]
  {
    try perform(.electrocardiogramQuery(bundleID, query))
  }
  /// One recording's voltages.
  package func electrocardiogramVoltages(_ bundleID: String, _ uuid: UUID) throws(ClientError) -> [Float] {
    try perform(.electrocardiogramVoltages(bundleID, uuid))
  }
  /// Saves audiograms, all or nothing.
  package func saveAudiograms(_ bundleID: String, _ audiograms: [AudiogramInput]) throws(ClientError) {
    try perform(.saveAudiograms(bundleID, audiograms))
  }
  /// Audiograms the app may read.
  package func audiogramQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError) -> [Audiogram] {
    try perform(.audiogramQuery(bundleID, query))
  }
  /// Saves States of Mind, all or nothing.
  package func saveStatesOfMind(_ bundleID: String, _ states: [StateOfMindInput]) throws(ClientError) {
    try perform(.saveStatesOfMind(bundleID, states))
  }
  /// Saves CDA documents, all or nothing (the iPhone only).
  package func saveCDADocuments(_ bundleID: String, _ documents: [CDADocument]) throws(ClientError) {
    try perform(.saveCDADocuments(bundleID, documents))
  }
  /// The CDA documents the app may read.
  package func cdaDocumentQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError) -> [CDADocument] {
    try perform(.cdaDocumentQuery(bundleID, query))
  }
  /// Saves GAD-7 and PHQ-9 assessments, all or nothing.
  package func saveScoredAssessments(_ bundleID: String, _ assessments: [ScoredAssessmentInput]) throws(ClientError) {
    try perform(.saveScoredAssessments(bundleID, assessments))
  }
  /// Scored assessments of the query's type the app may read.
  package func scoredAssessmentQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError)
    -> [ScoredAssessment]
  {
    try perform(.scoredAssessmentQuery(bundleID, query))
  }
  /// States of Mind the app may read.
  package func stateOfMindQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError) -> [StateOfMind] {
    try perform(.stateOfMindQuery(bundleID, query))
  }
  /// A provider's clinical records arrive.
  package func receiveClinicalRecords(_ records: [ClinicalRecord]) throws(ClientError) {
    try perform(.receiveClinicalRecords(records))
  }
  /// Clinical records of one type the app may read.
  package func clinicalRecordQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError) -> [ClinicalRecord] {
    try perform(.clinicalRecordQuery(bundleID, query))
  }
  /// Saves vision prescriptions, all or nothing.
  package func saveVisionPrescriptions(_ bundleID: String, _ prescriptions: [VisionPrescription])
    throws(ClientError)
  {
    try perform(.saveVisionPrescriptions(bundleID, prescriptions))
  }
  /// Vision prescriptions the app may read.
  package func visionPrescriptionQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError)
    -> [VisionPrescription]
  {
    try perform(.visionPrescriptionQuery(bundleID, query))
  }
  /// Every clinical record on the device.
  package func storedClinicalRecords() throws(ClientError) -> [ClinicalRecord] { try perform(.storedClinicalRecords) }
  /// Every vision prescription on the device.
  package func storedVisionPrescriptions() throws(ClientError) -> [VisionPrescription] {
    try perform(.storedVisionPrescriptions)
  }
  /// Every audiogram on the device.
  package func storedAudiograms() throws(ClientError) -> [Audiogram] { try perform(.storedAudiograms) }
  /// Every electrocardiogram on the device, with voltages, read a page at a time.
  package func storedElectrocardiograms() throws(ClientError) -> [Electrocardiogram] {
    var all: [Electrocardiogram] = []
    while true {
      let page = try perform(.storedElectrocardiograms(offset: all.count))
      all += page
      if page.count < Request.storedElectrocardiogramPage { return all }
    }
  }
}
