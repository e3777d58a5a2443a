import FoundationEssentials
import TestSupport
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Posix
@testable import Scenario
@testable import ScenarioLanguage

@Suite("Scenario language: for blocks, outlines and includes")
struct LanguageReuseTests {
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
}
