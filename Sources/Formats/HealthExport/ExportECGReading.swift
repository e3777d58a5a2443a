import FoundationEssentials
import HealthModel

/// Apple's electrocardiogram CSV files: the `electrocardiograms/` folder of an export holds one file per recording
/// (`export.xml` has no element for them). The English layout: `key,value` lines (`Name`, `Date of Birth`,
/// `Recorded Date`, `Classification`, `Symptoms`, `Software Version`, `Device`, `Sample Rate`), two blank lines,
/// `Lead,Lead I` and `Unit,µV`, two blank lines, then one voltage per line in microvolts.
///
/// The classification texts are a HealthPair model of what Apple's exports show (``classificationTexts``): each case
/// writes one text; "Heart Rate Over 120" (algorithm version 1) and "High Heart Rate" also read as
/// `inconclusiveHighHeartRate`, and any text not listed reads as `unrecognized` (Apple's meaning of that case), so a
/// newer or localized classification never fails an import.
package enum ECGCSV {
  /// The folder of the export (relative to `export.xml`'s) holding the files.
  package static let folder = "electrocardiograms/"

  /// The text each classification writes (`notSet` writes an empty value).
  package static let classificationTexts: [ECGClassification: String] = [
    .notSet: "", .sinusRhythm: "Sinus Rhythm", .atrialFibrillation: "Atrial Fibrillation",
    .inconclusiveLowHeartRate: "Heart Rate Under 50", .inconclusiveHighHeartRate: "Heart Rate Over 150",
    .inconclusivePoorReading: "Poor Recording", .inconclusiveOther: "Inconclusive", .unrecognized: "Unrecognized",
  ]

  /// The classification a file's `Classification` text reads as: the case that writes it, `inconclusiveHighHeartRate`
  /// for "Heart Rate Over 120" and "High Heart Rate", else `unrecognized`.
  package static func classification(reading text: String) -> ECGClassification {
    if text == "Heart Rate Over 120" || text == "High Heart Rate" { return .inconclusiveHighHeartRate }
    return classificationTexts.first { $0.value == text }?.key ?? .unrecognized
  }

  /// `HKMetadataKeyAppleECGAlgorithmVersion` as the classification text implies it: 2 for "Heart Rate Over 150",
  /// 1 for "Heart Rate Over 120" (the versions' high-rate limits), nil for any other text.
  package static func algorithmVersion(reading text: String) -> Int? {
    switch text {
    case "Heart Rate Over 150": 2
    case "Heart Rate Over 120": 1
    default: nil
    }
  }

  /// The symptoms status a `Symptoms` text reads as (a HealthPair model: the file lists the symptoms, HealthPair
  /// keeps only whether there were any): empty → `notSet`; `None` or `No Symptoms` (any case) → `none`; any other
  /// text → `present`.
  package static func symptomsStatus(reading text: String) -> ECGSymptomsStatus {
    if text.isEmpty { return .notSet }
    let lowered = text.lowercased()
    return lowered == "none" || lowered == "no symptoms" ? .none : .present
  }

  /// The largest file read (a recording of ``Electrocardiogram/maxMeasurements`` voltages fits many times over).
  package static let maxFileSize = 32 << 20
  /// The sampling frequencies accepted, hertz.
  package static let frequencies = 1.0...100_000.0

  /// Reads one file: `bytes`, named `file` in errors (`export.zip/apple_health_export/electrocardiograms/…`).
  /// The recording's identifier derives from its start, sampling frequency and voltages
  /// (``ExportIdentity/electrocardiogram(start:samplingFrequency:voltages:)``), so importing the file again finds
  /// it present. Its source is the ECG app on a watch, named `ECG`, with the file's `Software Version` as its
  /// version and its `Device` as the hardware (``hardware(device:)``); it ends `count ÷ frequency` seconds after
  /// `Recorded Date`; it has no average heart rate (the file carries none). Keys are matched in English; a
  /// voltage may use a decimal comma (`-265,868`, quoted or not).
  /// - Throws: ``ExportError`` at the line at fault: `Recorded Date` or `Sample Rate` missing or not readable, a
  ///   `Unit` other than microvolts, a voltage that is not a finite number, no voltages, or more than
  ///   ``Electrocardiogram/maxMeasurements``.
  package static func read(_ bytes: [UInt8], file: String) throws(ExportError) -> Electrocardiogram {
    var fields: [String: (value: String, at: ExportLocation)] = [:]
    var voltages: [Float] = []
    var inVoltages = false
    var firstVoltage: ExportLocation?
    var line = 0
    var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while start < bytes.count {
      var end = start
      while end < bytes.count, bytes[end] != 0x0A { end += 1 }
      line += 1
      let at = ExportLocation(file: file, line: line, column: 1, offset: start)
      var content = bytes[start..<end]
      if content.last == 0x0D { content = content.dropLast() }
      start = end + 1
      let trimmed = trim(content)
      if trimmed.isEmpty { continue }
      if let value = voltage(trimmed) {
        guard voltages.count < Electrocardiogram.maxMeasurements else {
          throw ExportError(
            .invalidRecord, at: at, "more than \(Electrocardiogram.maxMeasurements) voltages in one recording")
        }
        if firstVoltage == nil { firstVoltage = at }
        inVoltages = true
        voltages.append(value)
        continue
      }
      let shown = String(decoding: trimmed.prefix(64), as: UTF8.self)
      guard !inVoltages else { throw ExportError(.value, at: at, "'\(shown)' is not a voltage in microvolts") }
      let (key, value) = keyValue(trimmed)
      if fields[key] == nil { fields[key] = (value, at) }
      if key == "Unit" {
        guard ["µV", "μV", "uV"].contains(value) else {
          throw ExportError(.unit, at: at, "the unit is '\(value)', not microvolts (µV)")
        }
        inVoltages = true
      }
    }
    let top = ExportLocation(file: file, line: 1, column: 1, offset: 0)
    guard let recorded = fields["Recorded Date"] else {
      throw ExportError(.notAnExport, at: top, "no 'Recorded Date' line: not an electrocardiogram file")
    }
    guard let seconds = ExportDate.parse(recorded.value) else {
      throw ExportError(
        .date, at: recorded.at, "'\(recorded.value)' is not a date like 2020-02-05 09:14:40 -0400")
    }
    guard let rate = fields["Sample Rate"] else {
      throw ExportError(.notAnExport, at: top, "no 'Sample Rate' line: not an electrocardiogram file")
    }
    guard let frequency = samplingFrequency(rate.value) else {
      throw ExportError(
        .value, at: rate.at,
        "'\(rate.value)' is not a sample rate like '512 hertz' (\(Int(frequencies.lowerBound))–"
          + "\(Int(frequencies.upperBound)) hertz)")
    }
    guard !voltages.isEmpty else {
      throw ExportError(.invalidRecord, at: firstVoltage ?? top, "no voltages: a recording holds at least one")
    }
    let text = fields["Classification"]?.value ?? ""
    var metadata: Metadata = [:]
    if let version = algorithmVersion(reading: text) {
      metadata[ECGRecording.algorithmVersionKey] = .int(Int64(version))
    }
    let version = fields["Software Version"]?.value
    let details = SourceDetails(
      name: "ECG", version: version?.isEmpty == false ? version : nil,
      hardware: hardware(device: fields["Device"]?.value ?? ""))
    let startDate = Date(timeIntervalSinceReferenceDate: seconds)
    return Electrocardiogram(
      uuid: ExportIdentity.electrocardiogram(start: seconds, samplingFrequency: frequency, voltages: voltages),
      start: startDate, end: startDate.addingTimeInterval(Double(voltages.count) / frequency),
      classification: classification(reading: text),
      symptomsStatus: symptomsStatus(reading: fields["Symptoms"]?.value ?? ""), averageHeartRate: nil,
      samplingFrequency: frequency, voltages: voltages, metadata: metadata,
      source: SampleSource(bundleID: Electrocardiogram.recorderBundleID, device: .watch, details: details))
  }

  /// The hardware a file's `Device` text reads as: an Apple Watch (`name` `Apple Watch`, `manufacturer`
  /// `Apple Inc.`, `model` `Watch`) whose `hardware` field is the text (`Watch5,4`, `HKDevice.hardwareVersion`);
  /// without that field when the text is empty or just `Watch`.
  package static func hardware(device text: String) -> HardwareDetails {
    var fields = [
      HardwareDetails.Field("name", "Apple Watch"), HardwareDetails.Field("manufacturer", "Apple Inc."),
      HardwareDetails.Field("model", "Watch"),
    ]
    if !text.isEmpty && text != "Watch" { fields.append(HardwareDetails.Field("hardware", text)) }
    return HardwareDetails(fields: fields)
  }

  /// `512 hertz`, `512.844 hertz`, `512,844 Hz` or a bare number, inside ``frequencies``; nil otherwise.
  static func samplingFrequency(_ text: String) -> Double? {
    var number = Substring(text)
    for unit in [" hertz", "hertz", " Hz", "Hz"] where number.lowercased().hasSuffix(unit.lowercased()) {
      number = number.dropLast(unit.count)
      break
    }
    let bytes = Array(number.utf8).map { $0 == UInt8(ascii: ",") ? UInt8(ascii: ".") : $0 }
    guard let value = bytes.withUnsafeBufferPointer({ ExportNumber.parse($0) }), frequencies.contains(value) else {
      return nil
    }
    return value
  }

  /// The voltage a line holds — a finite decimal with an optional sign, a `.` or `,` decimal separator, optionally
  /// in double quotes — or nil when the line is not one.
  static func voltage(_ line: ArraySlice<UInt8>) -> Float? {
    var body = line
    if body.count >= 2, body.first == UInt8(ascii: "\""), body.last == UInt8(ascii: "\"") {
      body = body.dropFirst().dropLast()
    }
    guard let first = body.first,
      first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
    else { return nil }
    var separators = 0
    var number: [UInt8] = []
    number.reserveCapacity(body.count)
    for (i, byte) in zip(body.indices, body) {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): number.append(byte)
      case UInt8(ascii: "-") where i == body.startIndex, UInt8(ascii: "+") where i == body.startIndex:
        number.append(byte)
      case UInt8(ascii: "."), UInt8(ascii: ","):
        separators += 1
        number.append(UInt8(ascii: "."))
      default: return nil
      }
    }
    guard separators <= 1, let value = number.withUnsafeBufferPointer({ ExportNumber.parse($0) }) else { return nil }
    let single = Float(value)
    return single.isFinite ? single : nil
  }

  /// A `key,value` line: the key before the first comma, the value after it (a quoted value unquoted, `""` as
  /// `"`), both trimmed.
  private static func keyValue(_ line: ArraySlice<UInt8>) -> (String, String) {
    guard let comma = line.firstIndex(of: UInt8(ascii: ",")) else {
      return (String(decoding: line, as: UTF8.self), "")
    }
    let key = String(decoding: trim(line[..<comma]), as: UTF8.self)
    var value = trim(line[(comma + 1)...])
    if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
      value = value.dropFirst().dropLast()
      var unquoted: [UInt8] = []
      var i = value.startIndex
      while i < value.endIndex {
        unquoted.append(value[i])
        if value[i] == UInt8(ascii: "\""), i + 1 < value.endIndex, value[i + 1] == UInt8(ascii: "\"") { i += 1 }
        i += 1
      }
      return (key, String(decoding: unquoted, as: UTF8.self))
    }
    return (key, String(decoding: value, as: UTF8.self))
  }

  private static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    var slice = bytes
    while let b = slice.first, b == 0x20 || b == 0x09 { slice = slice.dropFirst() }
    while let b = slice.last, b == 0x20 || b == 0x09 { slice = slice.dropLast() }
    return slice
  }
}
