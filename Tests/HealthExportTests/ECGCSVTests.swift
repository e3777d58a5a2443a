import FoundationEssentials
import TestSupport
import Testing

@testable import HealthExport
@testable import HealthModel

/// A recording of `voltages` at `frequency` starting at `start` (an export date), as the watch's ECG app stores it.
func recording(
  _ voltages: [Float], start: String = "2026-01-04 08:14:40 +0000", frequency: Double = 512,
  classification: ECGClassification = .sinusRhythm, symptoms: ECGSymptomsStatus = .notSet,
  source: SampleSource = SampleSource(bundleID: Electrocardiogram.recorderBundleID, device: .watch)
) -> Electrocardiogram {
  let begin = Date(timeIntervalSinceReferenceDate: ExportDate.parse(start)!)
  return Electrocardiogram(
    uuid: UUID(), start: begin, end: begin.addingTimeInterval(Double(voltages.count) / frequency),
    classification: classification, symptomsStatus: symptoms, averageHeartRate: 72, samplingFrequency: frequency,
    voltages: voltages, metadata: [ECGRecording.algorithmVersionKey: .int(2)], source: source)
}

/// Apple's English layout, as real exports show it (watchlib reads the first 12 lines as the header).
let appleECG = """
  Name,Robin Doe
  Date of Birth,"Feb 5, 1952"
  Recorded Date,2020-02-05 09:14:40 -0400
  Classification,Sinus Rhythm
  Symptoms,
  Software Version,1.90
  Device,"Watch5,4"
  Sample Rate,512 hertz


  Lead,Lead I
  Unit,µV


  -48.673
  -59.681
  -70.012
  -77.148

  """

@Suite("Electrocardiogram CSV files: Apple's layout read and written")
struct ECGCSVTests {
  @Test("a small recording writes exactly Apple's layout and reads back with every voltage")
  func pinnedRoundTrip() throws {
    let ecg = recording([-48.673, -59.681, 0.005, 812, -0.0004], start: "2026-01-04 08:14:40.75 +0000")
    let bytes = ECGCSV.document(for: ecg, offsetSeconds: 3600)
    let expected = """
      Name,
      Date of Birth,
      Recorded Date,2026-01-04 09:14:40 +0100
      Classification,Sinus Rhythm
      Symptoms,
      Software Version,1.90
      Device,Watch
      Sample Rate,512 hertz


      Lead,Lead I
      Unit,µV


      -48.673
      -59.681
      0.005
      812.000
      0.000

      """
    #expect(String(decoding: bytes, as: UTF8.self) == expected)
    let read = try ECGCSV.read(bytes, file: "electrocardiograms/ecg_2026-01-04.csv")
    #expect(read.start == Date(timeIntervalSinceReferenceDate: ExportDate.parse("2026-01-04 08:14:40 +0000")!))
    #expect(read.end == read.start.addingTimeInterval(5.0 / 512))
    #expect(read.voltages == [-48.673, -59.681, 0.005, 812, 0])
    #expect(read.measurementCount == 5 && read.samplingFrequency == 512)
    #expect(read.classification == .sinusRhythm && read.symptomsStatus == .notSet)
    #expect(read.averageHeartRate == nil, "the file carries no heart rate")
    #expect(read.metadata.isEmpty, "the algorithm version shows only in the high-rate texts")
    #expect(read.source.bundleID == Electrocardiogram.recorderBundleID && read.source.device == .watch)
    #expect(read.source.details?.name == "ECG" && read.source.details?.version == "1.90")
    #expect(read.source.details?.hardware?.appleDeviceKind == .watch)
    #expect(read.source.details?.hardware?.hardwareVersion == nil)
    #expect(read.hasSameContent(as: ecg), "the same second and voltages to 1/1000 µV")
    try read.validate()
    // What was read writes the same bytes again, and reads as the same recording (identifier included).
    #expect(ECGCSV.document(for: read, offsetSeconds: 3600) == bytes)
    #expect(try ECGCSV.read(ECGCSV.document(for: read, offsetSeconds: -18000), file: "x.csv") == read)
  }

  @Test("Apple's own file reads: date with its offset, device, version, rate, voltages")
  func appleSample() throws {
    let ecg = try ECGCSV.read(Array(appleECG.utf8), file: "ecg_2020-02-05.csv")
    #expect(ecg.start == Date(timeIntervalSinceReferenceDate: ExportDate.parse("2020-02-05 13:14:40 +0000")!))
    #expect(ecg.voltages == [-48.673, -59.681, -70.012, -77.148])
    #expect(ecg.end == ecg.start.addingTimeInterval(4.0 / 512))
    #expect(ecg.classification == .sinusRhythm && ecg.symptomsStatus == .notSet)
    let hardware = try #require(ecg.source.details?.hardware)
    #expect(hardware.hardwareVersion == "Watch5,4" && hardware.model == "Watch" && hardware.name == "Apple Watch")
    #expect(ecg.source.details?.version == "1.90")
    let written = String(decoding: ECGCSV.document(for: ecg, offsetSeconds: -4 * 3600), as: UTF8.self)
    #expect(written.contains("Device,\"Watch5,4\"\nSample Rate,512 hertz\n"))
    #expect(written.contains("Recorded Date,2020-02-05 09:14:40 -0400\n"))
    #expect(written.hasSuffix("\n-48.673\n-59.681\n-70.012\n-77.148\n"))
  }

  @Test("a fractional rate, decimal commas (quoted or not), CRLF lines and a byte-order mark read")
  func decimalCommas() throws {
    let text =
      "\u{FEFF}Name,\r\nRecorded Date,2021-03-01 07:00:05 +0100\r\nClassification,Heart Rate Over 120\r\n"
      + "Symptoms,\"Rapid, pounding, or fluttering heartbeat\"\r\nSoftware Version,1.70\r\nDevice,\"Watch4,2\"\r\n"
      + "Sample Rate,512.844 hertz\r\n\r\n\r\nLead,Lead I\r\nUnit,µV\r\n\r\n\r\n-265,868\r\n\"12,5\"\r\n7\r\n+0,001\r\n"
    let ecg = try ECGCSV.read(Array(text.utf8), file: "ecg.csv")
    #expect(ecg.samplingFrequency == 512.844)
    #expect(ecg.voltages == [-265.868, 12.5, 7, 0.001])
    #expect(ecg.end == ecg.start.addingTimeInterval(4 / 512.844))
    #expect(ecg.classification == .inconclusiveHighHeartRate)
    #expect(ecg.metadata[ECGRecording.algorithmVersionKey] == .int(1))
    #expect(ecg.symptomsStatus == .present)
    #expect(
      ECGCSV.document(for: ecg).starts(with: Array("Name,\nDate of Birth,\nRecorded Date,2021-03-01 06:00:05".utf8)))
    #expect(String(decoding: ECGCSV.document(for: ecg), as: UTF8.self).contains("Sample Rate,512.844 hertz\n"))
  }

  @Test("every classification writes its text and reads back; other texts read as Apple's cases")
  func classificationMapping() throws {
    let texts: [(ECGClassification, String)] = [
      (.notSet, ""), (.sinusRhythm, "Sinus Rhythm"), (.atrialFibrillation, "Atrial Fibrillation"),
      (.inconclusiveLowHeartRate, "Heart Rate Under 50"), (.inconclusiveHighHeartRate, "Heart Rate Over 150"),
      (.inconclusivePoorReading, "Poor Recording"), (.inconclusiveOther, "Inconclusive"),
      (.unrecognized, "Unrecognized"),
    ]
    #expect(texts.count == ECGClassification.allCases.count)
    for (classification, text) in texts {
      let ecg = recording([1, 2, 3], classification: classification)
      let written = String(decoding: ECGCSV.document(for: ecg), as: UTF8.self)
      #expect(written.contains("\nClassification,\(text)\n"), "\(classification)")
      #expect(try ECGCSV.read(Array(written.utf8), file: "x.csv").classification == classification)
    }
    #expect(ECGCSV.classification(reading: "Heart Rate Over 120") == .inconclusiveHighHeartRate)
    #expect(ECGCSV.classification(reading: "High Heart Rate") == .inconclusiveHighHeartRate)
    #expect(ECGCSV.algorithmVersion(reading: "Heart Rate Over 150") == 2)
    #expect(ECGCSV.algorithmVersion(reading: "Sinus Rhythm") == nil)
    // A newer algorithm's or another language's text is unrecognized, not a failed import.
    let german = appleECG.replacing("Classification,Sinus Rhythm", with: "Classification,Sinusrhythmus")
    let ecg = try ECGCSV.read(Array(german.utf8), file: "x.csv")
    #expect(ecg.classification == .unrecognized)
    #expect(ECGCSV.classification(reading: "Vorhofflimmern") == .unrecognized)
  }

  @Test("symptoms read as not set, none or present, and write back so")
  func symptoms() throws {
    #expect(ECGCSV.symptomsStatus(reading: "") == .notSet)
    #expect(ECGCSV.symptomsStatus(reading: "None") == .none)
    #expect(ECGCSV.symptomsStatus(reading: "no symptoms") == .none)
    #expect(ECGCSV.symptomsStatus(reading: "Chest tightness or pain") == .present)
    for status in ECGSymptomsStatus.allCases {
      let bytes = ECGCSV.document(for: recording([1], symptoms: status))
      #expect(try ECGCSV.read(bytes, file: "x.csv").symptomsStatus == status)
    }
  }

  @Test("the identifier derives from the start, the rate and the voltages to 1/1000 µV")
  func identity() throws {
    let a = try ECGCSV.read(Array(appleECG.utf8), file: "a.csv")
    let b = try ECGCSV.read(Array(appleECG.replacing("Robin Doe", with: "").utf8), file: "b.csv")
    #expect(a.uuid == b.uuid, "the name is not the recording")
    let changed = try ECGCSV.read(Array(appleECG.replacing("-70.012", with: "-70.013").utf8), file: "c.csv")
    #expect(changed.uuid != a.uuid)
    let later = try ECGCSV.read(Array(appleECG.replacing("09:14:40", with: "09:14:41").utf8), file: "d.csv")
    #expect(later.uuid != a.uuid && !later.hasSameContent(as: a))
  }

  @Test("files are named by local day, later recordings of a day numbered in time order")
  func naming() {
    let first = recording([1], start: "2026-01-04 14:00:00 +0000")
    let second = recording([2], start: "2026-01-04 18:30:00 +0000")
    let third = recording([3], start: "2026-01-05 03:00:00 +0000")  // 22:00 on the 4th at -0500
    let earlier = recording([4], start: "2026-01-04 04:59:59 +0000")  // 23:59:59 on the 3rd at -0500
    let files = ECGCSV.files(for: [third, second, earlier, first], offsetSeconds: -5 * 3600)
    #expect(
      files.map(\.path) == [
        "electrocardiograms/ecg_2026-01-03.csv", "electrocardiograms/ecg_2026-01-04.csv",
        "electrocardiograms/ecg_2026-01-04_1.csv", "electrocardiograms/ecg_2026-01-04_2.csv",
      ])
    #expect(files.map(\.ecg.uuid) == [earlier.uuid, first.uuid, second.uuid, third.uuid])
    #expect(ECGCSV.files(for: [third], offsetSeconds: 0).map(\.path) == ["electrocardiograms/ecg_2026-01-05.csv"])
  }

  @Test("the scenario fixture's three recordings read: two on the 4th, one poor reading on the 3rd")
  func fixture() throws {
    let folder = Repository.exportFixtures + "/ecg/electrocardiograms/"
    let expected: [(String, ECGClassification, Int)] = [
      ("ecg_2026-01-03.csv", .inconclusivePoorReading, 300), ("ecg_2026-01-04.csv", .sinusRhythm, 400),
      ("ecg_2026-01-04_1.csv", .atrialFibrillation, 400),
    ]
    var read: [Electrocardiogram] = []
    for (name, classification, count) in expected {
      let ecg = try ECGCSV.read(try bytes(of: folder + name), file: name)
      #expect(ecg.classification == classification && ecg.voltages.count == count, "\(name)")
      try ecg.validate()
      read.append(ecg)
    }
    #expect(read[2].symptomsStatus == .present, "a symptom list with commas, unquoted")
    // Written back in the fixture's offset, the files get the fixture's names.
    #expect(ECGCSV.files(for: read, offsetSeconds: 3600).map(\.path) == expected.map { ECGCSV.folder + $0.0 })
  }
}
