import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encoding of clinical records, shared by the wire protocol, the journal and snapshots (docs/journal.md).
//
// clinical-record := uuid | type u16 | date | displayName string | resourceType string | identifier string
//                    | fhirVersion string | sourceURL string? | data u32 + bytes (JSON, at most 1 MiB) | source

/// The smallest encoded clinical record.
package let minimumClinicalRecordSize = 16 + 2 + 8 + 4 * 4 + 1 + 4 + 5

extension BinaryWriter {
  /// A clinical record (layout above).
  package mutating func clinicalRecord(_ r: ClinicalRecord) {
    uuid(r.uuid)
    sampleType(r.type)
    date(r.date)
    string(r.displayName)
    string(r.resourceType)
    string(r.identifier)
    string(r.fhirVersion)
    optional(r.sourceURL) { $0.string($1) }
    u32(UInt32(r.data.count))
    raw(r.data.count) { out in out.copyBytes(from: r.data) }
    source(r.source)
  }
}

extension BinaryReader {
  /// Reads a clinical record: one ``ClinicalRecord/validate()`` accepts.
  package mutating func clinicalRecord() throws(DecodeError) -> ClinicalRecord {
    let start = offset
    let uuid = try uuid()
    let type = try sampleType()
    let date = try finiteDate("clinical record date")
    let displayName = try string(maxLength: 1024)
    let resourceType = try string(maxLength: 64)
    let identifier = try string(maxLength: 1024)
    let fhirVersion = try string(maxLength: 32)
    let sourceURL = try optional { r throws(DecodeError) in try r.string(maxLength: 2048) }
    let count = Int(try u32())
    guard count <= ClinicalRecord.maxData else { throw error("clinical record data of \(count) bytes") }
    let data = Array(try raw(count, "clinical record data"))
    let record = ClinicalRecord(
      uuid: uuid, type: type, date: date, displayName: displayName, resourceType: resourceType,
      identifier: identifier, fhirVersion: fhirVersion, sourceURL: sourceURL, data: data, source: try source())
    do { try record.validate() } catch {
      throw DecodeError(offset: reportBase + start, "clinical record \(uuid) is not valid: \(error.message)")
    }
    return record
  }
}

extension Fields {
  /// `[clinical-record]`.
  static let clinicalRecords = RecordField<[ClinicalRecord]>(
    write: { w, records in w.array(records) { $0.clinicalRecord($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: minimumClinicalRecordSize) { r throws(DecodeError) in try r.clinicalRecord() }
    })
}
