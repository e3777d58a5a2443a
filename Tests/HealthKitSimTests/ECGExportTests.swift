import Foundation
import HealthKitSim
import HealthModel
import HealthPairClient
import HealthPairTesting
import Posix
import Testing

/// Electrocardiograms through Apple Health export files, against a real pair: the watch's recording exported as
/// `electrocardiograms/ecg_<day>.csv`, imported into the phone once, and found present by content on the watch that
/// recorded it (the CSV file carries no identifier).
@Suite("Electrocardiograms exported as CSV files and imported, against real daemons")
struct ECGExportTests {
  /// Every recording `device` stores, with its voltages.
  static func stored(_ device: HealthDevice) throws -> [Electrocardiogram] {
    try DeviceClient(socketPath: device.socketPath, clientName: "ecg-export-test").storedElectrocardiograms()
  }

  @Test func aWatchRecordingExportsAndImportsOnceByContent() async throws {
    let directory = try Posix.makeTemporaryDirectory(prefix: "hp-ecg-export")
    defer { Posix.removeTree(directory) }
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      // The link stays down: the phone gets the recording only from the export.
      try pair.link.disconnect()
      let id = try pair.watch.recordElectrocardiogram(.atrialFibrillation, symptoms: .present, start: t0 - 300.25)
      let recorded = try #require(try Self.stored(pair.watch).first)
      #expect(recorded.uuid == id && recorded.voltages.count == 15_360)
      try pair.watch.exportHealthData(to: directory + "/export.zip")
      try Posix.makeDirectory(directory + "/plain", mode: 0o755)
      try pair.watch.exportHealthData(to: directory + "/plain/export.xml")
      let day = ExportDateText.day(of: recorded.start)
      let file = directory + "/plain/electrocardiograms/ecg_\(day).csv"
      #expect(String(decoding: try Posix.readFile(file), as: UTF8.self).contains("Classification,Atrial Fibrillation"))

      let first = try pair.phone.importHealthExport(at: directory + "/export.zip")
      #expect(first.electrocardiograms == 1 && first.added == 1 && first.alreadyPresent == 0)
      let imported = try #require(try Self.stored(pair.phone).first)
      #expect(try Self.stored(pair.phone).count == 1)
      #expect(imported.voltages == recorded.voltages, "the synthesized voltages are whole thousandths of a µV")
      #expect(
        imported.start
          == Date(
            timeIntervalSinceReferenceDate: recorded.start.timeIntervalSinceReferenceDate
              .rounded(.down)), "the file's start, to the second")
      #expect(imported.classification == .atrialFibrillation && imported.symptomsStatus == .present)
      #expect(imported.source.bundleID == Electrocardiogram.recorderBundleID && imported.source.device == .watch)
      #expect(imported.uuid != id, "the file carries no identifier")

      // Again, from the zip or the folder: nothing added.
      for path in [directory + "/export.zip", directory + "/plain/export.xml"] {
        let again = try pair.phone.importHealthExport(at: path)
        #expect(again.added == 0 && again.alreadyPresent == 1, "\(path)")
      }
      // The watch that recorded it holds it under its own identifier: present by start and voltages.
      let onWatch = try pair.watch.importHealthExport(at: directory + "/plain/export.xml")
      #expect(onWatch.electrocardiograms == 1 && onWatch.added == 0 && onWatch.alreadyPresent == 1)
      #expect(try Self.stored(pair.watch).map(\.uuid) == [id])
      #expect(try Self.stored(pair.phone).count == 1)
    }
  }
}

/// An export day as the file names show it (UTC, as `exportHealthData` writes).
enum ExportDateText {
  /// `YYYY-MM-DD` of `date` in UTC.
  static func day(of date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
  }
}
