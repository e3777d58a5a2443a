import HealthExport

/// The `export` fuzz target: the importer's whole input path — zip local headers and zip64 extras, the DEFLATE
/// decoder, the XML scanner, the export reader — driven by STRUCTURE rather than bytes alone. The fuzz bytes are a
/// stream of choices (``ExportFuzz/Choices``) from which ``ExportFuzz/build(_:)`` makes an export: records from few
/// or very many sources, correlations of few or very many members, metadata, deep nesting, huge attribute values,
/// many attributes, entities, heart-rate beat lists, stray bytes; optionally wrapped in a zip whose entries are
/// stored or deflated and whose header fields, sizes, zip64 extras, CRCs and data descriptors are right or mutated
/// (``ExportFuzzZip``).
///
/// Property: reading it never traps or hangs and ends in a result or a typed ``ExportError`` located inside the
/// input; and an export built without any mutation (``Built/valid``) reads without an error, with one sample per
/// record it holds.
package enum ExportFuzz {
  /// The choices the fuzz bytes stand for: each read takes the next byte (0 once they run out), so every input,
  /// however short, builds something.
  package struct Choices {
    private let data: [UInt8]
    private var index = 0

    /// Choices from `data`.
    package init(_ data: [UInt8]) { self.data = data }

    /// The next byte.
    package mutating func byte() -> Int {
      guard index < data.count else { return 0 }
      defer { index += 1 }
      return Int(data[index])
    }

    /// A number below `n` (from one or two bytes).
    package mutating func below(_ n: Int) -> Int {
      guard n > 1 else { return 0 }
      return n <= 256 ? byte() % n : (byte() << 8 | byte()) % n
    }

    /// Whether the next byte is below `percent` of 256 (so a 0, what an exhausted stream gives, is true).
    package mutating func chance(_ percent: Int) -> Bool { byte() * 100 < percent * 256 }

    /// Whether the next byte is 240 or more: about 1 in 16 for random bytes, never for an exhausted stream.
    package mutating func rare() -> Bool { byte() >= 240 }

    /// Whether the next byte is 255: 1 in 256 for random bytes (what makes a block big: tens of thousands of
    /// records, thousands of members or entries), never for an exhausted stream.
    package mutating func big() -> Bool { byte() == 255 }

    /// The next `n` choices as a stream of their own (zeros past them), so that what one part of the input
    /// consumes never shifts the choices of the next.
    package mutating func take(_ n: Int) -> Choices {
      let end = min(data.count, index + n)
      defer { index = max(index, end) }
      return Choices(index < end ? Array(data[index..<end]) : [])
    }

    /// Whether choices are left.
    package var exhausted: Bool { index >= data.count }
  }

  /// A built input.
  package struct Built {
    /// The file's bytes (an `export.xml`, or a zip holding one).
    package var bytes: [UInt8]
    /// Whether it is a zip.
    package var zip: Bool
    /// Whether nothing was mutated: it must read, with ``records`` samples.
    package var valid: Bool
    /// Samples a valid input holds (top-level records; correlation members are copies of them).
    package var records: Int
  }

  /// What reading an input gave.
  package enum Outcome {
    /// It read: this many samples.
    case read(Int)
    /// It was refused with a typed, located error.
    case refused(ExportError)
  }

  static let sourceNames = ["Health", "Robin’s Apple Watch", "Robin&#8217;s iPhone", "Drink &amp; Track"]
  static let devices = [
    "&lt;&lt;HKDevice: 0x2833968a0&gt;, name:Apple Watch, manufacturer:Apple, model:Watch, hardware:Watch4,2, "
      + "software:5.0.1&gt;",
    "&lt;&lt;HKDevice: 0x1&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, "
      + "software:17.4&gt;",
    "&lt;&lt;not a device", "",
  ]

  /// Builds an export from the choices in `data`.
  package static func build(_ data: [UInt8]) -> Built {
    var c = Choices(data)
    let zip = c.chance(50)
    var zipChoices = c.take(ExportFuzzZip.choices)
    var xml = XMLBuilder()
    xml.document(&c)
    guard zip else { return Built(bytes: xml.bytes, zip: false, valid: xml.valid, records: xml.records) }
    var archive = ExportFuzzZip()
    archive.build(xml.bytes, &zipChoices)
    return Built(bytes: archive.bytes, zip: true, valid: xml.valid && archive.valid, records: xml.records)
  }

  /// Reads a built input to its end (a few reads at once, to exercise the readers' buffers).
  package static func read(_ built: Built) -> Outcome {
    let file = built.zip ? "fuzz.zip" : "export.xml"
    let input: any ByteInput =
      built.zip ? ZipExportInput(MemoryInput(built.bytes, chunk: 4093), file: file) : MemoryInput(built.bytes)
    var reader = ExportReader(input, file: file)
    var count = 0
    do {
      while try reader.next() != nil { count += 1 }
      return .read(count)
    } catch { return .refused(error) }
  }

  /// The first property the input built from `data` breaks; nil when none does.
  package static func finding(_ data: [UInt8]) -> String? { check(data).finding }

  /// Builds and reads the input of `data`: how it ended, and the first property it breaks (nil when none).
  package static func check(_ data: [UInt8]) -> (outcome: Outcome, finding: String?) {
    let built = build(data)
    let outcome = read(built)
    switch outcome {
    case .read(let count):
      guard !built.valid || count >= built.records else {
        return (outcome, "export: a valid export of \(built.records) records read as \(count) samples")
      }
    case .refused(let error):
      if built.valid { return (outcome, "export: a valid export was refused: \(error)") }
      guard error.location.offset >= 0, error.location.line >= 0, error.location.column >= 0 else {
        return (outcome, "export: an error located outside the input: \(error)")
      }
    }
    return (outcome, nil)
  }

  /// Whether the input built from `data` is valid and reads.
  package static func accepts(_ data: [UInt8]) -> Bool {
    let built = build(data)
    guard built.valid, case .read = read(built) else { return false }
    return true
  }

  /// `count` choices from `seed`, biased the way that reaches structure: mostly 0 (the unmutated variant), often 240
  /// or more (a mutation, a hostile size), otherwise any byte. The same seed gives the same choices.
  package static func choices(seed: UInt64, count: Int) -> [UInt8] {
    var random = Mutator(seed: seed)
    return (0..<count).map { _ in
      let r = random.next()
      switch r % 100 {
      case 0..<70: return 0
      case 70..<85: return UInt8(240 + (r >> 8) % 16)
      default: return UInt8(truncatingIfNeeded: r >> 16)
      }
    }
  }

  /// Seed inputs: choice streams for plain and zipped exports of each shape, none mutated.
  package static var seeds: [[UInt8]] {
    // Byte 0: a zip (below 128) or not; then the zip's choices (ExportFuzzZip.choices of them: the number of
    // skipped entries, 12 per entry); then the source pool; then block kinds (XMLBuilder.block), each with its 16
    // choices (zeros: the unmutated variant of each); 255 ends the document; then whether to close it.
    var seeds: [[UInt8]] = []
    let zeros = [UInt8](repeating: 0, count: XMLBuilder.blockChoices)
    for zip: UInt8 in [0, 200] {
      for kind: UInt8 in 0..<8 {
        // One skipped entry; the export stored (0), fixed Huffman (1) or in stored blocks (2).
        var archive = [UInt8](repeating: 0, count: ExportFuzzZip.choices)
        archive[2 + 2 * ExportFuzzZip.entryChoices] = kind % 3
        seeds.append([zip] + archive + [2 + kind, kind] + zeros + [kind] + zeros + [255, 0])
      }
    }
    return seeds
  }
}

/// Writes an export's XML from choices, keeping track of whether anything was mutated and of the records it holds.
struct XMLBuilder {
  var bytes: [UInt8] = []
  var valid = true
  var records = 0
  private var sources = 1
  /// Choices each block has of its own.
  static let blockChoices = 16
  var serial = 0

  mutating func text(_ s: String) { bytes += Array(s.utf8) }

  /// A mutation: `bad` when it is chosen, `good` otherwise.
  mutating func pick(_ c: inout ExportFuzz.Choices, _ good: String, _ bad: [String]) -> String {
    let n = c.byte()
    guard n >= 240, !bad.isEmpty else { return good }
    valid = false
    return bad[n % bad.count]
  }

  mutating func document(_ c: inout ExportFuzz.Choices) {
    // Sources: a few, or up to 60,000 distinct ones.
    let pool = c.byte()
    sources = pool < 200 ? 1 + pool % 8 : 1 + (pool - 200) * 1_000 + c.below(1_000)
    text("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE HealthData [\n<!ELEMENT HealthData (Record*)>\n]>\n")
    text("<HealthData locale=\"en_US\">\n <ExportDate value=\"2026-01-05 09:00:00 +0100\"/>\n")
    var blocks = 0
    while !c.exhausted && blocks < 64 && bytes.count < 8 << 20 {
      let kind = c.byte()
      if kind == 255 { break }
      var choices = c.take(Self.blockChoices)
      block(kind % 10, &choices)
      blocks += 1
    }
    if c.rare() { valid = false } else { text("</HealthData>\n") }
  }

  mutating func sourceAttributes(_ c: inout ExportFuzz.Choices) -> String {
    serial += 1
    let k = sources <= 8 ? c.below(sources) : serial % sources
    let name = k < 4 ? ExportFuzz.sourceNames[k] : "App \(k)"
    let device = ExportFuzz.devices[c.below(4)]
    return " sourceName=\"\(name)\" sourceVersion=\"\(1 + k % 3).0\"" + (device.isEmpty ? "" : " device=\"\(device)\"")
  }

  private mutating func record(_ c: inout ExportFuzz.Choices, indent: String, close: Bool = true) {
    let types = [
      ("HKQuantityTypeIdentifierStepCount", "count", "\(1 + serial % 900)"),
      ("HKQuantityTypeIdentifierHeartRate", "count/min", "\(40 + serial % 150)"),
      ("HKQuantityTypeIdentifierDietaryWater", "mL", "\(1 + serial % 500).5"),
      ("HKCategoryTypeIdentifierSleepAnalysis", "", "HKCategoryValueSleepAnalysisAsleepCore"),
    ]
    let (identifier, unit, value) = types[c.below(types.count)]
    let date = pick(
      &c, "2026-01-0\(1 + serial % 4) 10:\(10 + serial % 50):00 +0100", ["2026-13-01 10:00:00 +0100", ""])
    var s = indent + "<Record type=\"\(pick(&c, identifier, ["HKQuantityTypeIdentifierBogus", "", "&bad;"]))\""
    s += sourceAttributes(&c)
    if !unit.isEmpty { s += " unit=\"\(pick(&c, unit, ["beats/min", "kg", "(", "&amp"]))\"" }
    s += " creationDate=\"\(date)\" startDate=\"\(date)\" endDate=\"\(date)\""
    s += " value=\"\(pick(&c, value, ["NaN", "1e999999", "-", "\u{1}"]))\""
    records += 1
    text(s + (close ? "/>\n" : ">\n"))
  }

  mutating func block(_ kind: Int, _ c: inout ExportFuzz.Choices) {
    switch kind {
    case 0:
      // One record, or a run of up to 20,000 (each from its own source when the pool is large).
      let n = c.big() ? 1_000 + c.below(19_000) : 1
      for _ in 0..<n { record(&c, indent: " ") }
    case 1:
      // A record with metadata entries: a few, or past ExportReader.maxChildren.
      let n = c.big() ? 4_000 + c.below(200) : c.below(12)
      if n > ExportReader.maxChildren { valid = false }
      record(&c, indent: " ", close: false)
      for i in 0..<n {
        let key = pick(&c, "Key\(i)", ["", String(repeating: "k", count: 1_100)])
        text("  <MetadataEntry key=\"\(key)\" value=\"\(pick(&c, "v&lt;\(i)&#x263A;", ["&#0;", "&#xD800;"]))\"/>\n")
      }
      text(" </Record>\n")
    case 2:
      // A correlation: a blood pressure, or food of up to 5,000 members (past ExportReader.maxChildren).
      let food = c.chance(50)
      let members = food ? (c.big() ? 4_000 + c.below(1_000) : 1 + c.below(20)) : 2
      if members > ExportReader.maxChildren { valid = false }
      serial += 1
      let date = "2026-01-02 08:00:00 +0100"
      let source = sourceAttributes(&c)
      let type = food ? "HKCorrelationTypeIdentifierFood" : "HKCorrelationTypeIdentifierBloodPressure"
      text(" <Correlation type=\"\(type)\"\(source) startDate=\"\(date)\" endDate=\"\(date)\">\n")
      for i in 0..<members {
        let member =
          food
          ? "HKQuantityTypeIdentifierDietaryWater"
          : (i == 0
            ? "HKQuantityTypeIdentifierBloodPressureSystolic" : "HKQuantityTypeIdentifierBloodPressureDiastolic")
        let line =
          "  <Record type=\"\(member)\"\(source) unit=\"\(food ? "mL" : "mmHg")\" startDate=\"\(date)\" "
          + "endDate=\"\(date)\" value=\"\(food ? 10 + i : 120 - 40 * i)\"/>\n"
        text(line)
      }
      text(" </Correlation>\n")
    case 3:
      // Nesting: shallow, or past XMLScanner.maxDepth.
      let depth = c.rare() ? XMLScanner.maxDepth - 2 + c.below(300) : 1 + c.below(20)
      if depth + 1 > XMLScanner.maxDepth { valid = false }
      text(String(repeating: "<Nest>", count: depth) + String(repeating: "</Nest>", count: depth) + "\n")
    case 4:
      // A long attribute value: up to 2 MiB, rarely past XMLScanner.maxTokenLength.
      let n = c.byte()
      let length = n == 255 ? XMLScanner.maxTokenLength + 16 : min(1 << 21, 1 << (n % 22))
      if n == 255 { valid = false }
      bytes +=
        Array(" <Unknown note=\"".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: length) + [34, 47, 62, 10]
    case 5:
      // Many attributes: a few, or past XMLScanner.maxAttributes; sometimes one repeated.
      let n = c.rare() ? XMLScanner.maxAttributes - 2 + c.below(100) : c.below(40)
      if n > XMLScanner.maxAttributes { valid = false }
      let repeated = pick(&c, "", [" a0=\"dup\""])
      text(" <Unknown" + (0..<n).map { " a\($0)=\"\($0)\"" }.joined() + repeated + "/>\n")
    case 6:
      // A heart-rate variability record with its beats.
      serial += 1
      let date = "2026-01-03 07:00:00 +0100"
      let source = sourceAttributes(&c)
      text(
        " <Record type=\"HKQuantityTypeIdentifierHeartRateVariabilitySDNN\"\(source) unit=\"ms\" "
          + "startDate=\"\(date)\" endDate=\"\(date)\" value=\"42\">\n  <HeartRateVariabilityMetadataList>\n")
      for i in 0..<c.below(50) {
        text("   <InstantaneousBeatsPerMinute bpm=\"\(60 + i)\" time=\"7:00:0\(i % 10)\"/>\n")
      }
      text("  </HeartRateVariabilityMetadataList>\n </Record>\n")
      records += 1
    case 7:
      // Other markup: a comment, CDATA, a processing instruction, an element the reader skips, Me.
      let variants = [
        " <!-- a comment -->\n",
        " <Audiogram type=\"x\"><![CDATA[x]]></Audiogram>\n",
        " <?pi data?>\n",
        " <Me HKCharacteristicTypeIdentifierBiologicalSex=\"\(pick(&c, "HKBiologicalSexFemale", ["Female"]))\"/>\n",
      ]
      text(variants[c.below(variants.count)])
    case 8:
      // A workout with its children and routes, or an activity summary (ExportFuzzWorkouts.swift).
      if c.chance(25) { activitySummary(&c) } else { workout(&c) }
    default:
      // Stray bytes (almost never well-formed).
      let n = 1 + c.below(32)
      bytes += (0..<n).map { _ in UInt8(truncatingIfNeeded: c.byte()) }
      valid = false
    }
  }
}
