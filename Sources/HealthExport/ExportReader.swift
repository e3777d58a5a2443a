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
  /// Elements not imported — `Me`, `Workout`, `Correlation`, `ActivitySummary`, `ClinicalRecord`, `Audiogram`,
  /// `VisionPrescription`, heart-rate variability beat lists, unknown elements — by element, then by type (the
  /// element's `type` or `workoutActivityType`; empty when it has none).
  package var skippedElements: [String: [String: Int]] = [:]
  /// The sources, in order of first appearance.
  package var sources: [SourceCount] = []

  /// Creates an empty summary.
  package init() {}

  /// Samples read, all types.
  package var sampleCount: Int { samples.values.reduce(0, +) }
  /// Records and elements skipped, all kinds.
  package var skippedCount: Int {
    skippedTypes.values.reduce(0, +) + skippedElements.values.reduce(0) { $0 + $1.values.reduce(0, +) }
  }

  mutating func skip(_ element: String, _ detail: String = "", count: Int = 1) {
    skippedElements[element, default: [:]][detail, default: 0] += count
  }
}

/// Reads an Apple Health export (`export.xml`) as a stream of samples: each `Record` of a type the catalog knows
/// (``SampleType/lookup(name:)``, so every type added there imports with no change here) becomes a ``Sample`` —
/// value converted to the type's canonical unit, dates with their offsets, source mapped by ``SourceMapping``,
/// metadata typed by ``MetadataText`` — checked as HealthKit checks an object (``Sample/check()``). Everything else
/// is counted in ``summary`` and skipped.
///
/// A sample's identifier is derived from its content (type, value, dates, the source as the export names it, and
/// metadata), so the same record always gets the same UUID: importing a file twice, or importing an export of what was imported, adds nothing the
/// second time. Identical records in one file are one sample.
///
/// Errors are located: malformed XML, an unknown or incompatible unit (with the nearest spelling), a date or value
/// that does not parse, a record HealthKit would refuse.
package final class ExportReader {
  private let scanner: XMLScanner
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
  private var types = ByteCache<TypeEntry>()
  private var units = ByteCache<Result<(unit: HealthUnit, identity: Bool), ExportError>>()
  private var categories = ByteCache<Int?>()
  private var sources: [UInt64: [SourceEntry]] = [:]
  private var metadataKeys = ByteCache<String>()
  private var metadataValues = ByteCache<MetadataValue>()

  /// Reads `input`, naming `file` in errors, mapping sources with `mapping`.
  package init(_ input: any ByteInput, file: String, mapping: SourceMapping = SourceMapping()) {
    scanner = XMLScanner(input, file: file)
    self.mapping = mapping
  }

  /// Bytes of `export.xml` read so far.
  package var bytesRead: Int { scanner.bytesRead }

  /// The next sample, or nil at the end of the export.
  /// - Throws: ``ExportError`` at the first problem, located.
  package func next() throws(ExportError) -> Sample? {
    if !started {
      started = true
      guard try scanner.next() == .startTag, scanner.nameIs("HealthData") else {
        throw ExportError(
          .notAnExport, at: scanner.tokenLocation,
          "the root element is '<\(scanner.name)>', not '<HealthData>': not an Apple Health export")
      }
      if let locale = scanner.attribute("locale") { summary.locale = try scanner.string(locale) }
      if scanner.isSelfClosing { return nil }
    }
    while true {
      switch try scanner.next() {
      case .endOfDocument: return nil
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
          try skipSubtree()
        } else if scanner.nameIs("Me") {
          summary.skip("Me", "characteristics")
          try skipSubtree()
        } else if scanner.nameIs("Workout") {
          summary.skip("Workout", try detail("workoutActivityType"))
          try skipSubtree()
        } else {
          let name = scanner.name
          let known = ["Correlation", "ActivitySummary", "ClinicalRecord", "Audiogram", "VisionPrescription"]
          summary.skip(name, known.contains(name) ? try detail("type") : "unknown element")
          try skipSubtree()
        }
      }
    }
  }

  private func detail(_ attribute: StaticString) throws(ExportError) -> String {
    guard let index = scanner.attribute(attribute) else { return "" }
    return try scanner.string(index)
  }

  /// Consumes the rest of the element just started; `child` sees each direct child's name.
  private func skipSubtree(_ child: (XMLScanner) throws(ExportError) -> Void = { _ in }) throws(ExportError) {
    if scanner.isSelfClosing { return }
    let level = scanner.depth
    while true {
      switch try scanner.next() {
      case .startTag:
        if scanner.depth == level + 1 || (scanner.isSelfClosing && scanner.depth == level) {
          try child(scanner)
        }
      case .endTag:
        if scanner.depth < level { return }
      case .endOfDocument:
        return
      }
    }
  }

  // MARK: - Records

  private func record() throws(ExportError) -> Sample? {
    let recordLine = scanner.tokenLine
    let recordColumn = scanner.tokenColumn
    let recordOffset = scanner.tokenOffset
    func location() -> ExportLocation {
      ExportLocation(file: scanner.file, line: recordLine, column: recordColumn, offset: recordOffset)
    }
    let a = recordAttributes()
    guard let typeIndex = a.type else {
      throw ExportError(.notAnExport, at: location(), "a '<Record>' without a 'type' attribute")
    }
    let entry = try typeEntry(typeIndex)
    guard case .known(let type) = entry, !type.descriptor.isCorrelation else {
      if case .unknown(let name) = entry { summary.skippedTypes[name, default: 0] += 1 }
      if case .known(let type) = entry { summary.skippedTypes[type.identifier, default: 0] += 1 }
      try skipSubtree()
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
    if let canonical = type.descriptor.canonicalUnit {
      guard let unitIndex = a.unit else {
        throw ExportError(.unit, at: location(), "a quantity '<Record>' of \(type.identifier) without a 'unit'")
      }
      let amount = try scanner.withValue(valueIndex) { bytes throws(ExportError) -> Double in
        guard let number = ExportNumber.parse(bytes) else {
          throw ExportError(
            .value, at: scanner.valueLocation(valueIndex),
            "value '\(String(decoding: bytes, as: UTF8.self))' is not a number")
        }
        return number
      }
      let unit = try unitEntry(unitIndex, type: type, canonical: canonical)
      if unit.identity {
        value = .quantity(amount)
      } else {
        value = .quantity((try? unit.unit.convert(amount, to: canonical)) ?? .nan)
      }
    } else {
      value = .category(try categoryValue(valueIndex, type: type))
    }
    var metadata: Metadata = [:]
    if !scanner.isSelfClosing {
      try skipSubtree { scanner throws(ExportError) in
        if scanner.nameIs("MetadataEntry") {
          guard let keyIndex = scanner.attribute("key"), let textIndex = scanner.attribute("value") else {
            throw ExportError(
              .notAnExport, at: scanner.tokenLocation, "a '<MetadataEntry>' needs 'key' and 'value' attributes")
          }
          let key = try metadataKey(keyIndex)
          metadata[key] = try metadataValue(textIndex, key: key)
        } else if scanner.nameIs("HeartRateVariabilityMetadataList") {
          var beats = 0
          try skipSubtree { _ throws(ExportError) in beats += 1 }
          summary.skip("InstantaneousBeatsPerMinute", "in HeartRateVariabilityMetadataList", count: beats)
        } else {
          summary.skip(scanner.name, "in Record")
          try skipSubtree()
        }
      }
    }
    var hash = Hash128()
    hash.add(UInt64(type.code))
    switch value {
    case .quantity(let v): hash.add(v.bitPattern)
    case .category(let c): hash.add(UInt64(bitPattern: Int64(c)) ^ 0x8000_0000_0000_0000)
    }
    hash.add(start.bitPattern)
    hash.add(end.bitPattern)
    hash.add(source.hash)
    if !metadata.isEmpty { Self.hashMetadata(metadata, into: &hash) }
    let sample = Sample(
      uuid: hash.uuid, type: type, value: value, start: Date(timeIntervalSinceReferenceDate: start),
      end: Date(timeIntervalSinceReferenceDate: end), metadata: metadata, source: source.source)
    do { try sample.check() } catch {
      throw ExportError(.invalidRecord, at: location(), "a '<Record>' of \(type.identifier): \(error.message)")
    }
    summary.samples[type, default: 0] += 1
    summary.sources[source.index].samples += 1
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

  /// Metadata in a fixed order (sorted keys) and with typed values, so the hash does not depend on the order of
  /// `MetadataEntry` elements.
  static func hashMetadata(_ metadata: Metadata, into hash: inout Hash128) {
    for key in metadata.keys.sorted() {
      hash.add(key)
      switch metadata[key]! {
      case .string(let s):
        hash.add(1)
        hash.add(s)
      case .bool(let b): hash.add(b ? 2 : 3)
      case .int(let i):
        hash.add(4)
        hash.add(UInt64(bitPattern: i))
      case .double(let d):
        hash.add(5)
        hash.add(d.bitPattern)
      case .date(let d):
        hash.add(6)
        hash.add(d.timeIntervalSinceReferenceDate.bitPattern)
      case .quantity(let v, let unit):
        hash.add(7)
        hash.add(v.bitPattern)
        hash.add(unit)
      }
    }
  }

  private func date(_ index: Int) throws(ExportError) -> Double {
    try scanner.withValue(index) { bytes throws(ExportError) -> Double in
      guard let seconds = ExportDate.parse(bytes) else {
        throw ExportError(
          .date, at: scanner.valueLocation(index),
          "'\(String(decoding: bytes, as: UTF8.self))' is not a date like 2024-03-01 08:15:00 +0100")
      }
      return seconds
    }
  }

  private func typeEntry(_ index: Int) throws(ExportError) -> TypeEntry {
    try scanner.withRawValue(index) { bytes throws(ExportError) -> TypeEntry in
      if let hit = types.find(bytes) { return hit }
      let name = try scanner.string(index)
      let entry: TypeEntry = SampleType.lookup(name: name).map { .known($0) } ?? .unknown(name)
      types.insert(bytes, entry)
      return entry
    }
  }

  private func unitEntry(_ index: Int, type: SampleType, canonical: HealthUnit) throws(ExportError) -> (
    unit: HealthUnit, identity: Bool
  ) {
    let result = try scanner.withValue(index) { bytes -> Result<(unit: HealthUnit, identity: Bool), ExportError> in
      let key = ByteCache<Int>.hash(bytes, salt: UInt64(type.code))
      if let hit = units.find(bytes, hash: key) { return hit }
      let text = String(decoding: bytes, as: UTF8.self)
      let resolved = Self.resolveUnit(text, type: type, canonical: canonical, at: scanner.valueLocation(index))
      units.insert(bytes, hash: key, resolved)
      return resolved
    }
    switch result {
    case .success(let unit): return unit
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

  private func categoryValue(_ index: Int, type: SampleType) throws(ExportError) -> Int {
    try scanner.withValue(index) { bytes throws(ExportError) -> Int in
      let key = ByteCache<Int>.hash(bytes, salt: UInt64(type.code))
      let value: Int?
      if let hit = categories.find(bytes, hash: key) {
        value = hit
      } else {
        value = CategoryNames.value(for: type, constant: String(decoding: bytes, as: UTF8.self))
        categories.insert(bytes, hash: key, value)
      }
      guard let value else {
        let text = String(decoding: bytes, as: UTF8.self)
        let valid = (type.descriptor.categoryValues ?? []).map { CategoryNames.constant(for: type, value: $0.value) }
        let hint = suggest(text, from: valid).map { " (did you mean '\($0)'?)" } ?? ""
        throw ExportError(
          .value, at: scanner.valueLocation(index),
          "'\(text)' is not a value of \(type.identifier)\(hint); it takes \(valid.joined(separator: ", "))")
      }
      return value
    }
  }

  private func sourceEntry(_ nameIndex: Int, version versionIndex: Int?, device deviceIndex: Int?)
    throws(ExportError) -> SourceEntry
  {
    // Keyed on the attributes as written (equal bytes decode alike), without the device description's object
    // address, which varies per record.
    var key: UInt64 = 0xCBF2_9CE4_8422_2325
    func fold(_ bytes: UnsafeBufferPointer<UInt8>, _ tag: UInt64) {
      key = ByteCache<Int>.hash(bytes, salt: (key ^ tag) &* 0x100_0000_01B3)
    }
    try scanner.withRawValue(nameIndex) { bytes throws(ExportError) in fold(bytes, 1) }
    if let versionIndex { try scanner.withRawValue(versionIndex) { bytes throws(ExportError) in fold(bytes, 2) } }
    if let deviceIndex {
      try scanner.withRawValue(deviceIndex) { bytes throws(ExportError) in fold(Self.withoutAddress(bytes), 3) }
    }
    func same(_ stored: [UInt8]?, _ index: Int?, stripping: Bool = false) throws(ExportError) -> Bool {
      guard let stored, let index else { return stored == nil && index == nil }
      return try scanner.withRawValue(index) { raw throws(ExportError) -> Bool in
        let b = stripping ? Self.withoutAddress(raw) : raw
        return stored.count == b.count
          && (b.isEmpty || stored.withUnsafeBufferPointer { memcmpBytes($0.baseAddress!, b.baseAddress!, b.count) })
      }
    }
    if let candidates = sources[key] {
      for candidate in candidates {
        if try same(candidate.name, nameIndex), try same(candidate.version, versionIndex),
          try same(candidate.device, deviceIndex, stripping: true)
        {
          return candidate
        }
      }
    }
    func raw(_ index: Int?, stripping: Bool = false) throws(ExportError) -> [UInt8]? {
      guard let index else { return nil }
      return try scanner.withRawValue(index) { bytes throws(ExportError) in
        Array(stripping ? Self.withoutAddress(bytes) : bytes)
      }
    }
    let nameText = try scanner.string(nameIndex)
    let versionText = try versionIndex.map { index throws(ExportError) in try scanner.string(index) }
    var hardware: HardwareDetails?
    if let deviceIndex {
      let description = try scanner.string(deviceIndex)
      hardware = HardwareDetails(exportDescription: description)
      if hardware == nil, !description.isEmpty {
        hardware = HardwareDetails(fields: [HardwareDetails.Field("description", description)])
      }
    }
    let source = mapping.source(name: nameText, version: versionText, hardware: hardware)
    // The same source written differently (`&#8217;` for `’`): one source, under both spellings.
    if let known = sources.values.lazy.flatMap({ $0 }).first(where: { $0.source == source }) {
      var alias = known
      alias.name = try raw(nameIndex) ?? []
      alias.version = try raw(versionIndex)
      alias.device = try raw(deviceIndex, stripping: true)
      sources[key, default: []].append(alias)
      return alias
    }
    // What the export says, not what the mapping made of it: importing again with other `--source` names finds the
    // same samples already present.
    var sourceHash = Hash128()
    sourceHash.add(nameText)
    sourceHash.add(versionText ?? "")
    for field in hardware?.fields ?? [] {
      sourceHash.add(field.key)
      sourceHash.add(field.value)
    }
    let entry = SourceEntry(
      name: try raw(nameIndex) ?? [], version: try raw(versionIndex), device: try raw(deviceIndex, stripping: true),
      source: source, hash: withUnsafeBytes(of: sourceHash.uuid.uuid) { $0.loadUnaligned(as: UInt64.self) },
      index: summary.sources.count)
    summary.sources.append(ImportSummary.SourceCount(source: source, samples: 0))
    sources[key, default: []].append(entry)
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

  private func metadataKey(_ index: Int) throws(ExportError) -> String {
    try scanner.withValue(index) { bytes throws(ExportError) -> String in
      if let hit = metadataKeys.find(bytes) { return hit }
      guard let key = String(validating: bytes, as: UTF8.self), !key.isEmpty, bytes.count <= StoredLimits.identifier
      else {
        throw ExportError(
          .value, at: scanner.valueLocation(index),
          "a metadata key must be 1 to \(StoredLimits.identifier) bytes of UTF-8")
      }
      metadataKeys.insert(bytes, key)
      return key
    }
  }

  private func metadataValue(_ index: Int, key: String) throws(ExportError) -> MetadataValue {
    try scanner.withValue(index) { bytes throws(ExportError) -> MetadataValue in
      let hash = ByteCache<Int>.hash(bytes, salt: UInt64(truncatingIfNeeded: key.hashValue))
      if bytes.count <= 64, let hit = metadataValues.find(bytes, hash: hash) { return hit }
      guard let text = String(validating: bytes, as: UTF8.self), bytes.count <= StoredLimits.metadataString else {
        throw ExportError(
          .value, at: scanner.valueLocation(index),
          "a metadata value must be at most \(StoredLimits.metadataString) bytes of UTF-8")
      }
      let value = MetadataText.value(key: key, text: text)
      if bytes.count <= 64 { metadataValues.insert(bytes, hash: hash, value) }
      return value
    }
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
