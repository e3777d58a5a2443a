import FoundationEssentials
import FoundationXML
import Testing

@testable import Render
@testable import Scenario
@testable import ScenarioLanguage

/// How reports mark the scenarios an interruption cut short (started) or kept from starting (not run).
@Suite("Reports of an interrupted run")
struct InterruptedReportTests {
  static let results: [ScenarioResult] = [
    ScenarioResult(
      file: "S/a/done.scenario", title: "Done", group: "a", seed: 1, status: .passed, duration: 0.01, stepsRun: 3,
      expectationsRun: 1),
    ScenarioResult(
      file: "S/a/cut.scenario", title: "Cut short", group: "a", seed: 1, status: .interrupted, duration: 0.02,
      stepsRun: 2, expectationsRun: 0),
    ScenarioResult(
      file: "S/b/later.scenario", title: "Not run", group: "b", seed: 1, status: .interrupted, duration: 0,
      stepsRun: 0, expectationsRun: 0),
  ]

  @Test func junitMarksThemAnErrorAndSkippedWithMessageInterrupted() throws {
    let xml = Reports.junit(Self.results, elapsed: 0.5)
    let root = try #require(try XMLDocument(xmlString: xml).rootElement())
    #expect(root.attribute(forName: "errors")?.stringValue == "1")
    #expect(root.attribute(forName: "failures")?.stringValue == "0")
    let errors = try root.nodes(forXPath: "//testcase/error").compactMap { $0 as? XMLElement }
    let skipped = try root.nodes(forXPath: "//testcase/skipped").compactMap { $0 as? XMLElement }
    #expect(errors.map { $0.attribute(forName: "message")?.stringValue } == ["interrupted"])
    #expect(skipped.map { $0.attribute(forName: "message")?.stringValue } == ["interrupted"])
    #expect(try root.nodes(forXPath: "//testsuite[@name='b']/@skipped").first?.stringValue == "1")
  }

  @Test func jsonAndTextAndHTMLSayInterrupted() {
    let json = Reports.json(Self.results, seed: 1, jobs: 1, elapsed: 0.5)
    #expect(json.contains("\"interrupted\": 2"))
    #expect(json.components(separatedBy: "\"status\": \"interrupted\"").count - 1 == 2)
    let text = Reports.human(Self.results, seed: 1, jobs: 1, elapsed: 0.5, style: Style(enabled: false))
    #expect(text.contains("1 passed, 0 failed, 2 interrupted") && !text.contains("FAILED"))
    let page = HTMLReport.page(Self.results, seed: 1, jobs: 1, elapsed: 0.5)
    #expect(page.contains("2 interrupted") && page.contains("value=\"interrupted\"") && page.contains("not run."))
  }

  @Test func noScenarioAtAllIsAValidEmptyReport() throws {
    let root = try #require(try XMLDocument(xmlString: Reports.junit([], elapsed: 0)).rootElement())
    #expect(root.name == "testsuites" && root.attribute(forName: "tests")?.stringValue == "0")
    #expect(Reports.json([], seed: 1, jobs: 1, elapsed: 0).contains("\"scenarios\": []"))
    #expect(HTMLReport.page([], seed: 1, jobs: 1, elapsed: 0).contains("No scenario ran"))
  }
}
