import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encoding of CDA documents, shared by the wire protocol, the journal and snapshots (docs/journal.md).
//
// cda-document := uuid | start date | end date | data u32 + bytes (the XML, at most 4 MiB) | title string
//                 | patientName string | authorName string | custodianName string | metadata | source

/// The smallest encoded CDA document (one byte of data, empty fields, no metadata, the shortest source).
package let minimumCDADocumentSize = 16 + 8 + 8 + 4 + 1 + 4 * 4 + 4 + 5

extension BinaryWriter {
  /// A CDA document (layout above).
  package mutating func cdaDocument(_ d: CDADocument) {
    uuid(d.uuid)
    date(d.start)
    date(d.end)
    u32(UInt32(d.data.count))
    raw(d.data.count) { out in out.copyBytes(from: d.data) }
    for field in CDAField.allCases { string(d.value(of: field)) }
    metadata(d.metadata)
    source(d.source)
  }
}

extension BinaryReader {
  /// Reads a CDA document: one ``CDADocument/validate()`` accepts, unless `validated` is false (an app's save, which
  /// the device checks and answers with HealthKit's errors). Sizes are bounded either way.
  package mutating func cdaDocument(validated: Bool = true) throws(DecodeError) -> CDADocument {
    let start = offset
    let uuid = try uuid()
    let from = try finiteDate("CDA document start")
    let to = try finiteDate("CDA document end")
    let count = Int(try u32())
    guard count <= 2 * CDADocument.maxDataSize else { throw error("a CDA document of \(count) bytes") }
    let data = Array(try raw(count, "CDA document data"))
    var fields: [String] = []
    for _ in CDAField.allCases { fields.append(try string(maxLength: 4 * CDADocument.maxFieldLength)) }
    let document = CDADocument(
      uuid: uuid, start: from, end: to, data: data, title: fields[0], patientName: fields[1], authorName: fields[2],
      custodianName: fields[3], metadata: try metadata(finite: true), source: try source())
    guard validated else { return document }
    do { try document.validate() } catch {
      throw DecodeError(offset: reportBase + start, "CDA document \(uuid) is not valid: \(error.message)")
    }
    return document
  }
}

extension Fields {
  /// `[cda-document]`.
  static let cdaDocuments = RecordField<[CDADocument]>(
    write: { w, documents in w.array(documents) { $0.cdaDocument($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: minimumCDADocumentSize) { r throws(DecodeError) in try r.cdaDocument() }
    })
}
