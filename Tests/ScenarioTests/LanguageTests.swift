import FoundationEssentials
import TestSupport
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Posix
@testable import Scenario
@testable import ScenarioLanguage

private func read(_ relative: String) throws -> String { try Repository.read(relative) }

/// docs/scenario-language.md and the grammar comment of Sources/ScenarioLanguage/Parser.swift, read the way the test compares
/// them.
enum LanguageDocs {
  /// The lines of the docs' "Grammar" code block.
  static func docsGrammar(_ docs: String) -> [String] {
    let lines = docs.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let heading = lines.firstIndex(of: "## Grammar"),
      let open = lines[heading...].firstIndex(of: "```"),
      let close = lines[(open + 1)...].firstIndex(of: "```")
    else { return [] }
    return Array(lines[(open + 1)..<close])
  }

  /// The first column of every step and expectation table, backticks removed, `\|` unescaped.
  static func docsForms(_ docs: String) -> [String] {
    var forms: [String] = []
    var inTable = false
    for line in docs.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if line.hasPrefix("| step |") || line.hasPrefix("| expectation |") {
        inTable = true
        continue
      }
      guard inTable, line.hasPrefix("|") else {
        inTable = false
        continue
      }
      if line.hasPrefix("|---") { continue }
      let first = cells(line)[0]
      if first.isEmpty { continue }
      forms.append(first.replacing("\\|", with: "|").filter { $0 != "`" })
    }
    return forms
  }

  /// Each table row's example: the third cell's backticked text.
  static func docsExamples(_ docs: String) -> [String] {
    var examples: [String] = []
    var inTable = false
    for line in docs.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if line.hasPrefix("| step |") || line.hasPrefix("| expectation |") {
        inTable = true
        continue
      }
      guard inTable, line.hasPrefix("|") else {
        inTable = false
        continue
      }
      if line.hasPrefix("|---") { continue }
      let row = cells(line)
      guard row.count >= 3 else { continue }
      let example = row[2].replacing("\\|", with: "|")
      guard example.hasPrefix("`"), example.hasSuffix("`"), example.count > 2 else { continue }
      examples.append(String(example.dropFirst().dropLast()))
    }
    return examples
  }

  /// The cells of a table row (pipes escaped as `\|` stay inside a cell), trimmed.
  static func cells(_ line: String) -> [String] {
    var cells: [String] = []
    var current = ""
    var previous: Character?
    for character in line.dropFirst() {
      if character == "|" && previous != "\\" {
        cells.append(current.trimmingWhitespace())
        current = ""
      } else {
        current.append(character)
      }
      previous = character
    }
    return cells
  }

  /// The grammar lines of the comment (between its first `//` blank line and "Step forms").
  static func commentGrammar(_ source: String) -> [String] {
    let lines = commentLines(source)
    guard let first = lines.firstIndex(of: ""), let forms = lines.firstIndex(where: { $0.hasPrefix("Step forms") })
    else { return [] }
    return lines[(first + 1)..<forms].dropLast().map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : $0 }
  }

  /// The step forms the comment lists: entries start with `  - `, continuation lines are indented deeper.
  static func commentForms(_ source: String) -> [String] {
    var forms: [String] = []
    var current: String?
    for line in commentLines(source) {
      if line.hasPrefix("  - ") {
        if let current { forms.append(current) }
        current = String(line.dropFirst(4))
      } else if line.hasPrefix("      "), current != nil {
        current! += " " + line.trimmingWhitespace()
      } else {
        if let current { forms.append(current) }
        current = nil
      }
    }
    if let current { forms.append(current) }
    return forms
  }

  /// The leading `//` comment block of the file, `// ` stripped (blank comment lines become "").
  static func commentLines(_ source: String) -> [String] {
    var result: [String] = []
    var started = false
    for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("//") && !line.hasPrefix("///") {
        started = true
        result.append(line == "//" ? "" : String(line.dropFirst(3)))
      } else if started {
        break
      }
    }
    return result
  }

  /// The lines of the fenced code paragraph in the docs that contains `line`: from it to the next blank line.
  static func paragraph(containing line: String, in docs: String) -> [String]? {
    let lines = docs.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var inCode = false
    for (index, text) in lines.enumerated() {
      if text.hasPrefix("```") {
        inCode.toggle()
        continue
      }
      guard inCode, text == line else { continue }
      var end = index + 1
      while end < lines.count, !lines[end].isEmpty, !lines[end].hasPrefix("```") { end += 1 }
      return Array(lines[index..<end])
    }
    return nil
  }
}

/// The name of each step and expectation case, for the docs' coverage check. The switches are exhaustive: a new
/// case does not compile until it is named here (the switch is exhaustive, expectations included) — and then the
/// test wants an example in the docs.
enum CaseNames {
  static func of(_ kind: StepKind) -> [String] {
    switch kind {
    case .install: ["install"]
    case .uninstall: ["uninstall"]
    case .policy: ["policy"]
    case .clockSet: ["clockSet"]
    case .clockAdvance: ["clockAdvance"]
    case .timeZone: ["timeZone"]
    case .sourceOrder: ["sourceOrder"]
    case .syncMode: ["syncMode"]
    case .request: ["request"]
    case .save(_, _, let specs): [specs.count > 1 ? "save plus" : "save"]
    case .saveCorrelation: ["saveCorrelation"]
    case .saveRandom: ["saveRandom"]
    case .resave: ["resave"]
    case .delete: ["delete"]
    case .deleteAll: ["deleteAll"]
    case .answer: ["answer"]
    case .settings: ["settings"]
    case .watchSettings: ["watchSettings"]
    case .link: ["link"]
    case .waitSynced: ["waitSynced"]
    case .kill: ["kill"]
    case .stop: ["stop"]
    case .restart: ["restart"]
    case .tearJournal: ["tearJournal"]
    case .cutJournal: ["cutJournal"]
    case .expect(.shareStatus): ["shareStatus"]
    case .expect(.hiddenRead): ["hiddenRead"]
    case .expect(.requestStatus): ["requestStatus"]
    case .expect(.lastCall): ["lastCall"]
    case .expect(.sheetShown): ["sheetShown"]
    case .expect(.noSheet): ["noSheet"]
    case .expect(.pendingSheets): ["pendingSheets"]
    case .expect(.lockedOut): ["lockedOut"]
    case .expect(.seesCount): ["seesCount"]
    case .expect(.seesCorrelations): ["seesCorrelations"]
    case .expect(.seesTotal): ["seesTotal"]
    case .expect(.seesSamples): ["seesSamples"]
    case .expect(.sampleQuery): ["sampleQuery"]
    case .expect(.statistic(_, _, .bySource)): ["statistic by source"]
    case .expect(.statistic(_, _, .value)): ["statistic"]
    case .expect(.statistic(_, _, .failure)): ["statistic outcome"]
    case .expect(.settingsRefused): ["settingsRefused"]
    case .expect(.clock): ["clock"]
    case .expect(.collection(_, _, .buckets)): ["collection"]
    case .expect(.collection(_, _, .failure)): ["collection outcome"]
    case .expect(.sheetHistory): ["sheetHistory"]
    case .expect(.changes): ["changes"]
    case .expect(.storeCount): ["storeCount"]
    case .expect(.storeHas): ["storeHas"]
    case .expect(.earliestPermitted): ["earliestPermitted"]
    case .expect(.converged): ["converged"]
    case .expect(.diverged): ["diverged"]
    case .expect(.linkUp): ["linkUp"]
    case .expect(.queriesFail): ["queriesFail"]
    case .expect(.syncConflicts): ["syncConflicts"]
    case .lock: ["lock"]
    case .userSetting: ["userSetting"]
    case .expect(.locked): ["locked"]
    case .expect(.waitingForUnlock): ["waitingForUnlock"]
    case .expect(.characteristic(_, _, _, .value)): ["characteristic"]
    case .expect(.characteristic(_, _, _, .fails)): ["characteristic fails"]
    case .expect(.preferredUnit): ["preferredUnit"]
    case .expect(.preferredUnitsFail): ["preferredUnitsFail"]
    case .background: ["background"]
    case .expect(.backgroundState): ["backgroundState"]
    case .expect(.backgroundCounts): ["backgroundCounts"]
    case .importExport: ["import"]
    case .exportStore: ["export"]
    case .expect(.lastImport): ["lastImport"]
    case .expect(.storeCountMatching): ["storeCountMatching"]
    case .expect(.onBoth(let phone, let watch)): ["expect on both"] + of(.expect(phone)) + of(.expect(watch))
    case .onBoth(let phone, let watch): ["step on both"] + of(phone) + of(watch)
    }
  }

  /// Every name the switches give; each must be shown by an example in the docs.
  static let all: [String] = [
    "install", "uninstall", "policy", "clockSet", "clockAdvance", "syncMode", "request", "save", "save plus",
    "saveRandom", "resave", "delete", "deleteAll", "answer", "settings", "watchSettings", "link", "waitSynced", "kill",
    "stop", "restart", "tearJournal", "cutJournal", "step on both", "shareStatus", "hiddenRead", "requestStatus",
    "lastCall", "sheetShown", "noSheet", "pendingSheets", "lockedOut", "seesCount", "seesTotal", "seesSamples",
    "sampleQuery", "statistic", "statistic by source", "statistic outcome", "settingsRefused", "clock", "collection",
    "collection outcome", "sheetHistory", "changes", "storeCount", "storeHas", "earliestPermitted", "converged",
    "diverged", "linkUp", "queriesFail", "syncConflicts", "expect on both", "lock", "userSetting", "locked",
    "waitingForUnlock", "characteristic", "characteristic fails", "preferredUnit", "preferredUnitsFail", "background",
    "backgroundState", "backgroundCounts", "timeZone", "sourceOrder", "import", "export", "lastImport",
    "storeCountMatching", "saveCorrelation", "seesCorrelations",
  ]
}

@Suite("Scenario language: docs and grammar agree")
struct LanguageDocsTests {
  /// What every docs example may refer to.
  static let preamble = """
    install Water on phone and watch share dietaryWater read dietaryWater
    install Return on phone and watch share mindfulSession read mindfulSession
    install Walker on phone share stepCount read stepCount
    install Counter on phone share stepCount
    install Pulse on phone share heartRate read heartRate
    install Empty on phone
    install Stranger on phone share dietaryWater
    install Profile on phone read bloodType dateOfBirth
    install Scale on phone share bodyMass read bodyMass
    install Tracker on phone and watch read stepCount dietaryWater with background delivery
    install BP on phone share bloodPressureSystolic bloodPressureDiastolic
    phone: Water saves 1 mL dietaryWater as drink
    phone: Water saves 1 mL dietaryWater as fromPhone
    watch: Water saves 1 mL dietaryWater as fromWatch

    """

  static let includes = IncludeLoader.files([
    "docs/shared/water-on-both.steps": "install Water on phone and watch share dietaryWater read dietaryWater\n"
  ])

  @Test func theGrammarCommentIsTheDocsGrammar() throws {
    let docs = LanguageDocs.docsGrammar(try read("docs/scenario-language.md"))
    let comment = LanguageDocs.commentGrammar(try read("Sources/ScenarioLanguage/Parser.swift"))
    #expect(docs.count > 10)
    #expect(comment == docs, "docs/scenario-language.md's Grammar block and Parser.swift's comment differ")
  }

  @Test func theCommentListsExactlyTheDocsStepForms() throws {
    let docs = LanguageDocs.docsForms(try read("docs/scenario-language.md"))
    let comment = LanguageDocs.commentForms(try read("Sources/ScenarioLanguage/Parser.swift"))
    #expect(docs.count >= 60)
    for form in docs where !comment.contains(form) { Issue.record("only in docs/scenario-language.md: \(form)") }
    for form in comment where !docs.contains(form) { Issue.record("only in Parser.swift's comment: \(form)") }
    #expect(comment == docs, "same forms, same order")
  }

  @Test func everyExampleParsesAndEveryStepHasOne() throws {
    let docs = try read("docs/scenario-language.md")
    let examples = LanguageDocs.docsExamples(docs)
    #expect(examples.count >= 60)
    let preambleLines = Self.preamble.split(separator: "\n", omittingEmptySubsequences: false).count - 1
    var covered: Set<String> = []
    for example in examples {
      let lines =
        example.hasSuffix(":") ? LanguageDocs.paragraph(containing: example, in: docs) ?? [example] : [example]
      let text = Self.preamble + lines.joined(separator: "\n") + "\nexpect link is up\n"
      switch ScenarioParser.parseAll(bytes: Array(text.utf8), file: "docs/example.scenario", loader: Self.includes) {
      case .failure(let diagnostics):
        Issue.record("the docs example '\(example)' does not parse:\n\(diagnostics)")
      case .success(let scenarios):
        let steps = scenarios[0].steps.filter {
          $0.location.file != "docs/example.scenario" || $0.location.line > preambleLines
        }.dropLast()
        let settings = ["scenario:", "seed "]
        if steps.isEmpty && !settings.contains(where: { example.hasPrefix($0) }) {
          Issue.record("the docs example '\(example)' gives no step")
        }
        for step in steps { covered.formUnion(CaseNames.of(step.kind)) }
      }
    }
    for name in CaseNames.all where !covered.contains(name) {
      Issue.record("no example in docs/scenario-language.md shows the parser's '\(name)'")
    }
    #expect(covered.isSubset(of: Set(CaseNames.all)), "\(covered.subtracting(CaseNames.all))")
  }
}

/// Parses `text` after the standard install line (file t.scenario, includes from `files`) and returns the
/// diagnostics' errors and positions.
private func diagnoseAll(_ text: String, files: [String: String] = [:]) -> [(ScenarioError, Int, Int)] {
  switch ScenarioParser.parseAll(bytes: Array((header + text).utf8), file: "t.scenario", loader: .files(files)) {
  case .success: return []
  case .failure(let d): return d.items.map { ($0.error, $0.location.line, $0.location.column) }
  }
}

@Suite("Scenario language: new forms and their diagnostics")
struct LanguageFormTests {
  static let statistics = StatisticKind.words

  static let cases: [ErrorCase] = [
    .init(
      source: "expect phone: Water sum of dietaryWater by dya from 08:00 to 09:00:\n  08:00 1 mL",
      error: .unknownStatus("dya", valid: ["hour", "day", "week", "month", "source"], suggestion: "day"), line: 2,
      column: 44),
    .init(
      source: "expect phone: Water sum of dietaryWater by day:\n  2026-01-05 1 mL",
      error: .expected("'from <time> to <time>' for a collection by day", found: ":"), line: 2, column: 47),
    .init(
      source: "expect phone: Water cumulativSum of dietaryWater is 1 mL",
      error: .unknownStatus("cumulativSum", valid: statistics, suggestion: "cumulativeSum"), line: 2, column: 21),
    .init(
      source: "expect phone: Water duration of dietaryWater is 5 mL",
      error: .incompatibleUnit(unit: "mL", type: "durations (use a time unit such as min)"), line: 2, column: 51),
    .init(
      source: "expect phone: Water sum of dietaryWater fails with errorNoDat",
      error: .unknownErrorCode("errorNoDat", suggestion: "errorNoData"), line: 2, column: 52),
    .init(
      source: "expect phone: Water sum of dietaryWater by source:\n  Watr 1 mL",
      error: .unknownApp("Watr", suggestion: "Water"), line: 3, column: 3),
    .init(
      source: "expect phone: Water sees dietaryWater sorted by startdat:\n  1 mL at 08:00",
      error: .unknownStatus("startdat", valid: ["startDate", "endDate"], suggestion: "startDate"), line: 2, column: 49),
    .init(
      source: "expect phone: Water sees 2 dietaryWater samples limit -1",
      error: .expected("a limit of 0 (no limit) or more", found: "-1"), line: 2, column: 55),
    .init(
      source: "expect phone: Water sees 2 dietaryWater samples with wasUserEntered",
      error: .expected("key=value or key!=value, such as HKMetadataKeyWasUserEntered=true", found: "wasUserEntered"),
      line: 2, column: 54),
    .init(
      source: "expect phone: Water's sample query of dietaryWater",
      error: .expected("'is no data', 'fails with <code>' or 'would terminate the app'", found: nil), line: 2,
      column: 51),
    .init(
      source: "expect phone: Water's last call failed with errorInvalidArgument deletion",
      error: .expected("a quoted message fragment such as \"not determined\"", found: "deletion"), line: 2,
      column: 66),
    .init(
      source: "expect phone: Water's last call faild",
      error: .unknownStatus(
        "faild", valid: ["succeeded", "failed", "would terminate the app", "is pending"], suggestion: "failed"),
      line: 2, column: 33),
    .init(
      source: "expect phone: Water's requests answerd 1",
      error: .unknownStatus("answerd", valid: ["showed", "answered", "cancelled"], suggestion: "answered"), line: 2,
      column: 32),
    .init(
      source: "expect phone: Water's requests showed 2 sheats", error: .expected("'sheets'", found: "sheats"), line: 2,
      column: 41),
    .init(
      source: "phone: Water saves 1 mL dietaryWater uuid 1234", error: .invalidUUID("1234"), line: 2, column: 43),
    .init(
      source: "phone: Water saves 1 mL dietaryWater wiht a=1",
      error: .unknownStatus("wiht", valid: ["at", "from", "for", "with", "uuid", "as", "plus"], suggestion: "with"),
      line: 2, column: 38),
    .init(
      source: "for device in phone, watch:\n  expect <devcie>: Water share dietaryWater is notDetermined",
      error: .unknownPlaceholder("devcie", suggestion: "device"), line: 3, column: 10),
    .init(
      source: "for device in:\n  expect <device>: Water share dietaryWater is notDetermined",
      error: .expected("values after 'in', such as phone, watch", found: ":"), line: 2, column: 14),
    .init(
      source: "for 1x in phone:\n  expect phone: Water share dietaryWater is notDetermined",
      error: .expected("a variable name such as device", found: "1x"), line: 2, column: 5),
    .init(source: "for device in phone, watch:", error: .emptyBlock, line: 2, column: 27),
    .init(
      source:
        "for device in phone:\n  for device in watch:\n    expect <device>: Water share dietaryWater is notDetermined",
      error: .duplicateVariable("device"), line: 3, column: 7),
    .init(
      source: "examples:\n  device | app\n  phone\nexpect <device>: Water share dietaryWater is notDetermined",
      error: .exampleRowWidth(expected: 2, found: 1), line: 4, column: 3),
    .init(
      source: "examples:\n  device\nexpect <device>: Water share dietaryWater is notDetermined",
      error: .expected("an example row under the header", found: nil), line: 3, column: 9),
    .init(
      source:
        "for device in phone:\n  examples:\n    x\n    y\n  expect phone: Water share dietaryWater is notDetermined",
      error: .misplaced("'examples:'", belongs: "it belongs at the top level of the scenario file"), line: 3,
      column: 3),
    .init(
      source: "include missing.steps", error: .includeNotFound("missing.steps", suggestion: nil), line: 2, column: 9),
    .init(
      source: "for device in phone:\n  seed 4\n  expect phone: Water share dietaryWater is notDetermined",
      error: .misplaced(
        "'seed'", belongs: "settings belong at the top level of the scenario file, not in an included file or a block"),
      line: 3, column: 3),
  ]

  @Test("Every new form's error is a typed diagnostic at the right spot", arguments: cases)
  func errorCase(_ c: ErrorCase) {
    let found = diagnoseAll(c.source + "\nexpect link is up")
    #expect(found.count == 1, "\(found)")
    guard let first = found.first else { return }
    #expect(first.0 == c.error)
    #expect(first.1 == c.line)
    #expect(first.2 == c.column)
  }

  @Test func everyNewDiagnosticSuggestsSomething() {
    // A name close to a valid one gets it; a form gets what to write instead.
    for c in Self.cases {
      let text = "\(c.error)"
      let helps =
        text.contains("did you mean") || text.contains("expected") || text.contains("not supported yet: ")
        || text.contains("belong") || text.contains("e.g.") || text.contains("header has")
        || text.contains("give this variable another name") || text.contains("bind it with") || text.contains("use a")
        || text.contains("needs at least one") || c.source.hasPrefix("include")
      #expect(helps, "\(c.source): \(text)")
    }
  }

  @Test func bothChecksEachDeviceForExpectationsAboutOneDevice() throws {
    let scenario = try ScenarioParser.parse(
      header + """
        expect both: Water's last call succeeded
        expect both: Water share dietaryWater is notDetermined
        user on both: allows all for Water
        """, file: "t.scenario"
    ).get()
    let water = SampleType.lookup(name: "dietaryWater")!
    #expect(
      scenario.steps[1].kind
        == .expect(
          .onBoth(
            phone: .lastCall(.phone, app: "Water", .succeeded), watch: .lastCall(.watch, app: "Water", .succeeded))))
    #expect(scenario.steps[2].kind == .expect(.shareStatus(.both, app: "Water", water, .notDetermined)))
    #expect(
      scenario.steps[3].kind
        == .onBoth(phone: .answer(.phone, .allowAll, app: "Water"), watch: .answer(.watch, .allowAll, app: "Water")))
    #expect(scenario.steps[3].lane == .both && scenario.steps[3].category == .user)
  }

  @Test func newFormsParseIntoTheirValues() throws {
    let scenario = try ScenarioParser.parse(
      header + """
        install Bottle on phone share dietaryWater
        expect phone: Water's last call failed with errorInvalidArgument "Failed to find" "deletion"
        expect phone: Water's last call failed
        expect phone: Water's last call would terminate the app "a" "b"
        expect phone: Water request status is unnecessary
        expect phone: Water sees dietaryWater from Bottle and Water sorted by endDate descending then startDate limit 3 with HKMetadataKeyWasUserEntered=true:
          1 mL at 08:00
        expect phone: Water sum of dietaryWater from 2026-01-04 to 2026-01-05 from Bottle is 2 L
        expect phone: Water's requests showed 2 sheets answered 1 and 1 presentation failed
        phone: Water saves 1 mL dietaryWater uuid 6f9619ff-8b86-4011-b42d-00c04fc964ff
        expect phone: Water request status for share appleExerciseTime would terminate the app with "disallowed"
        """, file: "t.scenario"
    ).get()
    let water = SampleType.lookup(name: "dietaryWater")!
    #expect(
      scenario.steps.last?.kind
        == .expect(
          .requestStatus(
            .one(.phone), app: "Water", share: [SampleType.lookup(name: "appleExerciseTime")!], read: [],
            .wouldTerminate(["disallowed"]))))
    #expect(
      scenario.steps[2].kind
        == .expect(
          .lastCall(.phone, app: "Water", .failed(.errorInvalidArgument, fragments: ["Failed to find", "deletion"]))))
    #expect(scenario.steps[3].kind == .expect(.lastCall(.phone, app: "Water", .failed(nil, fragments: []))))
    #expect(scenario.steps[4].kind == .expect(.lastCall(.phone, app: "Water", .wouldTerminate(["a", "b"]))))
    #expect(
      scenario.steps[5].kind
        == .expect(.requestStatus(.one(.phone), app: "Water", share: nil, read: nil, .status(.unnecessary))),
      "no types: the declaration on the device, when it runs")
    guard case .expect(.seesSamples(.phone, let query, _)) = scenario.steps[6].kind else {
      Issue.record("\(scenario.steps[6].kind)")
      return
    }
    #expect(query.sources == ["Bottle", "Water"])
    #expect(query.sort == [SampleSort(.endDate, ascending: false), SampleSort(.startDate, ascending: true)])
    #expect(query.limit == 3)
    #expect(query.metadata == [MetadataMatch(key: MetadataKey.wasUserEntered, value: .bool(true))])
    guard case .expect(.statistic(.phone, let stats, .value(2, _))) = scenario.steps[7].kind else {
      Issue.record("\(scenario.steps[7].kind)")
      return
    }
    #expect(stats.kind == .sum && stats.type == water && stats.sources == ["Bottle"])
    // A bare date after 'to' is the end of that day.
    #expect(stats.range?.end == .local(parseDate("2026-01-06")!))
    guard case .expect(.sheetHistory(.phone, "Water", let counts)) = scenario.steps[8].kind else {
      Issue.record("\(scenario.steps[8].kind)")
      return
    }
    #expect(counts.shown == 2 && counts.answered == 1 && counts.failed == 1 && counts.cancelled == nil)
    guard case .save(_, _, let specs) = scenario.steps[9].kind else { return }
    #expect(specs[0].uuid == UUID(uuidString: "6F9619FF-8B86-4011-B42D-00C04FC964FF"))
  }

  @Test func aForBlockRepeatsItsLinesWithTheValue() throws {
    let scenario = try ScenarioParser.parse(
      header + """
        for device in phone, watch:
          <device>: Water requests
          expect <device>: Water's request showed a sheet
        """, file: "t.scenario"
    ).get()
    #expect(scenario.steps.count == 5)
    #expect(scenario.steps[1].kind == .request(.phone, app: "Water", share: nil, read: nil))
    #expect(scenario.steps[3].kind == .request(.watch, app: "Water", share: nil, read: nil))
    #expect(scenario.steps[3].text == "watch: Water requests", "reports show the value")
    #expect(scenario.steps[3].location.line == 3, "and point at the line in the file")
  }

  @Test func anExamplesTableGivesOneScenarioPerRow() throws {
    let text = """
      scenario: Cancel
      examples:
        device | lockout
        phone  | is not locked out
        watch  | is locked out
      install Return on <device> share mindfulSession
      expect <device>: Return <lockout>
      """
    let scenarios = try ScenarioParser.parseAll(bytes: Array(text.utf8), file: "x/o.scenario").get()
    #expect(scenarios.count == 2)
    #expect(
      scenarios.map(\.title) == [
        "Cancel (device: phone, lockout: is not locked out)", "Cancel (device: watch, lockout: is locked out)",
      ])
    #expect(scenarios[1].steps[1].kind == .expect(.lockedOut(.one(.watch), app: "Return", true)))
    #expect(
      scenarios[0].example == [
        ExampleValue(name: "device", value: "phone"), ExampleValue(name: "lockout", value: "is not locked out"),
      ])
    let titled = try ScenarioParser.parseAll(
      bytes: Array(text.replacing("scenario: Cancel", with: "scenario: Cancel on the <device>").utf8),
      file: "o.scenario"
    ).get()
    #expect(titled.map(\.title) == ["Cancel on the phone", "Cancel on the watch"])
  }

  @Test func anErrorRepeatedByRowsOrIterationsIsReportedOnce() {
    let found = diagnoseAll(
      "for device in phone, watch:\n  expect <device>: Watr share dietaryWater is notDetermined\n")
    #expect(found.count == 1, "\(found)")
  }

  @Test func nestedBlocksCannotExpandForEver() {
    // Four nested blocks of ten values: ten thousand lines, over a budget of 2,000. The parser stops there with one
    // error (the default budget is larger; the arithmetic is the same).
    var text = header
    for depth in 0..<4 {
      text += String(repeating: "  ", count: depth) + "for v\(depth) in 0 1 2 3 4 5 6 7 8 9:\n"
    }
    text += String(repeating: "  ", count: 4) + "expect phone: Water share dietaryWater is notDetermined\n"
    guard case .failure(let d) = ScenarioParser.parseAll(bytes: Array(text.utf8), file: "t.scenario", budget: 2_000)
    else {
      Issue.record("expected an error")
      return
    }
    #expect(d.items.map(\.error) == [.expansionTooLarge(limit: 2_000)])
    #expect(ScenarioParser.lineBudget >= 100_000)
  }

  @Test func includesAreRelativeAndShareAppsAndNames() throws {
    let files = [
      "suite/shared/setup.steps":
        "install Water on phone share dietaryWater\nphone: Water saves 1 mL dietaryWater as drink\n",
      "suite/shared/more.steps": "include setup.steps\n",
    ]
    let text = "include shared/more.steps\nexpect phone: store has drink\n"
    let scenario = try ScenarioParser.parse(text, file: "suite/a.scenario", loader: .files(files)).get()
    #expect(scenario.steps.count == 3)
    #expect(scenario.steps[0].location.file == "suite/shared/setup.steps")
    #expect(scenario.apps["Water"] != nil)
  }

  @Test func anErrorInAnIncludedFilePointsIntoIt() {
    let files = ["suite/shared/setup.steps": "install Water on phone\nphone: Watr requests\n"]
    let text = "# set-up\ninclude shared/setup.steps\nexpect phone: Water is not locked out\n"
    guard case .failure(let d) = ScenarioParser.parse(text, file: "suite/a.scenario", loader: .files(files)) else {
      Issue.record("expected an error")
      return
    }
    #expect(d.items.count == 1)
    #expect(d.items[0].location == SourceLocation(file: "suite/shared/setup.steps", line: 2, column: 8))
    #expect(d.items[0].includedFrom == [SourceLocation(file: "suite/a.scenario", line: 2, column: 9)])
    #expect(
      d.description == """
        suite/shared/setup.steps:2:8: error: unknown app 'Watr': install it in an earlier step (did you mean 'Water'?)
        phone: Watr requests
               ^~~~
        suite/a.scenario:2:9: note: included from here
        """)
  }

  @Test func anIncludeCycleIsAnErrorWhereItCloses() {
    let files = [
      "s/a.steps": "include b.steps\n",
      "s/b.steps": "include ./a.steps\n",
    ]
    let text = "include a.steps\nexpect link is up\n"
    guard case .failure(let d) = ScenarioParser.parse(text, file: "s/main.scenario", loader: .files(files)) else {
      Issue.record("expected an error")
      return
    }
    #expect(d.items.count == 1)
    #expect(d.items[0].error == .includeCycle(["s/main.scenario", "s/a.steps", "s/b.steps", "s/a.steps"]))
    #expect(d.items[0].location == SourceLocation(file: "s/b.steps", line: 1, column: 9))
    #expect(d.items[0].includedFrom.map(\.file) == ["s/a.steps", "s/main.scenario"])
    // Including itself is the shortest cycle.
    guard
      case .failure(let own) = ScenarioParser.parse(
        "include main.scenario\nexpect link is up\n", file: "s/main.scenario", loader: .files(files))
    else { return }
    #expect(own.items.map(\.error) == [.includeCycle(["s/main.scenario", "s/main.scenario"])])
  }

  @Test func aMissingIncludeSuggestsTheNearestFile() {
    let found = diagnoseAll(
      "include shared/water-on-bth.steps\nexpect link is up", files: ["shared/water-on-both.steps": "seed 1\n"])
    #expect(found.map(\.0) == [.includeNotFound("shared/water-on-bth.steps", suggestion: "shared/water-on-both.steps")])
    let settings = diagnoseAll("include s.steps\nexpect link is up", files: ["s.steps": "scenario: x\n"])
    #expect(
      settings.map(\.0) == [
        .misplaced(
          "'scenario'",
          belongs: "settings belong at the top level of the scenario file, not in an included file or a block")
      ])
  }

  @Test func includePathsNormalise() {
    #expect(IncludeLoader.resolve("b.steps", from: "Scenarios/x/a.scenario") == "Scenarios/x/b.steps")
    #expect(IncludeLoader.resolve("../shared/./b.steps", from: "Scenarios/x/a.scenario") == "Scenarios/shared/b.steps")
    #expect(IncludeLoader.resolve("/abs/b.steps", from: "a.scenario") == "/abs/b.steps")
    #expect(IncludeLoader.resolve("b.steps", from: "a.scenario") == "b.steps")
    #expect(IncludeLoader.normalize("../../a") == "../../a")
  }

  @Test func aPlaceholderInQuotesIsLeftAlone() throws {
    let scenario = try ScenarioParser.parse(
      header + "expect phone: Water's last call would terminate the app with \"<unknown>\"\n", file: "t.scenario"
    ).get()
    #expect(scenario.steps[1].kind == .expect(.lastCall(.phone, app: "Water", .wouldTerminate(["<unknown>"]))))
  }

  @Test func metadataPredicatesBecomeTheDaemonsFilters() throws {
    let scenario = try ScenarioParser.parse(
      header + "expect phone: Water sees 1 dietaryWater samples with k=1 and HKMetadataKeyWasUserEntered!=true\n",
      file: "t.scenario"
    ).get()
    guard case .expect(.seesCount(_, let query, _)) = scenario.steps[1].kind else {
      Issue.record("\(scenario.steps[1].kind)")
      return
    }
    #expect(
      query.metadata.map(\.filter) == [
        .metadata(key: "k", .oneOf([.int(1)])),
        .metadata(key: MetadataKey.wasUserEntered, .compare(.notEqualTo, .bool(true))),
      ])
    for bad in ["k!=", "!=true", "=1"] {
      #expect(throws: (any Error).self) {
        let text = header + "expect phone: Water sees 1 dietaryWater samples with \(bad)\n"
        try ScenarioParser.parse(text, file: "t.scenario").get()
      }
    }
  }
}

@Suite("Scenario language: running the new forms")
struct LanguageRunTests {
  func scenario(_ text: String) throws -> Scenario {
    try ScenarioParser.parse(text, file: "Scenarios/t/x.scenario").get()
  }

  @Test func bothSaysWhichDeviceFailed() throws {
    let s = try scenario(
      """
      install Water on phone and watch share dietaryWater
      phone: Water requests
      user on phone: allows all
      watch: Water requests
      user on watch: cancels
      expect both: Water's last call succeeded
      """)
    let result = ScenarioRunner().run(s, seed: 1)
    guard case .failed(let f) = result.status else {
      Issue.record("the watch's call was cancelled")
      return
    }
    #expect(f.expected.contains("on the watch"), "\(f.expected)")
    #expect(f.actual.contains("errorUserCanceled"))
  }

  @Test func userOnBothSaysWhichDeviceHadNoSheet() throws {
    let s = try scenario(
      """
      install Water on phone and watch share dietaryWater
      phone: Water requests
      user on both: allows all
      expect phone: no sheet pending
      """)
    let result = ScenarioRunner().run(s, seed: 1)
    guard case .failed(let f) = result.status else {
      Issue.record("the watch had no sheet to answer")
      return
    }
    #expect(f.location.line == 3)
    #expect(f.expected.hasPrefix("watch: "), "\(f.expected)")
  }

  @Test func convergedComparesContentsNotOnlyIdentifiers() throws {
    let s = try scenario(
      """
      install Water on phone and watch share dietaryWater read dietaryWater
      phone: Water requests
      watch: Water requests
      user on both: allows all
      link: hold
      phone: Water saves 250 mL dietaryWater at 08:00 uuid 6F9619FF-8B86-4011-B42D-00C04FC964FF as drink
      watch: Water saves 100 mL dietaryWater at 08:00 with note=watch uuid 6F9619FF-8B86-4011-B42D-00C04FC964FF
      expect converged
      """)
    let result = ScenarioRunner().run(s, seed: 1)
    guard case .failed(let f) = result.status else {
      Issue.record("one identifier, two contents: not converged")
      return
    }
    #expect(f.actual.contains("drink differs (phone / watch): value 250 mL / 100 mL"), "\(f.actual)")
    #expect(f.actual.contains("metadata [] / [note=\"watch\"]"), "\(f.actual)")
    #expect(f.actual.contains("source com.example.water@phone / com.example.water@watch"), "\(f.actual)")
  }

  @Test func aWrongCountInTheSheetHistoryFails() throws {
    let s = try scenario(
      """
      install Water on phone share dietaryWater
      phone: Water requests
      user on phone: sheet fails to present
      expect phone: Water's requests showed 1 sheet, 0 presentations failed
      """)
    let result = ScenarioRunner().run(s, seed: 1)
    guard case .failed(let f) = result.status else {
      Issue.record("the presentation failed")
      return
    }
    #expect(f.actual == "showed 1 sheet, 1 presentation failed")
  }
}
