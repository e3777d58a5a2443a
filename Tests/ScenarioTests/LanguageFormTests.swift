import FoundationEssentials
import TestSupport
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Posix
@testable import Scenario
@testable import ScenarioLanguage

/// Parses `text` after the standard install line (file t.scenario, includes from `files`) and returns the
/// diagnostics' errors and positions.
func diagnoseAll(_ text: String, files: [String: String] = [:]) -> [(ScenarioError, Int, Int)] {
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
