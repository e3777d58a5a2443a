import FoundationEssentials
import HealthModel

/// `VisionPrescription` elements, in the layout ``ExportReader`` reads back to the same prescription (a prism as
/// its polar amount and angle: its rectangular components are recomputed from them).
extension ExportWriter {
  /// Writes `prescription` as a `VisionPrescription`: `type` `glasses` or `contacts`, `dateIssued` and
  /// `expirationDate` in the export's time, `brand` for contacts, then `_HealthPair.uuid` when the element would not
  /// derive its identifier on import, its metadata, and each eye's lens with every value and its unit (`D`, `deg`,
  /// `mm`, `pD`; a prism in polar form).
  package mutating func write(_ prescription: VisionPrescription) throws {
    append(" <VisionPrescription type=\"\(prescription.kind)\" dateIssued=\"\(date(prescription.dateIssued))\"")
    if let expiration = prescription.expirationDate { append(" expirationDate=\"\(date(expiration))\"") }
    if let brand = prescription.brand { append(" brand=\"\(Self.escape(brand))\"") }
    append(">\n")
    let indent = "  "
    var read = prescription
    read.metadata = ExportIdentity.writtenMetadata(prescription.metadata)
    if ExportIdentity.prescription(read) != prescription.uuid {
      append(indent + "<MetadataEntry key=\"\(Self.identifierKey)\" value=\"\(prescription.uuid.uuidString)\"/>\n")
    }
    appendMetadata(prescription.metadata, indent: indent)
    for (element, lens) in [("RightEye", prescription.rightEye), ("LeftEye", prescription.leftEye)] {
      guard let lens else { continue }
      append(indent + "<\(element)")
      func value(_ name: String, _ value: Double?, _ unit: String) {
        guard let value else { return }
        append(" \(name)=\"\(ExportNumber.format(value))\" \(name)Unit=\"\(unit)\"")
      }
      value("sphere", lens.sphere, "D")
      value("cylinder", lens.cylinder, "D")
      value("axis", lens.axis, "deg")
      value("add", lens.addPower, "D")
      value("vertex", lens.vertexDistance, "mm")
      value("prismAmount", lens.prism?.amount, "pD")
      value("prismAngle", lens.prism?.angle, "deg")
      value("farPD", lens.farPupillaryDistance, "mm")
      value("nearPD", lens.nearPupillaryDistance, "mm")
      value("baseCurve", lens.baseCurve, "mm")
      value("diameter", lens.diameter, "mm")
      append("/>\n")
    }
    append(" </VisionPrescription>\n")
    try flushIfFull()
  }
}

/// `ClinicalRecord` elements, with the FHIR files they name (the caller writes ``ClinicalRecordFile/name(of:)``).
extension ExportWriter {
  /// Writes `record` as a `ClinicalRecord`: its clinical type's identifier, the resource's identifier, the provider
  /// as `sourceName`, `sourceURL` (empty when none), `fhirVersion`, `receivedDate` and `resourceFilePath`
  /// (`/clinical-records/<ResourceType>-<UUID>.json`, which keeps the record's identifier on import).
  package mutating func write(_ record: ClinicalRecord) throws {
    append(" <ClinicalRecord type=\"\(record.type.identifier)\" identifier=\"\(Self.escape(record.identifier))\"")
    append(" sourceName=\"\(Self.escape(record.source.details?.name ?? record.source.bundleID))\"")
    append(" sourceURL=\"\(Self.escape(record.sourceURL ?? ""))\" fhirVersion=\"\(Self.escape(record.fhirVersion))\"")
    append(" receivedDate=\"\(date(record.date))\" resourceFilePath=\"/\(ClinicalRecordFile.name(of: record))\"/>\n")
    try flushIfFull()
  }
}
