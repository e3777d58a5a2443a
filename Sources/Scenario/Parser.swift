import FoundationEssentials
import HealthEngine
import HealthModel

// Grammar (one step per line; `#` starts a comment; words are separated by spaces or commas; docs/scenario-language.md
// has every step with an example):
//
//   file       := line*                            UTF-8 (optional BOM), LF or CRLF; >= 1 step and >= 1 expect
//   line       := setting | step | expect | block-line
//   setting    := "scenario:" words | "seed" n | "sync:" ("manual" | "automatic")
//   step       := "install" App ["as" bundle] "on" devices ["share" types] ["read" types]
//                   ["without" ("share" | "read") "description"]*
//              |  "uninstall" App "from" devices
//              |  "policy" devices ":" ("reprompt" ("standard"|"strict") | "retention" (duration|"none")
//                   | "authorization" ("independent"|"companion") | "settings" ("on-watch"|"iphone-only"))
//              |  "clock:" ("set" time | "advance" duration | "time zone" zone ["on" devices])
//              |  "travel" devices "to" zone                 the devices' time zone (zone: UTC, UTC+05:30, Europe/Paris…)
//              |  device ":" App action
//              |  "user on" device ":" user-action
//              |  "link:" link-action
//              |  "wait until synced" ["within" duration]
//              |  ("kill -9" | "stop" | "restart") device
//              |  "tear" device "journal" | "cut" device "journal by" n "records"
//   action     := "requests" ["share" types] ["read" types]
//              |  "saves" sample ("plus" sample)*        one batch: all saved or none
//   sample     := value [unit] type [when] ["with" key=value…] ["as" name]
//              |  "saves" n "random" type "samples over" duration
//              |  "resaves" name ["as" value [unit]]
//              |  "deletes" name… | "deletes all" type ["from" time "to" time]
//   when       := "at" time | "from" time ("for" duration | "to" time)
//   user-action:= "allows all" | "doesn't allow" | "cancels" | "leaves the app" | "sheet fails to present" ["silently"]
//              |  "allows" permission… | ("in Settings" | "in the Watch app") settings-change "for" App
//              |  "in Health orders" type "sources" (source ("," source)* | "by default")
//   source     := App ["on" device]                       (no device: the app on both, the watch's first)
//   expect     := "expect" ("converged" | "diverged:" | "link is" ("up"|"down") | devices ":" expectation) [":"]
//   devices    := "phone" | "watch" | "both" | "phone and watch"
//   time       := YYYY-MM-DD | YYYY-MM-DDTHH:MM[:SS][Z] | HH:MM | "now" [("+"|"-") duration] | "distantPast"
//                 (without Z: the device's local time; dates are the device's local days)
//
// Lines indented under a line that ends in ':' form that line's block (expected samples, buckets, divergences).

/// Parses scenario files into ``Scenario`` values, reporting every error in the file.
package enum ScenarioParser {
  /// The clock every scenario starts at unless it sets one.
  package static let defaultStart = parseDate("2026-01-05T08:00:00Z")!

  /// Parses `text` as if read from `file` (a leading BOM and CRLF line ends are handled as in a file's bytes);
  /// returns the scenario or every diagnostic, in line order.
  package static func parse(_ text: String, file: String) -> Result<Scenario, Diagnostics> {
    parse(bytes: Array(text.utf8), file: file)
  }

  /// Parses the bytes of `file` (see ``SourceText`` for the encoding and line ends); returns the scenario or
  /// every diagnostic, in line order. An encoding error is the only diagnostic: the lines it would split are
  /// not trusted. A file that parses but has no step, or no expectation, is an error too: it would check nothing.
  package static func parse(bytes: [UInt8], file: String) -> Result<Scenario, Diagnostics> {
    switch SourceText.lines(bytes, file: file) {
    case .success(let lines): return parse(lines: lines, file: file)
    case .failure(let diagnostic): return .failure(Diagnostics(items: [diagnostic]))
    }
  }

  private static func parse(lines rawLines: [String], file: String) -> Result<Scenario, Diagnostics> {
    var lines: [SourceLine] = []
    var diagnostics: [Diagnostic] = []
    for (offset, raw) in rawLines.enumerated() {
      let rawText = raw.replacingTabs()
      let indent = rawText.prefix { $0 == " " }.count
      do {
        let tokens = try Lexer.tokenize(rawText)
        if !tokens.isEmpty {
          lines.append(SourceLine(number: offset + 1, text: rawText, indent: indent, tokens: tokens))
        }
      } catch {
        diagnostics.append(
          Diagnostic(
            location: SourceLocation(file: file, line: offset + 1, column: error.column), error: .unterminatedString,
            sourceLine: rawText))
      }
    }
    let group = file.split(separator: "/").dropLast().last.map(String.init) ?? "."
    let baseName = file.split(separator: "/").last.map { String($0.split(separator: ".").first ?? $0) } ?? file
    var state = ParseState(file: file)
    var scenario = Scenario(file: file, title: baseName, seed: nil, steps: [], apps: [:], group: group)
    var index = 0
    while index < lines.count {
      let line = lines[index]
      index += 1
      if line.indent > 0 {
        diagnostics.append(
          state.diagnostic(.strayIndentedLine, line, column: line.indent + 1, length: line.text.count - line.indent))
        continue
      }
      var block: [SourceLine] = []
      if line.tokens.last?.text == ":" {
        while index < lines.count, lines[index].indent > 0 {
          block.append(lines[index])
          index += 1
        }
      }
      do {
        if let step = try state.parseLine(line, block: block, into: &scenario) { scenario.steps.append(step) }
      } catch let diagnostic as Diagnostic {
        diagnostics.append(diagnostic)
      } catch {
        diagnostics.append(state.diagnostic(.unknownStep(line.tokens[0].text, suggestion: nil), line, column: 1))
      }
    }
    scenario.apps = state.apps
    if !diagnostics.isEmpty { return .failure(Diagnostics(items: diagnostics.sorted { $0.location < $1.location })) }
    // A file that checks nothing must not pass: reported at the end of its last non-blank line.
    if !scenario.steps.contains(where: \.isExpectation) {
      let number = rawLines.lastIndex { !$0.trimmingWhitespace().isEmpty }.map { $0 + 1 } ?? 1
      let text = rawLines.indices.contains(number - 1) ? rawLines[number - 1].replacingTabs() : ""
      let location = SourceLocation(file: file, line: number, column: text.count + 1)
      let error: ScenarioError = scenario.steps.isEmpty ? .noSteps : .noExpectations
      return .failure(Diagnostics(items: [Diagnostic(location: location, error: error, sourceLine: text)]))
    }
    return .success(scenario)
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
  let file: String
  var apps: [String: AppDeclaration] = [:]
  var sampleNames: Set<String> = []

  init(file: String) { self.file = file }

  func diagnostic(_ e: ScenarioError, _ line: SourceLine, column: Int, length: Int = 1) -> Diagnostic {
    Diagnostic(
      location: SourceLocation(file: file, line: line.number, column: column), error: e, sourceLine: line.text,
      length: length)
  }

  static let stepWords = [
    "scenario", "seed", "sync", "install", "uninstall", "policy", "clock", "phone", "watch", "user", "link", "wait",
    "kill",
    "stop", "restart", "tear", "cut", "expect", "travel",
  ]

  mutating func parseLine(_ line: SourceLine, block: [SourceLine], into scenario: inout Scenario) throws -> Step? {
    var c = Cursor(line, self)
    let location = SourceLocation(file: file, line: line.number, column: line.tokens[0].column)
    let text = line.text.trimmingWhitespace()
    func step(_ kind: StepKind) -> Step { Step(kind: kind, location: location, text: text) }
    let first = c.next()!
    switch first.keyword {
    case "scenario":
      try c.expect(":")
      let colon = line.text.firstIndex(of: ":")!
      scenario.title = String(line.text[line.text.index(after: colon)...]).trimmingWhitespace()
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
      let app = try c.app()
      try c.expect("from")
      let devices = try c.devices()
      try c.finish()
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
      try c.expect("retention", what: "'reprompt', 'retention', 'authorization' or 'settings'")
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
      let device = try c.device()
      try c.expect(":")
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
    case "travel", "travels":
      let devices = try c.devices()
      try c.expect("to")
      let zone = try c.timeZone()
      try c.finish()
      return step(.timeZone(devices, zone))
    case "expect":
      return step(.expect(try parseExpectation(&c, block: block)))
    default:
      throw c.error(.unknownStep(first.text, suggestion: suggest(first.text, from: Self.stepWords)), at: first)
    }
  }

  mutating func parseInstall(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    let nameToken = try c.word("an app name")
    guard !nameToken.text.hasSuffix(":") else {
      throw c.error(.expected("an app name", found: nameToken.text), at: nameToken)
    }
    var bundle = "com.example." + nameToken.text.lowercased().split(separator: " ").joined(separator: "-")
    if c.take("as") { bundle = try c.word("a bundle identifier").text }
    try c.expect("on")
    let devices = try c.devices()
    var app = AppDeclaration(
      name: nameToken.text, bundleID: bundle, share: [], read: [], hasWriteDescription: true, hasReadDescription: true)
    if let existing = apps[app.name], existing.bundleID != app.bundleID {
      throw c.error(.conflictingApp(app.name), at: nameToken)
    }
    // Declared before its clauses are read, so an error in a clause does not cascade into every later line.
    if apps[app.name] == nil { apps[app.name] = app }
    while let t = c.peek {
      if c.take("share") || c.take("writes") {
        app.share = try c.types(stoppingAt: ["read", "without", "share"])
      } else if c.take("read") || c.take("reads") {
        app.read = try c.types(stoppingAt: ["share", "without", "read"])
      } else if c.take("without") {
        let direction = try c.direction()
        try c.expect("description")
        if direction == .share { app.hasWriteDescription = false } else { app.hasReadDescription = false }
      } else {
        throw c.error(.expected("'share', 'read' or 'without'", found: t.text), at: t)
      }
    }
    apps[app.name] = app
    return .install(app, devices)
  }

  mutating func parseAppAction(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    let app = try c.app()
    let verb = try c.word("'requests', 'saves', 'resaves' or 'deletes'")
    switch verb.keyword {
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
        .unknownStep(verb.text, suggestion: suggest(verb.text, from: ["requests", "saves", "resaves", "deletes"])),
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
          let raw = String(parts[1])
          spec.metadata[key] =
            raw == "true"
            ? .bool(true)
            : raw == "false"
              ? .bool(false) : Int64(raw).map { .int($0) } ?? Double(raw).map { .double($0) } ?? .string(raw)
        } while c.take("and") || (c.peek.map { $0.text.contains("=") } ?? false)
      } else if c.take("as") {
        let name = try c.sampleName(defined: true)
        if sampleNames.contains(name) { throw c.error(.duplicateSampleName(name), at: c.line.tokens[c.index - 1]) }
        sampleNames.insert(name)
        spec.name = name
      } else {
        throw c.error(.expected("'at', 'from', 'for', 'with' or 'as'", found: t.text), at: t)
      }
    }
    return spec
  }

  mutating func parseUserAction(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    func forApp(_ c: inout Cursor) throws(Diagnostic) -> String? {
      guard c.take("for") else { return nil }
      return try c.app().name
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
    let watchApp: Bool
    if c.take("in", "settings") {
      watchApp = false
    } else if c.take("in", "the", "watch", "app") {
      watchApp = true
    } else {
      throw c.error(
        .expected(
          "'allows all', 'doesn't allow', 'cancels', 'sheet fails to present', 'allows <permissions>', 'in Settings', 'in the Watch app' or 'in Health'",
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
