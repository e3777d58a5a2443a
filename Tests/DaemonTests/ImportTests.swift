import FoundationEssentials
import TestSupport
import Testing

@testable import HealthEngine
@testable import HealthExport
@testable import HealthModel
@testable import HealthPairClient
@testable import Posix
@testable import Wire

private let fixture = Repository.exportFixtures + "/export.xml"
private let fixtureZip = Repository.exportFixtures + "/export.zip"

/// A synthetic export of `records` records written to a temporary file.
private func syntheticFile(_ records: Int, days: Int = 30, in directory: String) throws -> String {
  let path = directory + "/synthetic.xml"
  _ = try HealthExportFiles.writeSynthetic(SyntheticExport(records: records, days: days, end: t0, seed: 3), to: path)
  return path
}

@Suite("Importing Apple Health exports into real daemons")
struct ImportTests {
  @Test func theFixtureImportsIntoThePhoneAndTheWatchGetsItsWindow() throws {
    try withPair { pair in
      let report = try HealthExportFiles.importExport(path: fixture, into: pair.phone)
      // 19 samples, the fixture's audiogram and its glasses prescription (V6).
      #expect(report.outcome.addedCount == 21 && report.device == .phone)
      #expect(report.summary.audiograms == 1 && report.summary.visionPrescriptions == 1)
      #expect(try pair.phone.storedAudiograms().count == 1)
      #expect(try pair.phone.storedVisionPrescriptions().map(\.source.bundleID) == ["com.apple.Health"])
      #expect(report.outcome.alreadyPresent == 0, "the blood pressure's records, also at the top level, count once")
      #expect(try pair.phone.storedSamples().samples.count == 19)
      let correlations = try pair.phone.storedCorrelations()
      #expect(correlations.count == 1 && correlations[0].objects.count == 2)
      try pair.waitSynced(timeout: 20)
      #expect(try pair.watch.storedSamples().samples.count == 13, "the 13 samples ending in the watch's 7 days")
      #expect(try pair.watch.storedCorrelations() == correlations, "the blood pressure reaches the watch")
      let sources = Set(try pair.watch.storedSamples().samples.map { $0.source.details?.name ?? "" })
      #expect(sources == ["Robin’s Apple Watch", "Robin’s iPhone", "Drink & Track", "Health"])
    }
  }

  @Test func theZipAndTheXMLImportTheSameSamples() throws {
    try withPair { pair in
      _ = try HealthExportFiles.importExport(path: fixture, into: pair.phone)
      let again = try HealthExportFiles.importExport(path: fixtureZip, into: pair.phone)
      #expect(
        again.outcome.addedCount == 0 && again.outcome.alreadyPresent == 21, "19 samples, 1 audiogram, 1 prescription")
    }
  }

  @Test func importExportImportPreservesEveryRecord() throws {
    let directory = try Posix.makeTemporaryDirectory(prefix: "hp-roundtrip")
    defer { Posix.removeTree(directory) }
    let first = try withPair { pair in
      _ = try HealthExportFiles.importExport(path: fixture, into: pair.phone)
      _ = try HealthExportFiles.importExport(path: try syntheticFile(2_000, in: directory), into: pair.phone)
      #expect(try HealthExportFiles.exportStore(from: pair.phone, to: directory + "/out.zip", offsetSeconds: 3600) > 0)
      #expect(try HealthExportFiles.exportStore(from: pair.phone, to: directory + "/out.xml") > 0)
      return (try pair.phone.storedSamples().samples, try pair.phone.storedCorrelations())
    }
    #expect(first.1.count == 1, "the fixture's blood pressure")
    for file in ["out.zip", "out.xml"] {
      let second = try withPair { pair in
        _ = try HealthExportFiles.importExport(path: directory + "/" + file, into: pair.phone)
        return (try pair.phone.storedSamples().samples, try pair.phone.storedCorrelations())
      }
      #expect(second.0.count == first.0.count)
      #expect(second.0 == first.0, "identifiers, values, dates, sources with their details and metadata")
      #expect(second.1 == first.1, "correlations with their identifiers, dates, metadata, sources and members")
    }
  }

  @Test func aBadRecordAnywhereLeavesTheStoreExactlyAsItWas() throws {
    let directory = try Posix.makeTemporaryDirectory(prefix: "hp-bad")
    defer { Posix.removeTree(directory) }
    // 5,000 good records, then a bad unit: with batches of 100, fifty batches are staged before the error.
    var text = String(decoding: try Posix.readFile(try syntheticFile(5_000, in: directory)), as: UTF8.self)
    text = text.replacing(
      "</HealthData>",
      with: #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="S" unit="stride" "#
        + #"startDate="2026-01-01 10:00:00 +0000" endDate="2026-01-01 10:00:00 +0000" value="1"/>"#
        + "\n</HealthData>\n")
    let bad = directory + "/bad.xml"
    try Posix.writeFileAtomically(bad, Array(text.utf8))
    try withPair { pair in
      _ = try HealthExportFiles.importExport(path: fixture, into: pair.phone)
      let before = try pair.phone.storedSamples().samples
      var options = ExportImportOptions()
      options.batchSize = 100
      #expect(throws: ExportError.self) {
        _ = try HealthExportFiles.importExport(path: bad, into: pair.phone, options: options)
      }
      #expect(try pair.phone.storedSamples().samples == before)
      options.validateFirst = true
      let journal = try Posix.readFile(pair.layout.journal(.phone)).count
      #expect(throws: ExportError.self) {
        _ = try HealthExportFiles.importExport(path: bad, into: pair.phone, options: options)
      }
      #expect(try Posix.readFile(pair.layout.journal(.phone)).count == journal, "validated first: nothing sent")
      pair.kill(.phone)
      try pair.restart(.phone)
      #expect(try pair.phone.storedSamples().samples == before)
    }
  }

  @Test func killingTheDaemonMidImportLeavesTheStoreAsItWasAfterRestart() throws {
    let directory = try Posix.makeTemporaryDirectory(prefix: "hp-kill")
    defer { Posix.removeTree(directory) }
    var reader = ExportReader(try FileInput(path: try syntheticFile(3_000, in: directory)), file: "synthetic.xml")
    var samples: [Sample] = []
    while let sample = try reader.next() { samples.append(sample) }
    try withPair { pair in
      _ = try HealthExportFiles.importExport(path: fixture, into: pair.phone)
      let before = try pair.phone.storedSamples().samples
      // Stage batches by hand, then kill -9 the daemon before the commit.
      for start in stride(from: 0, to: 2_000, by: 500) {
        try pair.phone.perform(.importBatch(77, Array(samples[start..<start + 500])))
      }
      let staged = try Posix.readFile(pair.layout.journal(.phone)).count
      #expect(staged > 100_000, "the staged batches are in the journal")
      pair.kill(.phone)
      try pair.restart(.phone)
      #expect(try pair.phone.storedSamples().samples == before)
      let log = String(decoding: try Posix.readFile(pair.layout.log(.phone)), as: UTF8.self)
      #expect(log.contains("an import interrupted before its commit was discarded"))
      #expect(throws: ClientError.self) { _ = try pair.phone.perform(.importCommit(77)) }
      // A clean import after it works, and survives another restart.
      let report = try HealthExportFiles.importExport(path: directory + "/synthetic.xml", into: pair.phone)
      #expect(report.outcome.addedCount == samples.count)
      pair.kill(.phone)
      try pair.restart(.phone)
      #expect(try pair.phone.storedSamples().samples.count == before.count + samples.count)
    }
  }

  @Test func anImportWhoseClientGoesAwayIsAbandonedAndBelongsToItsConnection() throws {
    let samples = try { () throws -> [Sample] in
      var reader = ExportReader(try FileInput(path: fixture), file: "export.xml")
      var out: [Sample] = []
      while let sample = try reader.next() { out.append(sample) }
      return out
    }()
    try withPair { pair in
      let other = try DeviceClient(socketPath: pair.layout.socket(.phone), clientName: "importer")
      try other.perform(.importBatch(5, samples))
      // Another connection cannot commit or add to it.
      #expect(throws: ClientError.self) { _ = try pair.phone.perform(.importCommit(5)) }
      #expect(throws: ClientError.self) { try pair.phone.perform(.importBatch(5, samples)) }
      other.close()
      try waitUntil("the import to be abandoned", probe: pair.phone) {
        String(decoding: try Posix.readFile(pair.layout.log(.phone)), as: UTF8.self)
          .contains("import abandoned: its client went away")
      }
      #expect(try pair.phone.storedSamples().samples.isEmpty)
      #expect(throws: ClientError.self) { _ = try pair.phone.perform(.importCommit(5)) }
    }
  }

  @Test func importingIntoTheWatchKeepsOnlyItsWindowAndSyncsToThePhone() throws {
    try withPair { pair in
      let report = try HealthExportFiles.importExport(path: fixtureZip, into: pair.watch)
      // The audiogram (2025-12-10) is before the window too.
      #expect(report.outcome.addedCount == 13 && report.outcome.beforeRetention == 7)
      try pair.waitSynced(timeout: 20)
      #expect(try pair.phone.storedSamples().samples.count == 13)
      #expect(try pair.phone.storedCorrelations().count == 1, "the watch's blood pressure reaches the phone")
    }
  }
}
