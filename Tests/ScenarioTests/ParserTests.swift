import FoundationEssentials
import TestSupport
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Posix
@testable import Scenario
@testable import ScenarioLanguage

let header = "install Water on phone and watch share dietaryWater read dietaryWater\n"

/// Parses `text` (after a standard install line) and returns the diagnostics' errors and positions.
func diagnose(_ text: String) -> [(ScenarioError, Int, Int)] {
  switch ScenarioParser.parse(header + text, file: "t.scenario") {
  case .success: return []
  case .failure(let d): return d.items.map { ($0.error, $0.location.line, $0.location.column) }
  }
}

struct ErrorCase: Sendable, CustomTestStringConvertible {
  let source: String
  let error: ScenarioError
  let line: Int
  let column: Int
  var testDescription: String { source }
}

@Suite("Scenario parser")
struct ParserTests {
  static let cases: [ErrorCase] = [
    // Syntactic.
    .init(source: "usr on phone: allows all", error: .unknownStep("usr", suggestion: "user"), line: 2, column: 1),
    .init(source: "phone Water requests", error: .expected("':'", found: "Water"), line: 2, column: 7),
    .init(source: "phone: Water saves 250 mL dietaryWater as \"open", error: .unterminatedString, line: 2, column: 43),
    .init(source: "wait until synced please", error: .unexpectedWords("please"), line: 2, column: 19),
    .init(source: "kill -9 phone now", error: .unexpectedWords("now"), line: 2, column: 15),
    .init(source: "expect phone: Water sees dietaryWater:", error: .emptyBlock, line: 2, column: 38),
    .init(source: "  250 mL at 08:00", error: .strayIndentedLine, line: 2, column: 3),
    .init(source: "link: teleport", error: .unknownStep("teleport", suggestion: nil), line: 2, column: 7),
    // Semantic.
    .init(source: "phone: Watr requests", error: .unknownApp("Watr", suggestion: "Water"), line: 2, column: 8),
    .init(
      source: "phone: Water requests share dietaryWatr", error: .unknownType("dietaryWatr", suggestion: "dietaryWater"),
      line: 2, column: 29),
    .init(
      source: "phone: Water requests read restingHeartRat",
      error: .unknownType("restingHeartRat", suggestion: "restingHeartRate"), line: 2, column: 28),
    .init(
      source: "phone: Water saves 5 mmol<abc>/L bloodGlucose",
      error: .invalidUnit(
        "mmol<abc>/L",
        reason: "molar mass 'abc' at offset 5 must be a positive number of grams per mole, as in "
          + "mol<180.15588000005408>", suggestion: nil), line: 2, column: 22),
    .init(
      source: "phone: Water saves unbearable headache",
      error: .unknownCategoryValue(
        "unbearable", type: "headache", valid: ["unspecified", "notPresent", "mild", "moderate", "severe"]),
      line: 2, column: 20),
    .init(
      source: "phone: Water saves 250 mLL dietaryWater",
      error: .invalidUnit("mLL", reason: "unknown unit 'mLL' at offset 0", suggestion: "mL"), line: 2, column: 24),
    .init(
      source: "expect tablet: Water share dietaryWater is notDetermined",
      error: .unknownDevice("tablet", suggestion: nil), line: 2, column: 8),
    .init(source: "phone: Water saves many mL dietaryWater", error: .invalidNumber("many"), line: 2, column: 20),
    .init(source: "phone: Water saves 250 mL dietaryWater at noon", error: .invalidDate("noon"), line: 2, column: 43),
    .init(source: "clock: advance soon", error: .invalidDuration("soon"), line: 2, column: 16),
    .init(
      source: "phone: Water saves asleep sleepAnalysis",
      error: .unknownCategoryValue(
        "asleep", type: "sleepAnalysis",
        valid: ["inBed", "asleepUnspecified", "awake", "asleepCore", "asleepDeep", "asleepREM"]),
      line: 2, column: 20),
    .init(
      source: "expect phone: Water share dietaryWater is sharingAuthorised",
      error: .unknownStatus(
        "sharingAuthorised", valid: ["notDetermined", "sharingDenied", "sharingAuthorized"],
        suggestion: "sharingAuthorized"),
      line: 2, column: 43),
    .init(
      source: "expect phone: Water's last call failed with errorAuthorisationDenied",
      error: .unknownErrorCode("errorAuthorisationDenied", suggestion: "errorAuthorizationDenied"), line: 2, column: 45),
    .init(source: "phone: Water deletes drnk", error: .unknownSampleName("drnk", suggestion: nil), line: 2, column: 22),
    .init(source: "install Water as com.other on phone", error: .conflictingApp("Water"), line: 2, column: 9),
    .init(
      source: "user on watch: in the Watch app resets Water", error: .phoneOnly("the iPhone's Watch app"), line: 2,
      column: 33),
    .init(source: "seed minus-one", error: .invalidSeed("minus-one"), line: 2, column: 6),
    // The device lock and the Health app.
    .init(
      source: "user on phone: sets bloodType to B+",
      error: .unknownCategoryValue(
        "B+", type: "bloodType",
        valid: [
          "notSet", "aPositive", "aNegative", "bPositive", "bNegative", "abPositive", "abNegative", "oPositive",
          "oNegative",
        ]),
      line: 2, column: 34),
    .init(
      source: "user on phone: sets date of birth 1990-02-30", error: .invalidDate("1990-02-30"), line: 2, column: 35),
    .init(
      source: "user on phone: sets dietaryWater 3",
      error: .expected("a characteristic type (dateOfBirth, biologicalSex, bloodType, …)", found: "dietaryWater"),
      line: 2, column: 21),
    .init(
      source: "user on phone: prefers kg for dietaryWater", error: .incompatibleUnit(unit: "kg", type: "dietaryWater"),
      line: 2, column: 31),
    .init(
      source: "policy phone: units imperial",
      error: .unknownStatus("imperial", valid: ["us", "metric", "uk"], suggestion: nil), line: 2, column: 21),
    .init(source: "lock tablet", error: .unknownDevice("tablet", suggestion: nil), line: 2, column: 6),
    .init(
      source: "expect phone: 2 samples wait forever", error: .expected("'wait for unlock'", found: "wait"), line: 2,
      column: 25),
    // Background delivery and entitlements.
    .init(
      source: "phone: Water enables background delivery of dietaryWater hourli",
      error: .unknownStatus("hourli", valid: ["immediate", "hourly", "daily", "weekly"], suggestion: "hourly"), line: 2,
      column: 58),
    .init(
      source: "install Tracker on phone with background deliveries",
      error: .expected("'background delivery' or 'health records'", found: "background"), line: 2, column: 31),
    .init(
      source: "expect phone: Water's background delivery of dietaryWater is of",
      error: .unknownStatus("of", valid: ["on", "off", "stopped", "waiting"], suggestion: "on"), line: 2, column: 62),
    .init(
      source: "expect phone: Water's background deliveries of dietaryWater: 1 woken, 0 done, 0 missed",
      error: .expected("'completed'", found: "done"), line: 2, column: 73),
    .init(
      source: "phone: Water completes background delivery of dietaryWatr",
      error: .unknownType("dietaryWatr", suggestion: "dietaryWater"), line: 2, column: 47),
    .init(
      source: "clock: time zone Europe/Pariss", error: .unknownTimeZone("Europe/Pariss", suggestion: "Europe/Paris"),
      line: 2, column: 18),
    .init(source: "travel watch to Mars", error: .unknownTimeZone("Mars", suggestion: nil), line: 2, column: 17),
    .init(
      source: "user on watch: in Health orders dietaryWater sources Water",
      error: .phoneOnly("the Health app's data sources"), line: 2, column: 26),
  ]

  @Test func backgroundDeliveryStepsAndExpectationsParse() throws {
    let text =
      header + """
        install Tracker on phone read dietaryWater with background delivery and health records
        phone: Tracker enables background delivery of dietaryWater
        phone: Tracker enables background delivery of stepCount weekly
        policy both: background window 5m retry 10m
        phone: Tracker completes the background delivery of dietaryWater
        phone: Tracker disables background delivery of stepCount
        phone: Tracker disables all background delivery
        expect phone: Tracker's background delivery of dietaryWater is on hourly
        expect phone: Tracker's background deliveries of dietaryWater: 3 woken, 1 completed, 2 missed

        """
    let scenario = try ScenarioParser.parse(text, file: "t.scenario").get()
    #expect(scenario.apps["Tracker"]?.entitlements == [.backgroundDelivery, .healthRecords])
    let water = SampleType.lookup(name: "dietaryWater")!
    let steps = SampleType.lookup(name: "stepCount")!
    #expect(
      scenario.steps.dropFirst(2).map(\.kind) == [
        .background(.phone, app: "Tracker", .enable(water, .immediate)),
        .background(.phone, app: "Tracker", .enable(steps, .weekly)),
        .policy(
          .both, reprompt: nil, retention: nil,
          background: BackgroundDeliveryModel(responseWindow: 300, retryDelay: 600)),
        .background(.phone, app: "Tracker", .complete(water)),
        .background(.phone, app: "Tracker", .disable(steps)),
        .background(.phone, app: "Tracker", .disable(nil)),
        .expect(.backgroundState(.one(.phone), app: "Tracker", water, .on(.hourly))),
        .expect(.backgroundCounts(.one(.phone), app: "Tracker", water, woken: 3, completed: 1, missed: 2)),
      ])
  }

  @Test("Every error case is a typed diagnostic at the right spot", arguments: cases)
  func errorCase(_ c: ErrorCase) {
    let found = diagnose(c.source)
    #expect(found.count == 1, "\(found)")
    guard let first = found.first else { return }
    #expect(first.0 == c.error)
    #expect(first.1 == c.line)
    #expect(first.2 == c.column)
  }

  @Test func everyErrorInAFileIsReportedInOrder() {
    let found = diagnose(
      "usr on phone: allows all\nphone: Watr requests\nexpect phone: Water share stepCount is nope\n")
    #expect(found.map(\.1) == [2, 3, 4])
    #expect(
      found.map(\.0) == [
        .unknownStep("usr", suggestion: "user"), .unknownApp("Watr", suggestion: "Water"),
        .unknownStatus("nope", valid: ["notDetermined", "sharingDenied", "sharingAuthorized"], suggestion: nil),
      ])
  }

  /// An install line that fails after its app's name still declares the app: the lines using it report nothing more.
  @Test func aBrokenInstallLineDoesNotCascade() {
    let found = diagnose(
      "install Tea on phon share dietaryWater\nphone: Tea requests\nexpect phone: Tea share dietaryWater is nope\n")
    #expect(found.map(\.1) == [2, 4])
    #expect(found.first?.0 == .unknownDevice("phon", suggestion: "phone"))
  }

  @Test func renderedDiagnosticsGolden() {
    guard
      case .failure(let diagnostics) = ScenarioParser.parse(
        "phone: Watr requests share dietaryWatr\n", file: "Scenarios/x.scenario")
    else {
      Issue.record("expected errors")
      return
    }
    #expect(
      diagnostics.description == """
        Scenarios/x.scenario:1:8: error: unknown app 'Watr': install it in an earlier step
        phone: Watr requests share dietaryWatr
               ^~~~
        """)
  }

  @Test func aScenarioParsesIntoTypedSteps() throws {
    let text = """
      scenario: Example: with a colon
      seed 7
      install Return as com.acme.return on watch share mindfulSession without read description
      watch: Return requests
      user on watch: allows share mindfulSession for Return
      watch: Return saves notApplicable mindfulSession from 08:00 for 10m with HKMetadataKeyWasUserEntered=true as s1
      expect watch: Return sees mindfulSession:
        notApplicable at 08:00 from Return on watch
      expect diverged:
        only on watch: s1
      """
    let scenario = try ScenarioParser.parse(text, file: "dir/topic/example.scenario").get()
    #expect(scenario.title == "Example: with a colon")
    #expect(scenario.seed == 7)
    #expect(scenario.group == "topic")
    let app = try #require(scenario.apps["Return"])
    #expect(app.bundleID == "com.acme.return" && app.hasWriteDescription && !app.hasReadDescription)
    #expect(scenario.steps.count == 6)
    let mindful = SampleType.lookup(name: "mindfulSession")!
    #expect(scenario.steps[1].kind == .request(.watch, app: "Return", share: nil, read: nil))
    #expect(scenario.steps[2].kind == .answer(.watch, .choices([Permission(mindful, .share): true]), app: "Return"))
    guard case .save(.watch, "Return", let specs) = scenario.steps[3].kind else {
      Issue.record("save")
      return
    }
    #expect(specs[0].start == .timeOfDay(seconds: 8 * 3600))
    #expect(specs[0].end == .duration(600))
    #expect(specs[0].metadata == [MetadataKey.wasUserEntered: .bool(true)])
    #expect(specs[0].name == "s1")
    guard case .expect(.seesSamples(.watch, let query, let lines)) = scenario.steps[4].kind else {
      Issue.record("block")
      return
    }
    #expect(query == SampleQuerySpec(app: "Return", type: mindful))
    #expect(lines.count == 1 && lines[0].device == .watch && lines[0].location.line == 8)
    #expect(scenario.steps[5].kind == .expect(.diverged([Divergence(onlyOn: .watch, names: ["s1"])])))
  }

  @Test func timeZonesSourceOrdersAndLocalTimesParse() throws {
    let text = """
      clock: time zone Europe/Paris
      travel watch to UTC+05:30
      clock: set 2026-03-29T09:30
      clock: set 2026-03-29T09:30Z
      user on phone: in Health orders dietaryWater sources Water on watch, Water
      user on phone: in Health orders dietaryWater sources by default
      expect phone: Water monthly sum of dietaryWater from 2026-01-01 to 2026-02-01:
        2026-01-01 none
        2026-02-01 none
      """
    let steps = try ScenarioParser.parse(header + text, file: "t.scenario").get().steps.map(\.kind)
    let water = SampleType.lookup(name: "dietaryWater")!
    #expect(steps[1] == .timeZone(.both, try TimeZoneRule(identifier: "Europe/Paris")))
    #expect(steps[2] == .timeZone(.one(.watch), try TimeZoneRule(identifier: "UTC+05:30")))
    #expect(steps[3] == .clockSet(.local(parseDate("2026-03-29T09:30")!)))
    #expect(steps[4] == .clockSet(.absolute(parseDate("2026-03-29T09:30")!)))
    let both = [SourceSpec(app: "Water", device: .watch), SourceSpec(app: "Water", device: nil)]
    #expect(steps[5] == .sourceOrder(.phone, water, both))
    #expect(steps[6] == .sourceOrder(.phone, water, []))
    guard case .expect(.collection(.phone, let spec, .buckets(let buckets))) = steps[7] else {
      Issue.record("monthly")
      return
    }
    #expect(spec.interval.calendarInterval == CalendarInterval(months: 1) && buckets.count == 2)
    // Dates without Z are the device's local ones: a bare end date is its local day's end.
    #expect(spec.range.start == .local(parseDate("2026-01-01")!))
    #expect(spec.range.end == .local(parseDate("2026-02-02")!))
  }

  @Test func theScenarioLibraryParses() throws {
    let loaded = Suite.load([scenariosDirectory])
    #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics.map(\.description).joined(separator: "\n"))")
    #expect(loaded.scenarios.count >= 40)
    #expect(
      Set(loaded.scenarios.map(\.group)).isSuperset(of: [
        "phone-authorization", "watch-reprompting", "read-privacy", "revocation", "sync-and-divergence",
        "faults-and-recovery",
        "watch-retention", "invalid-calls",
      ]))
  }
}

/// The repository's Scenarios/ directory, found from this file's path.
let scenariosDirectory = Repository.path("Scenarios")

@Suite("Behaviour rules and scenarios")
struct RuleCoverageTests {
  /// (rule id, scenario paths) for each row of docs/behavior.md.
  static func rules() throws -> [(String, [String])] {
    let path =
      scenariosDirectory.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
      + "/docs/behavior.md"
    let text = String(decoding: try Posix.readFile(path), as: UTF8.self)
    return text.split(separator: "\n").compactMap { line -> (String, [String])? in
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace() }
      guard cells.count >= 5, cells[1].count <= 3, let first = cells[1].first, first.isUppercase,
        cells[1].dropFirst().allSatisfy(\.isNumber),
        !cells[1].isEmpty
      else { return nil }
      let refs = cells[cells.count - 2].split(separator: ",").map {
        String($0).trimmingWhitespace().filter { $0 != "`" }
      }.filter { !$0.isEmpty }
      return (cells[1], refs)
    }
  }

  @Test func everyRuleNamesAnExistingScenarioAndEveryScenarioProvesARule() throws {
    let rules = try Self.rules()
    #expect(rules.count >= 50)
    let files = Set(
      Suite.load([scenariosDirectory]).scenarios.map { file in
        String(file.file.dropFirst(scenariosDirectory.count + 1).dropLast(".scenario".count))
      })
    for (id, refs) in rules {
      #expect(!refs.isEmpty, "rule \(id) names no scenario")
      for ref in refs { #expect(files.contains(ref), "rule \(id) names \(ref), which does not exist") }
    }
    let proved = Set(rules.flatMap(\.1))
    for file in files.sorted() { #expect(proved.contains(file), "\(file) proves no rule in docs/behavior.md") }
  }
}
