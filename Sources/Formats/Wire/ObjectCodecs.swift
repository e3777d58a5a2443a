import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// The codecs of the special object families' request fields and reply payloads (docs/protocol.md: `ecg`,
// `ecg-recording`, `voltages`, `audiogram`, `audiogram-input`, `state-of-mind`, `state-of-mind-input`). Stored
// recordings forward to HealthCodec's ElectrocardiogramCoding.swift, which the
// journal and snapshots use too.
//
// ecg-recording := uuid | start date | classification u8 | symptoms u8 | averageHeartRate f64? | duration f64 |
//                  voltages [f32]? | metadata | symptom types [type u16] (at most 7)
// voltages      := count u32 | f32 LE × count

extension Codec {
  /// What the user's world asks a watch to record (numbers as sent; the device checks them).
  package enum Recording: FieldCodec {
    /// The smallest encoded recording request.
    package static var minimumSize: Int { 16 + 8 + 2 + 1 + 8 + 1 + 4 + 4 }
    /// Writes `value`.
    package static func write(_ value: ECGRecording, into w: inout BinaryWriter) {
      w.uuid(value.uuid)
      w.date(value.start)
      w.u8(UInt8(value.classification.rawValue))
      w.u8(UInt8(value.symptomsStatus.rawValue))
      w.optional(value.averageHeartRate) { $0.f64($1) }
      w.f64(value.duration)
      w.optional(value.voltages) { Voltages.write($1, into: &$0) }
      w.metadata(value.metadata)
      w.array(value.symptoms) { $0.sampleType($1) }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> ECGRecording {
      let uuid = try r.uuid()
      let start = try r.finiteDate("recording start date")
      let rawClass = try r.u8()
      guard let classification = ECGClassification(rawValue: Int(rawClass)) else {
        throw r.error("unknown electrocardiogram classification \(rawClass)")
      }
      let rawSymptoms = try r.u8()
      guard let symptoms = ECGSymptomsStatus(rawValue: Int(rawSymptoms)) else {
        throw r.error("unknown electrocardiogram symptoms status \(rawSymptoms)")
      }
      let rate = try r.optional { r throws(DecodeError) in try r.f64() }
      let duration = try r.f64()
      let voltages = try r.optional { r throws(DecodeError) in try Voltages.read(from: &r) }
      let metadata = try r.metadata(finite: true)
      let logged = try r.array(minElementSize: 2) { r throws(DecodeError) in try r.sampleType() }
      guard logged.count <= ECGRecording.symptomTypes.count else {
        throw r.error("\(logged.count) symptoms (at most 7)")
      }
      return ECGRecording(
        uuid: uuid, start: start, classification: classification, symptomsStatus: symptoms, averageHeartRate: rate,
        duration: duration, voltages: voltages, metadata: metadata, symptoms: logged)
    }
  }
  /// A stored electrocardiogram with its voltages (imports).
  package enum StoredECG: FieldCodec {
    /// The smallest encoded recording.
    package static var minimumSize: Int { minimumECGSize }
    /// Writes `value`.
    package static func write(_ value: Electrocardiogram, into w: inout BinaryWriter) { w.electrocardiogram(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Electrocardiogram {
      try r.electrocardiogram()
    }
  }
  /// A stored electrocardiogram's header: everything but the voltages (query answers).
  package enum ECGHeader: FieldCodec {
    /// The smallest encoded header.
    package static var minimumSize: Int { minimumECGSize }
    /// Writes `value` without its voltages.
    package static func write(_ value: Electrocardiogram, into w: inout BinaryWriter) {
      w.electrocardiogram(value, withVoltages: false)
    }
    /// Reads a value (its voltages empty).
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Electrocardiogram {
      try r.electrocardiogram(headerOnly: true)
    }
  }
  /// An audiogram an app saves (numbers as sent; the device checks them).
  package enum NewAudiogram: FieldCodec {
    /// The smallest encoded audiogram input.
    package static var minimumSize: Int { minimumAudiogramInputSize }
    /// Writes `value`.
    package static func write(_ value: AudiogramInput, into w: inout BinaryWriter) { w.audiogramInput(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> AudiogramInput {
      try r.audiogramInput()
    }
  }
  /// A stored audiogram (replies, imports).
  package enum StoredAudiogram: FieldCodec {
    /// The smallest encoded audiogram.
    package static var minimumSize: Int { minimumAudiogramSize }
    /// Writes `value`.
    package static func write(_ value: Audiogram, into w: inout BinaryWriter) { w.audiogram(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Audiogram { try r.audiogram() }
  }
  /// A State of Mind an app saves (numbers as sent; the device checks them).
  package enum NewStateOfMind: FieldCodec {
    /// The smallest encoded input.
    package static var minimumSize: Int { minimumStateOfMindInputSize }
    /// Writes `value`.
    package static func write(_ value: StateOfMindInput, into w: inout BinaryWriter) { w.stateOfMindInput(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> StateOfMindInput {
      try r.stateOfMindInput()
    }
  }
  /// A stored State of Mind (replies).
  package enum StoredStateOfMind: FieldCodec {
    /// The smallest encoded State of Mind.
    package static var minimumSize: Int { minimumStateOfMindSize }
    /// Writes `value`.
    package static func write(_ value: StateOfMind, into w: inout BinaryWriter) { w.stateOfMind(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> StateOfMind { try r.stateOfMind() }
  }
  /// A CDA document an app saves (sizes bounded; the device checks the rest and sets its source).
  package enum NewCDADocument: FieldCodec {
    /// The smallest encoded document.
    package static var minimumSize: Int { minimumCDADocumentSize }
    /// Writes `value`.
    package static func write(_ value: CDADocument, into w: inout BinaryWriter) { w.cdaDocument(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> CDADocument {
      try r.cdaDocument(validated: false)
    }
  }
  /// A stored CDA document (replies).
  package enum StoredCDADocument: FieldCodec {
    /// The smallest encoded document.
    package static var minimumSize: Int { minimumCDADocumentSize }
    /// Writes `value`.
    package static func write(_ value: CDADocument, into w: inout BinaryWriter) { w.cdaDocument(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> CDADocument { try r.cdaDocument() }
  }
  /// A medication the user adds (requests and replies; checked as it is read).
  package enum StoredMedication: FieldCodec {
    /// The smallest encoded medication.
    package static var minimumSize: Int { minimumMedicationSize }
    /// Writes `value`.
    package static func write(_ value: Medication, into w: inout BinaryWriter) { w.medication(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Medication { try r.medication() }
  }
  /// A medication dose event (requests and replies; checked as it is read).
  package enum StoredMedicationDose: FieldCodec {
    /// The smallest encoded dose event.
    package static var minimumSize: Int { minimumMedicationDoseSize }
    /// Writes `value`.
    package static func write(_ value: MedicationDoseEvent, into w: inout BinaryWriter) { w.medicationDose(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> MedicationDoseEvent {
      try r.medicationDose()
    }
  }
  /// A scored assessment an app saves (numbers as sent; the device checks them).
  package enum NewScoredAssessment: FieldCodec {
    /// The smallest encoded input.
    package static var minimumSize: Int { minimumScoredAssessmentInputSize }
    /// Writes `value`.
    package static func write(_ value: ScoredAssessmentInput, into w: inout BinaryWriter) {
      w.scoredAssessmentInput(value)
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> ScoredAssessmentInput {
      try r.scoredAssessmentInput()
    }
  }
  /// A stored scored assessment (replies).
  package enum StoredScoredAssessment: FieldCodec {
    /// The smallest encoded assessment.
    package static var minimumSize: Int { minimumScoredAssessmentSize }
    /// Writes `value`.
    package static func write(_ value: ScoredAssessment, into w: inout BinaryWriter) { w.scoredAssessment(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> ScoredAssessment {
      try r.scoredAssessment()
    }
  }
  /// A vision prescription an app saves (values as sent; the device checks them).
  package enum NewVisionPrescription: FieldCodec {
    /// The smallest encoded prescription.
    package static var minimumSize: Int { minimumVisionPrescriptionSize }
    /// Writes `value`.
    package static func write(_ value: VisionPrescription, into w: inout BinaryWriter) { w.visionPrescription(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> VisionPrescription {
      try r.visionPrescription(validated: false)
    }
  }
  /// A stored vision prescription (replies).
  package enum StoredVisionPrescription: FieldCodec {
    /// The smallest encoded prescription.
    package static var minimumSize: Int { minimumVisionPrescriptionSize }
    /// Writes `value`.
    package static func write(_ value: VisionPrescription, into w: inout BinaryWriter) { w.visionPrescription(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> VisionPrescription {
      try r.visionPrescription()
    }
  }
  /// A clinical record (the world's requests, replies).
  package enum StoredClinicalRecord: FieldCodec {
    /// The smallest encoded record.
    package static var minimumSize: Int { minimumClinicalRecordSize }
    /// Writes `value`.
    package static func write(_ value: ClinicalRecord, into w: inout BinaryWriter) { w.clinicalRecord(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> ClinicalRecord {
      try r.clinicalRecord()
    }
  }
  /// Voltages in microvolts, at most ``Electrocardiogram/maxMeasurements``.
  package enum Voltages: FieldCodec {
    /// A count.
    package static var minimumSize: Int { 4 }
    /// Writes `value`.
    package static func write(_ value: [Float], into w: inout BinaryWriter) { w.f32Array(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> [Float] {
      try r.f32Array(max: Electrocardiogram.maxMeasurements)
    }
  }
}
