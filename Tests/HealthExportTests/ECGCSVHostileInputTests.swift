import FoundationEssentials
import Testing

@testable import HealthExport
@testable import HealthModel

@Suite("Electrocardiogram CSV files that are not right: located errors, never a trap")
struct ECGCSVHostileInputTests {
  /// The error reading `text` as `ecg_bad.csv` gives (fails the test when it reads).
  func failure(_ text: String) -> ExportError? {
    do {
      _ = try ECGCSV.read(Array(text.utf8), file: "electrocardiograms/ecg_bad.csv")
      Issue.record("expected an error")
      return nil
    } catch { return error }
  }

  @Test("each bad file names the file and the line at fault")
  func badFiles() throws {
    // What to change in Apple's sample, the kind of error and its line.
    let cases: [(String, String, ExportError.Kind, Int)] = [
      ("Recorded Date,2020-02-05 09:14:40 -0400\n", "", .notAnExport, 1),
      ("2020-02-05 09:14:40 -0400", "Feb 5, 2020 at 09:14", .date, 3),
      ("2020-02-05 09:14:40 -0400", "2020-02-30 09:14:40 -0400", .date, 3),
      ("Sample Rate,512 hertz\n", "", .notAnExport, 1),
      ("512 hertz", "fast", .value, 8),
      ("512 hertz", "0 hertz", .value, 8),
      ("512 hertz", "nan hertz", .value, 8),
      ("-70.012", "-70.0x2", .value, 17),
      ("-70.012", "1e999", .value, 17),
      ("-70.012", "1.2.3", .value, 17),
      ("-77.148\n", "Lead,Lead II\n", .value, 18),
      ("Unit,µV", "Unit,mV", .unit, 12),
      ("-48.673\n-59.681\n-70.012\n-77.148\n", "", .invalidRecord, 1),
    ]
    for (change, replacement, kind, line) in cases {
      #expect(appleECG.contains(change))
      let error = try #require(failure(appleECG.replacing(change, with: replacement)))
      #expect(error.kind == kind, "\(change) → \(replacement): \(error)")
      #expect(error.location.file == "electrocardiograms/ecg_bad.csv")
      #expect(error.location.line == line, "\(change) → \(replacement): \(error)")
    }
  }

  @Test("more voltages than a recording may hold is refused at the first one too many")
  func tooManyVoltages() throws {
    let header = appleECG[..<appleECG.firstRange(of: "-48.673")!.lowerBound]
    let count = Electrocardiogram.maxMeasurements + 1
    let text = header + String(repeating: "1.5\n", count: count)
    let error = try #require(failure(String(text)))
    #expect(error.kind == .invalidRecord)
    #expect(error.location.line == 15 + Electrocardiogram.maxMeasurements)
  }

  @Test("empty files, binary noise and a lone header are errors, not traps")
  func noise() {
    for text in ["", "\n\n\n", "\u{0}\u{1}\u{2}", "Recorded Date", "Recorded Date,\nSample Rate,", ",,,,\n\"\"\"\n"] {
      #expect(failure(text) != nil)
    }
    var random = SeededGenerator(seed: 7)
    for _ in 0..<200 {
      let bytes = (0..<Int.random(in: 0..<300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
      #expect(throws: ExportError.self) { _ = try ECGCSV.read(bytes, file: "x.csv") }
    }
  }
}
