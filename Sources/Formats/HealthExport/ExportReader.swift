import FoundationEssentials
import HealthModel

/// Reads an Apple Health export (`export.xml`) as a stream of samples: each `Record` of a type the catalog knows
/// (``SampleType/lookup(name:)``, so every type added there imports with no change here) becomes a ``Sample`` —
/// value converted to the type's canonical unit, dates with their offsets, source mapped by ``SourceMapping``,
/// metadata typed by ``MetadataText`` — checked as HealthKit checks an object (``Sample/check()``). `Workout`,
/// `ActivitySummary` and `Audiogram` elements are read on the way and handed out by ``takeWorkouts()``,
/// ``takeSummaries()`` and ``takeAudiograms()``. Everything else is counted in ``summary`` and skipped.
///
/// A sample's identifier is derived from its content (type, value, dates, the source as the export names it, and
/// metadata), so the same record always gets the same UUID: importing a file twice, or importing an export of what
/// was imported, adds nothing the second time. Identical records in one file are one sample.
///
/// Errors are located: malformed XML, an unknown or incompatible unit (with the nearest spelling), a date or value
/// that does not parse, a record HealthKit would refuse.
package struct ExportReader: ~Copyable {
  /// The tokenizer over `export.xml`.
  var scanner: XMLScanner
  /// How the export's source names become stored sources.
  let mapping: SourceMapping
  /// What has been read so far (complete once ``next()`` returned nil).
  package internal(set) var summary = ImportSummary()
  private var started = false

  /// A `Record`'s `type` as the catalog knows it, or the identifier it does not know.
  enum TypeEntry {
    case known(SampleType)
    case unknown(String)
  }
  /// A source met in the export: its attributes as written (to recognise the next record's), what it maps to,
  /// its identity hash and its index in ``ImportSummary/sources``.
  struct SourceEntry {
    var name: [UInt8]
    var version: [UInt8]?
    var device: [UInt8]?
    var source: SampleSource
    var hash: UInt64
    var index: Int
  }
  /// How a unit converts to its type's canonical unit, with the arithmetic `HealthUnit.convert` uses (so a value
  /// reads back bit for bit as it was written).
  struct UnitConversion {
    var identity: Bool
    var factor: Double
    var offset: Double
    var targetFactor: Double
    var targetOffset: Double

    @inline(__always) func apply(_ value: Double) -> Double {
      identity ? value : (value * factor + offset - targetOffset) / targetFactor
    }
  }
  /// Record types by their `type` attribute as written.
  var types = ByteCache<TypeEntry>()
  /// Unit conversions by unit as written, salted with the type.
  var units = ByteCache<Result<UnitConversion, ExportError>>()
  /// Category values by constant as written, salted with the type.
  var categories = ByteCache<Int?>()
  /// Sources by the hash of their attributes as written (without the device's object address).
  var sources: [UInt64: [SourceEntry]] = [:]
  /// Each source met so far, by what it is (whatever its spelling): one lookup per new spelling.
  var sourcesByValue: [SampleSource: SourceEntry] = [:]
  /// The source of the last record (consecutive records mostly share one).
  var lastSource: SourceEntry?
  /// Metadata keys by key as written.
  var metadataKeys = ByteCache<String>()
  /// Metadata values of at most 64 bytes by value as written, salted with the key.
  var metadataValues = ByteCache<MetadataValue>()
  /// Samples read per type code (folded into ``summary`` at the end, or when asked).
  var counts: [Int]
  /// The members of the correlation just read, handed out by ``next()`` before it reads on.
  var pendingMembers: [Sample] = []
  /// The workouts read since the last ``takeWorkouts()``.
  var pendingWorkouts: [ImportedWorkout] = []
  /// The activity summaries read since the last ``takeSummaries()``.
  var pendingSummaries: [ActivitySummary] = []
  /// The audiograms read since the last ``takeAudiograms()``.
  var pendingAudiograms: [Audiogram] = []
  /// The vision prescriptions read since the last ``takePrescriptions()``.
  var pendingPrescriptions: [VisionPrescription] = []
  /// The clinical records read since the last ``takeClinicalRecords()``, their files not yet read.
  var pendingClinicalRecords: [PendingClinicalRecord] = []

  /// The workouts read since the last call (each `Workout` element is read whole when ``next()`` meets it; take
  /// them between calls so they do not pile up).
  package mutating func takeWorkouts() -> [ImportedWorkout] {
    defer { pendingWorkouts.removeAll() }
    return pendingWorkouts
  }

  /// The activity summaries read since the last call.
  package mutating func takeSummaries() -> [ActivitySummary] {
    defer { pendingSummaries.removeAll() }
    return pendingSummaries
  }

  /// The audiograms read since the last call (each `Audiogram` element is read whole when ``next()`` meets it).
  package mutating func takeAudiograms() -> [Audiogram] {
    defer { pendingAudiograms.removeAll() }
    return pendingAudiograms
  }

  /// The vision prescriptions read since the last call (each `VisionPrescription` element is read whole when
  /// ``next()`` meets it).
  package mutating func takePrescriptions() -> [VisionPrescription] {
    defer { pendingPrescriptions.removeAll() }
    return pendingPrescriptions
  }

  /// The clinical record elements read since the last call; the file side reads the FHIR files they name
  /// (``ClinicalRecordFile``).
  package mutating func takeClinicalRecords() -> [PendingClinicalRecord] {
    defer { pendingClinicalRecords.removeAll() }
    return pendingClinicalRecords
  }

  /// Reads `input`, naming `file` in errors, mapping sources with `mapping`.
  package init(_ input: any ByteInput, file: String, mapping: SourceMapping = SourceMapping()) {
    scanner = XMLScanner(input, file: file)
    self.mapping = mapping
    counts = [Int](repeating: 0, count: Int(SampleType.catalog.map(\.code).max() ?? 0) + 1)
  }

  /// Bytes of `export.xml` read so far.
  package var bytesRead: Int { scanner.bytesRead }

  /// Whether ``next()`` returns nil before the end once ``objectsPerPause`` workouts, summaries and audiograms are
  /// waiting (so a caller taking them between calls holds a bounded number however many follow the last record);
  /// ``atEnd`` then tells a pause from the end.
  package var pausesForObjects = false
  /// The workouts, summaries and audiograms read before ``next()`` pauses (``pausesForObjects``).
  package static let objectsPerPause = 64
  /// Whether ``next()`` has returned nil at the end of the export (not for a pause).
  package private(set) var atEnd = false

  /// The next sample, or nil at the end of the export (or at a pause, ``pausesForObjects``).
  /// - Throws: ``ExportError`` at the first problem, located.
  package mutating func next() throws(ExportError) -> Sample? {
    if let member = pendingMembers.popLast() { return member }
    if !started {
      started = true
      guard try scanner.next() == .startTag, scanner.nameIs("HealthData") else {
        throw ExportError(
          .notAnExport, at: scanner.tokenLocation,
          "the root element is '<\(scanner.name)>', not '<HealthData>': not an Apple Health export")
      }
      if let locale = scanner.attribute("locale") { summary.locale = try scanner.string(locale) }
      if scanner.isSelfClosing {
        foldCounts()
        atEnd = true
        return nil
      }
    }
    while true {
      switch try scanner.next() {
      case .endOfDocument:
        foldCounts()
        atEnd = true
        return nil
      case .endTag: continue
      case .startTag:
        if scanner.nameIs("Record") {
          summary.records += 1
          if let sample = try record() { return sample }
        } else if scanner.nameIs("ExportDate") {
          guard let index = scanner.attribute("value") else {
            throw ExportError(.notAnExport, at: scanner.tokenLocation, "'<ExportDate>' has no 'value' attribute")
          }
          summary.exportDate = Date(timeIntervalSinceReferenceDate: try date(index))
          _ = try skipSubtree()
        } else if scanner.nameIs("Me") {
          try me()
          _ = try skipSubtree()
        } else if scanner.nameIs("Workout") || scanner.nameIs("ActivitySummary") || scanner.nameIs("Audiogram")
          || scanner.nameIs("VisionPrescription")
        {
          if scanner.nameIs("Workout") {
            try workout()
          } else if scanner.nameIs("Audiogram") {
            try audiogram()
          } else if scanner.nameIs("VisionPrescription") {
            try visionPrescription()
          } else {
            try activitySummary()
          }
          let waiting =
            pendingWorkouts.count + pendingSummaries.count + pendingAudiograms.count + pendingPrescriptions.count
          if pausesForObjects && waiting >= Self.objectsPerPause { return nil }
        } else if scanner.nameIs("Correlation") {
          if let member = try correlation() { return member }
        } else if scanner.nameIs("ClinicalRecord") {
          try clinicalRecordElement()
          if pausesForObjects && pendingClinicalRecords.count >= Self.objectsPerPause { return nil }
        } else {
          let name = scanner.name
          summary.skip(name, "unknown element")
          _ = try skipSubtree()
        }
      }
    }
  }

  /// Reads `Me`'s characteristics (``CharacteristicNames``); an attribute of a characteristic the catalog does not
  /// hold is skipped and reported when it has a value (other than `None`).
  private mutating func me() throws(ExportError) {
    for index in 0..<scanner.attributeCount {
      let name = scanner.attributeName(index)
      let text = try scanner.string(index)
      guard let type = SampleType.lookup(name: name), type.descriptor.isCharacteristic else {
        // CardioFitnessMedicationsUse is "None" in exports of people who take none: nothing to carry.
        if !text.isEmpty && text != "None" { summary.skip("Me", name) }
        continue
      }
      guard let value = CharacteristicNames.value(for: type, text: text) else {
        let valid = CharacteristicNames.constants(for: type)
        let hint = suggest(text, from: valid).map { " (did you mean '\($0)'?)" } ?? ""
        let takes = valid.isEmpty ? "a date, YYYY-MM-DD, or nothing" : valid.joined(separator: ", ")
        throw ExportError(
          .value, at: scanner.valueLocation(index),
          "'\(text)' is not a value of \(type.identifier)\(hint); it takes \(takes)")
      }
      if let value { summary.characteristics[type] = value }
    }
  }

  /// Moves the per-type counts into ``summary``.
  private mutating func foldCounts() {
    for (code, count) in counts.enumerated() where count > 0 {
      if let type = SampleType.lookup(code: UInt16(code)) { summary.samples[type, default: 0] += count }
      counts[code] = 0
    }
  }

  /// Consumes the rest of the element just started; returns how many direct children it had.
  mutating func skipSubtree() throws(ExportError) -> Int {
    if scanner.isSelfClosing { return 0 }
    let level = scanner.depth
    var children = 0
    while true {
      switch try scanner.next() {
      case .startTag:
        if scanner.depth == level + 1 || (scanner.isSelfClosing && scanner.depth == level) { children += 1 }
      case .endTag:
        if scanner.depth < level { return children }
      case .endOfDocument:
        return children
      }
    }
  }
}
