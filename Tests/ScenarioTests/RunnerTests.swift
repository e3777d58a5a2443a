import FoundationEssentials
import FoundationXML
import Testing

@testable import HealthModel
@testable import Posix
@testable import Render
@testable import Scenario
@testable import ScenarioLanguage

@Suite("Scenario runner and reports")
struct RunnerTests {
  func scenario(_ text: String, file: String = "Scenarios/demo/t.scenario") throws -> Scenario {
    try ScenarioParser.parse(text, file: file).get()
  }

  @Test func aPassingScenarioPassesAgainstRealDaemons() throws {
    let s = try scenario(
      """
      install Return on phone and watch share mindfulSession
      watch: Return requests
      user on watch: doesn't allow
      expect watch: Return is locked out
      phone: Return requests
      user on phone: allows all
      phone: Return saves notApplicable mindfulSession from 08:00 for 10m as s
      wait until synced
      expect watch: store has s
      """)
    let result = ScenarioRunner().run(s, seed: 3)
    #expect(result.passed, "\(result.status)")
    #expect(result.stepsRun == 9)
    #expect(result.expectationsRun == 2)
  }

  @Test func aFailingStepReportsWhereWhatAndBothDevices() throws {
    let s = try scenario(
      """
      install Water on phone share dietaryWater
      phone: Water requests
      user on phone: doesn't allow
      expect phone: Water share dietaryWater is sharingAuthorized
      expect phone: Water share dietaryWater is sharingDenied
      """)
    let result = ScenarioRunner().run(s, seed: 9)
    guard case .failed(let f) = result.status else {
      Issue.record("expected a failure")
      return
    }
    #expect(f.location.line == 4)
    #expect(f.expected.contains("sharingAuthorized"))
    #expect(f.actual == "sharingDenied")
    #expect(f.phone.contains { $0.contains("dietaryWater share=sharingDenied") })
    #expect(!f.watch.isEmpty)
    #expect(result.stepsRun == 4, "nothing after the failure runs")
    #expect(result.expectationsRun == 1, "the failed expectation counts")
    #expect(result.reproduce == "healthpair run Scenarios/demo/t.scenario --seed 9")
  }

  @Test func theSameSeedGivesTheSameRun() throws {
    // Seeded values and times; sync under the runner's control, so the whole state is reproducible.
    let s = try scenario(
      """
      install Water on phone and watch share dietaryWater read dietaryWater
      sync: manual
      phone: Water requests
      user on phone: allows all
      phone: Water saves 5 random dietaryWater samples over 1d
      wait until synced
      expect phone: Water sees dietaryWater:
        1 mL at 08:00
      """)
    let a = ScenarioRunner().run(s, seed: 42)
    let b = ScenarioRunner().run(s, seed: 42)
    let c = ScenarioRunner().run(s, seed: 43)
    guard case .failed(let fa) = a.status, case .failed(let fb) = b.status, case .failed(let fc) = c.status else {
      Issue.record("the expectation is wrong on purpose")
      return
    }
    #expect(fa.actual.split(separator: "\n").count == 5)
    #expect(fa.actual == fb.actual, "same seed, same samples")
    #expect(fa.phone == fb.phone && fa.watch == fb.watch, "same seed, same state on both devices")
    #expect(fa.actual != fc.actual, "another seed, other samples")
  }

  @Test func theWholeScenarioLibraryPasses() async throws {
    // On a thread of its own: the run blocks for seconds, and Swift's cooperative pool has one thread per core.
    let (loaded, results) = try await Posix.onOwnThread {
      let loaded = Suite.load([scenariosDirectory])
      return (loaded, Suite.run(loaded.scenarios, seed: 1, jobs: 2, runner: ScenarioRunner()))
    }
    #expect(loaded.diagnostics.isEmpty)
    let report = Reports.human(results, seed: 1, jobs: 2, elapsed: 0, style: Style(enabled: false))
    let allPassed = results.allSatisfy { $0.passed }
    #expect(allPassed, "\(report)")
  }

  @Test func aScenarioWithoutExpectationsNeverPasses() {
    // Built by hand (the parser refuses such files): the runner refuses it too, before launching anything.
    let location = SourceLocation(file: "x.scenario", line: 1, column: 1)
    let step = Step(kind: .waitSynced(timeout: 1), location: location, text: "wait")
    let s = Scenario(file: "x.scenario", title: "x", seed: nil, steps: [step], apps: [:], group: ".")
    let result = ScenarioRunner(daemon: "/nonexistent/healthpaird").run(s, seed: 1)
    guard case .failed(let f) = result.status else {
      Issue.record("a scenario that checks nothing passed")
      return
    }
    #expect(f.expected == "at least one expectation")
    #expect(result.stepsRun == 0 && result.expectationsRun == 0)
  }

  @Test func jsonCarriesEveryUInt64Exactly() {
    #expect(JSON.unsigned(.max).render() == "18446744073709551615")
    #expect(JSON.object([("seed", .unsigned(1 << 63))]).render(pretty: false) == "{\"seed\":9223372036854775808}")
    #expect(JSON.unsigned(0) == .unsigned(0) && JSON.unsigned(1) != .unsigned(2))
  }

  // MARK: Reports (golden)

  static let results: [ScenarioResult] = [
    ScenarioResult(
      file: "Scenarios/a/ok.scenario", title: "It works", group: "a", seed: 1, status: .passed, duration: 0.012,
      stepsRun: 3, expectationsRun: 1),
    ScenarioResult(
      file: "Scenarios/b/bad.scenario", title: "It <fails> & \"shows\"", group: "b", seed: .max,
      status: .failed(
        ScenarioFailure(
          location: SourceLocation(file: "Scenarios/b/bad.scenario", line: 7, column: 1),
          step: "expect phone: Water share dietaryWater is sharingAuthorized", expected: "sharingAuthorized",
          actual: "sharingDenied",
          phone: ["app      com.example.water"], watch: ["apps     (none)"])),
      duration: 0.02, stepsRun: 7, expectationsRun: 4),
  ]

  @Test func humanReportGolden() {
    let text = Reports.human(Self.results, seed: 5, jobs: 2, elapsed: 1.234, style: Style(enabled: false))
    #expect(
      text == """
        ✔ a  It works              3 steps, 1 expectation   12 ms
        ✘ b  It <fails> & "shows"  7 steps, 4 expectations  20 ms

        FAILED  Scenarios/b/bad.scenario:7  It <fails> & "shows"
          step      expect phone: Water share dietaryWater is sharingAuthorized
          expected  sharingAuthorized
          actual    sharingDenied
          state
            phone                      | watch
            ---------------------------+----------------
            app      com.example.water | apps     (none)
          reproduce healthpair run Scenarios/b/bad.scenario --seed 18446744073709551615

        2 scenarios, 10 steps, 5 expectations: 1 passed, 1 failed in 1.23 s (seed 5, 2 jobs)

        """)
  }

  @Test func junitReportGoldenAndWellFormed() throws {
    let xml = Reports.junit(Self.results, elapsed: 1.234)
    #expect(
      xml.hasPrefix(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <testsuites name="healthpair" tests="2" failures="1" errors="0" time="1.234">
          <testsuite name="a" tests="1" failures="0" errors="0" skipped="0" time="0.012">
            <testcase classname="a" name="It works" file="Scenarios/a/ok.scenario" time="0.012">
              <properties>
                <property name="steps" value="3"/>
                <property name="expectations" value="1"/>
              </properties>
            </testcase>
          </testsuite>
          <testsuite name="b" tests="1" failures="1" errors="0" skipped="0" time="0.020">
            <testcase classname="b" name="It &lt;fails&gt; &amp; &quot;shows&quot;" file="Scenarios/b/bad.scenario" time="0.020">
              <properties>
                <property name="steps" value="7"/>
                <property name="expectations" value="4"/>
              </properties>
              <failure message="Scenarios/b/bad.scenario:7: expect phone: Water share dietaryWater is sharingAuthorized: expected sharingAuthorized, actual sharingDenied" type="ScenarioFailure">
        """))
    let document = try XMLDocument(xmlString: xml)
    let root = try #require(document.rootElement())
    #expect(root.name == "testsuites")
    let cases = try root.nodes(forXPath: "//testcase")
    #expect(cases.count == 2)
    #expect(try root.nodes(forXPath: "//testcase/failure").count == 1)
    // The counts, as a JUnit consumer reads them: a property list on each testcase.
    let counts = try root.nodes(forXPath: "//testcase/properties/property").compactMap { $0 as? XMLElement }.map {
      "\($0.attribute(forName: "name")?.stringValue ?? "?")=\($0.attribute(forName: "value")?.stringValue ?? "?")"
    }
    #expect(counts == ["steps=3", "expectations=1", "steps=7", "expectations=4"])
  }

  @Test func jsonReportGolden() {
    let json = Reports.json(Self.results, seed: 5, jobs: 2, elapsed: 1.234)
    #expect(
      json.contains(
        """
          "summary": {
            "total": 2,
            "passed": 1,
            "failed": 1,
            "interrupted": 0,
            "steps": 10,
            "expectations": 5
          },
        """))
    #expect(json.contains("\"reproduce\": \"healthpair run Scenarios/b/bad.scenario --seed 18446744073709551615\""))
    #expect(
      json.contains(
        """
              "seed": 18446744073709551615,
              "durationMs": 20,
              "steps": 7,
              "expectations": 4,
        """), "the seed exact, not rounded through a Double")
    #expect(json.contains("\"steps\": 3,\n      \"expectations\": 1,\n      \"trace\": []\n"))
    #expect(json.contains("\"title\": \"It <fails> & \\\"shows\\\"\""))
  }
}

extension String {
  /// The text with every `"durationMs": N` set to 0, for comparing runs.
  func replacingDurations() -> String {
    split(separator: "\n").map { $0.contains("\"durationMs\"") ? "durationMs" : String($0) }.joined(separator: "\n")
  }
}
