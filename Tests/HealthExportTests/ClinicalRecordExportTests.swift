import FoundationEssentials
import TestSupport
import Testing

@testable import HealthExport
@testable import HealthModel

@Suite("Clinical records in export.xml: the element read, its FHIR file made a record, HealthPair's element written")
struct ClinicalRecordExportTests {
  static let element = """
    <ClinicalRecord type="HKClinicalTypeIdentifierLabResultRecord" identifier="obs-1" sourceName="Cedar &amp; Co" \
    sourceURL="" fhirVersion="4.0.1" receivedDate="2025-12-02 09:15:00 +0100" \
    resourceFilePath="/clinical-records/Observation-F011639A-7CDB-4E7F-B195-E4DFF6D2FB76.json"/>
    <ClinicalRecord type="HKClinicalTypeIdentifierUnknownRecord" identifier="x" sourceName="S" fhirVersion="4.0.1" \
    receivedDate="2025-12-02 09:15:00 +0100" resourceFilePath="/clinical-records/x.json"/>
    """

  static func pending(_ text: String) throws(ExportError) -> ([PendingClinicalRecord], ImportSummary) {
    var reader = ExportReader(MemoryInput(Array(text.utf8), chunk: 61), file: "export.xml")
    reader.pausesForObjects = true
    var found: [PendingClinicalRecord] = []
    while try reader.next() != nil || !reader.atEnd { found += reader.takeClinicalRecords() }
    return (found + reader.takeClinicalRecords(), reader.summary)
  }

  @Test("the element's attributes, a type the catalog lacks skipped, the file's resource and display name")
  func elementAndFile() throws {
    let (found, summary) = try Self.pending(export(Self.element))
    let element = try #require(found.first)
    #expect(found.count == 1 && summary.clinicalRecords == 1)
    #expect(summary.skippedElements["ClinicalRecord"] == ["HKClinicalTypeIdentifierUnknownRecord": 1])
    #expect(element.path == "clinical-records/Observation-F011639A-7CDB-4E7F-B195-E4DFF6D2FB76.json")
    #expect(element.provider == "Cedar & Co" && element.sourceURL == nil && element.identifier == "obs-1")
    let json = Array(#"{"resourceType":"Observation","code":{"coding":[{"display":"Glucose"}]}}"#.utf8)
    let record = try ClinicalRecordFile.record(element, data: json, file: element.path)
    #expect(record.uuid == UUID(uuidString: "F011639A-7CDB-4E7F-B195-E4DFF6D2FB76"), "the file's name gives it")
    #expect(record.resourceType == "Observation" && record.displayName == "Glucose")
    #expect(record.source.bundleID == ClinicalRecord.downloaderBundleID && record.source.details?.name == "Cedar & Co")
    #expect(record.type.name == "labResultRecord" && record.data == json)
    var other = element
    other.path = "clinical-records/Observation-1.json"
    let derived = try ClinicalRecordFile.record(other, data: json, file: other.path)
    #expect(derived.uuid == (try ClinicalRecordFile.record(other, data: json, file: other.path)).uuid)
    #expect(derived.uuid != record.uuid)
  }

  @Test("a file that is not a FHIR object, or names no resource type, is an error at the element")
  func badFiles() throws {
    let element = try #require(try Self.pending(export(Self.element)).0.first)
    for (bytes, fragment) in [
      ("[1]", "is not a FHIR resource"), ("{\"id\":\"a\"}", "has no 'resourceType'"),
      ("{\"resourceType\":\"Spaceship\"}", "unknown FHIR resource type"),
    ] {
      #expect {
        _ = try ClinicalRecordFile.record(element, data: Array(bytes.utf8), file: element.path)
      } throws: { error in
        guard let error = error as? ExportError else { return false }
        return error.description.contains(fragment) && error.location.line == element.location.line
      }
    }
  }

  @Test("what HealthPair writes names the file that keeps the record's identifier")
  func written() throws {
    let record = ClinicalRecord(
      uuid: UUID(uuidString: "5B1C2D3E-4F50-4A61-8B72-9C8D7E6F5A41")!, type: SampleType.lookup(name: "allergyRecord")!,
      date: Date(timeIntervalSinceReferenceDate: 786_000_000), displayName: "Penicillin",
      resourceType: "AllergyIntolerance", identifier: "a<1>", fhirVersion: "4.0.1", sourceURL: nil,
      data: Array("{\"resourceType\":\"AllergyIntolerance\"}".utf8),
      source: SampleSource(
        bundleID: ClinicalRecord.downloaderBundleID, device: .phone, details: SourceDetails(name: "Cedar Clinic")))
    var bytes: [UInt8] = []
    var writer = ExportWriter(offsetSeconds: 0) { bytes += $0 }
    try writer.begin(exportDate: record.date)
    try writer.write(record)
    try writer.finish()
    let (found, _) = try Self.pending(String(decoding: bytes, as: UTF8.self))
    let element = try #require(found.first)
    #expect(element.path == ClinicalRecordFile.name(of: record) && element.identifier == "a<1>")
    let back = try ClinicalRecordFile.record(element, data: record.data, file: element.path)
    #expect(back.uuid == record.uuid && back.date == record.date && back.source == record.source)
  }
}
