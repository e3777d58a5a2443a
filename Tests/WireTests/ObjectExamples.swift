import Foundation

@testable import HealthEngine
@testable import HealthModel
@testable import Wire

/// Fixed examples of the special object families' values, requests and replies: pinned in `Fixtures/frames.txt`
/// by `PinnedFrameTests`.
enum ObjectExamples {
  static let ecgType = SampleType.lookup(name: "electrocardiogram")!
  static let source = SampleSource(bundleID: Electrocardiogram.recorderBundleID, device: .watch)
  /// Four measurements at 512 Hz.
  static let ecg = Electrocardiogram(
    uuid: PinnedFrameTests.u1, start: t0, end: t0.addingTimeInterval(4.0 / 512), classification: .atrialFibrillation,
    symptomsStatus: .present, averageHeartRate: 96, samplingFrequency: 512, voltages: [-48.5, 12.25, 820, -170],
    metadata: [ECGRecording.algorithmVersionKey: .int(2)], source: source)
  static let recording = ECGRecording(
    uuid: PinnedFrameTests.u2, start: t0, classification: .sinusRhythm, symptomsStatus: .none, averageHeartRate: 72,
    duration: 30, voltages: [1, 2.5], metadata: ["k": .string("v")])

  static let audiogramType = SampleType.lookup(name: "audiogram")!
  static let points = [
    AudiogramPoint(
      frequency: 500,
      tests: [
        AudiogramTest(sensitivity: 10, side: .left), AudiogramTest(sensitivity: 15, side: .right, masked: true),
      ]),
    AudiogramPoint(
      frequency: 1_000, tests: [AudiogramTest(sensitivity: 20, side: .left, clampLower: 0, clampUpper: 90)]),
  ]
  static let audiogramInput = AudiogramInput(
    uuid: PinnedFrameTests.u2, start: t0, end: t0.addingTimeInterval(300), points: points, metadata: ["k": .int(1)])
  static let audiogram = try! audiogramInput.validated(source: SampleSource(bundleID: "a", device: .phone))

  static let stateOfMindType = SampleType.lookup(name: "stateOfMind")!
  static let stateInput = StateOfMindInput(
    uuid: PinnedFrameTests.u1, date: t0, kind: 1, valence: 0.6, labels: [17, 15], associations: [5],
    metadata: ["note": .string("n")])
  static let state = try! stateInput.validated(source: SampleSource(bundleID: "a", device: .watch))

  static let gad7Type = SampleType.lookup(name: "GAD7")!
  static let assessmentInput = ScoredAssessmentInput(
    uuid: PinnedFrameTests.u2, kind: 1, date: t0, answers: [3, 2, 1, 0, 1, 2, 3], metadata: ["k": .int(2)])
  static let assessment = try! assessmentInput.validated(source: SampleSource(bundleID: "a", device: .phone))

  static let cdaType = SampleType.lookup(name: "CDA")!
  static let document = CDADocument(
    uuid: PinnedFrameTests.u1, start: t0, end: t0, data: Array("<ClinicalDocument/>".utf8), title: "Visit",
    patientName: "Jane Appleseed", authorName: "Anna Ortiz", custodianName: "Clinic", metadata: ["k": .int(3)],
    source: SampleSource(bundleID: "a", device: .phone))

  static let medication = Medication(
    conceptID: "rx-314076", displayText: "Lisinopril 10 mg", generalForm: "tablet",
    codings: [ClinicalCoding(system: ClinicalCoding.rxNormSystem, code: "314076")], nickname: "BP",
    hasSchedule: true, added: t0, source: SampleSource(bundleID: "com.apple.Health", device: .phone))
  static let dose = MedicationDoseEvent(
    uuid: PinnedFrameTests.u2, conceptID: "rx-314076", date: t0, status: .taken, scheduledDate: t0, scheduledDose: 2,
    metadata: ["k": .int(1)], source: SampleSource(bundleID: "com.apple.Health", device: .watch))
  static let medicationType = SampleType.lookup(name: "userAnnotatedMedication")!
  static let doseType = SampleType.lookup(name: "medicationDoseEvent")!

  static let record = ClinicalRecord(
    uuid: PinnedFrameTests.u2, type: SampleType.lookup(name: "allergyRecord")!, date: t0, displayName: "Penicillin",
    resourceType: "AllergyIntolerance", identifier: "a1", fhirVersion: "4.0.1", sourceURL: "https://example.org/a1",
    data: Array("{\"resourceType\":\"AllergyIntolerance\"}".utf8),
    source: SampleSource(bundleID: ClinicalRecord.downloaderBundleID, device: .phone))

  static let prescriptionType = SampleType.lookup(name: "visionPrescription")!
  static let prescription = VisionPrescription(
    uuid: PinnedFrameTests.u1, kind: .glasses, specifiesLenses: true, dateIssued: t0,
    expirationDate: t0.addingTimeInterval(2 * 365 * 86_400),
    rightEye: LensSpecification(
      sphere: -2.25, cylinder: -0.5, axis: 90, vertexDistance: 12,
      prism: VisionPrism(amount: 1, angle: 90, eye: .right), farPupillaryDistance: 32),
    leftEye: LensSpecification(sphere: -2), metadata: ["note": .string("n")],
    source: SampleSource(bundleID: "a", device: .phone))

  /// One request of each object opcode.
  static let requests: [Request] = [
    .recordElectrocardiogram(recording),
    .electrocardiogramQuery(
      bundleID: "a",
      query: SampleQuery(
        type: ecgType, range: nil, sources: nil, limit: 5, sort: [],
        filter: .electrocardiogram(.classification, [1, 2]))),
    .electrocardiogramVoltages(bundleID: "a", uuid: PinnedFrameTests.u1),
    .importElectrocardiograms(importID: 3, electrocardiograms: [ecg]),
    .storedElectrocardiograms(offset: 32),
    .saveAudiograms(bundleID: "a", audiograms: [audiogramInput]),
    .audiogramQuery(
      bundleID: "a",
      query: SampleQuery(type: audiogramType, range: nil, sources: nil, limit: 0, sort: [], filter: nil)),
    .importAudiograms(importID: 4, audiograms: [audiogram]),
    .storedAudiograms,
    .saveStatesOfMind(bundleID: "a", states: [stateInput]),
    .stateOfMindQuery(
      bundleID: "a",
      query: SampleQuery(
        type: stateOfMindType, range: nil, sources: nil, limit: 0, sort: [],
        filter: .and([.stateOfMindValence(.greaterThan, 0), .stateOfMind(.label, 17)]))),
    .receiveClinicalRecords([record]),
    .clinicalRecordQuery(
      bundleID: "a",
      query: SampleQuery(
        type: record.type, range: nil, sources: nil, limit: 0, sort: [],
        filter: .fhirResource("AllergyIntolerance", identifier: "a1"))),
    .saveVisionPrescriptions(bundleID: "a", prescriptions: [prescription]),
    .visionPrescriptionQuery(
      bundleID: "a",
      query: SampleQuery(type: prescriptionType, range: nil, sources: nil, limit: 0, sort: [], filter: nil)),
    .requestPerObjectRead(
      bundleID: "a",
      query: SampleQuery(
        type: prescriptionType, range: DateRange(start: t0, end: nil), sources: nil, limit: 0, sort: [],
        filter: nil)),
    .importVisionPrescriptions(importID: 5, prescriptions: [prescription]),
    .storedVisionPrescriptions,
    .importClinicalRecords(importID: 6, records: [record]),
    .storedClinicalRecords,
    .saveScoredAssessments(bundleID: "a", assessments: [assessmentInput]),
    .saveCDADocuments(bundleID: "a", documents: [document]),
    .saveFamilies(
      bundleID: "a", samples: [], correlations: [], workouts: [], audiograms: [audiogramInput],
      statesOfMind: [stateInput], prescriptions: [prescription], assessments: [assessmentInput], documents: [document]),
    .cdaDocumentQuery(
      bundleID: "a",
      query: SampleQuery(
        type: cdaType, range: nil, sources: nil, limit: 0, sort: [], filter: .not(.cdaField(.title, "Visit")))),
    .scoredAssessmentQuery(
      bundleID: "a",
      query: SampleQuery(
        type: gad7Type, range: DateRange(start: t0, end: nil), sources: nil, limit: 3, sort: [],
        filter: nil)),
    .addMedications([medication]),
    .logMedicationDoses([dose]),
    .medicationQuery(
      bundleID: "a",
      query: SampleQuery(
        type: medicationType, range: nil, sources: nil, limit: 2, sort: [],
        filter: .and([.medication(.archived(false)), .medication(.concepts(["rx-314076"]))]))),
    .medicationDoseQuery(
      bundleID: "a",
      query: SampleQuery(
        type: doseType, range: nil, sources: nil, limit: 0, sort: [],
        filter: .or([
          .medication(.statuses([4, 5])), .medication(.scheduledDates([800_000_000])),
          .medication(.scheduledRange(start: 1, end: nil)), .medication(.hasSchedule(true)),
        ]))),
  ]

  /// One reply of each object reply tag.
  static let replies: [Reply] = [
    .electrocardiograms([ecg]),
    .voltages([-48.5, 12.25]),
    .audiograms([audiogram]),
    .statesOfMind([state]),
    .clinicalRecords([record]),
    .electrocardiogramHeaders([ecg.header]),
    .visionPrescriptions([prescription]),
    .scoredAssessments([assessment]),
    .cdaDocuments([document]),
    .medications([medication]),
    .medicationDoses([dose]),
  ]

  /// A per-object read sheet (pinned as `interim.objectPrompt`).
  static let objectPrompt = Prompt(
    id: 9, bundleID: "a", permissions: [Permission(prescriptionType, .read)], shownAt: t0,
    objects: [PinnedFrameTests.u1, PinnedFrameTests.u2])
}
