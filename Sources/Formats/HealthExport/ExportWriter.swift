import FoundationEssentials
import HealthModel

/// The document type declaration of an export (HealthKit Export Version 14's elements, as of iOS 18.1: a
/// `SensitivityPoint`'s masked and clamping attributes), as HealthPair writes it: Apple's, with what HealthPair
/// writes beyond it declared (`WorkoutActivity` inside `Workout`, with its `WorkoutStatistics`; `mostRecent`; an
/// activity summary's `activityMoveMode` and `paused`).
package let exportDoctype = """
  <!DOCTYPE HealthData [
  <!-- HealthKit Export Version: 14 -->
  <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|
    VisionPrescription)*)>
  <!ATTLIST HealthData locale CDATA #REQUIRED>
  <!ELEMENT ExportDate EMPTY>
  <!ATTLIST ExportDate value CDATA #REQUIRED>
  <!ELEMENT Me EMPTY>
  <!ATTLIST Me
    HKCharacteristicTypeIdentifierDateOfBirth CDATA #REQUIRED
    HKCharacteristicTypeIdentifierBiologicalSex CDATA #REQUIRED
    HKCharacteristicTypeIdentifierBloodType CDATA #REQUIRED
    HKCharacteristicTypeIdentifierFitzpatrickSkinType CDATA #REQUIRED
    HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse CDATA #REQUIRED
    HKCharacteristicTypeIdentifierWheelchairUse CDATA #IMPLIED
    HKCharacteristicTypeIdentifierActivityMoveMode CDATA #IMPLIED>
  <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
  <!ATTLIST Record
    type CDATA #REQUIRED
    unit CDATA #IMPLIED
    value CDATA #IMPLIED
    sourceName CDATA #REQUIRED
    sourceVersion CDATA #IMPLIED
    device CDATA #IMPLIED
    creationDate CDATA #IMPLIED
    startDate CDATA #REQUIRED
    endDate CDATA #REQUIRED>
  <!ELEMENT Correlation ((MetadataEntry|Record)*)>
  <!ATTLIST Correlation
    type CDATA #REQUIRED
    sourceName CDATA #REQUIRED
    sourceVersion CDATA #IMPLIED
    device CDATA #IMPLIED
    creationDate CDATA #IMPLIED
    startDate CDATA #REQUIRED
    endDate CDATA #REQUIRED>
  <!ELEMENT Workout ((MetadataEntry|WorkoutActivity|WorkoutEvent|WorkoutRoute|WorkoutStatistics)*)>
  <!ATTLIST Workout
    workoutActivityType CDATA #REQUIRED
    duration CDATA #IMPLIED
    durationUnit CDATA #IMPLIED
    totalDistance CDATA #IMPLIED
    totalDistanceUnit CDATA #IMPLIED
    totalEnergyBurned CDATA #IMPLIED
    totalEnergyBurnedUnit CDATA #IMPLIED
    sourceName CDATA #REQUIRED
    sourceVersion CDATA #IMPLIED
    device CDATA #IMPLIED
    creationDate CDATA #IMPLIED
    startDate CDATA #REQUIRED
    endDate CDATA #REQUIRED>
  <!ELEMENT WorkoutActivity ((MetadataEntry|WorkoutStatistics)*)>
  <!ATTLIST WorkoutActivity
    uuid CDATA #REQUIRED
    startDate CDATA #REQUIRED
    endDate CDATA #IMPLIED
    duration CDATA #IMPLIED
    durationUnit CDATA #IMPLIED>
  <!ELEMENT WorkoutEvent ((MetadataEntry)*)>
  <!ATTLIST WorkoutEvent
    type CDATA #REQUIRED
    date CDATA #REQUIRED
    duration CDATA #IMPLIED
    durationUnit CDATA #IMPLIED>
  <!ELEMENT WorkoutStatistics EMPTY>
  <!ATTLIST WorkoutStatistics
    type CDATA #REQUIRED
    startDate CDATA #REQUIRED
    endDate CDATA #REQUIRED
    average CDATA #IMPLIED
    minimum CDATA #IMPLIED
    maximum CDATA #IMPLIED
    sum CDATA #IMPLIED
    unit CDATA #IMPLIED
    mostRecent CDATA #IMPLIED>
  <!ELEMENT WorkoutRoute ((MetadataEntry|FileReference)*)>
  <!ATTLIST WorkoutRoute
    sourceName CDATA #REQUIRED
    sourceVersion CDATA #IMPLIED
    device CDATA #IMPLIED
    creationDate CDATA #IMPLIED
    startDate CDATA #REQUIRED
    endDate CDATA #REQUIRED>
  <!ELEMENT FileReference EMPTY>
  <!ATTLIST FileReference path CDATA #REQUIRED>
  <!ELEMENT ActivitySummary EMPTY>
  <!ATTLIST ActivitySummary
    dateComponents CDATA #IMPLIED
    activeEnergyBurned CDATA #IMPLIED
    activeEnergyBurnedGoal CDATA #IMPLIED
    activeEnergyBurnedUnit CDATA #IMPLIED
    appleMoveTime CDATA #IMPLIED
    appleMoveTimeGoal CDATA #IMPLIED
    appleExerciseTime CDATA #IMPLIED
    appleExerciseTimeGoal CDATA #IMPLIED
    appleStandHours CDATA #IMPLIED
    appleStandHoursGoal CDATA #IMPLIED
    activityMoveMode CDATA #IMPLIED
    paused CDATA #IMPLIED>
  <!ELEMENT MetadataEntry EMPTY>
  <!ATTLIST MetadataEntry key CDATA #REQUIRED value CDATA #REQUIRED>
  <!ELEMENT HeartRateVariabilityMetadataList (InstantaneousBeatsPerMinute*)>
  <!ELEMENT InstantaneousBeatsPerMinute EMPTY>
  <!ATTLIST InstantaneousBeatsPerMinute bpm CDATA #REQUIRED time CDATA #REQUIRED>
  <!ELEMENT ClinicalRecord EMPTY>
  <!ATTLIST ClinicalRecord
    type CDATA #REQUIRED
    identifier CDATA #REQUIRED
    sourceName CDATA #REQUIRED
    sourceURL CDATA #REQUIRED
    fhirVersion CDATA #REQUIRED
    receivedDate CDATA #REQUIRED
    resourceFilePath CDATA #REQUIRED>
  <!ELEMENT Audiogram ((MetadataEntry|SensitivityPoint)*)>
  <!ATTLIST Audiogram
    type CDATA #REQUIRED
    sourceName CDATA #REQUIRED
    sourceVersion CDATA #IMPLIED
    device CDATA #IMPLIED
    creationDate CDATA #IMPLIED
    startDate CDATA #REQUIRED
    endDate CDATA #REQUIRED>
  <!ELEMENT SensitivityPoint EMPTY>
  <!ATTLIST SensitivityPoint
    frequencyValue CDATA #REQUIRED
    frequencyUnit CDATA #REQUIRED
    leftEarValue CDATA #IMPLIED
    leftEarUnit CDATA #IMPLIED
    leftEarMasked CDATA #IMPLIED
    leftEarClampingRangeLowerBound CDATA #IMPLIED
    leftEarClampingRangeUpperBound CDATA #IMPLIED
    rightEarValue CDATA #IMPLIED
    rightEarUnit CDATA #IMPLIED
    rightEarMasked CDATA #IMPLIED
    rightEarClampingRangeLowerBound CDATA #IMPLIED
    rightEarClampingRangeUpperBound CDATA #IMPLIED>
  <!ELEMENT VisionPrescription ((RightEye|LeftEye|Attachment|MetadataEntry)*)>
  <!ATTLIST VisionPrescription
    type CDATA #REQUIRED
    dateIssued CDATA #REQUIRED
    expirationDate CDATA #IMPLIED
    brand CDATA #IMPLIED>
  <!ELEMENT RightEye EMPTY>
  <!ELEMENT LeftEye EMPTY>
  <!ELEMENT Attachment EMPTY>
  <!ATTLIST Attachment identifier CDATA #IMPLIED>
  ]>
  """

/// Writes an Apple Health export (`export.xml`) as a stream: the XML declaration, the DTD, `HealthData` with
/// `ExportDate` and `Me`, then one `Record` per sample with its `MetadataEntry` children, `Correlation`s, `Workout`s
/// (routes as GPX files, ExportWorkoutWriting.swift), `ActivitySummary`s and `Audiogram`s
/// (ExportAudiogramWriting.swift) — the layout ``ExportReader`` reads back to the same objects.
///
/// Output goes out in chunks through `sink` (about 1 MiB each). Quantities are written in
/// ``ExportUnits/preferred(for:)``
/// when the written value reads back to exactly the stored one, else in the canonical unit; category values as
/// their constant names (``CategoryNames``); dates in the chosen UTC offset. HealthPair does not keep an object's
/// creation date (HealthKit does not show it to apps), so `creationDate` is written as the end date. A sample an
/// app saved (no export details) is written with the app's bundle identifier as its source name and, as its
/// device, the `HKDevice` the app gave it (none when it gave none).
package struct ExportWriter {
  private var buffer: [UInt8] = []
  private let sink: ([UInt8]) throws -> Void
  let offsetSeconds: Int
  /// The route file names written so far (``routeFileName(for:)`` makes each one unique).
  var routeNames = Set<String>()
  /// Records written.
  package private(set) var records = 0
  /// The last record's source and device with their hash as a record reads back (consecutive samples mostly share
  /// them), so the identifier check does not parse a device description per record.
  private var lastSource: (source: SampleSource, device: HardwareDetails?, hash: UInt64)?

  /// A writer sending its bytes to `sink`, with dates in the local time of `offsetSeconds` (a whole number of
  /// minutes east of UTC).
  package init(offsetSeconds: Int = 0, sink: @escaping ([UInt8]) throws -> Void) {
    self.offsetSeconds = offsetSeconds
    self.sink = sink
    buffer.reserveCapacity(1 << 20)
  }

  /// Writes everything before the first record: `Me` holds `characteristics` (the five attributes Apple's
  /// `Me` has, `…NotSet` or empty when not set; wheelchair use and move mode, which Apple's DTD does not list,
  /// only when set).
  package mutating func begin(
    exportDate: Date, locale: String = "en_US", characteristics: [SampleType: CharacteristicValue] = [:]
  ) throws {
    append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
    append(exportDoctype)
    append("\n<HealthData locale=\"\(Self.escape(locale))\">\n")
    let date = ExportDate.format(exportDate.timeIntervalSinceReferenceDate, offsetSeconds: offsetSeconds)
    append(" <ExportDate value=\"\(date)\"/>\n")
    append(" <Me")
    for name in ["dateOfBirth", "biologicalSex", "bloodType", "fitzpatrickSkinType"] {
      guard let type = SampleType.lookup(name: name) else { continue }
      append(" \(type.identifier)=\"\(CharacteristicNames.text(for: type, value: characteristics[type]))\"")
    }
    append(" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse=\"None\"")
    for name in ["wheelchairUse", "activityMoveMode"] {
      guard let type = SampleType.lookup(name: name), let value = characteristics[type] else { continue }
      append(" \(type.identifier)=\"\(CharacteristicNames.text(for: type, value: value))\"")
    }
    append("/>\n")
    try flushIfFull()
  }

  /// Writes one sample as a `Record`.
  package mutating func write(_ sample: Sample) throws {
    record(sample, indent: " ")
    records += 1
    try flushIfFull()
  }

  /// Writes a correlation as a `Correlation` holding its metadata and its members as `Record`s (which are also
  /// written at the top level, as Apple's exports do; docs/behavior.md I13). An identifier the correlation would not
  /// derive on import is kept as for samples (`_HealthPair.uuid`).
  package mutating func write(_ correlation: Correlation, members: [Sample]) throws {
    append(" <Correlation type=\"\(correlation.type.identifier)\" sourceName=\"")
    let details = correlation.source.details
    append(Self.escape(details?.name ?? correlation.source.bundleID))
    append("\"")
    if let version = details?.version { append(" sourceVersion=\"\(Self.escape(version))\"") }
    if let hardware = details?.hardware { append(" device=\"\(Self.escape(hardware.exportDescription))\"") }
    let end = ExportDate.format(correlation.end.timeIntervalSinceReferenceDate, offsetSeconds: offsetSeconds)
    append(" creationDate=\"\(end)\"")
    let start = ExportDate.format(correlation.start.timeIntervalSinceReferenceDate, offsetSeconds: offsetSeconds)
    append(" startDate=\"\(start)\"")
    append(" endDate=\"\(end)\">\n")
    if !ExportIdentity.derivesIdentifier(of: correlation) {
      append("  <MetadataEntry key=\"\(Self.identifierKey)\" value=\"\(correlation.uuid.uuidString)\"/>\n")
    }
    for key in correlation.metadata.keys.sorted() where !key.hasPrefix(Self.devicePrefix) {
      let text = MetadataText.text(correlation.metadata[key]!)
      append("  <MetadataEntry key=\"\(Self.escape(key))\" value=\"\(Self.escape(text))\"/>\n")
    }
    for member in members { record(member, indent: "  ") }
    append(" </Correlation>\n")
    try flushIfFull()
  }

  private mutating func record(_ sample: Sample, indent: String) {
    let type = sample.type
    append(indent + "<Record type=\"\(type.identifier)\" sourceName=\"")
    let details = sample.source.details
    append(Self.escape(details?.name ?? sample.source.bundleID))
    append("\"")
    if let version = details?.version { append(" sourceVersion=\"\(Self.escape(version))\"") }
    let device = Self.device(of: sample)
    if let device { append(" device=\"\(Self.escape(device.exportDescription))\"") }
    let value: String
    switch sample.value {
    case .quantity(let amount):
      let (text, unit) = Self.quantityText(amount, type: type)
      append(" unit=\"\(Self.escape(unit))\"")
      value = text
    case .category(let raw):
      value = CategoryNames.constant(for: type, value: raw)
    }
    let end = ExportDate.format(sample.end.timeIntervalSinceReferenceDate, offsetSeconds: offsetSeconds)
    append(" creationDate=\"\(end)\"")
    append(
      " startDate=\"\(ExportDate.format(sample.start.timeIntervalSinceReferenceDate, offsetSeconds: offsetSeconds))\"")
    append(" endDate=\"\(end)\" value=\"\(Self.escape(value))\"")
    // An identifier the record would not derive on import (an app saved the sample, or it came with one from a
    // HealthPair export) is written, so it reads back (I10).
    let sourceHash: UInt64
    if let last = lastSource, last.source == sample.source, last.device == device {
      sourceHash = last.hash
    } else {
      sourceHash = ExportIdentity.writtenSourceHash(sample.source, device: device)
      lastSource = (sample.source, device, sourceHash)
    }
    let keepsIdentifier = !ExportIdentity.derivesIdentifier(of: sample, sourceHash: sourceHash)
    if !keepsIdentifier && !sample.metadata.keys.contains(where: { !$0.hasPrefix(Self.devicePrefix) }) {
      append("/>\n")
    } else {
      append(">\n")
      if keepsIdentifier {
        append(indent + " <MetadataEntry key=\"\(Self.identifierKey)\" value=\"\(sample.uuid.uuidString)\"/>\n")
      }
      for key in sample.metadata.keys.sorted() where !key.hasPrefix(Self.devicePrefix) {
        let text = MetadataText.text(sample.metadata[key]!)
        append(indent + " <MetadataEntry key=\"\(Self.escape(key))\" value=\"\(Self.escape(text))\"/>\n")
      }
      append(indent + "</Record>\n")
    }
  }

  /// The `MetadataEntry` key under which HealthPair's exports keep an object's identifier when its record would not
  /// derive it on import (``ExportIdentity``): an app saved it, or an earlier export carried it. Apple's carry none.
  package static let identifierKey = "_HealthPair.uuid"

  /// The prefix of the metadata keys under which HealthKitSim keeps the `HKDevice` an app gave a sample
  /// (`_HealthPair.device.model`, …; HealthEngine's `MetadataKey.devicePrefix`).
  static let devicePrefix = "_HealthPair.device."
  /// HealthKitSim's property names under ``devicePrefix``, with the keys an export's device description uses.
  static let deviceKeys = [
    ("name", "name"), ("manufacturer", "manufacturer"), ("model", "model"), ("hardwareVersion", "hardware"),
    ("firmwareVersion", "firmware"), ("softwareVersion", "software"), ("localIdentifier", "localIdentifier"),
    ("UDIDeviceIdentifier", "UDIDeviceIdentifier"),
  ]

  /// The device a `Record` names: the description an imported export gave the source, else the `HKDevice` the app
  /// gave the sample (its reserved metadata), else none.
  static func device(of sample: Sample) -> HardwareDetails? { device(source: sample.source, metadata: sample.metadata) }

  /// The device an object of `source` with `metadata` is written with (as ``device(of:)`` says for a sample).
  static func device(source: SampleSource, metadata: Metadata) -> HardwareDetails? {
    if let hardware = source.details?.hardware { return hardware }
    var fields: [HardwareDetails.Field] = []
    for (property, key) in deviceKeys {
      if case .string(let value)? = metadata[devicePrefix + property] { fields.append(.init(key, value)) }
    }
    return fields.isEmpty ? nil : HardwareDetails(fields: fields)
  }

  /// Closes the document and sends what is left.
  package mutating func finish() throws {
    append("</HealthData>\n")
    try sink(buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  mutating func append(_ text: String) { buffer.append(contentsOf: text.utf8) }

  mutating func flushIfFull() throws {
    if buffer.count >= 1 << 20 {
      try sink(buffer)
      buffer.removeAll(keepingCapacity: true)
    }
  }

  /// A quantity's text and unit: in the preferred unit when the text reads back to exactly `amount` in the
  /// canonical unit (tried with 12 and 15 significant digits, then the shortest exact form), else in the canonical
  /// unit.
  static func quantityText(_ amount: Double, type: SampleType) -> (value: String, unit: String) {
    guard let canonical = type.descriptor.canonicalUnit else { return (ExportNumber.format(amount), "") }
    let canonicalText = canonical.description
    if let preferredText = ExportUnits.preferred(for: type), preferredText != canonicalText,
      let preferred = try? HealthUnit.cached(preferredText),
      let converted = try? canonical.convert(amount, to: preferred)
    {
      for candidate in [rounded(converted, digits: 12), rounded(converted, digits: 15), converted] {
        let text = ExportNumber.format(candidate)
        if let parsed = ExportNumber.parse(text), let back = try? preferred.convert(parsed, to: canonical),
          back.bitPattern == amount.bitPattern
        {
          return (text, preferredText)
        }
      }
    }
    return (ExportNumber.format(amount), canonicalText)
  }

  /// `value` rounded to `digits` significant decimal digits.
  static func rounded(_ value: Double, digits: Int) -> Double {
    guard value.isFinite, value != 0 else { return value }
    var magnitude = 0
    var y = abs(value)
    while y >= 10 {
      y /= 10
      magnitude += 1
    }
    while y < 1 {
      y *= 10
      magnitude -= 1
    }
    let shift = digits - 1 - magnitude
    guard abs(shift) <= 300 else { return value }
    var scale = 1.0
    for _ in 0..<abs(shift) { scale *= 10 }
    return shift >= 0 ? (value * scale).rounded() / scale : (value / scale).rounded() * scale
  }

  /// Escapes text for an attribute value: markup characters, and tab, CR and LF as character references (a reader
  /// would turn literal ones into spaces).
  static func escape(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 < 0x20 }) else {
      return text
    }
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "\t": out += "&#9;"
      case "\n": out += "&#10;"
      case "\r": out += "&#13;"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
