import HealthEngine
import HealthModel

// The step table: a line's first word chooses the family that reads the rest of it.
//
// Adding a step: write its parser in its family's file (SettingSteps, SetupSteps, PolicySteps, ClockSteps,
// AppSteps, SaveSteps, UserSteps, LinkSteps, ImportSteps) or a new `<Family>Steps.swift`, as an `extension
// ParseState` function that reads the rest of the line from the cursor and returns its ``StepKind`` case (declared
// in StepAST.swift); then add one row: `steps` below for a new first word, `appVerbs` for a new `<device>: <App>
// <verb>`, `saveForms` for a new `saves …`, `userActions` for a new `user on <devices>: …`. An expectation is the
// same with ExpectationTable.swift's tables, `<Family>Expectations.swift` and ExpectationAST.swift. The form then
// needs a row in docs/scenario-language.md's tables, a line in Parser.swift's grammar comment and a name in
// LanguageDocsTests' `CaseNames`: ScenarioTests fail until the three agree and the docs' example parses
// (docs/scenario-language.md, "Adding a step or an expectation").

/// What a step family's parser gets besides the cursor: the line, its block and where the step starts.
struct StepLine {
  /// The line (placeholders substituted).
  let line: SourceLine
  /// The indented lines under it.
  let block: [SourceLine]
  /// The word that chose the row.
  let first: Token
  /// Where the step starts.
  let location: SourceLocation
}

/// A row of the step table: the first words that choose it and the parser of the rest of the line, which returns
/// nil for a setting (it changes the scenario instead of adding a step).
struct StepRule: Sendable {
  /// Reads the line after its first word.
  typealias Parse = @Sendable (inout ParseState, inout Cursor, StepLine, inout Scenario) throws(Diagnostic) -> StepKind?
  /// The words that choose the row, offered as suggestions for an unknown first word.
  let words: [String]
  /// Other words that choose it, never suggested.
  let aliases: [String]
  /// The parser.
  let parse: Parse

  /// A row chosen by `words` (and `aliases`).
  init(_ words: String..., aliases: [String] = [], parse: @escaping Parse) {
    self.words = words
    self.aliases = aliases
    self.parse = parse
  }
}

extension ParseState {
  /// Every step by its first word, in the order unknown words are matched against for a suggestion.
  static let steps: [StepRule] = [
    StepRule("scenario") { s, c, line, scenario throws(Diagnostic) in try s.parseTitle(&c, line, &scenario) },
    StepRule("seed") { s, c, _, scenario throws(Diagnostic) in try s.parseSeed(&c, &scenario) },
    StepRule("sync") { s, c, _, _ throws(Diagnostic) in try s.parseSyncMode(&c) },
    StepRule("install") { s, c, _, _ throws(Diagnostic) in try s.parseInstall(&c) },
    StepRule("uninstall") { s, c, line, _ throws(Diagnostic) in try s.parseUninstall(&c, line) },
    StepRule("policy") { s, c, _, _ throws(Diagnostic) in try s.parsePolicy(&c) },
    StepRule("clock") { s, c, _, _ throws(Diagnostic) in try s.parseClock(&c) },
    StepRule("phone", "watch") { s, c, line, _ throws(Diagnostic) in try s.parseAppStep(&c, line) },
    StepRule("user") { s, c, _, _ throws(Diagnostic) in try s.parseUserStep(&c) },
    StepRule("link") { s, c, _, _ throws(Diagnostic) in try s.parseLinkStep(&c) },
    StepRule("wait") { s, c, _, _ throws(Diagnostic) in try s.parseWait(&c) },
    StepRule("kill") { s, c, _, _ throws(Diagnostic) in try s.parseKill(&c) },
    StepRule("stop") { s, c, _, _ throws(Diagnostic) in try s.parseStop(&c) },
    StepRule("restart") { s, c, _, _ throws(Diagnostic) in try s.parseRestart(&c) },
    StepRule("tear") { s, c, _, _ throws(Diagnostic) in try s.parseTear(&c) },
    StepRule("cut") { s, c, _, _ throws(Diagnostic) in try s.parseCut(&c) },
    StepRule("import") { s, c, _, _ throws(Diagnostic) in .importExport(try s.parseImport(&c)) },
    StepRule("export") { s, c, _, _ throws(Diagnostic) in try s.parseExport(&c) },
    StepRule("expect") { s, c, line, _ throws(Diagnostic) in try s.parseExpectStep(&c, line) },
    StepRule("lock", "unlock") { s, c, line, _ throws(Diagnostic) in try s.parseLock(&c, line) },
    StepRule("travel", aliases: ["travels"]) { s, c, _, _ throws(Diagnostic) in try s.parseTravel(&c) },
  ]

  /// The step table by first word (aliases included).
  static let stepRules: [String: StepRule] = {
    var rules: [String: StepRule] = [:]
    for row in steps {
      for word in row.words + row.aliases { rules[word] = row }
    }
    return rules
  }()

  /// The first words an unknown one is compared with, in table order.
  static let stepWords = steps.flatMap(\.words)

  /// Parses one line (with the block under it) as a step; nil for a setting, which changes `scenario` instead.
  mutating func parseLine(_ line: SourceLine, block: [SourceLine], into scenario: inout Scenario) throws(Diagnostic)
    -> Step?
  {
    var c = Cursor(line, self)
    let location = SourceLocation(file: file, line: line.number, column: line.tokens[0].column)
    let text = (line.shown ?? line.text).trimmingWhitespace()
    let first = c.next()!
    guard let rule = Self.stepRules[first.keyword] else {
      throw c.error(.unknownStep(first.text, suggestion: suggest(first.text, from: Self.stepWords)), at: first)
    }
    let kind = try rule.parse(
      &self, &c, StepLine(line: line, block: block, first: first, location: location), &scenario)
    return kind.map { Step(kind: $0, location: location, text: text) }
  }
}
