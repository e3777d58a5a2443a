import FoundationEssentials
import TestSupport
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Posix
@testable import Scenario
@testable import ScenarioLanguage

private func read(_ relative: String) throws -> String { try Repository.read(relative) }

/// docs/scenario-language.md and the grammar comment of Sources/Tools/ScenarioLanguage/Parser.swift, read the way
/// the test compares them.
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
    case .requestFromExtension: ["requestFromExtension"]
    case .handleExtensions: ["handleExtensions"]
    case .save(_, _, let specs): [specs.count > 1 ? "save plus" : "save"]
    case .saveCorrelation: ["saveCorrelation"]
    case .saveRandom: ["saveRandom"]
    case .saveWorkout: ["saveWorkout"]
    case .saveRoute: ["saveRoute"]
    case .addToWorkout: ["addToWorkout"]
    case .deleteWorkout: ["deleteWorkout"]
    case .saveHeartbeatSeries: ["saveHeartbeatSeries"]
    case .saveAudiogram: ["saveAudiogram"]
    case .logStateOfMind: ["logStateOfMind"]
    case .logAssessment: ["logAssessment"]
    case .saveDocument: ["saveDocument"]
    case .requestDocuments: ["requestDocuments"]
    case .providerSends: ["providerSends"]
    case .savePrescription: ["savePrescription"]
    case .requestObjects: ["requestObjects"]
    case .answerObjects: ["answerObjects"]
    case .requestMedications: ["requestMedications"]
    case .addMedication: ["addMedication"]
    case .logDose: ["logDose"]
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
    case .expect(.seesMedications): ["seesMedications"]
    case .expect(.seesDoses): ["seesDoses"]
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
    case .expect(.seesWorkouts): ["seesWorkouts"]
    case .expect(.seesHeartbeatSeries): ["seesHeartbeatSeries"]
    case .expect(.seesElectrocardiograms): ["seesElectrocardiograms"]
    case .expect(.seesAudiograms): ["seesAudiograms"]
    case .expect(.seesStatesOfMind): ["seesStatesOfMind"]
    case .expect(.seesAssessments): ["seesAssessments"]
    case .expect(.seesDocuments): ["seesDocuments"]
    case .expect(.seesClinicalRecords): ["seesClinicalRecords"]
    case .expect(.seesPrescriptions): ["seesPrescriptions"]
    case .expect(.seesRoutes): ["seesRoutes"]
    case .expect(.workout(_, _, _, .statistic)), .expect(.workout(_, _, _, .noStatistic)): ["workout statistic"]
    case .expect(.workout(_, _, _, .samples)), .expect(.workout(_, _, _, .routes)),
      .expect(.workout(_, _, _, .events)), .expect(.workout(_, _, _, .eventsOfType)),
      .expect(.workout(_, _, _, .activities)):
      ["workout has"]
    case .expect(.workout(_, _, _, .leg)): ["workout activity"]
    case .expect(.workout): ["workout"]
    case .expect(.activitySummary): ["activitySummary"]
    case .expect(.activitySummaryQuery): ["activitySummaryQuery"]
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
    case .session(_, _, .start): ["sessionStart"]
    case .session(_, _, .prepare): ["sessionPrepare"]
    case .session(_, _, .call): ["sessionCall"]
    case .session(_, _, .finish): ["sessionFinish"]
    case .session(_, _, .runState): ["runState"]
    case .session(_, _, .mirror): ["sessionMirror"]
    case .session(_, _, .stopMirroring): ["sessionStopMirroring"]
    case .session(_, _, .send): ["sessionSend"]
    case .session(_, _, .startWatchApp): ["startWatchApp"]
    case .wearer(_, .effort): ["wearer effort"]
    case .wearer(_, .wrist): ["wearer wrist"]
    case .wearer(_, .recordECG): ["wearer records ECG"]
    case .expect(.session(_, _, _, .state)): ["session state"]
    case .expect(.session(_, _, _, .heard)): ["session heard"]
    case .expect(.session(_, _, _, .elapsed)): ["session elapsed"]
    case .expect(.session(_, _, _, .collected)): ["session collected"]
    case .expect(.session(_, _, _, .statistic)), .expect(.session(_, _, _, .noStatistic)): ["session statistic"]
    case .expect(.session(_, _, _, .builder)): ["session builder"]
    case .expect(.session(_, _, _, .type)): ["session type"]
    case .expect(.session(_, _, _, .received)): ["session received"]
    case .expect(.recovers): ["recovers"]
    case .expect(.onBoth(let phone, let watch)): ["expect on both"] + of(.expect(phone)) + of(.expect(watch))
    case .onBoth(let phone, let watch): ["step on both"] + of(phone) + of(watch)
    }
  }

  /// Every name the switches give; each must be shown by an example in the docs.
  static let all: [String] = [
    "install", "uninstall", "policy", "clockSet", "clockAdvance", "syncMode", "request", "save", "save plus",
    "saveRandom", "resave", "delete", "deleteAll", "answer", "settings", "watchSettings", "link", "waitSynced", "kill",
    "stop", "restart", "tearJournal", "cutJournal", "requestMedications", "addMedication", "logDose",
    "requestFromExtension", "handleExtensions",
    "seesMedications", "seesDoses", "step on both", "shareStatus", "hiddenRead", "requestStatus",
    "lastCall", "sheetShown", "noSheet", "pendingSheets", "lockedOut", "seesCount", "seesTotal", "seesSamples",
    "sampleQuery", "statistic", "statistic by source", "statistic outcome", "settingsRefused", "clock", "collection",
    "collection outcome", "sheetHistory", "changes", "storeCount", "storeHas", "earliestPermitted", "converged",
    "diverged", "linkUp", "queriesFail", "syncConflicts", "expect on both", "lock", "userSetting", "locked",
    "waitingForUnlock", "characteristic", "characteristic fails", "preferredUnit", "preferredUnitsFail", "background",
    "backgroundState", "backgroundCounts", "timeZone", "sourceOrder", "import", "export", "lastImport",
    "storeCountMatching", "saveCorrelation", "seesCorrelations", "saveWorkout", "saveRoute", "addToWorkout",
    "deleteWorkout", "saveHeartbeatSeries", "seesWorkouts", "seesHeartbeatSeries", "seesRoutes", "workout",
    "workout statistic",
    "workout has", "workout activity", "activitySummary",
    "activitySummaryQuery", "sessionStart", "sessionPrepare", "sessionCall", "sessionFinish", "runState",
    "wearer effort", "wearer wrist", "session state", "session heard", "session elapsed", "session collected",
    "session statistic", "session builder", "recovers", "sessionMirror", "sessionStopMirroring", "sessionSend",
    "session type", "session received", "startWatchApp", "wearer records ECG", "seesElectrocardiograms",
    "saveAudiogram", "seesAudiograms", "logStateOfMind", "seesStatesOfMind", "providerSends", "seesClinicalRecords",
    "savePrescription", "requestObjects", "answerObjects", "seesPrescriptions", "logAssessment", "seesAssessments",
    "saveDocument", "requestDocuments", "seesDocuments",
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
    install Rhythm on phone and watch read electrocardiogram
    install Hearing on phone and watch share audiogram read audiogram
    install Mood on phone and watch share stateOfMind read stateOfMind
    install Calm on phone and watch share GAD7 PHQ9 read GAD7 PHQ9
    install Clinic on phone share CDA read CDA
    install Records on phone read allergyRecord labResultRecord with health records
    install BP on phone share bloodPressureSystolic bloodPressureDiastolic
    install Optician on phone share visionPrescription
    install Reader on phone read visionPrescription
    install Runner on phone and watch share workout workoutRoute activeEnergyBurned heartRate read workout activitySummary
    watch: Runner saves workout running from 07:00 to 07:45 as morning
    watch: Runner starts a workout session running outdoor as run
    phone: Water saves 1 mL dietaryWater as drink
    phone: Water saves 1 mL dietaryWater as fromPhone
    watch: Water saves 1 mL dietaryWater as fromWatch
    phone: Optician saves glasses prescription right sphere -2 as specs
    user on phone: adds medication "Levothyroxine 50 mcg" scheduled as levo

    """

  static let includes = IncludeLoader.files([
    "docs/shared/water-on-both.steps": "install Water on phone and watch share dietaryWater read dietaryWater\n"
  ])

  @Test func theGrammarCommentIsTheDocsGrammar() throws {
    let docs = LanguageDocs.docsGrammar(try read("docs/scenario-language.md"))
    let comment = LanguageDocs.commentGrammar(try read("Sources/Tools/ScenarioLanguage/Parser.swift"))
    #expect(docs.count > 10)
    #expect(comment == docs, "docs/scenario-language.md's Grammar block and Parser.swift's comment differ")
  }

  @Test func theCommentListsExactlyTheDocsStepForms() throws {
    let docs = LanguageDocs.docsForms(try read("docs/scenario-language.md"))
    let comment = LanguageDocs.commentForms(try read("Sources/Tools/ScenarioLanguage/Parser.swift"))
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
