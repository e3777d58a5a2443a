import Foundation
import HealthKitSim
import HealthModel
import HealthPairClient
import HealthPairTesting
import Posix
import Testing

/// Audiograms through Apple Health export files, against a real pair: an app's hearing test saved through
/// HealthKitSim on the phone, exported as an `Audiogram` element, imported into the watch once under its own
/// identifier (`_HealthPair.uuid`), and found present when imported again.
@Suite("Audiograms exported in export.xml and imported, against real daemons")
struct AudiogramExportTests {
  static let app = "com.example.hearing"

  /// Every audiogram `device` stores.
  static func stored(_ device: HealthDevice) throws -> [Audiogram] {
    try DeviceClient(socketPath: device.socketPath, clientName: "audiogram-export-test").storedAudiograms()
  }

  @Test func anAppsAudiogramExportsFromThePhoneAndImportsIntoTheWatchOnce() async throws {
    let directory = try Posix.makeTemporaryDirectory(prefix: "hp-audiogram-export")
    defer { Posix.removeTree(directory) }
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      // The link stays down: the watch gets the audiogram only from the export.
      try pair.link.disconnect()
      let type = HKObjectType.audiogramSampleType()
      try pair.phone.install(app: Self.app, name: "Hearing", writeUsage: "Saves tests.", readUsage: "Shows them.")
      try await pair.phone.authorize(Self.app, share: [type], read: [type])
      let id = try await pair.phone.use(app: Self.app) {
        let hz = HKUnit.hertz()
        let dBHL = HKUnit.decibelHearingLevel()
        var points: [HKAudiogramSensitivityPoint] = []
        for (frequency, left, right) in [(500.0, 10.0, 5.0), (1_000, 15, 20), (4_000, 35.5, 40)] {
          points.append(
            try HKAudiogramSensitivityPoint(
              frequency: HKQuantity(unit: hz, doubleValue: frequency),
              leftEarSensitivity: HKQuantity(unit: dBHL, doubleValue: left),
              rightEarSensitivity: HKQuantity(unit: dBHL, doubleValue: right)))
        }
        let sample = HKAudiogramSample(
          sensitivityPoints: points, start: t0 - 600, end: t0 - 300, metadata: ["clinic": "Hearing & Co"])
        try await HKHealthStore().save(sample)
        return sample.uuid
      }
      let saved = try #require(try Self.stored(pair.phone).first)
      #expect(saved.uuid == id)

      try pair.phone.exportHealthData(to: directory + "/export.xml")
      let xml = String(decoding: try Posix.readFile(directory + "/export.xml"), as: UTF8.self)
      #expect(xml.contains("<Audiogram type=\"HKDataTypeIdentifierAudiogram\" sourceName=\"\(Self.app)\""))
      #expect(xml.contains("<MetadataEntry key=\"_HealthPair.uuid\" value=\"\(id.uuidString)\"/>"))
      #expect(
        xml.contains(
          "<SensitivityPoint frequencyValue=\"4000\" frequencyUnit=\"Hz\" leftEarValue=\"35.5\" leftEarUnit=\"dBHL\" "
            + "rightEarValue=\"40\" rightEarUnit=\"dBHL\"/>"))

      // A bad audiogram gives the whole import up: nothing reaches the watch.
      let bad = xml.replacing("frequencyValue=\"1000\"", with: "frequencyValue=\"100\"")
      try Posix.writeFileAtomically(directory + "/bad.xml", Array(bad.utf8), mode: 0o644)
      #expect(throws: HealthPairTestingError.self) { try pair.watch.importHealthExport(at: directory + "/bad.xml") }
      #expect(try Self.stored(pair.watch).isEmpty)

      let first = try pair.watch.importHealthExport(at: directory + "/export.xml")
      #expect(first.audiograms == 1 && first.added == 1 && first.alreadyPresent == 0)
      let imported = try Self.stored(pair.watch)
      #expect(imported.count == 1)
      let audiogram = try #require(imported.first)
      #expect(audiogram.uuid == id, "the export carried the app's identifier")
      #expect(audiogram.points == saved.points && audiogram.start == saved.start && audiogram.end == saved.end)
      #expect(audiogram.metadata["clinic"] == .string("Hearing & Co"))
      #expect(audiogram.source.bundleID == Self.app)

      let again = try pair.watch.importHealthExport(at: directory + "/export.xml")
      #expect(again.audiograms == 1 && again.added == 0 && again.alreadyPresent == 1)
      #expect(try Self.stored(pair.watch).map(\.uuid) == [id])
    }
  }
}
