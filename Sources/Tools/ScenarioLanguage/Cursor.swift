import FoundationEssentials
import HealthEngine
import HealthModel

/// The words of one line with a read position.
struct Cursor {
  let line: SourceLine
  let state: ParseState
  var index = 0

  init(_ line: SourceLine, _ state: ParseState) {
    self.line = line
    self.state = state
  }

  var peek: Token? { index < line.tokens.count ? line.tokens[index] : nil }
  var atEnd: Bool { index >= line.tokens.count }

  func error(_ e: ScenarioError, at token: Token? = nil) -> Diagnostic {
    let t = token ?? peek
    let column = t?.column ?? (line.text.count + 1)
    return state.diagnostic(e, line, column: column, length: t?.length ?? 1)
  }

  mutating func next() -> Token? {
    defer { index += 1 }
    return peek
  }

  /// Consumes `words` if the next tokens are exactly them (case-insensitive).
  mutating func take(_ words: String...) -> Bool { take(words: words) }

  /// Consumes `words` if the next tokens are exactly them (case-insensitive).
  mutating func take(words: [String]) -> Bool {
    guard index + words.count <= line.tokens.count else { return false }
    for (offset, word) in words.enumerated() where line.tokens[index + offset].keyword != word.lowercased() {
      return false
    }
    index += words.count
    return true
  }

  mutating func expect(_ words: String..., what: String? = nil) throws(Diagnostic) {
    guard index + words.count <= line.tokens.count else {
      throw error(.expected(what ?? "'\(words.joined(separator: " "))'", found: nil))
    }
    for (offset, word) in words.enumerated() where line.tokens[index + offset].keyword != word.lowercased() {
      throw error(
        .expected(what ?? "'\(words.joined(separator: " "))'", found: line.tokens[index + offset].text),
        at: line.tokens[index + offset])
    }
    index += words.count
  }

  mutating func word(_ what: String) throws(Diagnostic) -> Token {
    guard let t = next() else { throw error(.expected(what, found: nil)) }
    return t
  }

  func finish() throws(Diagnostic) {
    if let t = peek { throw error(.unexpectedWords(t.text), at: t) }
  }

  mutating func device() throws(Diagnostic) -> DeviceKind {
    let t = try word("a device (phone or watch)")
    if let d = DeviceKind(name: t.keyword) { return d }
    throw error(.unknownDevice(t.text, suggestion: suggest(t.text, from: ["phone", "watch"])), at: t)
  }

  mutating func devices() throws(Diagnostic) -> Devices {
    if take("both") { return .both }
    if take("phone", "and", "watch") || take("watch", "and", "phone") { return .both }
    let t = try word("a device (phone, watch or both)")
    if let d = DeviceKind(name: t.keyword) { return .one(d) }
    throw error(.unknownDevice(t.text, suggestion: suggest(t.text, from: ["phone", "watch", "both"])), at: t)
  }

  /// An app name (`Return` or `Return's`); sets `possessive` when written with 's.
  mutating func app(possessive: inout Bool) throws(Diagnostic) -> AppDeclaration {
    let t = try word("an app name")
    var name = t.text
    possessive = false
    for suffix in ["'s", "’s"] where name.hasSuffix(suffix) {
      name = String(name.dropLast(suffix.count))
      possessive = true
    }
    if let app = state.apps[name] ?? state.apps.values.first(where: { $0.name.lowercased() == name.lowercased() }) {
      return app
    }
    throw error(.unknownApp(name, suggestion: suggest(name, from: state.apps.keys.sorted())), at: t)
  }

  mutating func app() throws(Diagnostic) -> AppDeclaration {
    var possessive = false
    return try app(possessive: &possessive)
  }

  /// Unit strings offered as suggestions.
  static let commonUnits = [
    "mL", "L", "fl_oz_us", "fl_oz_imp", "cup_us", "pt_us", "count", "count/min", "count/s", "kcal", "Cal", "kJ", "kg",
    "g", "lb",
    "oz", "st", "s", "ms", "min", "hr", "d", "m", "km", "mi", "ft", "degC", "degF", "%", "mmHg",
  ]

  static func sampleType(_ t: Token) -> SampleType? { t.quoted ? nil : SampleType.lookup(name: t.text) }

  mutating func type() throws(Diagnostic) -> SampleType {
    let t = try word("a sample type")
    if let type = Cursor.sampleType(t) { return type }
    throw error(.unknownType(t.text, suggestion: suggest(t.text, from: SampleType.catalog.map(\.name))), at: t)
  }

  /// One or more types, separated by spaces, commas or `and`, up to the next keyword.
  mutating func types(stoppingAt stops: Set<String>) throws(Diagnostic) -> [SampleType] {
    var result: [SampleType] = [try type()]
    while let t = peek, !stops.contains(t.keyword), t.text != ":" {
      if t.keyword == "and" {
        index += 1
        continue
      }
      result.append(try type())
    }
    return result
  }

  mutating func duration() throws(Diagnostic) -> Double {
    let t = try word("a duration such as 10m")
    guard let d = parseDuration(t.text) else { throw error(.invalidDuration(t.text), at: t) }
    return d
  }

  mutating func time() throws(Diagnostic) -> TimeSpec {
    let t = try word("a time such as 08:30, 2026-01-05T08:30 or now")
    guard let spec = Cursor.time(t.text) else { throw error(.invalidDate(t.text), at: t) }
    return spec
  }

  static func time(_ text: String) -> TimeSpec? {
    let lower = text.lowercased()
    if lower == "now" { return .now(offset: 0) }
    if lower == "distantpast" { return .absolute(.distantPast) }
    if lower.hasPrefix("now+") || lower.hasPrefix("now-") {
      guard let d = parseDuration(String(lower.dropFirst(4))) else { return nil }
      return .now(offset: lower.hasPrefix("now+") ? d : -d)
    }
    let parts = text.split(separator: ":")
    if !text.contains("-"), parts.count == 2 || parts.count == 3, let h = Int(parts[0]), let m = Int(parts[1]),
      parts[0].count == 2,
      h < 24, m < 60
    {
      let s = parts.count == 3 ? Double(parts[2]) ?? -1 : 0
      guard s >= 0, s < 60 else { return nil }
      return .timeOfDay(seconds: Double(h * 3600 + m * 60) + s)
    }
    return parseDate(text).map { text.hasSuffix("Z") ? .absolute($0) : .local($0) }
  }

  /// A time zone name (`Europe/Paris`, `UTC`, `UTC+05:30`).
  mutating func timeZone() throws(Diagnostic) -> TimeZoneRule {
    let t = try word("a time zone such as Europe/Paris or UTC+05:30")
    do { return try TimeZoneRule(identifier: t.text) } catch {
      throw self.error(.unknownTimeZone(t.text, suggestion: error.suggestion), at: t)
    }
  }

  mutating func date() throws(Diagnostic) -> Date {
    let t = try word("a date such as 2026-01-05")
    guard let d = parseDate(t.text) else { throw error(.invalidDate(t.text), at: t) }
    return d
  }

  /// A whole number that fits the counts and category values scenarios use.
  mutating func integer() throws(Diagnostic) -> Int {
    let t = try word("a whole number")
    guard let v = Int(t.text), (-1_000_000_000...1_000_000_000).contains(v) else {
      throw error(.invalidNumber(t.text), at: t)
    }
    return v
  }

  mutating func number() throws(Diagnostic) -> Double {
    let t = try word("a number")
    guard let v = Double(t.text), v.isFinite else { throw error(.invalidNumber(t.text), at: t) }
    return v
  }

  mutating func unit(for type: SampleType?) throws(Diagnostic) -> HealthUnit {
    let t = try word("a unit such as mL")
    let unit: HealthUnit
    do { unit = try HealthUnit(parsing: t.text) } catch {
      let suggestion = error.suggestion ?? suggest(t.text, from: Cursor.commonUnits)
      throw self.error(.invalidUnit(t.text, reason: error.message, suggestion: suggestion), at: t)
    }
    if let type, let canonical = type.descriptor.canonicalUnit, !unit.isCompatible(with: canonical) {
      throw self.error(.incompatibleUnit(unit: t.text, type: type.name), at: t)
    }
    if let type, type.descriptor.categoryValues != nil, unit.dimension != HealthUnit.Dimension.duration {
      throw self.error(.incompatibleUnit(unit: t.text, type: "\(type.name) durations"), at: t)
    }
    return unit
  }

  /// The multi-word names the scenario language accepts for characteristic types.
  static let characteristicAliases: [([String], String)] = [
    (["date", "of", "birth"], "dateOfBirth"), (["biological", "sex"], "biologicalSex"),
    (["blood", "type"], "bloodType"),
    (["fitzpatrick", "skin", "type"], "fitzpatrickSkinType"), (["skin", "type"], "fitzpatrickSkinType"),
    (["wheelchair", "use"], "wheelchairUse"), (["move", "mode"], "activityMoveMode"),
  ]

  /// A characteristic type: its HealthKit name (`dateOfBirth`) or its words (`date of birth`).
  mutating func characteristicType() throws(Diagnostic) -> SampleType {
    for (words, name) in Cursor.characteristicAliases where index + words.count <= line.tokens.count {
      if words.enumerated().allSatisfy({ line.tokens[index + $0.offset].keyword == $0.element }) {
        index += words.count
        return SampleType.lookup(name: name)!
      }
    }
    let t = peek
    let type = try self.type()
    guard type.descriptor.isCharacteristic else {
      throw error(
        .expected("a characteristic type (dateOfBirth, biologicalSex, bloodType, …)", found: type.name), at: t)
    }
    return type
  }

  /// A value of a characteristic: `YYYY-MM-DD` for the date of birth, a case name otherwise; `notSet` is nil.
  mutating func characteristicValue(_ type: SampleType) throws(Diagnostic) -> CharacteristicValue? {
    let t = try word(type.descriptor.characteristicValues?.isEmpty == true ? "a date such as 1990-04-02" : "a value")
    if t.keyword == "notset" { return nil }
    guard let value = CharacteristicValue.parse(t.text, for: type) else {
      let valid = type.descriptor.characteristicValues?.map(\.name) ?? []
      if valid.isEmpty { throw error(.invalidDate(t.text), at: t) }
      throw error(.unknownCategoryValue(t.text, type: type.name, valid: ["notSet"] + valid), at: t)
    }
    return value
  }

  mutating func direction() throws(Diagnostic) -> Direction {
    let t = try word("'share' or 'read'")
    switch t.keyword {
    case "share", "write", "writing", "sharing": return .share
    case "read", "reading": return .read
    default: throw error(.expected("'share' or 'read'", found: t.text), at: t)
    }
  }

  mutating func permissions() throws(Diagnostic) -> [Permission] {
    var result: [Permission] = []
    repeat {
      let direction = try direction()
      for type in try types(stoppingAt: ["share", "read", "for", "and"]) { result.append(Permission(type, direction)) }
      _ = take("and")
    } while peek.map({ ["share", "read", "write"].contains($0.keyword) }) == true
    return result
  }

  mutating func sampleName(defined: Bool) throws(Diagnostic) -> String {
    let t = try word("a sample name")
    if !defined && !state.sampleNames.contains(t.text) {
      throw error(.unknownSampleName(t.text, suggestion: suggest(t.text, from: state.sampleNames.sorted())), at: t)
    }
    return t.text
  }
}
