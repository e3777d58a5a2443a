import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Wire

// The `requests` target's palettes for the special object families' fields: recordings with extreme dates,
// lengths, heart rates and voltages, and stored electrocardiograms with counts that disagree with their voltages.

extension Codec.Recording: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> ECGRecording {
    typealias Palette = RequestFuzz.Palette
    return ECGRecording(
      uuid: c.pick(Palette.uuids), start: c.pick(Palette.dates), classification: c.pick(ECGClassification.allCases),
      symptomsStatus: c.pick(ECGSymptomsStatus.allCases), averageHeartRate: c.pick([nil, 72, -1] + Palette.doubles),
      duration: c.pick([30, 0, 600, 601] + Palette.doubles),
      voltages: c.pick([nil, [], [1, .nan], [Float](repeating: 0.5, count: 3)]), metadata: c.pick(Palette.metadata))
  }
}
extension Codec.StoredECG: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> Electrocardiogram {
    typealias Palette = RequestFuzz.Palette
    let start = c.pick(Palette.dates)
    let voltages: [Float] = c.pick([[], [1, 2], [.infinity]])
    return Electrocardiogram(
      uuid: c.pick(Palette.uuids), start: start, end: c.byte() & 1 == 0 ? start : c.pick(Palette.dates),
      classification: c.pick(ECGClassification.allCases), symptomsStatus: c.pick(ECGSymptomsStatus.allCases),
      averageHeartRate: c.pick([nil, 60] + Palette.doubles), samplingFrequency: c.pick([512, 0] + Palette.doubles),
      voltages: voltages, measurementCount: c.pick([nil, 0, 2, 15_360]), metadata: c.pick(Palette.metadata),
      source: c.pick(Palette.sources))
  }
}
extension Codec.NewAudiogram: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> AudiogramInput {
    typealias Palette = RequestFuzz.Palette
    let start = c.pick(Palette.dates)
    let frequencies: [[Double]] = [[500, 1_000], [1_000, 500], [], [30_001], Array(repeating: 250, count: 31)]
    let points = c.pick(frequencies).map { frequency in
      AudiogramPoint(
        frequency: frequency,
        tests: c.pick([
          [AudiogramTest(sensitivity: 10, side: .left)], [],
          [AudiogramTest(sensitivity: 161, side: .right), AudiogramTest(sensitivity: 0, side: .right)],
          [AudiogramTest(sensitivity: c.pick(Palette.doubles), side: .left, clampLower: 50, clampUpper: 10)],
        ]))
    }
    return AudiogramInput(
      uuid: c.pick(Palette.uuids), start: start, end: c.byte() & 1 == 0 ? start : c.pick(Palette.dates),
      points: points, metadata: c.pick(Palette.metadata))
  }
}
extension Codec.StoredAudiogram: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> Audiogram {
    let input = Codec.NewAudiogram.draw(&c)
    return Audiogram(
      uuid: input.uuid, start: input.start, end: input.end, points: input.points, metadata: input.metadata,
      source: c.pick(RequestFuzz.Palette.sources))
  }
}
extension Codec.NewStateOfMind: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> StateOfMindInput {
    typealias Palette = RequestFuzz.Palette
    return StateOfMindInput(
      uuid: c.pick(Palette.uuids), date: c.pick(Palette.dates), kind: c.pick([1, 2, 0, 3, -1]),
      valence: c.pick([0.5, -1, 1, 1.01] + Palette.doubles), labels: c.pick([[], [17], [0], [39], [1, 38]]),
      associations: c.pick([[], [5], [19], [-4]]), metadata: c.pick(Palette.metadata))
  }
}
extension Codec.NewScoredAssessment: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> ScoredAssessmentInput {
    typealias Palette = RequestFuzz.Palette
    return ScoredAssessmentInput(
      uuid: c.pick(Palette.uuids), kind: c.pick([1, 2, 0, 3]), date: c.pick(Palette.dates),
      answers: c.pick([[0, 1, 2, 3, 0, 1, 2], [3, 3, 3, 3, 3, 3, 3, 3, 4], [], [0, 1, 2, 3, 4, 0, 1], [-1]]),
      metadata: c.pick(Palette.metadata))
  }
}
extension Codec.StoredClinicalRecord: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> ClinicalRecord {
    typealias Palette = RequestFuzz.Palette
    return ClinicalRecord(
      uuid: c.pick(Palette.uuids), type: c.pick(Palette.types), date: c.pick(Palette.dates),
      displayName: c.pick(["Penicillin", ""]), resourceType: c.pick(["Observation", "Patient", ""]),
      identifier: "x", fhirVersion: c.pick(["4.0.1", "4.0", "a.b.c"]), sourceURL: c.pick([nil, "https://e.org/x"]),
      data: c.pick([Array("{}".utf8), [], Array("[1]".utf8)]), source: c.pick(Palette.sources))
  }
}
extension Codec.NewCDADocument: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> CDADocument {
    typealias Palette = RequestFuzz.Palette
    let start = c.pick(Palette.dates)
    return CDADocument(
      uuid: c.pick(Palette.uuids), start: start, end: c.pick([start, start.addingTimeInterval(-60)]),
      data: c.pick([Array("<ClinicalDocument/>".utf8), []]), title: c.pick(["Visit", ""]),
      patientName: "Ann Lee", authorName: c.pick(["Dr. Ortiz", ""]), custodianName: "Clinic",
      metadata: c.pick(Palette.metadata), source: c.pick(Palette.sources))
  }
}
extension Codec.NewVisionPrescription: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> VisionPrescription {
    typealias Palette = RequestFuzz.Palette
    let lens = LensSpecification(
      sphere: c.pick([-2.25, 0] + Palette.doubles), cylinder: c.pick([nil, -0.5]), axis: c.pick([nil, 90]),
      prism: c.pick([nil, VisionPrism(amount: 1, angle: 90, eye: .right)]), baseCurve: c.pick([nil, 8.6]))
    return VisionPrescription(
      uuid: c.pick(Palette.uuids), kind: c.pick([.glasses, .contacts]), specifiesLenses: c.pick([true, false]),
      dateIssued: c.pick(Palette.dates), expirationDate: c.pick([nil] + Palette.dates),
      rightEye: c.pick([nil, lens]), leftEye: c.pick([nil, lens]), brand: c.pick([nil, "Acuvue"]),
      metadata: c.pick(Palette.metadata), source: c.pick(Palette.sources))
  }
}
extension Codec.StoredVisionPrescription: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> VisionPrescription { Codec.NewVisionPrescription.draw(&c) }
}
extension Codec.StoredMedication: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> Medication {
    typealias Palette = RequestFuzz.Palette
    return Medication(
      conceptID: c.pick(["rx-1", "rx-2", "rx-1"]), displayText: c.pick(["Lisinopril", "Ibuprofen"]),
      generalForm: c.pick(["tablet", "capsule", "unknown"]), nickname: c.pick([nil, "BP"]),
      isArchived: c.pick([false, true]), hasSchedule: c.pick([true, false]), added: c.pick(Palette.dates),
      source: SampleSource(bundleID: "com.apple.Health", device: .phone))
  }
}
extension Codec.StoredMedicationDose: FuzzPalette {
  static func draw(_ c: inout RequestFuzz.Choices) -> MedicationDoseEvent {
    typealias Palette = RequestFuzz.Palette
    return MedicationDoseEvent(
      uuid: c.pick(Palette.uuids), conceptID: c.pick(["rx-1", "rx-2", "rx-9"]), date: c.pick(Palette.dates),
      status: c.pick(DoseLogStatus.allCases), scheduledDate: c.pick([nil] + Palette.dates.map(Optional.some)),
      dose: c.pick([nil, 1, 2.5]), metadata: c.pick(Palette.metadata),
      source: SampleSource(bundleID: "com.apple.Health", device: .phone))
  }
}
