import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encodings of the special object families, shared by the wire protocol, the journal and snapshots
// (docs/journal.md).
//
// ecg     := uuid | start date | end date | classification u8 | symptoms u8 | averageHeartRate f64? |
//            samplingFrequency f64 | measurementCount u32 | voltageCount u32 | f32 LE × voltageCount | metadata |
//            source      (voltageCount is measurementCount, or 0 when only the header travels: a query's answer)
// objects := u8 3 | electrocardiograms [ecg, change u64] | audiograms [audiogram, change u64]
//            | statesOfMind [state-of-mind, change u64] | clinicalRecords [clinical-record, change u64]
//            (a snapshot's trailing section, written only when a family has objects; absent: none, as in earlier
//            builds')

/// The smallest encoded electrocardiogram: no voltages, no metadata, the shortest source.
package let minimumECGSize = 16 + 8 + 8 + 1 + 1 + 1 + 8 + 4 + 4 + 4 + 5

extension BinaryWriter {
  /// An electrocardiogram (layout above); `withVoltages: false` writes the header only.
  package mutating func electrocardiogram(_ e: Electrocardiogram, withVoltages: Bool = true) {
    uuid(e.uuid)
    date(e.start)
    date(e.end)
    u8(UInt8(e.classification.rawValue))
    u8(UInt8(e.symptomsStatus.rawValue))
    optional(e.averageHeartRate) { $0.f64($1) }
    f64(e.samplingFrequency)
    u32(UInt32(e.measurementCount))
    f32Array(withVoltages ? e.voltages : [])
    metadata(e.metadata)
    source(e.source)
  }

  /// Floats: count `u32`, then each as a little-endian `f32`, written in one block.
  package mutating func f32Array(_ values: [Float]) {
    u32(UInt32(values.count))
    raw(values.count * 4) { out in
      for (i, v) in values.enumerated() {
        out.storeBytes(of: v.bitPattern.littleEndian, toByteOffset: i * 4, as: UInt32.self)
      }
    }
  }

  /// A snapshot's trailing objects section, when any family has objects (layout above).
  package mutating func specialObjects(_ store: SpecialObjectStore) {
    guard !store.isEmpty else { return }
    u8(3)
    entries(store.electrocardiograms.ordered) { $0.electrocardiogram($1) }
    entries(store.audiograms.ordered) { $0.audiogram($1) }
    entries(store.statesOfMind.ordered) { $0.stateOfMind($1) }
    entries(store.clinicalRecords.ordered) { $0.clinicalRecord($1) }
  }
}

extension BinaryReader {
  /// Reads an electrocardiogram: known classification and symptoms, and a recording
  /// ``Electrocardiogram/validate(headerOnly:)`` accepts (a header: no voltages; else every voltage).
  package mutating func electrocardiogram(headerOnly: Bool = false) throws(DecodeError) -> Electrocardiogram {
    let start = offset
    let id = try uuid()
    let startDate = try finiteDate("electrocardiogram start date")
    let endDate = try finiteDate("electrocardiogram end date")
    let rawClass = try u8()
    guard let classification = ECGClassification(rawValue: Int(rawClass)) else {
      throw error("unknown electrocardiogram classification \(rawClass)")
    }
    let rawSymptoms = try u8()
    guard let symptoms = ECGSymptomsStatus(rawValue: Int(rawSymptoms)) else {
      throw error("unknown electrocardiogram symptoms status \(rawSymptoms)")
    }
    let rate = try optional { r throws(DecodeError) in try r.f64() }
    let frequency = try f64()
    let measurements = Int(try u32())
    let voltages = try f32Array(max: Electrocardiogram.maxMeasurements)
    guard voltages.isEmpty || voltages.count == measurements else {
      throw error("electrocardiogram \(id): \(voltages.count) voltages for \(measurements) measurements")
    }
    let metadata = try metadata(finite: true)
    let source = try source()
    let ecg = Electrocardiogram(
      uuid: id, start: startDate, end: endDate, classification: classification, symptomsStatus: symptoms,
      averageHeartRate: rate, samplingFrequency: frequency, voltages: voltages, measurementCount: measurements,
      metadata: metadata, source: source)
    do { try ecg.validate(headerOnly: headerOnly) } catch {
      throw DecodeError(offset: reportBase + start, "electrocardiogram \(id) is not valid: \(error.message)")
    }
    return ecg
  }

  /// Reads what ``BinaryWriter/f32Array(_:)`` wrote, at most `max` values.
  package mutating func f32Array(max: Int) throws(DecodeError) -> [Float] {
    let count = Int(try u32())
    guard count <= max else { throw error("\(count) values (at most \(max))") }
    let bytes = try raw(count * 4, "f32 values")
    return (0..<count).map { i in
      Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
    }
  }

  /// Reads a snapshot's objects section after its `3` (layout above).
  package mutating func specialObjects(changeCounter: UInt64) throws(DecodeError) -> SpecialObjectStore {
    let ecgs = try entries(minValueSize: minimumECGSize) { r throws(DecodeError) in try r.electrocardiogram() }
    let audiograms = try entries(minValueSize: minimumAudiogramSize) { r throws(DecodeError) in try r.audiogram() }
    let states = try entries(minValueSize: minimumStateOfMindSize) { r throws(DecodeError) in try r.stateOfMind() }
    let records = try entries(minValueSize: minimumClinicalRecordSize) { r throws(DecodeError) in try r.clinicalRecord()
    }
    do {
      return try SpecialObjectStore(
        restoring: ecgs, audiograms: audiograms, statesOfMind: states, clinicalRecords: records,
        changeCounter: changeCounter)
    } catch {
      throw self.error(error.message)
    }
  }
}

extension Fields {
  /// `[ecg]`, with voltages.
  static let electrocardiograms = RecordField<[Electrocardiogram]>(
    write: { w, ecgs in w.array(ecgs) { $0.electrocardiogram($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: minimumECGSize) { r throws(DecodeError) in try r.electrocardiogram() }
    })
}
