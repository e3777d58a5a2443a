import FoundationEssentials
import HealthEngine
import HealthModel

// Grammar: the same text as the "Grammar" section of docs/scenario-language.md; the step forms below are the
// first column of its tables, in order (ScenarioTests check both, and that every example there parses).
//
//   file        := line*                                        (at least one step, at least one expect)
//   line        := setting | step | expect | reuse | block-line (block lines are indented under a line ending in ':')
//   setting     := "scenario:" title | "seed" n | "sync:" ("manual" | "automatic")
//   step        := install | uninstall | policy | clock | lock | app-step | user-step | link-step | wait | fault
//                | import | export
//   reuse       := "include" file | "for" name "in" word… ":" | "examples:"   (each opens a block but include)
//   devices     := "phone" | "watch" | "both" | "phone and watch"
//   types       := type ("," type | "and" type | type)*         (HealthKit names: dietaryWater, mindfulSession, …)
//   permission  := ("share" | "read") types
//   time        := 2026-01-05 | 2026-01-05T08:30[:00][Z] | 08:30 (on the clock's current day) | now | now-2h | now+1d
//                | distantPast                                (without Z: the device's local time and day)
//   zone        := UTC | UTC+05:30 | UTC-3 | Europe/Paris | America/New_York | …   (behavior.md K1)
//   range       := "from" time "to" time ["strictly starting"] ["strictly ending"]  (to a bare date: that day's end)
//   duration    := 250ms | 30s | 10m | 2h | 7d | 1w | 1h30m
//   value       := number unit | category-value | number      (a bare number after a category type is its raw value)
//   statistic   := "sum" | "average" | "min" | "max" | "mostRecent" | "duration"
//                | "cumulativeSum" | "discreteAverage" | "discreteMin" | "discreteMax"   (HealthKit's option names)
//   query       := [range] ["from" App…] ["sorted by" ("startDate" | "endDate") ["descending"] ("then" …)*]
//                  ["limit" n] ["with" key=value…] ["outside correlations"]
//                                                             (in any order; statistics take range and "from" App…)
//   outcome     := "is no data" | "fails with" code fragment* | "would terminate the app" ["with"] fragment*
//   fragment    := '"' text '"'                                 (each must occur in the error's message)
//   placeholder := "<" name ">"                                 (a "for" value or an "examples:" cell, anywhere)
//   characteristic := dateOfBirth | biologicalSex | bloodType | fitzpatrickSkinType | wheelchairUse
//                | activityMoveMode | "date of birth" | "biological sex" | "blood type" | "skin type"
//                | "wheelchair use" | "move mode"
//   entitlement := "background delivery" | "health records"
//   frequency   := "immediate" | "hourly" | "daily" | "weekly"
//
// Step forms (`expect <devices>:` or `expect` precedes an expectation; `+ lines` are the block under it):
//
//   Settings:
//   - scenario: <title>
//   - seed <n>
//   - sync: manual
//   - sync: automatic
//
//   Set-up:
//   - install <App> [as <bundle>] on <devices> [share <types>] [read <types>] [without share description] [without read
//       description] [with <entitlement> [and <entitlement>]]
//   - uninstall <App> from <devices>
//   - policy watch: settings on-watch|iphone-only
//   - policy <devices>: authorization independent|companion
//   - policy <devices>: reprompt standard|strict
//   - policy <devices>: retention <duration>|none
//   - policy <devices>: units us|metric|uk
//   - lock <devices> / unlock <devices>
//   - policy <devices>: background window <duration> retry <duration>
//   - clock: set <time>
//   - clock: advance <duration>
//   - clock: time zone <zone> [on <devices>]
//   - travel <devices> to <zone>
//   - import <file> on <device> [with source "<name>" as <bundle>]… [fails [with "<text>"]]
//   - export <device> to <name>
//
//   The app:
//   - <device>: <App> requests [share <types>] [read <types>]
//   - <device>: <App> saves <value> <type> [when] [with <key>=<value>…] [uuid <UUID>] [as <name>]
//   - <device>: <App> saves <sample> plus <sample>…
//   - <device>: <App> saves <type> correlation [as <name>] [with <key>=<value>…] of <sample> plus <sample>…
//   - <device>: <App> saves <n> random <type> samples over <duration>
//   - <device>: <App> deletes all <type> [range]
//   - <device>: <App> resaves <name> [as <value> [<unit>]]
//   - <device>: <App> deletes <name>…
//   - <device>: <App> enables background delivery of <type> [immediate|hourly|daily|weekly]
//   - <device>: <App> disables background delivery of <type> / disables all background delivery
//   - <device>: <App> completes the background delivery of <type>
//
//   The user:
//   - user on <devices>: allows all [for <App>]
//   - user on <devices>: doesn't allow [for <App>]
//   - user on <devices>: allows <permission>… [for <App>]
//   - user on <devices>: cancels [the sheet] [for <App>]
//   - user on <devices>: leaves the app [for <App>]
//   - user on <devices>: sheet fails to present [silently] [for <App>]
//   - user on <devices>: in Settings turns on|off <share|read> <type> for <App>
//   - user on <devices>: in Settings turns off all for <App> / user on <devices>: in Settings resets <App>
//   - user on phone: in the Watch app turns on|off <share|read> <type> for <App> (also turns off all for, resets)
//   - user on <device>: sets <characteristic> [to] <value>|notSet
//   - user on <device>: prefers <unit>|the default unit for <type>
//   - user on phone: in Health orders <type> sources <App> [on <device>]… / user on phone: in Health orders <type>
//       sources by default
//
//   The link and faults:
//   - link: disconnect / link: reconnect
//   - link: hold [<device> to <device>] / link: release [<device> to <device>]
//   - link: latency <duration>
//   - wait until synced [within <duration>]
//   - kill -9 <device>
//   - stop <device>
//   - restart <device>
//   - tear <device> journal
//   - cut <device> journal by <n> records
//
//   Reuse: includes and outlines:
//   - include <file>
//   - for <name> in <value>…: + lines
//   - examples: + a header row and value rows
//
//   Expectations:
//   - <App> share <type> is <status>
//   - <App> read <type> is authorized|denied|undecided
//   - <App> request status [for] [share <types>] [read <types>] is <status> / would terminate the app [with "…"]
//   - <App>'s last call succeeded
//   - <App>'s last call failed [with <code>] ["<fragment>"…]
//   - <App>'s last call would terminate the app [with "<fragment>"…]
//   - <App>'s request is pending
//   - <App>'s request showed a sheet [listing <permission>…] / <App>'s request showed no sheet
//   - <App>'s requests showed <n> sheets, answered <n>, cancelled <n>, <n> presentations failed
//   - <n> sheets pending / no sheet pending
//   - <App>'s queries of <type> fail with <code>
//   - <App> reads <characteristic> as <value>|notSet
//   - <App>'s read of <characteristic> fails with <code>
//   - <App>'s preferred unit for <type> is <unit>
//   - <App>'s preferred units for <types> fail with <code>
//   - locked / unlocked
//   - <n> samples wait for unlock
//   - <n> sync conflicts
//   - <App>'s background delivery of <type> is on [<frequency>]|off|stopped|waiting
//   - <App>'s background deliveries of <type>: <n> woken, <n> completed, <n> missed
//   - <App> is locked out / <App> is not locked out
//   - <App> sees <n> <type> samples [query] / <App> sees no <type> samples [query]
//   - <App> sees <n> <type> correlations [with <n> objects each] [query]
//   - <App> sees <value> <unit> of <type> [on <date>]
//   - <App> sees <type> [query]: + lines <value> at <time> [from <App>] [on <device>]
//   - <App>'s sample query of <type> [query] <outcome>
//   - <App> <statistic> of <type> [on <date> | range] [from <App>…] is <value> <unit>
//   - <App> <statistic> of <type> [on <date> | range] [from <App>…] by source: + lines <App> <value> <unit>
//   - <App> <statistic> of <type> [on <date> | range] [from <App>…] <outcome>
//   - <App> <statistic> of <type> by hour|day|week|month <range> [from <App>…]: + lines <start> <value> <unit>|none
//   - <App> <statistic> of <type> by hour|day|week|month <range> [from <App>…] <outcome>
//   - <App> sees changes of <type>: <n> added, <n> deleted
//   - store has <n> [<type>] samples / store has no samples / store has <name> / store lacks <name>
//   - store has <n> [<type>] samples [from <source>] [with <key>=<value>…]
//   - last import added <n> samples [and <m> already present] [and <k> before the retention window]
//   - earliest permitted sample date is <time>
//   - clock is <time>
//   - the last settings change was refused|applied
//   - expect converged
//   - expect diverged: + lines only on <device>: <name>…
//   - expect link is up|down
//
// Lines indented under a line that ends in ':' form that line's block (expected samples, buckets, sources,
// divergences, the lines of a `for`, the rows of `examples:`).

/// Parses scenario files into ``Scenario`` values, reporting every error in the file.
package enum ScenarioParser {
  /// The clock every scenario starts at unless it sets one.
  package static let defaultStart = parseDate("2026-01-05T08:00:00Z")!
  /// The most lines one file may expand to, every example row, `for` repetition and include counted: nested
  /// blocks multiply, and a file must not keep the parser (or the fuzzer) busy for ever.
  package static let lineBudget = 100_000

  /// Parses `text` as if read from `file` (a leading BOM and CRLF line ends are handled as in a file's bytes);
  /// returns the scenario (an outline's first example row) or every diagnostic, in line order.
  package static func parse(_ text: String, file: String, loader: IncludeLoader = .fileSystem)
    -> Result<Scenario, Diagnostics>
  {
    parse(bytes: Array(text.utf8), file: file, loader: loader)
  }

  /// Parses the bytes of `file` (see ``SourceText`` for the encoding and line ends); returns the scenario (an
  /// outline's first example row: ``parseAll(bytes:file:loader:)`` gives every row) or every diagnostic, in line
  /// order. An encoding error is the only diagnostic of its file: the lines it would split are not trusted. A file
  /// that parses but has no step, or no expectation, is an error too: it would check nothing.
  package static func parse(bytes: [UInt8], file: String, loader: IncludeLoader = .fileSystem)
    -> Result<Scenario, Diagnostics>
  {
    parseAll(bytes: bytes, file: file, loader: loader).map { $0[0] }
  }

  /// Parses `file` into one scenario, or one per row of its `examples:` table (each runs on a pair of its own);
  /// `include` lines read through `loader`; at most `budget` lines once blocks, includes and rows are expanded.
  package static func parseAll(
    bytes: [UInt8], file: String, loader: IncludeLoader = .fileSystem, budget limit: Int = lineBudget
  ) -> Result<[Scenario], Diagnostics> {
    let rawLines: [String]
    switch SourceText.lines(bytes, file: file) {
    case .success(let lines): rawLines = lines
    case .failure(let diagnostic): return .failure(Diagnostics(items: [diagnostic]))
    }
    var diagnostics: [Diagnostic] = []
    let lines = SourceLine.tokenize(rawLines, file: file, diagnostics: &diagnostics)
    let outline = Outline.examples(lines, file: file)
    diagnostics += outline.diagnostics
    let group = file.split(separator: "/").dropLast().last.map(String.init) ?? "."
    let baseName = file.split(separator: "/").last.map { String($0.split(separator: ".").first ?? $0) } ?? file
    var seen = Set(diagnostics)
    var scenarios: [Scenario] = []
    var budget: Int? = limit
    for row in outline.rows where budget != nil {
      var state = ParseState(file: file, loader: loader)
      state.budget = budget
      state.limit = limit
      for value in row { state.variables[value.name] = value.value }
      var scenario = Scenario(file: file, title: baseName, seed: nil, steps: [], apps: [:], group: group)
      var found: [Diagnostic] = []
      state.parseBlock(lines, indent: 0, into: &scenario, diagnostics: &found, topLevel: true)
      budget = state.budget
      for diagnostic in found where seen.insert(diagnostic).inserted { diagnostics.append(diagnostic) }
      scenario.apps = state.apps
      scenario.example = row
      if !row.isEmpty && !state.titleHadPlaceholder {
        scenario.title += " (" + row.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + ")"
      }
      scenarios.append(scenario)
    }
    if !diagnostics.isEmpty { return .failure(Diagnostics(items: diagnostics.sorted { $0.location < $1.location })) }
    // A file that checks nothing must not pass: reported at the end of its last non-blank line.
    if let empty = scenarios.first(where: { !$0.steps.contains(where: \.isExpectation) }) {
      let number = rawLines.lastIndex { !$0.trimmingWhitespace().isEmpty }.map { $0 + 1 } ?? 1
      let text = rawLines.indices.contains(number - 1) ? rawLines[number - 1].replacingTabs() : ""
      let location = SourceLocation(file: file, line: number, column: text.count + 1)
      let error: ScenarioError = empty.steps.isEmpty ? .noSteps : .noExpectations
      return .failure(Diagnostics(items: [Diagnostic(location: location, error: error, sourceLine: text)]))
    }
    return .success(scenarios)
  }
}

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
  mutating func take(_ words: String...) -> Bool {
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

/// What the parser knows while reading a file.
struct ParseState {
  /// The file being read: the scenario, or an included file while its lines are parsed.
  var file: String
  var apps: [String: AppDeclaration] = [:]
  /// The devices each app is installed on at the line being parsed, by name (Installs.swift).
  var installed: [String: Set<DeviceKind>] = [:]
  /// Where an `uninstall` last removed each app from each device.
  var uninstalled: [String: [DeviceKind: SourceLocation]] = [:]
  var sampleNames: Set<String> = []
  /// Where `include` reads files.
  let loader: IncludeLoader
  /// The values of the `<name>` placeholders in scope (`examples:` columns, `for` variables).
  var variables: [String: String] = [:]
  /// The files being included, outermost (the scenario) first: an include of one of them is a cycle.
  var includeStack: [String]
  /// Whether the `scenario:` line used a placeholder (an outline row's title then needs no suffix).
  var titleHadPlaceholder = false
  /// Included files read so far (an include repeated by a `for` block or an outline row is read once).
  var included: [String: Result<[SourceLine], Diagnostic>] = [:]
  /// How many more lines may be parsed (`for` blocks, includes and example rows multiply them); nil once spent.
  var budget: Int?
  /// The budget the file started with (for the message).
  var limit = ScenarioParser.lineBudget

  init(file: String, loader: IncludeLoader = .none) {
    self.file = file
    self.loader = loader
    self.includeStack = [IncludeLoader.normalize(file)]
  }

  func diagnostic(_ e: ScenarioError, _ line: SourceLine, column: Int, length: Int = 1) -> Diagnostic {
    Diagnostic(
      location: SourceLocation(file: file, line: line.number, column: column), error: e, sourceLine: line.text,
      length: length)
  }

  static let stepWords = [
    "scenario", "seed", "sync", "install", "uninstall", "policy", "clock", "phone", "watch", "user", "link", "wait",
    "kill",
    "stop", "restart", "tear", "cut", "import", "export", "expect", "lock", "unlock", "travel",
  ]

  mutating func parseLine(_ line: SourceLine, block: [SourceLine], into scenario: inout Scenario) throws -> Step? {
    var c = Cursor(line, self)
    let location = SourceLocation(file: file, line: line.number, column: line.tokens[0].column)
    let text = (line.shown ?? line.text).trimmingWhitespace()
    func step(_ kind: StepKind) -> Step { Step(kind: kind, location: location, text: text) }
    let first = c.next()!
    switch first.keyword {
    case "scenario":
      try c.expect(":")
      let shown = line.shown ?? line.text
      let colon = shown.firstIndex(of: ":")!
      scenario.title = String(shown[shown.index(after: colon)...]).trimmingWhitespace()
      titleHadPlaceholder = line.shown != nil
      if scenario.title.isEmpty { throw c.error(.expected("a title", found: nil)) }
      return nil
    case "seed":
      let t = try c.word("a seed")
      guard let seed = UInt64(t.text) else { throw c.error(.invalidSeed(t.text), at: t) }
      try c.finish()
      scenario.seed = seed
      return nil
    case "sync":
      try c.expect(":")
      let manual: Bool
      if c.take("manual") {
        manual = true
      } else if c.take("automatic") {
        manual = false
      } else {
        throw c.error(.expected("'manual' or 'automatic'", found: c.peek?.text))
      }
      try c.finish()
      return step(.syncMode(manual: manual))
    case "install":
      return step(try parseInstall(&c))
    case "uninstall":
      let appToken = c.peek
      let app = try c.app()
      try c.expect("from")
      let devices = try c.devices()
      try c.finish()
      if let e = notInstalled(app.name, on: devices.list) { throw c.error(e, at: appToken) }
      recordUninstall(app.name, from: devices.list, at: location)
      return step(.uninstall(app: app.name, devices))
    case "policy":
      let devices = try c.devices()
      try c.expect(":")
      if c.take("reprompt") {
        let t = try c.word("'standard' or 'strict'")
        guard let policy = RepromptPolicy(rawValue: t.keyword) else {
          throw c.error(
            .unknownStatus(
              t.text, valid: ["standard", "strict"], suggestion: suggest(t.text, from: ["standard", "strict"])), at: t)
        }
        try c.finish()
        return step(.policy(devices, reprompt: policy, retention: nil))
      }
      if c.take("authorization") {
        let models = AuthorizationModel.allCases.map(\.description)
        let t = try c.word("'independent' or 'companion'")
        guard let model = AuthorizationModel.allCases.first(where: { $0.description == t.keyword }) else {
          throw c.error(.unknownStatus(t.text, valid: models, suggestion: suggest(t.text, from: models)), at: t)
        }
        try c.finish()
        return step(.policy(devices, reprompt: nil, retention: nil, authorization: model))
      }
      if c.take("settings") {
        let models = WatchSettingsModel.allCases.map(\.description)
        let t = try c.word("'on-watch' or 'iphone-only'")
        guard let model = WatchSettingsModel.allCases.first(where: { $0.description == t.keyword }) else {
          throw c.error(.unknownStatus(t.text, valid: models, suggestion: suggest(t.text, from: models)), at: t)
        }
        try c.finish()
        return step(.policy(devices, reprompt: nil, retention: nil, watchSettings: model))
      }
      if c.take("units") {
        let names = UnitLocale.allCases.map(\.description)
        let t = try c.word("'us', 'metric' or 'uk'")
        guard let units = UnitLocale(name: t.keyword) else {
          throw c.error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
        }
        try c.finish()
        return step(.policy(devices, reprompt: nil, retention: nil, units: units))
      }
      if c.take("background") {
        try c.expect("window")
        let window = try c.duration()
        try c.expect("retry")
        let retry = try c.duration()
        try c.finish()
        let model = BackgroundDeliveryModel(responseWindow: window, retryDelay: retry)
        guard model.isValid else {
          throw c.error(.expected("durations of at most 1 day", found: "\(formatDuration(window))"))
        }
        return step(.policy(devices, reprompt: nil, retention: nil, background: model))
      }
      try c.expect("retention", what: "'reprompt', 'retention', 'authorization', 'settings', 'units' or 'background'")
      let retention: Double? = c.take("none") ? nil : try c.duration()
      try c.finish()
      return step(.policy(devices, reprompt: nil, retention: .some(retention)))
    case "clock":
      try c.expect(":")
      if c.take("set") {
        let t = try c.word("a date")
        guard let d = parseDate(t.text) else { throw c.error(.invalidDate(t.text), at: t) }
        try c.finish()
        return step(.clockSet(t.text.hasSuffix("Z") ? .absolute(d) : .local(d)))
      }
      if c.take("time", "zone") {
        let zone = try c.timeZone()
        let devices: Devices = c.take("on") ? try c.devices() : .both
        try c.finish()
        return step(.timeZone(devices, zone))
      }
      try c.expect("advance", what: "'set', 'advance' or 'time zone'")
      let d = try c.duration()
      try c.finish()
      return step(.clockAdvance(d))
    case "phone", "watch":
      let device = DeviceKind(name: first.keyword)!
      try c.expect(":")
      return step(try parseAppAction(&c, device: device))
    case "user":
      try c.expect("on")
      let devices = try c.devices()
      try c.expect(":")
      guard case .one(let device) = devices else {
        // `user on both:`: the same answer on the phone, then on the watch.
        var watchCursor = c
        let phone = try parseUserAction(&c, device: .phone)
        let watch = try parseUserAction(&watchCursor, device: .watch)
        return step(.onBoth(phone: phone, watch: watch))
      }
      return step(try parseUserAction(&c, device: device))
    case "link":
      try c.expect(":")
      return step(.link(try parseLink(&c)))
    case "wait":
      try c.expect("until", "synced")
      let timeout = c.take("within") ? try c.duration() : 10
      try c.finish()
      return step(.waitSynced(timeout: timeout))
    case "kill":
      _ = c.take("-9")
      let d = try c.device()
      try c.finish()
      return step(.kill(d))
    case "stop":
      let d = try c.device()
      try c.finish()
      return step(.stop(d))
    case "tear":
      let d = try c.device()
      try c.expect("journal")
      try c.finish()
      return step(.tearJournal(d))
    case "cut":
      let d = try c.device()
      try c.expect("journal", "by")
      let countToken = try c.word("a number of records")
      guard let count = Int(countToken.text), (1...1_000_000).contains(count) else {
        throw c.error(.invalidNumber(countToken.text), at: countToken)
      }
      guard c.take("records") || c.take("record") else { throw c.error(.expected("'records'", found: c.peek?.text)) }
      try c.finish()
      return step(.cutJournal(d, records: count))
    case "restart":
      let d = try c.device()
      try c.finish()
      return step(.restart(d))
    case "import":
      return step(.importExport(try parseImport(&c)))
    case "export":
      let device = try c.device()
      try c.expect("to")
      let name = try c.word("a file name such as phone.zip")
      guard !name.text.contains("/"), name.text.hasSuffix(".xml") || name.text.hasSuffix(".zip") else {
        throw c.error(.expected("a file name ending in .xml or .zip, without '/'", found: name.text), at: name)
      }
      try c.finish()
      return step(.exportStore(device, name: name.text))
    case "lock", "unlock":
      // The device locks (the watch: off the wrist): protected health data becomes unavailable (behavior.md L1).
      let devices = try c.devices()
      try c.finish()
      return step(.lock(devices, locked: first.keyword == "lock"))
    case "travel", "travels":
      let devices = try c.devices()
      try c.expect("to")
      let zone = try c.timeZone()
      try c.finish()
      return step(.timeZone(devices, zone))
    case "expect":
      let expectation = try parseExpectation(&c, block: block)
      try checkInstalled(expectation, line)
      return step(.expect(expectation))
    default:
      throw c.error(.unknownStep(first.text, suggestion: suggest(first.text, from: Self.stepWords)), at: first)
    }
  }

  /// `import <file> on <device> [with source "<name>" as <bundle>]… [fails [with "<text>"]]`.
  func parseImport(_ c: inout Cursor) throws(Diagnostic) -> ImportStep {
    let file = try c.word("the export file (export.xml or export.zip, relative to this scenario)")
    try c.expect("on")
    let device = try c.device()
    var sources: [String: String] = [:]
    while c.take("with", "source") {
      let name = try c.word("the source's name in the export (quoted)")
      try c.expect("as")
      let bundle = try c.word("a bundle identifier")
      guard !bundle.quoted, bundle.text.contains(".") else {
        throw c.error(.expected("a bundle identifier such as com.example.water", found: bundle.text), at: bundle)
      }
      sources[name.text] = bundle.text
    }
    var failure: String?
    if c.take("fails") {
      failure = ""
      if c.take("with") { failure = try c.word("a quoted part of the error message").text }
    }
    try c.finish()
    return ImportStep(device: device, path: file.text, sources: sources, failure: failure)
  }

  mutating func parseInstall(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    let nameToken = try c.word("an app name")
    guard !nameToken.text.hasSuffix(":") else {
      throw c.error(.expected("an app name", found: nameToken.text), at: nameToken)
    }
    var bundle = "com.example." + nameToken.text.lowercased().split(separator: " ").joined(separator: "-")
    if c.take("as") { bundle = try c.word("a bundle identifier").text }
    var app = AppDeclaration(
      name: nameToken.text, bundleID: bundle, share: [], read: [], hasWriteDescription: true, hasReadDescription: true)
    if let existing = apps[app.name], existing.bundleID != app.bundleID {
      throw c.error(.conflictingApp(app.name), at: nameToken)
    }
    // Declared as soon as it is named, so an error in the rest of the line (its devices, a clause) does not cascade
    // into every later line that uses the app.
    if apps[app.name] == nil { apps[app.name] = app }
    try c.expect("on")
    // Installed everywhere while its devices are read, so an error there does not cascade into later lines.
    let before = installed[app.name, default: []]
    recordInstall(app.name, on: DeviceKind.allCases)
    let devices = try c.devices()
    installed[app.name] = before
    recordInstall(app.name, on: devices.list)
    while let t = c.peek {
      if c.take("share") || c.take("writes") {
        app.share = try c.types(stoppingAt: ["read", "without", "share", "with"])
      } else if c.take("read") || c.take("reads") {
        app.read = try c.types(stoppingAt: ["share", "without", "read", "with"])
      } else if c.take("without") {
        let direction = try c.direction()
        try c.expect("description")
        if direction == .share { app.hasWriteDescription = false } else { app.hasReadDescription = false }
      } else if c.take("with") {
        repeat {
          if c.take("background", "delivery") || c.take("background-delivery") {
            app.entitlements.insert(.backgroundDelivery)
          } else if c.take("health", "records") || c.take("health-records") {
            app.entitlements.insert(.healthRecords)
          } else {
            throw c.error(.expected("'background delivery' or 'health records'", found: c.peek?.text))
          }
        } while c.take("and")
      } else {
        throw c.error(.expected("'share', 'read', 'without' or 'with'", found: t.text), at: t)
      }
    }
    apps[app.name] = app
    return .install(app, devices)
  }

  mutating func parseAppAction(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    let app = try c.app(installedOn: [device])
    let verb = try c.word("'requests', 'saves', 'resaves', 'deletes', 'enables', 'disables' or 'completes'")
    switch verb.keyword {
    case "enables":
      try c.expect("background", "delivery", "of")
      let type = try c.type()
      var frequency = UpdateFrequency.immediate
      if let t = c.peek {
        guard let parsed = UpdateFrequency(name: t.keyword) else {
          let names = UpdateFrequency.allCases.map(\.description)
          throw c.error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
        }
        frequency = parsed
        c.index += 1
      }
      try c.finish()
      return .background(device, app: app.name, .enable(type, frequency))
    case "disables":
      if c.take("all", "background", "delivery") {
        try c.finish()
        return .background(device, app: app.name, .disable(nil))
      }
      try c.expect("background", "delivery", "of")
      let type = try c.type()
      try c.finish()
      return .background(device, app: app.name, .disable(type))
    case "completes":
      _ = c.take("the")
      try c.expect("background", "delivery", "of")
      let type = try c.type()
      try c.finish()
      return .background(device, app: app.name, .complete(type))
    case "requests", "request":
      var share: [SampleType]?
      var read: [SampleType]?
      while !c.atEnd {
        if c.take("share") {
          share = try c.types(stoppingAt: ["read", "share"])
        } else if c.take("read") {
          read = try c.types(stoppingAt: ["read", "share"])
        } else {
          throw c.error(.expected("'share' or 'read'", found: c.peek?.text))
        }
      }
      if share == nil && read == nil { return .request(device, app: app.name, share: nil, read: nil) }
      return .request(device, app: app.name, share: share ?? [], read: read ?? [])
    case "saves", "save":
      return try parseSave(&c, device: device, app: app)
    case "resaves", "resave":
      let name = try c.sampleName(defined: false)
      var changed: SampleInput.Value?
      if c.take("as") {
        // "resaves drink as 100 mL": the same identifier with another value (a sync conflict when both devices
        // save it).
        let valueToken = try c.word("a value")
        guard let number = Double(valueToken.text), number.isFinite else {
          throw c.error(.invalidNumber(valueToken.text), at: valueToken)
        }
        if c.atEnd {
          guard let raw = Int(exactly: number) else { throw c.error(.invalidNumber(valueToken.text), at: valueToken) }
          changed = .category(raw)
        } else {
          let unitToken = c.peek!
          _ = try c.unit(for: nil)
          changed = .quantity(number, unit: unitToken.text)
        }
      }
      try c.finish()
      return .resave(device, app: app.name, name: name, changedTo: changed)
    case "deletes", "delete":
      if c.take("all") {
        let type = try c.type()
        let range = try rangeSpec(&c)
        try c.finish()
        return .deleteAll(device, app: app.name, type, range: range)
      }
      var names: [String] = [try c.sampleName(defined: false)]
      while !c.atEnd {
        if c.take("and") { continue }
        names.append(try c.sampleName(defined: false))
      }
      return .delete(device, app: app.name, names: names)
    default:
      throw c.error(
        .unknownStep(
          verb.text,
          suggestion: suggest(
            verb.text, from: ["requests", "saves", "resaves", "deletes", "enables", "disables", "completes"])),
        at: verb)
    }
  }

  mutating func parseSave(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic) -> StepKind {
    // "saves 100 random dietaryWater samples over 7d"
    if let count = c.peek.flatMap({ Int($0.text) }), c.line.tokens.count > c.index + 1,
      c.line.tokens[c.index + 1].keyword == "random"
    {
      c.index += 2
      let type = try c.type()
      _ = c.take("samples")
      try c.expect("over")
      let over = try c.duration()
      try c.finish()
      guard count > 0, count <= 1_000_000 else { throw c.error(.invalidNumber(String(count))) }
      return .saveRandom(device, app: app.name, count: count, type: type, over: over)
    }
    // "saves bloodPressure correlation as reading of 120 mmHg bloodPressureSystolic plus 80 mmHg …"
    if let t = c.peek, let type = Cursor.sampleType(t), type.descriptor.isCorrelation,
      c.line.tokens.count > c.index + 1, c.line.tokens[c.index + 1].keyword == "correlation"
    {
      c.index += 2
      var spec = CorrelationSpec(type: type, name: nil, metadata: [:], members: [])
      while !c.take("of") {
        if c.take("as") {
          let name = try c.sampleName(defined: true)
          if sampleNames.contains(name) { throw c.error(.duplicateSampleName(name), at: c.line.tokens[c.index - 1]) }
          sampleNames.insert(name)
          spec.name = name
        } else if c.take("with") {
          repeat {
            let kv = try c.word("key=value metadata")
            let parts = kv.text.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw c.error(.expected("key=value", found: kv.text), at: kv) }
            let key = MetadataKey.byConstantName[String(parts[0])] ?? String(parts[0])
            spec.metadata[key] = ParseState.metadataValue(String(parts[1]))
          } while c.take("and") || (c.peek.map { $0.text.contains("=") } ?? false)
        } else {
          throw c.error(.expected("'as', 'with' or 'of' and the correlation's samples", found: c.peek?.text))
        }
      }
      spec.members = [try parseSampleSpec(&c)]
      while c.take("plus") { spec.members.append(try parseSampleSpec(&c)) }
      try c.finish()
      return .saveCorrelation(device, app: app.name, spec)
    }
    var specs: [SampleSpec] = [try parseSampleSpec(&c)]
    while c.take("plus") { specs.append(try parseSampleSpec(&c)) }
    try c.finish()
    return .save(device, app: app.name, specs)
  }

  /// One sample of a `saves` step: value, type and clauses, up to `plus` or the end of the line.
  mutating func parseSampleSpec(_ c: inout Cursor) throws(Diagnostic) -> SampleSpec {
    let valueToken = try c.word("a value")
    var type: SampleType
    var value: SampleInput.Value
    if let number = Double(valueToken.text) {
      // "250 mL dietaryWater" or "3 sleepAnalysis" (a raw category value)
      guard let next = c.peek else { throw c.error(.expected("a unit or a sample type", found: nil)) }
      if let t = Cursor.sampleType(next), t.descriptor.categoryValues != nil {
        guard let raw = Int(exactly: number), (-1_000_000_000...1_000_000_000).contains(raw) else {
          throw c.error(.invalidNumber(valueToken.text), at: valueToken)
        }
        c.index += 1
        type = t
        value = .category(raw)
      } else {
        let unitToken = next
        let unit = try c.unit(for: nil)
        type = try c.type()
        guard let canonical = type.descriptor.canonicalUnit else {
          throw c.error(.expected("a quantity type after a unit", found: type.name))
        }
        // An incompatible unit parses: on a device it terminates the app, which is what the scenario may test.
        _ = (unit, canonical)
        value = .quantity(number, unit: unitToken.text)
      }
    } else {
      // "notApplicable mindfulSession"; a word followed by a unit means the number is missing.
      if let next = c.peek, Cursor.sampleType(next) == nil, (try? HealthUnit(parsing: next.text)) != nil {
        throw c.error(.invalidNumber(valueToken.text), at: valueToken)
      }
      type = try c.type()
      guard let values = type.descriptor.categoryValues else {
        throw c.error(.invalidNumber(valueToken.text), at: valueToken)
      }
      guard let match = values.first(where: { $0.name.lowercased() == valueToken.text.lowercased() }) else {
        throw c.error(
          .unknownCategoryValue(valueToken.text, type: type.name, valid: values.map(\.name)), at: valueToken)
      }
      value = .category(match.value)
    }
    var spec = SampleSpec(type: type, value: value, start: .now(offset: 0), end: .duration(0), metadata: [:], name: nil)
    while let t = c.peek, t.keyword != "plus" {
      if c.take("at") {
        spec.start = try c.time()
      } else if c.take("from") {
        spec.start = try c.time()
        if c.take("for") {
          spec.end = .duration(try c.duration())
        } else {
          try c.expect("to", what: "'for' or 'to'")
          spec.end = .time(try c.time())
        }
      } else if c.take("for") {
        spec.end = .duration(try c.duration())
      } else if c.take("with") {
        repeat {
          let kv = try c.word("key=value metadata")
          let parts = kv.text.split(separator: "=", maxSplits: 1)
          guard parts.count == 2 else { throw c.error(.expected("key=value", found: kv.text), at: kv) }
          let key = MetadataKey.byConstantName[String(parts[0])] ?? String(parts[0])
          spec.metadata[key] = ParseState.metadataValue(String(parts[1]))
        } while c.take("and") || (c.peek.map { $0.text.contains("=") } ?? false)
      } else if c.take("uuid") {
        // "uuid 6F9619FF-…": the identifier HealthKit would assign, chosen by the test (HealthPair model).
        let t = try c.word("a UUID such as 6F9619FF-8B86-4011-B42D-00C04FC964FF")
        guard let uuid = UUID(uuidString: t.text) else { throw c.error(.invalidUUID(t.text), at: t) }
        spec.uuid = uuid
      } else if c.take("as") {
        let name = try c.sampleName(defined: true)
        if sampleNames.contains(name) { throw c.error(.duplicateSampleName(name), at: c.line.tokens[c.index - 1]) }
        sampleNames.insert(name)
        spec.name = name
      } else {
        let clauses = ["at", "from", "for", "with", "uuid", "as", "plus"]
        if let near = suggest(t.text, from: clauses), near != t.text {
          throw c.error(.unknownStatus(t.text, valid: clauses, suggestion: near), at: t)
        }
        throw c.error(.expected("'at', 'from', 'for', 'with', 'uuid', 'as' or 'plus'", found: t.text), at: t)
      }
    }
    return spec
  }

  mutating func parseUserAction(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    func forApp(_ c: inout Cursor) throws(Diagnostic) -> String? {
      guard c.take("for") else { return nil }
      return try c.app(installedOn: [device]).name
    }
    if c.take("allows", "all") || c.take("allow", "all") || c.take("taps", "allow") {
      let app = try forApp(&c)
      try c.finish()
      return .answer(device, .allowAll, app: app)
    }
    if c.take("doesn't", "allow") || c.take("does", "not", "allow") || c.take("taps", "don't", "allow")
      || c.take("denies", "all")
    {
      let app = try forApp(&c)
      try c.finish()
      return .answer(device, .denyAll, app: app)
    }
    if c.take("cancels") || c.take("dismisses") {
      _ = c.take("the", "sheet")
      let app = try forApp(&c)
      try c.finish()
      return .answer(device, .cancel, app: app)
    }
    if c.take("leaves", "the", "app") || c.take("leaves") {
      // Home, the app switcher, a call: devices dismiss the sheet (behavior.md A17).
      let app = try forApp(&c)
      try c.finish()
      return .answer(device, .leaveApp, app: app)
    }
    if c.take("sheet", "fails", "to", "present") {
      let silent = c.take("silently")
      let app = try forApp(&c)
      try c.finish()
      return .answer(device, .failToPresent(silent ? .silent : .error), app: app)
    }
    if c.take("allows") || c.take("allow") {
      let permissions = try c.permissions()
      let app = try forApp(&c)
      try c.finish()
      return .answer(device, .choices(Dictionary(uniqueKeysWithValues: permissions.map { ($0, true) })), app: app)
    }
    if c.take("in", "health") {
      guard device == .phone else { throw c.error(.phoneOnly("the Health app's data sources")) }
      try c.expect("orders", what: "'orders <type> sources …'")
      let type = try c.type()
      try c.expect("sources")
      if c.take("by", "default") {
        try c.finish()
        return .sourceOrder(device, type, [])
      }
      var sources: [SourceSpec] = []
      repeat {
        let app = try c.app()
        let on: DeviceKind? = c.take("on") ? try c.device() : nil
        sources.append(SourceSpec(app: app.name, device: on))
      } while c.peek != nil
      return .sourceOrder(device, type, sources)
    }
    if c.take("sets") || c.take("enters") {
      // The Health app's health details (behavior.md C2): "sets date of birth 1990-04-02", "sets bloodType notSet".
      let type = try c.characteristicType()
      _ = c.take("to")
      let value = try c.characteristicValue(type)
      try c.finish()
      return .userSetting(device, .characteristic(type, value))
    }
    if c.take("prefers") {
      // The Health app's unit for a quantity type (behavior.md R6).
      var unitText: String?
      if !(c.take("the", "default", "unit") || c.take("default")) {
        let t = try c.word("a unit such as lb")
        c.index -= 1
        _ = try c.unit(for: nil)
        unitText = t.text
      }
      try c.expect("for")
      let typeToken = c.peek
      let type = try c.type()
      guard let canonical = type.descriptor.canonicalUnit else {
        throw c.error(.expected("a quantity type", found: type.name), at: typeToken)
      }
      if let unitText, let unit = try? HealthUnit(parsing: unitText), !unit.isCompatible(with: canonical) {
        throw c.error(.incompatibleUnit(unit: unitText, type: type.name), at: typeToken)
      }
      try c.finish()
      return .userSetting(device, .preferredUnit(type, unitText))
    }
    let watchApp: Bool
    if c.take("in", "settings") {
      watchApp = false
    } else if c.take("in", "the", "watch", "app") {
      watchApp = true
    } else {
      throw c.error(
        .expected(
          "'allows all', 'doesn't allow', 'cancels', 'leaves the app', 'sheet fails to present', "
            + "'allows <permissions>', 'sets', 'prefers', 'in Settings', 'in the Watch app' or 'in Health'",
          found: c.peek?.text))
    }
    if watchApp && device != .phone { throw c.error(.phoneOnly("the iPhone's Watch app")) }
    let change: SettingsChange
    if c.take("resets") {
      _ = c.take("for")
      let app = try c.app()
      try c.finish()
      return watchApp ? .watchSettings(app: app.name, .reset) : .settings(device, app: app.name, .reset)
    } else if c.take("turns", "off", "all") {
      change = .turnAllOff
    } else {
      try c.expect("turns", what: "'turns on', 'turns off', 'turns off all' or 'resets'")
      let on: Bool
      if c.take("on") {
        on = true
      } else if c.take("off") {
        on = false
      } else {
        throw c.error(.expected("'on' or 'off'", found: c.peek?.text))
      }
      let direction = try c.direction()
      let type = try c.type()
      change = .set(Permission(type, direction), on: on)
    }
    try c.expect("for")
    let app = try c.app()
    try c.finish()
    return watchApp ? .watchSettings(app: app.name, change) : .settings(device, app: app.name, change)
  }

  func parseLink(_ c: inout Cursor) throws(Diagnostic) -> LinkAction {
    let t = try c.word("'disconnect', 'reconnect', 'hold', 'release' or 'latency'")
    func direction(_ c: inout Cursor) throws(Diagnostic) -> [DeviceKind] {
      if c.atEnd { return [.phone, .watch] }
      let from = try c.device()
      _ = c.take("to") ? try c.device() : from.peer
      return [from]
    }
    let action: LinkAction
    switch t.keyword {
    case "disconnect": action = .disconnect
    case "reconnect", "connect": action = .reconnect
    case "hold": action = .hold(try direction(&c))
    case "release": action = .release(try direction(&c))
    case "latency": action = .latency(try c.duration())
    default:
      throw c.error(
        .unknownStep(
          t.text, suggestion: suggest(t.text, from: ["disconnect", "reconnect", "hold", "release", "latency"])), at: t)
    }
    try c.finish()
    return action
  }
}
