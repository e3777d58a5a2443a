import FoundationEssentials
import TestSupport
import Testing

@testable import HealthExport
@testable import HealthModel

/// Every vision prescription `text` (an export.xml) holds, read as an import reads them, and the reader's summary.
func readPrescriptions(_ text: String) throws(ExportError) -> (
  prescriptions: [VisionPrescription], summary: ImportSummary
) {
  var reader = ExportReader(MemoryInput(Array(text.utf8), chunk: 97), file: "export.xml")
  reader.pausesForObjects = true
  var prescriptions: [VisionPrescription] = []
  while try reader.next() != nil || !reader.atEnd { prescriptions += reader.takePrescriptions() }
  prescriptions += reader.takePrescriptions()
  return (prescriptions, reader.summary)
}

@Suite("Vision prescriptions in export.xml: Apple's element read, HealthPair's written and read back")
struct PrescriptionExportTests {
  static let glasses = """
    <VisionPrescription type="HKVisionPrescriptionTypeGlasses" dateIssued="2025-11-03 10:00:00 +0100" \
    expirationDate="2027-11-03 10:00:00 +0100">
     <RightEye sphere="-2.25" sphereUnit="D" cylinder="-0.5" cylinderUnit="D" axis="90" axisUnit="deg" \
    vertex="12" vertexUnit="mm" prismAmount="1" prismAmountUnit="pD" prismAngle="90" prismAngleUnit="deg" \
    farPD="3.2" farPDUnit="cm"/>
     <LeftEye sphere="-2"/>
     <Attachment identifier="scan"/>
    </VisionPrescription>
    """

  @Test("Apple's element: the kind from its type, each eye's values in their units, the Health app as source")
  func applesElement() throws {
    let (found, summary) = try readPrescriptions(export(Self.glasses))
    let p = try #require(found.first)
    #expect(found.count == 1 && summary.visionPrescriptions == 1)
    #expect(p.kind == .glasses && p.specifiesLenses)
    #expect(p.dateIssued == Date(timeIntervalSinceReferenceDate: ExportDate.parse("2025-11-03 10:00:00 +0100")!))
    #expect(p.rightEye?.cylinder == -0.5 && p.rightEye?.axis == 90 && p.rightEye?.vertexDistance == 12)
    #expect(p.rightEye?.farPupillaryDistance == 32, "3.2 cm is 32 mm")
    #expect(p.rightEye?.prism?.verticalBase == .up && p.rightEye?.prism?.eye == .right)
    #expect(p.leftEye == LensSpecification(sphere: -2))
    #expect(p.source.bundleID == "com.apple.Health" && p.source.device == .phone)
    #expect(summary.skippedElements["Attachment"]?["in VisionPrescription"] == 1)
    // Read twice, the same identifier (derived from the content).
    #expect(try readPrescriptions(export(Self.glasses)).prescriptions.first?.uuid == p.uuid)
  }

  @Test("a bad type, a lens without a sphere, a wrong unit and a lens-less glasses element are located errors")
  func badElements() {
    let cases: [(String, String)] = [
      (
        "<VisionPrescription type=\"monocle\" dateIssued=\"2025-11-03 10:00:00 +0100\"/>",
        "not a vision prescription type"
      ),
      (
        "<VisionPrescription type=\"glasses\" dateIssued=\"2025-11-03 10:00:00 +0100\"><RightEye axis=\"9\"/>"
          + "</VisionPrescription>", "without a 'sphere'"
      ),
      (
        "<VisionPrescription type=\"contacts\" dateIssued=\"2025-11-03 10:00:00 +0100\"><LeftEye sphere=\"1\" "
          + "sphereUnit=\"mm\"/></VisionPrescription>", "is not a unit of lens power"
      ),
      ("<VisionPrescription type=\"1\"/>", "without a 'dateIssued'"),
    ]
    for (element, fragment) in cases {
      do {
        _ = try readPrescriptions(export(element))
        Issue.record("\(element) was read")
      } catch {
        #expect(error.description.contains(fragment), "\(error)")
        #expect(error.location.line > 0, "located: \(error)")
      }
    }
  }

  @Test("what HealthPair writes reads back to the same prescriptions, identifiers included")
  func roundTrip() throws {
    let saved = VisionPrescription(
      uuid: UUID(uuidString: "9E55E500-0000-4000-8000-00000000000A")!, kind: .contacts, specifiesLenses: true,
      dateIssued: Date(timeIntervalSinceReferenceDate: 786_000_000), expirationDate: nil,
      rightEye: LensSpecification(sphere: -2.5, baseCurve: 8.6, diameter: 14.2), leftEye: nil, brand: "A&B",
      metadata: ["note": .string("daily")], source: SampleSource(bundleID: "com.example.optician", device: .phone))
    let first = try readPrescriptions(export(Self.glasses)).prescriptions
    var bytes: [UInt8] = []
    var writer = ExportWriter(offsetSeconds: 3600) { bytes += $0 }
    try writer.begin(exportDate: Date(timeIntervalSinceReferenceDate: 786_100_000))
    for p in first + [saved] { try writer.write(p) }
    try writer.finish()
    let written = String(decoding: bytes, as: UTF8.self)
    #expect(written.contains("<VisionPrescription type=\"contacts\"") && written.contains("brand=\"A&amp;B\""))
    let back = try readPrescriptions(written).prescriptions
    #expect(back.map(\.uuid) == [first[0].uuid, saved.uuid])
    #expect(back[1].rightEye == saved.rightEye && back[1].brand == "A&B" && back[1].metadata == saved.metadata)
    #expect(back[0].rightEye?.prism?.amount == first[0].rightEye?.prism?.amount)
  }
}
