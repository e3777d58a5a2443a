import Foundation
import HealthExport
import Testing

/// The CDA header reader HealthKitSim's `HKCDADocumentSample` uses (behavior.md O1): what it extracts and what it
/// refuses, never a trap.
@Suite("CDA documents: the header read and the validation")
struct CDAReaderTests {
  static let header = """
    <typeId root="2.16.840.1.113883.1.3"/><id root="1"/><code code="34133-9"/>
    <effectiveTime value="20260105073000-0230"/><confidentialityCode code="N"/>
    <recordTarget><patientRole><patient><name><given>Jane</given><family>Appleseed</family></name></patient>
    </patientRole></recordTarget>
    <author><assignedAuthor><assignedAuthoringDevice><softwareName>EHR  Export</softwareName>
    </assignedAuthoringDevice></assignedAuthor></author>
    <custodian><assignedCustodian><representedCustodianOrganization><name>Clinic</name>
    </representedCustodianOrganization></assignedCustodian></custodian><component/>
    """

  @Test func theHeaderFieldsAndTheTimeAreRead() throws {
    let xml = "<cda:ClinicalDocument xmlns:cda=\"urn:hl7-org:v3\">\(Self.header)</cda:ClinicalDocument>"
    let read = try CDAReader.read(Array(xml.utf8)).get()
    #expect(read.title == "", "the title is optional")
    #expect(read.patientName == "Jane Appleseed")
    #expect(read.authorName == "EHR Export", "the authoring software's name, whitespace folded")
    #expect(read.custodianName == "Clinic")
    // 07:30 at −02:30 is 10:00 UTC.
    #expect(read.effectiveTime == CDAReader.parseTime("20260105100000+0000"))
  }

  @Test(arguments: [
    ("20260105", true), ("202601050730", true), ("20260105073000", true), ("20260105073000+01:00", true),
    ("20260231", false), ("2026010", false), ("20260105073000Z", true), ("20260105073000X", false),
    ("202601050730+0100", false), ("", false),
  ])
  func hl7TimesParseOnlyInHealthKitsForms(text: String, parses: Bool) {
    #expect((CDAReader.parseTime(text) != nil) == parses)
  }

  @Test(arguments: [
    ("", "unable to read XML content"),
    ("<ClinicalDocument><title>x</ClinicalDocument>", "unable to read XML content"),
    ("<Document/>", "error code 1845"),
    ("<ClinicalDocument/>", "error code 1871"),
    (
      "<ClinicalDocument>\(header.replacingOccurrences(of: "<component/>", with: ""))</ClinicalDocument>",
      "error code 1871"
    ),
  ])
  func whatIsNotACDADocumentIsRefusedWithItsDetail(xml: String, message: String) {
    switch CDAReader.read(Array(xml.utf8)) {
    case .success: Issue.record("accepted \(xml)")
    case .failure(let error):
      #expect(error.message.contains(message))
      #expect(!error.detail.isEmpty)
    }
  }
}
