import FoundationEssentials
import Testing

@testable import HealthExport
@testable import HealthModel

/// What `ExportWriter` writes for `samples` and `correlations` (every correlation's members among `samples`).
private func written(_ samples: [Sample], _ correlations: [Correlation]) throws -> [UInt8] {
  var out: [UInt8] = []
  var writer = ExportWriter(offsetSeconds: 3600) { out += $0 }
  try writer.begin(exportDate: Date(timeIntervalSinceReferenceDate: 800_000_000))
  for sample in samples { try writer.write(sample) }
  for correlation in correlations {
    try writer.write(correlation, members: samples.filter { correlation.members.contains($0.uuid) })
  }
  try writer.finish()
  return out
}

@Suite("Export sources and identifiers: Apple's device sources, and identifiers through every round trip")
struct SourceAndIdentityTests {
  /// Issue 29 item 13: watchOS 3–5 exports write `manufacturer:Apple` (jdecool/healthkit-parser's test fixtures
  /// quote `name:Apple Watch, manufacturer:Apple, model:Watch, hardware:Watch4,2, software:5.0.1`); only
  /// `Apple Inc.` was recognised, so the watch's own heart rate became a third-party app's.
  @Test func anAppleWatchWritingManufacturerAppleIsTheWatchItself() throws {
    let record =
      "<Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Henrik’s Apple Watch\" sourceVersion=\"5.1.2\" "
      + "device=\"&lt;&lt;HKDevice: 0x174285dc0&gt;, name:Apple Watch, manufacturer:Apple, model:Watch, "
      + "hardware:Watch2,4, software:5.1.2&gt;\" unit=\"count/min\" creationDate=\"2018-11-16 13:36:42 +0100\" "
      + "startDate=\"2018-11-16 13:28:45 +0100\" endDate=\"2018-11-16 13:28:45 +0100\" value=\"90\"/>"
    let (samples, _) = try readAll(export(record))
    let source = try #require(samples.first?.source)
    #expect(source.bundleID.hasPrefix("com.apple.health."), "\(source.bundleID)")
    #expect(source.device == .watch && source.isApple)
    #expect(source.details?.hardware?.manufacturer == "Apple", "the description is kept as written")
    // A third party's device is still an app.
    let other = record.replacing("manufacturer:Apple,", with: "manufacturer:Garmin,").replacing(
      "Henrik’s Apple Watch", with: "Connect")
    #expect(try readAll(export(other)).samples.first?.source.bundleID == "com.healthpair.imported.connect")
  }

  /// Issue 29 item 14: a sample that came from a HealthPair export with its `_HealthPair.uuid` has source details,
  /// so the next export left its identifier out and the import after it gave the sample a new one. Export → import
  /// → export → import keeps every identifier, for samples and correlations.
  @Test func identifiersSurviveEveryExportAndImportRoundTrip() throws {
    let app = "com.example.water"
    let bp = SampleType.lookup(name: "bloodPressure")!
    let systolic = SampleType.lookup(name: "bloodPressureSystolic")!
    let diastolic = SampleType.lookup(name: "bloodPressureDiastolic")!
    let water = SampleType.lookup(name: "dietaryWater")!
    let t = Date(timeIntervalSinceReferenceDate: 790_000_000.25)
    func sample(_ type: SampleType, _ value: Double) -> Sample {
      Sample(
        uuid: UUID(), type: type, value: .quantity(value), start: t, end: t,
        metadata: ["HKWasUserEntered": .bool(true)],
        source: SampleSource(bundleID: app, device: .phone))
    }
    let samples = [sample(water, 0.25), sample(systolic, 120), sample(diastolic, 80)]
    let correlation = Correlation(
      uuid: UUID(), type: bp, start: t, end: t, metadata: [:], source: SampleSource(bundleID: app, device: .phone),
      members: [samples[1].uuid, samples[2].uuid])
    var current = (samples: samples, correlations: [correlation])
    for round in 1...3 {
      let (read, summary) = try readAll(try written(current.samples, current.correlations))
      #expect(Set(read.map(\.uuid)) == Set(samples.map(\.uuid)), "round \(round): the samples' identifiers")
      #expect(summary.correlations.map(\.uuid) == [correlation.uuid], "round \(round): the correlation's")
      #expect(read.allSatisfy { $0.source.details?.name == app }, "read back, they have source details")
      var unique: [Sample] = []
      for s in read where !unique.contains(where: { $0.uuid == s.uuid }) { unique.append(s) }
      current = (unique, summary.correlations)
    }
  }

  /// A record whose identifier derives from its content (what Apple's exports hold) is written without one, as
  /// before: HealthPair's export of an import stays in Apple's shape.
  @Test func derivedIdentifiersAreNotWritten() throws {
    let (samples, summary) = try readAll(try bytes(of: fixturePath))
    var unique: [Sample] = []
    for s in samples where !unique.contains(where: { $0.uuid == s.uuid }) { unique.append(s) }
    let text = String(decoding: try written(unique, summary.correlations), as: UTF8.self)
    #expect(!text.contains(ExportWriter.identifierKey))
    let (again, againSummary) = try readAll(Array(text.utf8))
    #expect(Set(again.map(\.uuid)) == Set(unique.map(\.uuid)))
    #expect(againSummary.correlations.map(\.uuid) == summary.correlations.map(\.uuid))
  }
}
