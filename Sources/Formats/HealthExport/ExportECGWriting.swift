import FoundationEssentials
import HealthModel

/// Writing electrocardiograms as Apple's CSV files, and naming them.
extension ECGCSV {
  /// The file for `ecg` in the local time of `offsetSeconds` (a whole number of minutes), in the English layout
  /// ``ECGCSV`` describes, lines ending in `\n`: `Name` and `Date of Birth` with empty values; `Recorded Date` the
  /// start to the second (rounded down); `Classification` its text (``classificationTexts``); `Symptoms` empty
  /// when not set, `None` or `Present`; `Software Version` the source's version (`1.90` when it has none);
  /// `Device` the hardware version of the source's hardware (`Watch5,4`), else `Watch`; `Sample Rate` in hertz
  /// (`512 hertz`, without a fraction when whole); then `Lead,Lead I`, `Unit,µV` and every voltage with three
  /// decimals (`-48.673`). A value holding a comma or a quote is quoted.
  package static func document(for ecg: Electrocardiogram, offsetSeconds: Int = 0) -> [UInt8] {
    let start = Double(ecg.startSecond)
    let symptoms =
      switch ecg.symptomsStatus {
      case .notSet: ""
      case .none: "None"
      case .present: "Present"
      }
    let header: [(String, String)] = [
      ("Name", ""), ("Date of Birth", ""), ("Recorded Date", ExportDate.format(start, offsetSeconds: offsetSeconds)),
      ("Classification", classificationTexts[ecg.classification] ?? "Unrecognized"), ("Symptoms", symptoms),
      ("Software Version", ecg.source.details?.version ?? "1.90"),
      ("Device", ecg.source.details?.hardware?.hardwareVersion ?? "Watch"),
      ("Sample Rate", ExportNumber.format(ecg.samplingFrequency) + " hertz"),
    ]
    var text = ""
    for (key, value) in header { text += key + "," + quoted(value) + "\n" }
    text += "\n\nLead,Lead I\nUnit,µV\n\n\n"
    var bytes = Array(text.utf8)
    bytes.reserveCapacity(bytes.count + ecg.voltages.count * 9)
    for voltage in ecg.voltages {
      appendThreeDecimals(Electrocardiogram.thousandths(voltage), to: &bytes)
      bytes.append(0x0A)
    }
    return bytes
  }

  /// The files for `ecgs`, by start (then identifier), each with its path relative to the export's folder:
  /// `electrocardiograms/ecg_<local day>.csv` for a day's first recording, then `ecg_<day>_1.csv`, `_2`, … for
  /// the later ones of that day in the local time of `offsetSeconds`.
  package static func files(for ecgs: [Electrocardiogram], offsetSeconds: Int = 0) -> [(
    path: String, ecg: Electrocardiogram
  )] {
    let ordered = ecgs.sorted { ($0.start, $0.uuid.uuidString) < ($1.start, $1.uuid.uuidString) }
    var perDay: [String: Int] = [:]
    return ordered.map { ecg in
      let day = String(ExportDate.format(Double(ecg.startSecond), offsetSeconds: offsetSeconds).prefix(10))
      let index = perDay[day, default: 0]
      perDay[day] = index + 1
      return (folder + "ecg_" + day + (index == 0 ? "" : "_\(index)") + ".csv", ecg)
    }
  }

  /// A CSV value: as is, or in double quotes (inner quotes doubled) when it holds a comma, a quote or a line break.
  private static func quoted(_ value: String) -> String {
    guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
    return "\"" + value.replacing("\"", with: "\"\"") + "\""
  }

  /// `thousandths` ÷ 1000 with three decimals (`-48673` → `-48.673`, `5` → `0.005`).
  private static func appendThreeDecimals(_ thousandths: Int64, to bytes: inout [UInt8]) {
    if thousandths < 0 { bytes.append(UInt8(ascii: "-")) }
    let magnitude = thousandths.magnitude
    bytes.append(contentsOf: String(magnitude / 1000).utf8)
    bytes.append(UInt8(ascii: "."))
    let fraction = magnitude % 1000
    bytes.append(UInt8(ascii: "0") + UInt8(fraction / 100))
    bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
    bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
  }
}
