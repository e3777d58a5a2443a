import FoundationEssentials
import Testing

@testable import HealthModel
@testable import Scenario
@testable import ScenarioLanguage

@Suite("Reports: times and dates a consumer can trust")
struct ReportConsistencyTests {
  private func result(_ title: String, group: String, started: Double, duration: Double) -> ScenarioResult {
    var r = ScenarioResult(
      file: "Scenarios/\(group)/\(title).scenario", title: title, group: group, seed: 1, status: .passed,
      duration: duration, stepsRun: 1, expectationsRun: 1)
    r.started = started
    return r
  }

  private func times(_ xml: String, of element: String) -> [Double] {
    xml.split(separator: "\n").filter { $0.contains("<\(element) ") }.compactMap { line in
      line.range(of: "time=\"").flatMap { Double(line[$0.upperBound...].prefix { $0 != "\"" }) }
    }
  }

  /// Two scenarios of one folder run in parallel (two jobs): the suite took the span, not the sum, and the total
  /// covers it.
  @Test func aSuiteTimeIsItsWallClockSpanAndNeverExceedsTheTotal() {
    let results = [
      result("one", group: "a", started: 100, duration: 1.0),
      result("two", group: "a", started: 100.5, duration: 1.0),
      result("three", group: "b", started: 100.2, duration: 0.3),
    ]
    let xml = Reports.junit(results, elapsed: 1.5)
    let total = times(xml, of: "testsuites")
    let suites = times(xml, of: "testsuite")
    #expect(total == [1.5])
    #expect(suites == [1.5, 0.3])
    for suite in suites { #expect(suite <= total[0]) }
    // A total measured shorter than what the scenarios span is raised to it.
    #expect(times(Reports.junit(results, elapsed: 1.0), of: "testsuites") == [1.5])
  }

  /// `Date.distantPast` as Apple's Foundation writes it; dates after the Gregorian reform are unchanged.
  @Test func theDistantPastIsWrittenAsFoundationWritesIt() {
    #expect(formatDate(.distantPast) == "0001-01-01T00:00:00Z")
    #expect(parseDate("0001-01-01T00:00:00Z") == .distantPast)
    #expect(formatDate(Date(timeIntervalSince1970: -12_219_292_800)) == "1582-10-15T00:00:00Z")
    #expect(formatDate(Date(timeIntervalSince1970: -12_219_292_801)) == "1582-10-04T23:59:59Z")
    #expect(formatDate(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
    for text in ["0001-03-01T12:00:00Z", "1000-02-29T00:00:00Z", "1582-10-04T00:00:00Z", "2026-01-05T08:00:00Z"] {
      #expect(parseDate(text).map(formatDate) == text)
    }
    #expect(earliestSampleDate == .distantPast)
  }
}
