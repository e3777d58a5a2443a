import Foundation
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Posix
@testable import Render
@testable import Scenario
@testable import ScenarioLanguage

@Suite("Scenario traces, --keep-failed and the HTML report")
struct TraceTests {
  func scenario(_ text: String, file: String = "Scenarios/demo/t.scenario") throws -> Scenario {
    try ScenarioParser.parse(text, file: file).get()
  }

  /// A sheet on each device, a save synced to the watch, a clock change, the link dropped, then a failure.
  static let story = """
    install Return on phone and watch share mindfulSession
    sync: manual
    watch: Return requests
    user on watch: doesn't allow
    phone: Return requests
    user on phone: allows all
    phone: Return saves notApplicable mindfulSession from 08:00 for 10m as s
    wait until synced
    clock: advance 1h
    link: disconnect
    phone: Return saves notApplicable mindfulSession from 08:30 for 5m
    expect watch: Return share mindfulSession is sharingAuthorized
    """

  @Test func aFailureCarriesTheTraceUpToItWithBothClocks() throws {
    let result = ScenarioRunner().run(try scenario(Self.story), seed: 5)
    guard case .failed(let f) = result.status else {
      Issue.record("the last expectation is wrong on purpose")
      return
    }
    let start = parseDate("2026-01-05T08:00:00Z")!
    let later = start.addingTimeInterval(3600)
    let trace = result.trace
    // One entry per step, in order, each with the clocks before it ran.
    let steps = trace.compactMap { entry -> (Int, Int)? in
      if case .step(let line, _, _) = entry.kind { return (entry.step, line) }
      return nil
    }
    #expect(steps.map(\.0) == Array(1...12) && steps.map(\.1) == Array(1...12))
    #expect(trace.first?.phoneClock == start && trace.first?.watchClock == start)
    #expect(trace.last?.phoneClock == later && trace.last?.watchClock == later)
    // What happened, entry by entry, for steps 2 (watch request) to the end.
    let described = trace.filter { $0.step >= 3 }.map { "\($0.step) \($0.lane.rawValue) \($0.kindName): \($0.text)" }
    #expect(
      described == [
        "3 watch step: watch: Return requests",
        "3 watch sheetShown: sheet #1 shown for Return: share mindfulSession",
        "3 watch call: Return requestAuthorization pending (the sheet is up)",
        "4 watch step: user on watch: doesn't allow",
        "4 watch sheetClosed: sheet #1 of Return closed: answered: share mindfulSession denied",
        "4 watch call: Return requestAuthorization succeeded (success = true)",
        "5 phone step: phone: Return requests",
        "5 phone sheetShown: sheet #1 shown for Return: share mindfulSession",
        "5 phone call: Return requestAuthorization pending (the sheet is up)",
        "6 phone step: user on phone: allows all",
        "6 phone sheetClosed: sheet #1 of Return closed: answered: share mindfulSession authorized",
        "6 phone call: Return requestAuthorization succeeded (success = true)",
        "7 phone step: phone: Return saves notApplicable mindfulSession from 08:00 for 10m as s",
        "7 phone call: Return save succeeded",
        "8 both step: wait until synced",
        "8 watch delivery: sync phone → watch: 1 item (1 added), up to entry 1",
        "9 both step: clock: advance 1h",
        "10 both step: link: disconnect",
        "10 phone link: peer link down",
        "10 watch link: peer link down",
        "11 phone step: phone: Return saves notApplicable mindfulSession from 08:30 for 5m",
        "11 phone call: Return save succeeded",
        "12 watch step: expect watch: Return share mindfulSession is sharingAuthorized",
        "12 watch failure: FAILED: expected watch: Return authorizationStatus(mindfulSession) = sharingAuthorized, "
          + "actual sharingDenied",
      ], "\(described.joined(separator: "\n"))")
    #expect(f.phoneState?.device.now == later && f.watchState?.device.apps.first?.lockedOut == true)

    // The human report shows the trace under the state.
    let text = Reports.failureText(result, style: Style(enabled: false))
    #expect(text.contains("  trace\n    clocks   phone 2026-01-05T08:00:00Z  watch 2026-01-05T08:00:00Z\n"))
    #expect(text.contains("    #8   line 8   wait until synced\n                  watch sync phone → watch: 1 item"))
    #expect(text.contains("    clocks   phone 2026-01-05T09:00:00Z  watch 2026-01-05T09:00:00Z\n"))
    #expect(
      text.contains(
        "                  ✘ expected watch: Return authorizationStatus(mindfulSession) = sharingAuthorized\n"))

    // JSON: the state and the trace as objects, not lines of text.
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(Reports.scenarioJSON(result).render().utf8)) as? [String: Any])
    let failure = try #require(json["failure"] as? [String: Any])
    let watch = try #require(failure["watch"] as? [String: Any])
    #expect((watch["clock"] as? [String: Any])?["now"] as? String == "2026-01-05T09:00:00Z")
    #expect(((watch["apps"] as? [[String: Any]])?.first?["lockedOut"]) as? Bool == true)
    #expect((watch["link"] as? [String: Any])?["connected"] as? Bool == false)
    #expect(watch["pid"] == nil && (watch["link"] as? [String: Any])?["logID"] == nil, "nothing that differs per run")
    let entries = try #require(json["trace"] as? [[String: Any]])
    #expect(entries.count == trace.count)
    let delivery = try #require(entries.first { $0["kind"] as? String == "delivery" })
    #expect(
      delivery["from"] as? String == "phone" && delivery["to"] as? String == "watch" && delivery["added"] as? Int == 1)
    #expect(delivery["phoneClock"] as? String == "2026-01-05T08:00:00Z")
    let pending = try #require(entries.first { $0["kind"] as? String == "call" })
    #expect(pending["result"] as? String == "pending" && pending["app"] as? String == "Return")
    let last = try #require(entries.last)
    #expect(last["kind"] as? String == "failure" && last["actual"] as? String == "sharingDenied")
  }

  @Test func callResultsCarryTheErrorCodeOrTheTermination() throws {
    let s = try scenario(
      """
      install Water on phone share dietaryWater
      install Empty on phone
      phone: Water saves 250 mL dietaryWater
      phone: Empty requests
      expect phone: Water's last call failed with errorAuthorizationNotDetermined
      """)
    let result = ScenarioRunner().run(s, seed: 1)
    let calls = result.trace.compactMap { entry -> CallOutcome? in
      if case .call(_, _, let outcome) = entry.kind { return outcome }
      return nil
    }
    #expect(calls.map(\.result) == [.failed, .wouldTerminate], "\(calls)")
    #expect(calls.first?.error?.code == .errorAuthorizationNotDetermined)
    let json = Reports.traceJSON(try #require(result.trace.first { $0.kindName == "call" })).render(pretty: false)
    #expect(
      json.contains(
        "\"result\":\"failed\",\"error\":{\"kind\":\"healthKit\",\"code\":\"errorAuthorizationNotDetermined\""))
  }

  @Test func sessionCallbacksAreInTheirDevicesLaneByTheSessionsName() throws {
    let s = try scenario(
      """
      install Runner on watch share workout heartRate read heartRate
      install Coach on watch share workout
      watch: Runner requests
      user on watch: allows all
      watch: Runner starts a workout session running indoor as run
      clock: advance 1m
      watch: Coach starts a workout session cycling indoor as ride
      expect watch: Runner's workout session run heard running then didFailWithError errorAnotherWorkoutSessionStarted then ended
      """)
    let result = ScenarioRunner().run(s, seed: 1)
    #expect(result.passed, "\(result.status)")
    let sessions = result.trace.filter { $0.kindName == "session" }.map { "\($0.step) \($0.lane.rawValue): \($0.text)" }
    #expect(
      sessions == [
        "5 watch: Runner's workout session run didChangeTo running from notStarted",
        "6 watch: Runner's workout session run builder didCollectDataOf ×1 (heartRate)",
        "7 watch: Runner's workout session run didFailWithError errorAnotherWorkoutSessionStarted (8): Another workout "
          + "session was started (by com.example.coach)",
        "7 watch: Runner's workout session run didChangeTo ended from running",
        "7 watch: Coach's workout session ride didChangeTo running from notStarted",
      ])
    let json = Reports.traceJSON(try #require(result.trace.first { $0.kindName == "session" })).render(pretty: false)
    #expect(json.contains("\"app\":\"Runner\",\"session\":\"run\",\"event\":\"didChangeTo running from notStarted\""))
  }

  @Test func theSameSeedGivesTheSameTraceAndReport() throws {
    let s = try scenario(Self.story)
    let a = ScenarioRunner().run(s, seed: 7)
    let b = ScenarioRunner().run(s, seed: 7)
    #expect(!a.trace.isEmpty && a.trace == b.trace)
    let ja = Reports.json([a], seed: 7, jobs: 1, elapsed: 1).replacingDurations()
    let jb = Reports.json([b], seed: 7, jobs: 1, elapsed: 2).replacingDurations()
    #expect(ja == jb)
  }

  @Test func keepFailedKeepsThePairDirectoryAndTheTrace() throws {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-keep")
    defer { Posix.removeTree(dir) }
    var runner = ScenarioRunner()
    runner.keepFailed = dir + "/kept"
    let failing = runner.run(try scenario(Self.story, file: "x/failing.scenario"), seed: 1, keepName: "failing")
    let passing = runner.run(
      try scenario("install Water on phone\nexpect phone: no sheet pending"), seed: 1, keepName: "ok")
    #expect(!failing.passed && passing.passed)
    #expect(failing.kept == dir + "/kept/failing" && failing.keepProblem == nil)
    for file in [
      "phone/phone.journal", "phone/phone.log", "watch/watch.journal", "watch/watch.log", "trace.txt", "trace.json",
    ] {
      #expect(Posix.exists("\(dir)/kept/failing/\(file)"), "\(file)")
    }
    #expect(!Posix.exists("\(dir)/kept/ok"), "a passing scenario leaves nothing")
    let text = String(decoding: try Posix.readFile("\(dir)/kept/failing/trace.txt"), as: UTF8.self)
    #expect(
      text.hasPrefix("FAILED  x/failing.scenario:12") && text.contains("  trace\n") && text.contains("  kept      "))
    let json =
      try JSONSerialization.jsonObject(with: Data(try Posix.readFile("\(dir)/kept/failing/trace.json")))
      as? [String: Any]
    #expect((json?["trace"] as? [Any])?.count == failing.trace.count)
    // Every app call's outcome is in the daemons' default log, with the virtual clock.
    let log = String(decoding: try Posix.readFile("\(dir)/kept/failing/watch/watch.log"), as: UTF8.self)
    #expect(
      log.contains("[virtual 2026-01-05T09:00:00Z] INFO    watch: call authorizationStatus app=com.example.return"))
  }

  @Test func keepNamesAreUniquePerRun() throws {
    let files = ["S/a/x.scenario", "S/b/x.scenario", "S/a/y.scenario"]
    let scenarios = try files.map { try scenario("install Water on phone\nexpect phone: no sheet pending", file: $0) }
    #expect(Suite.keepNames(scenarios) == ["a-x", "b-x", "y"])
  }

  @Test func theHTMLPageIsSelfContainedAndMarksTheFailingStep() throws {
    let failed = ScenarioRunner().run(try scenario(Self.story, file: "S/sync/story.scenario"), seed: 1)
    let passed = ScenarioRunner().run(
      try scenario("install Water on phone\nexpect phone: no sheet pending", file: "S/setup/ok.scenario"), seed: 1)
    let page = HTMLReport.page([passed, failed], seed: 1, jobs: 1, elapsed: 1)
    #expect(page.hasPrefix("<!DOCTYPE html>") && page.hasSuffix("</html>\n"))
    for external in ["src=", "href=\"http", "@import", "url("] { #expect(!page.contains(external)) }
    #expect(page.components(separatedBy: "<section class=\"scenario ").count == 3)
    #expect(page.contains("data-status=\"failed\" data-group=\"sync\" data-file=\"S/sync/story.scenario\""))
    #expect(page.contains("<div class=\"row step cat-expect failing\" data-step=\"12\">"))
    #expect(page.components(separatedBy: " failing\"").count == 2, "one failing step")
    #expect(page.contains("<div class=\"arrow to-watch\""))
    #expect(page.contains("<option value=\"setup\">setup (1)</option>"))
  }
}
