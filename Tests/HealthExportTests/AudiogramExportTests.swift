import FoundationEssentials
import TestSupport
import Testing

@testable import HealthExport
@testable import HealthModel

/// Every audiogram `text` (an export.xml) holds, read as an import reads them (pausing for objects), and the
/// reader's summary.
func readAudiograms(_ text: String, chunk: Int = .max) throws(ExportError) -> (
  audiograms: [Audiogram], summary: ImportSummary
) {
  var reader = ExportReader(MemoryInput(Array(text.utf8), chunk: chunk), file: "export.xml")
  reader.pausesForObjects = true
  var audiograms: [Audiogram] = []
  while try reader.next() != nil || !reader.atEnd { audiograms += reader.takeAudiograms() }
  audiograms += reader.takeAudiograms()
  return (audiograms, reader.summary)
}

/// An `Audiogram` element from "Mimi" around `children` (line 4 of ``export(_:)``, its children from line 5).
func audiogramElement(_ children: String) -> String {
  "<Audiogram type=\"HKDataTypeIdentifierAudiogram\" sourceName=\"Mimi\" sourceVersion=\"1\" "
    + "creationDate=\"2026-01-04 10:00:00 +0100\" startDate=\"2026-01-04 09:50:00 +0100\" "
    + "endDate=\"2026-01-04 10:00:00 +0100\">\n" + children + "</Audiogram>\n"
}

/// A `SensitivityPoint` at `frequency` Hz with `attributes` (the ears).
func point(_ frequency: String, _ attributes: String) -> String {
  "<SensitivityPoint frequencyValue=\"\(frequency)\" frequencyUnit=\"Hz\" \(attributes)/>\n"
}

@Suite("Audiograms in export.xml: Apple's elements read, HealthPair's written and read back")
struct AudiogramExportTests {
  /// Seconds since the reference date of an export date.
  static func at(_ text: String) -> Date { Date(timeIntervalSinceReferenceDate: ExportDate.parse(text)!) }

  @Test("the pre-18.1 form: one unmasked test per ear with a value, left first, source mapped by name")
  func legacyForm() throws {
    let text = export(
      audiogramElement(
        point("250", "leftEarValue=\"5\" leftEarUnit=\"dBHL\" rightEarValue=\"8\" rightEarUnit=\"dBHL\"")
          + point("1000", "rightEarValue=\"12\" rightEarUnit=\"dBHL\" leftEarValue=\"10\" leftEarUnit=\"dBHL\"")
          + "<SensitivityPoint frequencyValue=\"4\" frequencyUnit=\"kHz\" rightEarValue=\"30.5\" rightEarUnit=\"dBHL\""
          + " futureAttribute=\"x\"/>\n"))
    let (audiograms, summary) = try readAudiograms(text, chunk: 7)
    let audiogram = try #require(audiograms.first)
    #expect(audiograms.count == 1 && summary.audiograms == 1 && summary.skippedElements.isEmpty)
    #expect(
      audiogram.start == Self.at("2026-01-04 09:50:00 +0100") && audiogram.end == Self.at("2026-01-04 10:00:00 +0100"))
    #expect(
      audiogram.points == [
        AudiogramPoint(
          frequency: 250, tests: [.init(sensitivity: 5, side: .left), .init(sensitivity: 8, side: .right)]),
        AudiogramPoint(
          frequency: 1000, tests: [.init(sensitivity: 10, side: .left), .init(sensitivity: 12, side: .right)]),
        AudiogramPoint(frequency: 4000, tests: [.init(sensitivity: 30.5, side: .right)]),
      ])
    #expect(audiogram.source.details?.name == "Mimi" && audiogram.source.details?.version == "1")
    #expect(summary.sources.map(\.audiograms) == [1] && summary.sources.map(\.samples) == [0])
    #expect(audiogram.metadata.isEmpty)
    try audiogram.validate()
    // The identifier comes from the content: the same element reads as the same audiogram, another point not.
    #expect(try readAudiograms(text).audiograms == audiograms)
    let other = try readAudiograms(text.replacing("\"30.5\"", with: "\"31\"")).audiograms
    #expect(other.first?.uuid != audiogram.uuid)
  }

  @Test("the 18.1 form: masked ears (1/0, true/false, YES/NO), clamping ranges, metadata, _HealthPair.uuid")
  func currentForm() throws {
    let id = "0E3C1F7A-5B2D-4C8E-9A61-7D4F2B8C0E13"
    let text = export(
      audiogramElement(
        "<MetadataEntry key=\"HKExternalUUID\" value=\"abc\"/>\n"
          + "<MetadataEntry key=\"_HealthPair.uuid\" value=\"\(id)\"/>\n"
          + point(
            "500",
            "leftEarValue=\"15\" leftEarUnit=\"dBHL\" leftEarMasked=\"0\" rightEarValue=\"45\" rightEarUnit=\"dBHL\" "
              + "rightEarMasked=\"1\" rightEarClampingRangeLowerBound=\"0\" rightEarClampingRangeUpperBound=\"90\"")
          + point("1000", "leftEarValue=\"20\" leftEarMasked=\"YES\" rightEarValue=\"25\" rightEarMasked=\"false\"")
          + point("2000", "leftEarValue=\"30\" leftEarMasked=\"true\" leftEarClampingRangeUpperBound=\"100\"")
          + point("4000", "leftEarValue=\"35\" leftEarMasked=\"NO\" rightEarMasked=\"1\"")))
    let audiogram = try #require(try readAudiograms(text).audiograms.first)
    #expect(audiogram.uuid == UUID(uuidString: id))
    #expect(audiogram.metadata == ["HKExternalUUID": .string("abc")])
    #expect(
      audiogram.points == [
        AudiogramPoint(
          frequency: 500,
          tests: [
            .init(sensitivity: 15, side: .left),
            .init(sensitivity: 45, side: .right, masked: true, clampLower: 0, clampUpper: 90),
          ]),
        AudiogramPoint(
          frequency: 1000,
          tests: [.init(sensitivity: 20, side: .left, masked: true), .init(sensitivity: 25, side: .right)]),
        AudiogramPoint(frequency: 2000, tests: [.init(sensitivity: 30, side: .left, masked: true, clampUpper: 100)]),
        AudiogramPoint(frequency: 4000, tests: [.init(sensitivity: 35, side: .left)]),
      ], "an ear's masked attribute without its value is ignored; no unit reads as dBHL")
  }

  @Test("an audiogram an app saved writes exactly this element and reads back as the same audiogram")
  func pinnedRoundTrip() throws {
    let saved = Audiogram(
      uuid: UUID(uuidString: "6A1D2C3B-4E5F-4061-8273-94A5B6C7D8E9")!, start: Self.at("2026-01-04 08:50:00 +0000"),
      end: Self.at("2026-01-04 09:00:00.5 +0000"),
      points: [
        AudiogramPoint(
          frequency: 250,
          tests: [
            .init(sensitivity: 8.5, side: .right, masked: true, clampLower: 0, clampUpper: 90),
            .init(sensitivity: 5, side: .left),
          ]),
        AudiogramPoint(frequency: 1000.25, tests: [.init(sensitivity: -10, side: .right, clampUpper: 100)]),
      ],
      metadata: ["HKExternalUUID": .string("a&b")],
      source: SampleSource(bundleID: "com.example.hearing", device: .phone))
    var bytes: [UInt8] = []
    var writer = ExportWriter(offsetSeconds: 3600) { bytes += $0 }
    try writer.begin(exportDate: Self.at("2026-01-05 08:00:00 +0000"))
    try writer.write(saved)
    try writer.finish()
    let written = String(decoding: bytes, as: UTF8.self)
    let element = try #require(written.firstRange(of: " <Audiogram ").map { String(written[$0.lowerBound...]) })
    #expect(
      element == """
         <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="com.example.hearing" \
        creationDate="2026-01-04 10:00:00.5 +0100" startDate="2026-01-04 09:50:00 +0100" \
        endDate="2026-01-04 10:00:00.5 +0100">
          <MetadataEntry key="_HealthPair.uuid" value="6A1D2C3B-4E5F-4061-8273-94A5B6C7D8E9"/>
          <MetadataEntry key="HKExternalUUID" value="a&amp;b"/>
          <SensitivityPoint frequencyValue="250" frequencyUnit="Hz" leftEarValue="5" leftEarUnit="dBHL" \
        rightEarValue="8.5" rightEarUnit="dBHL" rightEarMasked="1" rightEarClampingRangeLowerBound="0" \
        rightEarClampingRangeUpperBound="90"/>
          <SensitivityPoint frequencyValue="1000.25" frequencyUnit="Hz" rightEarValue="-10" rightEarUnit="dBHL" \
        rightEarClampingRangeUpperBound="100"/>
         </Audiogram>
        </HealthData>

        """)
    let read = try #require(try readAudiograms(written).audiograms.first)
    #expect(read.uuid == saved.uuid && read.metadata == saved.metadata && read.source.bundleID == saved.source.bundleID)
    #expect(read.start == saved.start && read.end == saved.end)
    #expect(read.points.map(\.frequency) == saved.points.map(\.frequency))
    for (a, b) in zip(read.points, saved.points) { #expect(Set(a.tests) == Set(b.tests)) }
  }

  @Test("an imported audiogram writes no identifier: its element derives the same one again")
  func importedAudiogramsDeriveTheirIdentifier() throws {
    let fixture = try bytes(of: Repository.exportFixtures + "/audiograms/export.xml")
    let first = try readAudiograms(String(decoding: fixture, as: UTF8.self)).audiograms
    #expect(first.count == 2)
    var bytes: [UInt8] = []
    var writer = ExportWriter(offsetSeconds: -18_000) { bytes += $0 }
    try writer.begin(exportDate: Self.at("2026-01-05 08:00:00 +0000"))
    for audiogram in first { try writer.write(audiogram) }
    try writer.finish()
    let written = String(decoding: bytes, as: UTF8.self)
    let body = try #require(written.firstRange(of: "<HealthData ").map { written[$0.lowerBound...] })
    #expect(!body.contains("_HealthPair.uuid"))
    #expect(written.contains("rightEarMasked=\"1\" rightEarClampingRangeLowerBound=\"0\""))
    #expect(!body.contains("leftEarMasked"), "an unmasked ear writes no masked attribute")
    #expect(try readAudiograms(written).audiograms == first)
  }

  /// The error reading one audiogram of `children` gives, with nothing read before it handed out.
  static func error(_ children: String) -> ExportError? {
    do {
      let read = try readAudiograms(export(audiogramElement(children)))
      Issue.record("expected an error, read \(read.audiograms)")
      return nil
    } catch { return error }
  }

  @Test(
    "every bad point is a located error naming the element",
    arguments: [
      (
        "<SensitivityPoint frequencyUnit=\"Hz\" leftEarValue=\"5\"/>\n", ExportError.Kind.notAnExport, 5,
        "frequencyValue"
      ),
      ("<SensitivityPoint frequencyValue=\"250\" frequencyUnit=\"dB\" leftEarValue=\"5\"/>\n", .unit, 5, "'dB'"),
      ("<SensitivityPoint frequencyValue=\"250\" frequencyUnit=\"s\" leftEarValue=\"5\"/>\n", .unit, 5, "frequency"),
      (point("250", "leftEarValue=\"5\" leftEarUnit=\"dB\""), .unit, 5, "hearing level"),
      (point("250", "leftEarValue=\"5\" leftEarUnit=\"Hz\""), .unit, 5, "'Hz'"),
      (point("25O", "leftEarValue=\"5\""), .value, 5, "'25O' is not a number"),
      (point("250", "leftEarValue=\"loud\""), .value, 5, "'loud'"),
      (point("250", "leftEarValue=\"5\" leftEarClampingRangeLowerBound=\"low\""), .value, 5, "'low'"),
      (point("250", "leftEarValue=\"5\" leftEarMasked=\"maybe\""), .value, 5, "'maybe'"),
      (point("250", "leftEarUnit=\"dBHL\" rightEarMasked=\"1\""), .value, 5, "neither"),
      (point("250", "leftEarValue=\"5\"") + point("250", "leftEarValue=\"6\""), .invalidRecord, 6, "ascending"),
      (point("1000", "leftEarValue=\"5\"") + point("500", "leftEarValue=\"6\""), .invalidRecord, 6, "500 Hz after"),
      (point("250", "leftEarValue=\"170\""), .invalidRecord, 5, "-20 - 160 dBHL"),
      (point("250", "rightEarValue=\"-21\""), .invalidRecord, 5, "-20 - 160 dBHL"),
      (point("30001", "rightEarValue=\"0\""), .invalidRecord, 5, "0 - 30000 Hz"),
      (
        point("250", "leftEarValue=\"5\" leftEarClampingRangeLowerBound=\"90\" leftEarClampingRangeUpperBound=\"10\""),
        .invalidRecord, 5, "lower bound"
      ),
      ("", .invalidRecord, 4, "at least 1 sensitivity point"),
    ])
  func badPoints(_ children: String, kind: ExportError.Kind, line: Int, says: String) {
    let error = Self.error(children)
    #expect(error?.kind == kind, "\(String(describing: error))")
    #expect(error?.location.line == line, "\(String(describing: error))")
    #expect(error?.message.contains(says) == true, "\(String(describing: error))")
    if kind == .invalidRecord || kind == .notAnExport {
      #expect(error?.message.contains("<Audiogram>") == true, "\(String(describing: error))")
    }
  }

  @Test("the 31st point is refused where it stands")
  func thirtyOnePoints() throws {
    let points = (1...31).map { point("\($0 * 100)", "leftEarValue=\"5\"") }.joined()
    let error = Self.error(points)
    #expect(error?.kind == .invalidRecord)
    #expect(error?.location.line == 35, "\(String(describing: error))")
    #expect(error?.message.contains("limited to 30 sensitivity points") == true)
    let thirty = (1...30).map { point("\($0 * 100)", "leftEarValue=\"5\"") }.joined()
    #expect(try readAudiograms(export(audiogramElement(thirty))).audiograms.first?.points.count == 30)
  }

  @Test("an element without its required attributes, or with dates out of order, is refused at the element")
  func badElements() {
    let good = point("250", "leftEarValue=\"5\"")
    let type = "type=\"HKDataTypeIdentifierAudiogram\""
    let start = "startDate=\"2026-01-04 09:50:00 +0100\""
    let end = "endDate=\"2026-01-04 10:00:00 +0100\""
    for (element, says) in [
      ("<Audiogram sourceName=\"Mimi\" \(start) \(end)>", "'type'"),
      ("<Audiogram \(type) \(start) \(end)>", "'sourceName'"),
      ("<Audiogram \(type) sourceName=\"Mimi\" \(end)>", "'startDate'"),
      ("<Audiogram \(type) sourceName=\"Mimi\" startDate=\"2026-01-04 10:50:00 +0100\" \(end)>", "<Audiogram>"),
    ] {
      let error = readError(export(element + "\n" + good + "</Audiogram>\n"))
      #expect(error?.location.line == 4, "\(element): \(String(describing: error))")
      #expect(error?.message.contains(says) == true, "\(String(describing: error))")
    }
  }

  @Test("an audiogram of another type is skipped and reported, its points with it")
  func otherTypeIsSkipped() throws {
    let text = export(
      audiogramElement(point("250", "leftEarValue=\"5\"")).replacing(
        "HKDataTypeIdentifierAudiogram", with: "HKDataTypeIdentifierBoneAudiogram"))
    let (audiograms, summary) = try readAudiograms(text)
    #expect(audiograms.isEmpty && summary.audiograms == 0)
    #expect(summary.skippedElements["Audiogram"] == ["HKDataTypeIdentifierBoneAudiogram": 1])
  }
}
