import FoundationEssentials
import HealthModel

/// What reading an export found: the export's date, the samples by type and source, and every element and record
/// type that was not imported, with counts.
package struct ImportSummary: Hashable, Sendable {
  /// A source and how many of its samples were read.
  package struct SourceCount: Hashable, Sendable {
    /// The source as it is stored (bundle identifier, device kind, name, version, hardware).
    package var source: SampleSource
    /// Samples read from it.
    package var samples: Int
  }

  /// `ExportDate`.
  package var exportDate: Date?
  /// `HealthData`'s `locale`.
  package var locale: String?
  /// Top-level `Record` elements read.
  package var records = 0
  /// Samples read, by type (records of types the catalog knows).
  package var samples: [SampleType: Int] = [:]
  /// `Record` types the catalog does not know, by identifier (skipped).
  package var skippedTypes: [String: Int] = [:]
  /// Elements not imported — `Me` attributes of characteristics the catalog does not hold, `Workout`, a
  /// `Correlation` whose records do not make one, `ActivitySummary`, `ClinicalRecord`, `Audiogram`,
  /// `VisionPrescription`, heart-rate variability beat lists, unknown elements — by element, then by type (the
  /// element's `type` or `workoutActivityType`; empty when it has none).
  package var skippedElements: [String: [String: Int]] = [:]
  /// The sources, in order of first appearance.
  package var sources: [SourceCount] = []
  /// The characteristics `Me` sets (those it says are not set are left out).
  package var characteristics: [SampleType: CharacteristicValue] = [:]
  /// The `Correlation` elements read (blood pressure, food), by their members' identifiers: the members are read
  /// as samples too (docs/behavior.md I13).
  package var correlations: [Correlation] = []

  /// Creates an empty summary.
  package init() {}

  /// Samples read, all types.
  package var sampleCount: Int { samples.values.reduce(0, +) }
  /// Records and elements skipped, all kinds.
  package var skippedCount: Int {
    skippedTypes.values.reduce(0, +) + skippedElements.values.reduce(0) { $0 + $1.values.reduce(0, +) }
  }

  mutating func skip(_ element: String, _ detail: String = "", count: Int = 1) {
    let element = skippedElements[element] != nil || skippedElements.count < Self.maxKinds ? element : Self.otherKinds
    let detail =
      skippedElements[element]?[detail] != nil || (skippedElements[element]?.count ?? 0) < Self.maxKinds
      ? detail : Self.otherKinds
    skippedElements[element, default: [:]][detail, default: 0] += count
  }

  mutating func skipType(_ type: String) {
    let type = skippedTypes[type] != nil || skippedTypes.count < Self.maxKinds ? type : Self.otherKinds
    skippedTypes[type, default: 0] += 1
  }
}

/// Reads an Apple Health export (`export.xml`) as a stream of samples: each `Record` of a type the catalog knows
/// (``SampleType/lookup(name:)``, so every type added there imports with no change here) becomes a ``Sample`` —
/// value converted to the type's canonical unit, dates with their offsets, source mapped by ``SourceMapping``,
/// metadata typed by ``MetadataText`` — checked as HealthKit checks an object (``Sample/check()``). Everything else
/// is counted in ``summary`` and skipped.
///
/// A sample's identifier is derived from its content (type, value, dates, the source as the export names it, and
/// metadata), so the same record always gets the same UUID: importing a file twice, or importing an export of what
/// was imported, adds nothing the second time. Identical records in one file are one sample.
///
/// Errors are located: malformed XML, an unknown or incompatible unit (with the nearest spelling), a date or value
/// that does not parse, a record HealthKit would refuse.
package struct ExportReader: ~Copyable {
  private var scanner: XMLScanner
  private let mapping: SourceMapping
  /// What has been read so far (complete once ``next()`` returned nil).
  package private(set) var summary = ImportSummary()
  private var started = false

  private enum TypeEntry {
    case known(SampleType)
    case unknown(String)
  }
  private struct SourceEntry {
    var name: [UInt8]
    var version: [UInt8]?
    var device: [UInt8]?
    var source: SampleSource
    var hash: UInt64
    var index: Int
  }
  /// How a unit converts to its type's canonical unit, with the arithmetic `HealthUnit.convert` uses (so a value
  /// reads back bit for bit as it was written).
  private struct UnitConversion {
    var identity: Bool
    var factor: Double
    var offset: Double
    var targetFactor: Double
    var targetOffset: Double

    @inline(__always) func apply(_ value: Double) -> Double {
      identity ? value : (value * factor + offset - targetOffset) / targetFactor
    }
  }
  private var types = ByteCache<TypeEntry>()
  private var units = ByteCache<Result<UnitConversion, ExportError>>()
  private var categories = ByteCache<Int?>()
  private var sources: [UInt64: [SourceEntry]] = [:]
  /// Each source met so far, by what it is (whatever its spelling): one lookup per new spelling.
  private var sourcesByValue: [SampleSource: SourceEntry] = [:]
  private var lastSource: SourceEntry?
  private var metadataKeys = ByteCache<String>()
  private var metadataValues = ByteCache<MetadataValue>()
  /// Samples read per type code (folded into ``summary`` at the end, or when asked).
  private var counts: [Int]
  /// The members of the correlation just read, handed out by ``next()`` before it reads on.
  private var pendingMembers: [Sample] = []

  /// Reads `input`, naming `file` in errors, mapping sources with `mapping`.
  package init(_ input: any ByteInput, file: String, mapping: SourceMapping = SourceMapping()) {
    scanner = XMLScanner(input, file: file)
    self.mapping = mapping
    counts = [Int](repeating: 0, count: Int(SampleType.catalog.map(\.code).max() ?? 0) + 1)
  }

  /// Bytes of `export.xml` read so far.
  package var bytesRead: Int { scanner.bytesRead }

  /// The next sample, or nil at the end of the export.
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
        return nil
      }
    }
    while true {
      switch try scanner.next() {
      case .endOfDocument:
        foldCounts()
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
        } else if scanner.nameIs("Workout") {
          summary.skip("Workout", try detail("workoutActivityType"))
          _ = try skipSubtree()
        } else if scanner.nameIs("Correlation") {
          if let member = try correlation() { return member }
        } else {
          let name = scanner.name
          let known = ["ActivitySummary", "ClinicalRecord", "Audiogram", "VisionPrescription"]
          summary.skip(name, known.contains(name) ? try detail("type") : "unknown element")
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

  private mutating func detail(_ attribute: StaticString) throws(ExportError) -> String {
    guard let index = scanner.attribute(attribute) else { return "" }
    return try scanner.string(index)
  }

  /// Consumes the rest of the element just started; returns how many direct children it had.
  private mutating func skipSubtree() throws(ExportError) -> Int {
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

  // MARK: - Correlations

  /// Reads a `Correlation` (docs/behavior.md I13): its attributes as a record's (without value and unit), its
  /// `MetadataEntry`s, and its `Record`s, which become samples as top-level records do — with the same content, so
  /// the same identifiers as the copies Apple writes at the top level: a member is stored once. The correlation's
  /// identifier derives from its type, dates, source, metadata and members (or is HealthPair's `_HealthPair.uuid`).
  /// Returns the first member (the others follow from ``next()``); nil when there is none to hand out.
  private mutating func correlation() throws(ExportError) -> Sample? {
    let location = scanner.tokenLocation
    let a = recordAttributes()
    guard let typeIndex = a.type else {
      throw ExportError(.notAnExport, at: location, "a '<Correlation>' without a 'type' attribute")
    }
    let typeName = try scanner.string(typeIndex)
    guard let type = SampleType.lookup(name: typeName), type.descriptor.isCorrelation else {
      summary.skip("Correlation", typeName)
      _ = try skipSubtree()
      return nil
    }
    guard let startIndex = a.startDate, let endIndex = a.endDate else {
      throw ExportError(.notAnExport, at: location, "a '<Correlation>' needs 'startDate' and 'endDate' attributes")
    }
    let start = try date(startIndex)
    let end = try date(endIndex)
    if let creation = a.creationDate { _ = try date(creation) }
    guard let sourceIndex = a.sourceName else {
      throw ExportError(.notAnExport, at: location, "a '<Correlation>' without a 'sourceName' attribute")
    }
    let source = try sourceEntry(sourceIndex, version: a.sourceVersion, device: a.device)
    var metadata: Metadata = [:]
    var identifier: UUID?
    var members: [Sample] = []
    if !scanner.isSelfClosing {
      let level = scanner.depth
      var children = 0
      var metadataBytes = 0
      children: while true {
        switch try scanner.next() {
        case .startTag:
          guard scanner.depth == level + 1 || (scanner.isSelfClosing && scanner.depth == level) else { continue }
          children += 1
          try Self.checkChildCount(children, of: "Correlation", at: location)
          if scanner.nameIs("MetadataEntry") {
            try metadataEntry(into: &metadata, identifier: &identifier, bytes: &metadataBytes)
          } else if scanner.nameIs("Record") {
            if let member = try record(counted: false) { members.append(member) }
          } else {
            summary.skip(scanner.name, "in Correlation")
            _ = try skipSubtree()
          }
        case .endTag:
          if scanner.depth < level { break children }
        case .endOfDocument:
          break children
        }
      }
    }
    // Members of types the catalog does not hold were skipped; what is left must still make a correlation.
    var seen = Set<UUID>()
    let unique = members.filter { seen.insert($0.uuid).inserted }
    // One that does not (a blood pressure without its diastolic record, say) is skipped and reported by type, its
    // records with it, as before correlations were imported.
    guard (try? CorrelationInput.checkMembers(of: type, unique.map(\.type))) != nil, start <= end else {
      summary.skip("Correlation", type.identifier)
      return nil
    }
    let derived = ExportIdentity.correlation(
      type: type, start: start, end: end, source: source.hash, metadata: metadata, members: unique.map(\.uuid))
    let correlation = Correlation(
      uuid: identifier ?? derived, type: type, start: Date(timeIntervalSinceReferenceDate: start),
      end: Date(timeIntervalSinceReferenceDate: end), metadata: metadata, source: source.source,
      members: unique.map(\.uuid))
    do { try metadata.checkValues() } catch {
      throw ExportError(.invalidRecord, at: location, "a '<Correlation>' of \(type.identifier): \(error.message)")
    }
    summary.correlations.append(correlation)
    pendingMembers = unique.reversed()
    return pendingMembers.popLast()
  }

  // MARK: - Records

  /// Reads a `Record`; `counted` is false for a correlation's member (Apple writes it at the top level too, where
  /// it is counted).
  private mutating func record(counted: Bool = true) throws(ExportError) -> Sample? {
    let recordLine = scanner.tokenLine
    let recordColumn = scanner.tokenColumn
    let recordOffset = scanner.tokenOffset
    let file = scanner.file
    func location() -> ExportLocation {
      ExportLocation(file: file, line: recordLine, column: recordColumn, offset: recordOffset)
    }
    let a = recordAttributes()
    guard let typeIndex = a.type else {
      throw ExportError(.notAnExport, at: location(), "a '<Record>' without a 'type' attribute")
    }
    let entry = try typeEntry(typeIndex)
    guard case .known(let type) = entry, !type.descriptor.isCorrelation else {
      if case .unknown(let name) = entry { summary.skipType(name) }
      if case .known(let type) = entry { summary.skipType(type.identifier) }
      _ = try skipSubtree()
      return nil
    }
    guard let startIndex = a.startDate, let endIndex = a.endDate else {
      throw ExportError(.notAnExport, at: location(), "a '<Record>' needs 'startDate' and 'endDate' attributes")
    }
    let start = try date(startIndex)
    let end = try date(endIndex)
    if let creation = a.creationDate { _ = try date(creation) }
    guard let sourceIndex = a.sourceName else {
      throw ExportError(.notAnExport, at: location(), "a '<Record>' without a 'sourceName' attribute")
    }
    let source = try sourceEntry(sourceIndex, version: a.sourceVersion, device: a.device)
    guard let valueIndex = a.value else {
      throw ExportError(.value, at: location(), "a '<Record>' of \(type.identifier) without a 'value' attribute")
    }
    let value: SampleValue
    if type.isQuantity {
      guard let unitIndex = a.unit else {
        throw ExportError(.unit, at: location(), "a quantity '<Record>' of \(type.identifier) without a 'unit'")
      }
      let bytes = scanner.value(valueIndex)
      guard let amount = ExportNumber.parse(bytes) else {
        throw ExportError(
          .value, at: scanner.valueLocation(valueIndex),
          "value '\(String(decoding: bytes, as: UTF8.self))' is not a number")
      }
      value = .quantity(try unitConversion(unitIndex, type: type).apply(amount))
    } else {
      value = .category(try categoryValue(valueIndex, type: type))
    }
    var metadata: Metadata = [:]
    var identifier: UUID?
    if !scanner.isSelfClosing {
      let level = scanner.depth
      var children = 0
      var metadataBytes = 0
      children: while true {
        switch try scanner.next() {
        case .startTag:
          guard scanner.depth == level + 1 || (scanner.isSelfClosing && scanner.depth == level) else { continue }
          children += 1
          try Self.checkChildCount(children, of: "Record", at: location())
          if scanner.nameIs("MetadataEntry") {
            try metadataEntry(into: &metadata, identifier: &identifier, bytes: &metadataBytes)
          } else if scanner.nameIs("HeartRateVariabilityMetadataList") {
            let beats = try skipSubtree()
            summary.skip("InstantaneousBeatsPerMinute", "in HeartRateVariabilityMetadataList", count: beats)
          } else {
            summary.skip(scanner.name, "in Record")
            _ = try skipSubtree()
          }
        case .endTag:
          if scanner.depth < level { break children }
        case .endOfDocument:
          break children
        }
      }
    }
    let derived = ExportIdentity.sample(
      type: type, value: value, start: start, end: end, source: source.hash, metadata: metadata)
    let sample = Sample(
      uuid: identifier ?? derived, type: type, value: value, start: Date(timeIntervalSinceReferenceDate: start),
      end: Date(timeIntervalSinceReferenceDate: end), metadata: metadata, source: source.source)
    do { try sample.check() } catch {
      throw ExportError(.invalidRecord, at: location(), "a '<Record>' of \(type.identifier): \(error.message)")
    }
    if counted {
      counts[Int(type.code)] += 1
      summary.sources[source.index].samples += 1
    }
    return sample
  }

  private struct RecordAttributes {
    var type: Int?
    var unit: Int?
    var value: Int?
    var device: Int?
    var endDate: Int?
    var startDate: Int?
    var sourceName: Int?
    var creationDate: Int?
    var sourceVersion: Int?
  }

  /// The indices of a `Record`'s attributes, found in one pass (by length and first letter, then compared).
  private func recordAttributes() -> RecordAttributes {
    var a = RecordAttributes()
    for i in 0..<scanner.attributeCount {
      let name = scanner.attributeNameBytes(i)
      func equals(_ expected: StaticString) -> Bool {
        expected.utf8CodeUnitCount == name.count
          && expected.withUTF8Buffer { memcmpBytes($0.baseAddress!, name.baseAddress!, name.count) }
      }
      switch name.count {
      case 4:
        if equals("type") { a.type = i } else if equals("unit") { a.unit = i }
      case 5: if equals("value") { a.value = i }
      case 6: if equals("device") { a.device = i }
      case 7: if equals("endDate") { a.endDate = i }
      case 9: if equals("startDate") { a.startDate = i }
      case 10: if equals("sourceName") { a.sourceName = i }
      case 12: if equals("creationDate") { a.creationDate = i }
      case 13: if equals("sourceVersion") { a.sourceVersion = i }
      default: break
      }
    }
    return a
  }

  private mutating func date(_ index: Int) throws(ExportError) -> Double {
    let bytes = scanner.value(index)
    guard let seconds = ExportDate.parse(bytes) else {
      throw ExportError(
        .date, at: scanner.valueLocation(index),
        "'\(String(decoding: bytes, as: UTF8.self))' is not a date like 2024-03-01 08:15:00 +0100")
    }
    return seconds
  }

  private mutating func typeEntry(_ index: Int) throws(ExportError) -> TypeEntry {
    let bytes = scanner.rawValue(index)
    if let hit = types.find(bytes) { return hit }
    let name = try scanner.string(index)
    // Records hold quantity and category samples: another kind of type (a correlation, a characteristic or an object
    // type under a record's name) is skipped like an unknown one.
    let entry: TypeEntry =
      SampleType.lookup(name: name).flatMap { $0.isQuantity || $0.descriptor.categoryValues != nil ? .known($0) : nil }
      ?? .unknown(name)
    types.insert(scanner.rawValue(index), entry)
    return entry
  }

  private mutating func unitConversion(_ index: Int, type: SampleType) throws(ExportError) -> UnitConversion {
    let raw = scanner.rawValue(index)
    let key = ByteCache<Int>.hash(raw, salt: UInt64(type.code))
    let result: Result<UnitConversion, ExportError>
    if let hit = units.find(raw, hash: key) {
      result = hit
    } else {
      let text = try scanner.string(index)
      let canonical = type.descriptor.canonicalUnit!
      result = Self.resolveUnit(text, type: type, canonical: canonical, at: scanner.valueLocation(index)).map {
        UnitConversion(
          identity: $0.identity, factor: $0.unit.factor, offset: $0.unit.offset, targetFactor: canonical.factor,
          targetOffset: canonical.offset)
      }
      units.insert(scanner.rawValue(index), hash: key, result)
    }
    switch result {
    case .success(let conversion): return conversion
    case .failure(var error):
      error.location = scanner.valueLocation(index)
      throw error
    }
  }

  /// A unit string of an export, as HealthKit would parse it (Apple writes `·` for a product and may group a
  /// denominator in parentheses, `mL/(kg·min)`; both are read as `.` products).
  static func resolveUnit(_ text: String, type: SampleType, canonical: HealthUnit, at location: ExportLocation)
    -> Result<(unit: HealthUnit, identity: Bool), ExportError>
  {
    var unit: HealthUnit
    do { unit = try HealthUnit.cached(text) } catch {
      let normalized = String(text.map { $0 == "·" ? "." : $0 }.filter { $0 != "(" && $0 != ")" })
      if normalized != text, let parsed = try? HealthUnit.cached(normalized) {
        unit = parsed
      } else {
        let common = [
          "count", "count/min", "count/s", "kcal", "Cal", "kJ", "kg", "g", "lb", "mL", "L", "fl_oz_us", "m", "km",
          "mi", "ft", "in", "cm", "s", "ms", "min", "hr", "d", "%", "mmHg", "degC", "degF", "mg/dL", "mmol/L",
        ]
        let suggestion = error.suggestion ?? suggest(text, from: common)
        let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        return .failure(
          ExportError(.unit, at: location, "unknown unit '\(text)': \(error.message)\(hint)"))
      }
    }
    guard unit.isCompatible(with: canonical) else {
      return .failure(
        ExportError(
          .unit, at: location,
          "unit '\(text)' cannot express \(type.identifier) (its values are in units like '\(canonical)')"))
    }
    return .success((unit, unit == canonical))
  }

  private mutating func categoryValue(_ index: Int, type: SampleType) throws(ExportError) -> Int {
    let raw = scanner.rawValue(index)
    let key = ByteCache<Int>.hash(raw, salt: UInt64(type.code))
    let value: Int?
    if let hit = categories.find(raw, hash: key) {
      value = hit
    } else {
      value = CategoryNames.value(for: type, constant: try scanner.string(index))
      categories.insert(scanner.rawValue(index), hash: key, value)
    }
    guard let value else {
      let text = try scanner.string(index)
      let valid = (type.descriptor.categoryValues ?? []).map { CategoryNames.constant(for: type, value: $0.value) }
      let hint = suggest(text, from: valid).map { " (did you mean '\($0)'?)" } ?? ""
      throw ExportError(
        .value, at: scanner.valueLocation(index),
        "'\(text)' is not a value of \(type.identifier)\(hint); it takes \(valid.joined(separator: ", "))")
    }
    return value
  }

  /// Whether the attribute `index` holds, as written, exactly `stored` (nil on both sides counts as equal).
  private func same(_ stored: [UInt8]?, _ index: Int?, stripping: Bool = false) -> Bool {
    guard let stored, let index else { return stored == nil && index == nil }
    let raw = scanner.rawValue(index)
    let b = stripping ? Self.withoutAddress(raw) : raw
    return stored.count == b.count
      && (b.isEmpty || stored.withUnsafeBufferPointer { memcmpBytes($0.baseAddress!, b.baseAddress!, b.count) })
  }

  private mutating func sourceEntry(_ nameIndex: Int, version versionIndex: Int?, device deviceIndex: Int?)
    throws(ExportError) -> SourceEntry
  {
    // Consecutive records mostly share a source.
    if let last = lastSource, same(last.name, nameIndex), same(last.version, versionIndex),
      same(last.device, deviceIndex, stripping: true)
    {
      return last
    }
    // Keyed on the attributes as written (equal bytes decode alike), without the device description's object
    // address, which varies per record.
    var key = ByteCache<Int>.hash(scanner.rawValue(nameIndex), salt: 1)
    if let versionIndex { key = ByteCache<Int>.hash(scanner.rawValue(versionIndex), salt: key ^ 2) }
    if let deviceIndex { key = ByteCache<Int>.hash(Self.withoutAddress(scanner.rawValue(deviceIndex)), salt: key ^ 3) }
    if let candidates = sources[key] {
      for candidate in candidates
      where same(candidate.name, nameIndex) && same(candidate.version, versionIndex)
        && same(candidate.device, deviceIndex, stripping: true)
      {
        lastSource = candidate
        return candidate
      }
    }
    let rawName = Array(scanner.rawValue(nameIndex))
    let rawVersion = versionIndex.map { Array(scanner.rawValue($0)) }
    let rawDevice = deviceIndex.map { Array(Self.withoutAddress(scanner.rawValue($0))) }
    let nameText = try scanner.string(nameIndex)
    var versionText: String?
    if let versionIndex { versionText = try scanner.string(versionIndex) }
    var hardware: HardwareDetails?
    if let deviceIndex { hardware = ExportIdentity.hardware(readFrom: try scanner.string(deviceIndex)) }
    let source = mapping.source(name: nameText, version: versionText, hardware: hardware)
    var entry: SourceEntry
    // The same source written differently (`&#8217;` for `’`): one source, under both spellings.
    if let known = sourcesByValue[source] {
      entry = known
      entry.name = rawName
      entry.version = rawVersion
      entry.device = rawDevice
    } else {
      // What the export says, not what the mapping made of it: importing again with other `--source` names finds
      // the same samples already present.
      entry = SourceEntry(
        name: rawName, version: rawVersion, device: rawDevice, source: source,
        hash: ExportIdentity.sourceHash(name: nameText, version: versionText, hardware: hardware),
        index: summary.sources.count)
      summary.sources.append(ImportSummary.SourceCount(source: source, samples: 0))
      sourcesByValue[source] = entry
    }
    sources[key, default: []].append(entry)
    lastSource = entry
    return entry
  }

  /// A device description as written, without its leading object address (`<<HKDevice: 0x…>, ` or, escaped,
  /// `&lt;&lt;HKDevice: 0x…&gt;, `): from the comma after the address's closing `>`.
  private static func withoutAddress(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    guard bytes.count > 14, bytes[0] == UInt8(ascii: "<") || bytes[0] == UInt8(ascii: "&") else { return bytes }
    var i = 1
    while i + 1 < bytes.count {
      if bytes[i + 1] == UInt8(ascii: ","), bytes[i] == UInt8(ascii: ">") || bytes[i] == UInt8(ascii: ";") {
        return UnsafeBufferPointer(rebasing: bytes[(i + 1)...])
      }
      i += 1
    }
    return bytes
  }

  /// Reads the `<MetadataEntry>` the scanner is at (a child of a `Record` or a `Correlation`) into `metadata`, or,
  /// for HealthPair's own identifier key, into `identifier`: HealthPair's exports keep an app-saved object's
  /// identifier (I10).
  @inline(__always)
  private mutating func metadataEntry(into metadata: inout Metadata, identifier: inout UUID?, bytes: inout Int)
    throws(ExportError)
  {
    guard let keyIndex = scanner.attribute("key"), let textIndex = scanner.attribute("value") else {
      throw ExportError(
        .notAnExport, at: scanner.tokenLocation, "a '<MetadataEntry>' needs 'key' and 'value' attributes")
    }
    bytes += scanner.rawValue(keyIndex).count + scanner.rawValue(textIndex).count
    try Self.checkMetadataBytes(bytes, at: scanner.tokenLocation)
    let key = try metadataKey(keyIndex)
    if key == ExportWriter.identifierKey {
      let text = try scanner.string(textIndex)
      guard let uuid = UUID(uuidString: text) else {
        throw ExportError(.value, at: scanner.valueLocation(textIndex), "'\(text)' is not a UUID")
      }
      identifier = uuid
    } else {
      metadata[key] = try metadataValue(textIndex, key: key)
    }
    _ = try skipSubtree()
  }

  private mutating func metadataKey(_ index: Int) throws(ExportError) -> String {
    let raw = scanner.rawValue(index)
    if let hit = metadataKeys.find(raw) { return hit }
    let bytes = scanner.value(index)
    guard let key = String(validating: bytes, as: UTF8.self), !key.isEmpty, bytes.count <= StoredLimits.identifier
    else {
      throw ExportError(
        .value, at: scanner.valueLocation(index),
        "a metadata key must be 1 to \(StoredLimits.identifier) bytes of UTF-8")
    }
    metadataKeys.insert(scanner.rawValue(index), key)
    return key
  }

  private mutating func metadataValue(_ index: Int, key: String) throws(ExportError) -> MetadataValue {
    let raw = scanner.rawValue(index)
    let hash = ByteCache<Int>.hash(raw, salt: UInt64(truncatingIfNeeded: key.hashValue))
    if raw.count <= 64, let hit = metadataValues.find(raw, hash: hash) { return hit }
    let bytes = scanner.value(index)
    guard let text = String(validating: bytes, as: UTF8.self), bytes.count <= StoredLimits.metadataString else {
      throw ExportError(
        .value, at: scanner.valueLocation(index),
        "a metadata value must be at most \(StoredLimits.metadataString) bytes of UTF-8")
    }
    let value = MetadataText.value(key: key, text: text)
    if raw.count <= 64 { metadataValues.insert(scanner.rawValue(index), hash: hash, value) }
    return value
  }
}

/// A small cache keyed by byte strings (attribute values): a hash, then a byte comparison.
struct ByteCache<Value> {
  private var entries: [UInt64: [(key: [UInt8], value: Value)]] = [:]
  private var count = 0

  /// A 64-bit hash of `bytes`, eight at a time (the same in every process).
  static func hash(_ bytes: UnsafeBufferPointer<UInt8>, salt: UInt64 = 0) -> UInt64 {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ salt ^ UInt64(bytes.count)
    guard let base = bytes.baseAddress else { return h }
    let raw = UnsafeRawPointer(base)
    var i = 0
    while i + 8 <= bytes.count {
      h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
      h ^= h >> 29
      i += 8
    }
    var tail: UInt64 = 0
    var shift: UInt64 = 0
    while i < bytes.count {
      tail |= UInt64(bytes[i]) << shift
      shift += 8
      i += 1
    }
    h = (h ^ tail) &* 0x9E37_79B9_7F4A_7C15
    return h ^ (h >> 32)
  }

  func find(_ bytes: UnsafeBufferPointer<UInt8>, hash: UInt64? = nil) -> Value? {
    guard let bucket = entries[hash ?? Self.hash(bytes)] else { return nil }
    for entry in bucket where entry.key.count == bytes.count {
      if bytes.isEmpty { return entry.value }
      if entry.key.withUnsafeBufferPointer({ memcmpBytes($0.baseAddress!, bytes.baseAddress!, bytes.count) }) {
        return entry.value
      }
    }
    return nil
  }

  mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, hash: UInt64? = nil, _ value: Value) {
    // Bounded: a file with endlessly varied values clears the cache rather than growing it.
    if count >= 8192 {
      entries.removeAll(keepingCapacity: true)
      count = 0
    }
    entries[hash ?? Self.hash(bytes), default: []].append((Array(bytes), value))
    count += 1
  }
}
