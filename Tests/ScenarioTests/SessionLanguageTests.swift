import FoundationEssentials
import TestSupport
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Scenario
@testable import ScenarioLanguage

/// The lines the session forms' tests start with: Runner on both devices (line 1), Coach on the watch only (line 2),
/// a session named `run` (line 3).
private let sessionHeader = """
  install Runner on phone and watch share workout heartRate read heartRate
  install Coach on watch share workout
  watch: Runner starts a workout session running outdoor as run

  """

/// Parses `text` after ``sessionHeader`` and returns the steps after it.
private func sessionSteps(_ text: String) throws -> [StepKind] {
  let scenario = try ScenarioParser.parse(sessionHeader + text + "\nexpect link is up", file: "s.scenario").get()
  return scenario.steps.dropFirst(3).dropLast().map(\.kind)
}

/// The first diagnostic of `text` after ``sessionHeader``: its error, line and column.
private func sessionDiagnostic(_ text: String) -> (ScenarioError, Int, Int)? {
  switch ScenarioParser.parse(sessionHeader + text + "\nexpect link is up", file: "s.scenario") {
  case .success: return nil
  case .failure(let d): return d.items.first.map { ($0.error, $0.location.line, $0.location.column) }
  }
}

private let heartRate = SampleType.lookup(name: "heartRate")!

@Suite("Scenario language: workout sessions")
struct SessionLanguageTests {
  @Test func sessionStepsParseIntoTheirCalls() throws {
    var spec = SessionSpec(activity: .cycling)
    spec.location = .indoor
    spec.name = "spin"
    #expect(
      try sessionSteps(
        """
        watch: Coach prepares a workout session cycling indoor as spin
        watch: Coach starts workout session spin
        watch: Runner pauses workout session run
        watch: Runner resumes workout session run
        watch: Runner stops workout session run
        watch: Runner ends workout session run
        watch: Runner finishes workout session run as morning
        watch: Coach discards workout session spin
        watch: Runner goes to the background
        watch: Runner is suspended
        watch: Runner comes to the foreground
        watch: Runner is killed
        watch: Runner starts a workout session walking
        """)
        == [
          .session(.watch, app: "Coach", .prepare(spec)), .session(.watch, app: "Coach", .call("spin", .start)),
          .session(.watch, app: "Runner", .call("run", .pause)), .session(.watch, app: "Runner", .call("run", .resume)),
          .session(.watch, app: "Runner", .call("run", .stop)), .session(.watch, app: "Runner", .call("run", .end)),
          .session(.watch, app: "Runner", .finish("run", workout: "morning")),
          .session(.watch, app: "Coach", .call("spin", .discard)),
          .session(.watch, app: "Runner", .runState(.background)),
          .session(.watch, app: "Runner", .runState(.suspended)),
          .session(.watch, app: "Runner", .runState(.foreground)),
          .session(.watch, app: "Runner", .runState(.notRunning)),
          .session(.watch, app: "Runner", .start(SessionSpec(activity: .walking))),
        ])
  }

  @Test func theWearerStepsParse() throws {
    #expect(
      try sessionSteps(
        """
        watch: the wearer's effort becomes hard
        phone: the wearer's effort becomes pace 5:30 min/km
        watch: the watch is taken off
        watch: the watch is put back on
        """)
        == [
          .wearer(.watch, .effort(.hard)), .wearer(.phone, .effort(.pace(minutesPerKilometre: 5.5))),
          .wearer(.watch, .wrist(on: false)), .wearer(.watch, .wrist(on: true)),
        ])
  }

  @Test func sessionExpectationsParse() throws {
    let steps = try sessionSteps(
      """
      expect watch: Runner's workout session run is paused
      expect watch: Runner's workout session run heard running then didFailWithError errorAnotherWorkoutSessionStarted then ended
      expect watch: Runner's workout session run heard paused, pause event, running, resume event
      expect watch: Runner's workout session run heard nothing
      expect watch: Runner's workout session run elapsed time is 25m
      expect watch: Runner's workout session run collected 12 heartRate samples
      expect watch: Runner's workout session run collected no heartRate samples
      expect watch: Runner's workout session run average of heartRate is 140 count/min
      expect watch: Runner's workout session run has no heartRate statistics
      expect watch: Runner's workout session run builder is discarded
      expect watch: Runner recovers workout session run
      expect both: Runner has no workout session to recover
      """)
    let bpm = try HealthUnit(parsing: "count/min")
    #expect(
      steps == [
        .expect(.session(.watch, app: "Runner", name: "run", .state(.paused))),
        .expect(
          .session(
            .watch, app: "Runner", name: "run",
            .heard([.state(.running), .failed(.errorAnotherWorkoutSessionStarted), .state(.ended)]))),
        .expect(
          .session(
            .watch, app: "Runner", name: "run",
            .heard([.state(.paused), .event(.pause), .state(.running), .event(.resume)]))),
        .expect(.session(.watch, app: "Runner", name: "run", .heard([]))),
        .expect(.session(.watch, app: "Runner", name: "run", .elapsed(1500))),
        .expect(.session(.watch, app: "Runner", name: "run", .collected(heartRate, 12))),
        .expect(.session(.watch, app: "Runner", name: "run", .collected(heartRate, 0))),
        .expect(.session(.watch, app: "Runner", name: "run", .statistic(.average, heartRate, value: 140, unit: bpm))),
        .expect(.session(.watch, app: "Runner", name: "run", .noStatistic(heartRate))),
        .expect(.session(.watch, app: "Runner", name: "run", .builder(.discarded))),
        .expect(.recovers(.watch, app: "Runner", name: "run")),
        .expect(
          .onBoth(
            phone: .recovers(.phone, app: "Runner", name: nil), watch: .recovers(.watch, app: "Runner", name: nil))),
      ])
  }

  @Test func badSessionLinesAreLocatedErrors() {
    #expect(
      sessionDiagnostic("watch: Runner pauses workout session ride")?.0
        == .unknownSession("ride", suggestion: nil))
    #expect(sessionDiagnostic("watch: Runner pauses workout session ride").map { [$0.1, $0.2] } == [4, 38])
    #expect(
      sessionDiagnostic("watch: Runner starts a workout session running as run")?.0
        == .expected("a new session name ('run' names a session already)", found: "run"))
    #expect(
      sessionDiagnostic("watch: Runner starts a workout session runing")?.0
        == .unknownActivityType("runing", suggestion: "running"))
    #expect(
      sessionDiagnostic("phone: Coach starts a workout session running")?.0
        == .appNotInstalled("Coach", device: .phone, installedOn: [.watch], uninstalledAt: nil))
    #expect(
      sessionDiagnostic("watch: the wearer's effort becomes pace 5:75 min/km")?.0
        == .expected("a pace such as 5:30 (minutes:seconds per kilometre)", found: "5:75"))
    #expect(sessionDiagnostic("watch: the wearer's effort becomes hrd").map { [$0.1, $0.2] } == [4, 36])
    #expect(
      sessionDiagnostic("phone: the watch is taken off")?.0
        == .expected("'watch:' (only the watch is worn on the wrist)", found: "phone"))
    #expect(sessionDiagnostic("watch: Runner is asleep")?.0 == .expected("'suspended' or 'killed'", found: "asleep"))
    #expect(
      sessionDiagnostic("expect watch: Runner's workout session run is runing")?.0
        == .unknownStatus(
          "runing",
          valid: [
            "notStarted", "running", "ended", "paused", "prepared", "stopped", "didFailWithError",
            "<event type> event",
          ], suggestion: "running"))
    #expect(
      sessionDiagnostic("expect watch: Runner's workout session run heard running then didFailWithError error8")?.0
        == .unknownErrorCode("error8", suggestion: nil))
    #expect(
      sessionDiagnostic("expect watch: Runner's workout session run builder is done").map { [$0.1, $0.2] } == [4, 55])
    #expect(sessionDiagnostic("expect watch: Coach recovers workout session run") == nil)
  }

  @Test func mirroringStepsAndExpectationsParse() throws {
    var indoorRide = SessionSpec(activity: .cycling)
    indoorRide.location = .indoor
    let steps = try sessionSteps(
      """
      watch: Runner mirrors workout session run to the phone
      phone: Runner sends "lap 3" over workout session run
      watch: Runner sends 512 bytes over workout session run
      watch: Runner sends 2 KB over workout session run
      watch: Runner stops mirroring workout session run
      watch: Runner stops workout session run
      phone: Runner starts the watch app for a workout cycling indoor
      expect phone: Runner's workout session run is mirrored
      expect watch: Runner's workout session run is primary
      expect watch: Runner's workout session run received "lap 3" then 2 KB
      expect phone: Runner's workout session run received nothing
      expect phone: Runner's workout session run heard paused then didReceiveData then didDisconnect
      """)
    #expect(
      steps == [
        .session(.watch, app: "Runner", .mirror("run")),
        .session(.phone, app: "Runner", .send("run", .text("lap 3"))),
        .session(.watch, app: "Runner", .send("run", .bytes(512))),
        .session(.watch, app: "Runner", .send("run", .bytes(2048))),
        .session(.watch, app: "Runner", .stopMirroring("run")),
        .session(.watch, app: "Runner", .call("run", .stop)),
        .session(.phone, app: "Runner", .startWatchApp(indoorRide)),
        .expect(.session(.phone, app: "Runner", name: "run", .type(.mirrored))),
        .expect(.session(.watch, app: "Runner", name: "run", .type(.primary))),
        .expect(.session(.watch, app: "Runner", name: "run", .received([.text("lap 3"), .bytes(2048)]))),
        .expect(.session(.phone, app: "Runner", name: "run", .received([]))),
        .expect(.session(.phone, app: "Runner", name: "run", .heard([.state(.paused), .receivedData, .disconnected]))),
      ])
  }

  @Test func aReceivedTextMatchesItsBytesAndASizeAnyMessageOfThatSize() {
    #expect(RemotePayload.text("lap").matches(Data("lap".utf8)))
    #expect(!RemotePayload.text("lap").matches(Data("lap ".utf8)))
    #expect(RemotePayload.bytes(3).matches(Data("abc".utf8)))
    #expect(!RemotePayload.bytes(4).matches(Data("abc".utf8)))
  }

  @Test func badMirroringLinesAreLocatedErrors() {
    #expect(
      sessionDiagnostic("watch: Runner mirrors workout session run to the watch")?.0
        == .expected("'to the phone' (the paired device)", found: "watch"))
    #expect(
      sessionDiagnostic("watch: Runner mirrors workout session run to the watch").map { [$0.1, $0.2] } == [4, 50])
    #expect(
      sessionDiagnostic("watch: Runner sends 5 MB over workout session run")?.0
        == .expected("'bytes' or 'KB'", found: "MB"))
    #expect(sessionDiagnostic("watch: Runner sends 0 KB over workout session run")?.0 == .invalidNumber("0"))
    #expect(
      sessionDiagnostic("watch: Runner sends 2000 KB over workout session run")?.0
        == .expected("a message of at most 1024 KB", found: "2000"))
    #expect(
      sessionDiagnostic("watch: Runner sends \"hi\" to workout session run")?.0
        == .expected("'over workout session <name>'", found: "to"))
    #expect(
      sessionDiagnostic("watch: Runner starts the watch app for a workout running")?.0
        == .expected("'phone:' (the phone starts the watch app)", found: "watch"))
    #expect(
      sessionDiagnostic("watch: Runner stops mirroring workout session ride")?.0
        == .unknownSession("ride", suggestion: nil))
  }
}
