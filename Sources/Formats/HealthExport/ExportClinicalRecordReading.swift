import FoundationEssentials
import HealthModel

/// A `ClinicalRecord` element as read: its attributes and the FHIR file it names, which the file side reads
/// (``ExportReader/takeClinicalRecords()``, then ``ClinicalRecordFile/record(_:data:file:)``).
package struct PendingClinicalRecord: Sendable {
  /// The clinical type (`type`, an `HKClinicalTypeIdentifier…`).
  package var type: SampleType
  /// The resource's identifier at the provider (`identifier`).
  package var identifier: String
  /// The provider (`sourceName`).
  package var provider: String
  /// Where the provider serves the resource (`sourceURL`; empty: none).
  package var sourceURL: String?
  /// `fhirVersion`.
  package var fhirVersion: String
  /// `receivedDate`.
  package var received: Date
  /// `resourceFilePath`, relative to the export's folder (`clinical-records/Observation-….json`).
  package var path: String
  /// Where the element is, for errors.
  package var location: ExportLocation
}

/// `ClinicalRecord` elements: each names a clinical type, a provider and a FHIR JSON file under `clinical-records/`
/// (behavior.md F3).
extension ExportReader {
  /// Reads the `ClinicalRecord` the scanner is at into ``pendingClinicalRecords``; one of a type the catalog does
  /// not know is skipped and reported.
  mutating func clinicalRecordElement() throws(ExportError) {
    let location = scanner.tokenLocation
    func required(_ name: StaticString) throws(ExportError) -> String {
      guard let index = scanner.attribute(name) else {
        throw ExportError(.notAnExport, at: location, "a '<ClinicalRecord>' without a '\(name)' attribute")
      }
      return try scanner.string(index)
    }
    let typeName = try required("type")
    guard let type = SampleType.lookup(name: typeName), type.descriptor.objectKind == .clinicalRecord else {
      summary.skip("ClinicalRecord", typeName)
      _ = try skipSubtree()
      return
    }
    guard let receivedIndex = scanner.attribute("receivedDate") else {
      throw ExportError(.notAnExport, at: location, "a '<ClinicalRecord>' without a 'receivedDate' attribute")
    }
    let received = try date(receivedIndex)
    var url: String?
    if let index = scanner.attribute("sourceURL") { url = try scanner.string(index) }
    var path = try required("resourceFilePath")
    while path.hasPrefix("/") { path.removeFirst() }
    pendingClinicalRecords.append(
      PendingClinicalRecord(
        type: type, identifier: try required("identifier"), provider: try required("sourceName"),
        sourceURL: url?.isEmpty == false ? url : nil, fhirVersion: try required("fhirVersion"),
        received: Date(timeIntervalSinceReferenceDate: received), path: path, location: location))
    summary.clinicalRecords += 1
    _ = try skipSubtree()
  }
}

/// A clinical record's FHIR file (`clinical-records/<ResourceType>-<UUID>.json`), read into the record its
/// element describes.
package enum ClinicalRecordFile {
  /// The folder of the files, relative to the export's.
  package static let folder = "clinical-records/"

  /// The parts of a FHIR resource a record takes from it.
  private struct Head: Decodable {
    struct Concept: Decodable {
      struct Coding: Decodable { var display: String? }
      var text: String?
      var coding: [Coding]?
    }
    var resourceType: String?
    var code: Concept?
    var vaccineCode: Concept?
    var medicationCodeableConcept: Concept?
  }

  /// The record `pending` describes, with `data` (the file `file`'s bytes) as its resource: the resource type from
  /// the JSON's `resourceType`; the display name from its `code`, `vaccineCode` or `medicationCodeableConcept` (the
  /// `text`, else the first coding's `display`), else the resource type; the identifier the file's name ends with
  /// when it is a UUID (`Observation-F011639A-….json`), else one derived from the content.
  /// - Throws: ``ExportError`` at the element for a file that is not a FHIR resource HealthKit keeps.
  package static func record(_ pending: PendingClinicalRecord, data: [UInt8], file: String) throws(ExportError)
    -> ClinicalRecord
  {
    let head: Head
    do { head = try JSONDecoder().decode(Head.self, from: Data(data)) } catch {
      throw ExportError(.invalidRecord, at: pending.location, "'\(file)' is not a FHIR resource (a JSON object)")
    }
    guard let resourceType = head.resourceType else {
      throw ExportError(.invalidRecord, at: pending.location, "'\(file)' has no 'resourceType'")
    }
    let concept = head.code ?? head.vaccineCode ?? head.medicationCodeableConcept
    let named = concept?.text ?? concept?.coding?.lazy.compactMap(\.display).first
    let name = String(file.split(separator: "/").last ?? "")
    let stem = name.lowercased().hasSuffix(".json") ? String(name.dropLast(5)) : name
    let suffix = stem.count >= 36 ? String(stem.suffix(36)) : ""
    var record = ClinicalRecord(
      uuid: UUID(), type: pending.type, date: pending.received,
      displayName: (named?.isEmpty == false ? named! : resourceType), resourceType: resourceType,
      identifier: pending.identifier, fhirVersion: pending.fhirVersion, sourceURL: pending.sourceURL, data: data,
      source: SampleSource(
        bundleID: ClinicalRecord.downloaderBundleID, device: .phone, details: SourceDetails(name: pending.provider)))
    record.uuid = UUID(uuidString: suffix) ?? ExportIdentity.clinicalRecord(record)
    do throws(HealthError) { try record.validate() } catch {
      throw ExportError(.invalidRecord, at: pending.location, "a '<ClinicalRecord>': \(error.message)")
    }
    return record
  }

  /// The file name a record is written under: its resource type and identifier.
  package static func name(of record: ClinicalRecord) -> String {
    folder + "\(record.resourceType)-\(record.uuid.uuidString).json"
  }
}
