import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

let outdoorRun = WorkoutConfiguration(activityType: .running, location: .outdoor)
let watchApp = "com.example.run.watch"
let otherApp = "com.example.other"

func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

func newSession(_ configuration: WorkoutConfiguration = outdoorRun) -> WorkoutSession {
  WorkoutSession(id: WorkoutSessionID(uuid: UUID()), app: watchApp, configuration: configuration)
}

/// The state changes among `callbacks`, as `from→to`.
func changes(_ callbacks: [SessionCallback]) -> [String] {
  callbacks.compactMap {
    if case .didChange(let to, let from, _) = $0 { return "\(from)→\(to)" }
    return nil
  }
}

@Suite("Workout sessions: the state machine (workouts.md §2.2)")
struct SessionStateTests {
  @Test func rawValuesAreApples() {
    #expect(WorkoutSessionState.allCases.map(\.rawValue).sorted() == [1, 2, 3, 4, 5, 6])
    #expect(WorkoutSessionState.notStarted.rawValue == 1 && WorkoutSessionState.prepared.rawValue == 5)
    #expect(WorkoutSessionState.stopped.rawValue == 6 && WorkoutSessionState.paused.rawValue == 4)
    #expect(WorkoutSessionType.primary.rawValue == 0 && WorkoutSessionType.mirrored.rawValue == 1)
    #expect(WorkoutSessionState(name: "prepared") == .prepared)
  }

  @Test func theIntendedPathReportsEachChangeWithItsDate() {
    var session = newSession()
    #expect(changes(session.apply(.prepare, at: at(0))) == ["notStarted→prepared"])
    let started = session.apply(.startActivity(at(3)), at: at(3))
    #expect(started == [.didChange(to: .running, from: .prepared, date: at(3))])
    #expect(session.start == at(3))
    #expect(changes(session.apply(.pause, at: at(60))) == ["running→paused"])
    #expect(changes(session.apply(.resume, at: at(90))) == ["paused→running"])
    #expect(
      session.apply(.stopActivity(at(600)), at: at(601)) == [.didChange(to: .stopped, from: .running, date: at(600))])
    #expect(session.stop == at(600))
    #expect(changes(session.apply(.end, at: at(610))) == ["stopped→ended"])
    #expect(session.end == at(610) && session.state == .ended)
  }

  @Test func pauseAndResumeGenerateEventsAfterTheChange() {
    var session = newSession()
    _ = session.apply(.startActivity(at(0)), at: at(0))
    let paused = session.apply(.pause, at: at(10))
    #expect(
      paused == [
        .didChange(to: .paused, from: .running, date: at(10)), .didGenerate(WorkoutEvent(type: .pause, start: at(10))),
      ])
    let resumed = session.apply(.resume, at: at(20))
    #expect(resumed.last == .didGenerate(WorkoutEvent(type: .resume, start: at(20))))
    #expect(session.events.map(\.type) == [.pause, .resume])
  }

  @Test func illegalCallsAreSilentAndChangeNothing() {
    var session = newSession()
    let fresh = session
    for command in [SessionCommand.pause, .resume, .stopActivity(at(1))] {
      #expect(session.apply(command, at: at(1)).isEmpty, "\(command.name) from notStarted")
    }
    #expect(session == fresh)
    _ = session.apply(.startActivity(at(0)), at: at(0))
    #expect(session.apply(.prepare, at: at(1)).isEmpty)
    #expect(session.apply(.startActivity(at(2)), at: at(2)).isEmpty)
    #expect(session.apply(.resume, at: at(2)).isEmpty, "resume while running")
    _ = session.apply(.pause, at: at(3))
    #expect(session.apply(.pause, at: at(4)).isEmpty, "pause while paused")
    #expect(session.events.count == 1)
  }

  @Test func stoppedAndEndedAreTerminal() {
    var session = newSession()
    _ = session.apply(.startActivity(at(0)), at: at(0))
    _ = session.apply(.stopActivity(at(5)), at: at(5))
    for command in [SessionCommand.prepare, .startActivity(at(6)), .pause, .resume, .stopActivity(at(6))] {
      #expect(session.apply(command, at: at(6)).isEmpty, "\(command.name) while stopped")
    }
    _ = session.apply(.end, at: at(7))
    for command in [SessionCommand.prepare, .startActivity(at(8)), .pause, .resume, .stopActivity(at(8)), .end] {
      #expect(session.apply(command, at: at(8)).isEmpty, "\(command.name) while ended")
    }
    #expect(session.fail(.healthKit(.unknownError, "x"), at: at(9)).isEmpty)
  }

  @Test func stopWhilePausedIsAcceptedAndABackdatedStopFails() {
    var session = newSession()
    _ = session.apply(.startActivity(at(100)), at: at(100))
    _ = session.apply(.pause, at: at(200))
    let early = session.apply(.stopActivity(at(50)), at: at(300))
    guard case .didFail(let error)? = early.first, early.count == 1 else {
      Issue.record("expected one failure, got \(early)")
      return
    }
    #expect(error.code == .errorInvalidArgument)
    #expect(session.state == .paused)
    #expect(changes(session.apply(.stopActivity(at(300)), at: at(300))) == ["paused→stopped"])
  }

  @Test func endIsAcceptedFromEveryLiveStateAndClosesTheOpenActivity() {
    for setup in [[SessionCommand](), [.prepare], [.startActivity(at(0))], [.startActivity(at(0)), .pause]] {
      var session = newSession()
      for command in setup { _ = session.apply(command, at: at(0)) }
      let from = session.state
      #expect(changes(session.apply(.end, at: at(10))) == ["\(from)→ended"])
    }
    var session = newSession()
    _ = session.apply(.startActivity(at(0)), at: at(0))
    _ = session.apply(.beginNewActivity(outdoorRun, date: at(1), metadata: [:], uuid: UUID()), at: at(1))
    let ended = session.apply(.end, at: at(30))
    guard case .didEndActivity(let activity, let date)? = ended.first else {
      Issue.record("expected the activity to end first: \(ended)")
      return
    }
    #expect(date == at(30) && activity.end == at(30))
    #expect(changes(ended) == ["running→ended"])
    #expect(session.currentActivity == nil)
  }

  @Test func activitiesBeginEndAndReplaceEachOther() {
    var session = newSession(WorkoutConfiguration(activityType: WorkoutActivityType(name: "swimBikeRun")!))
    let swim = WorkoutConfiguration(activityType: .swimming, swimmingLocation: .openWater)
    let early = session.apply(.beginNewActivity(swim, date: at(0), metadata: [:], uuid: UUID()), at: at(0))
    #expect(early == [.didFail(.healthKit(.errorInvalidArgument, "No active session to begin new activity"))])
    _ = session.apply(.startActivity(at(10)), at: at(10))
    let before = session.apply(.beginNewActivity(swim, date: at(5), metadata: [:], uuid: UUID()), at: at(10))
    #expect(before == [.didFail(.healthKit(.errorInvalidArgument, "Activity start date before session start"))])
    let first = session.apply(.beginNewActivity(swim, date: at(10), metadata: [:], uuid: UUID()), at: at(10))
    #expect(first.count == 1)
    #expect(session.currentActivity?.configuration == swim)
    let bike = WorkoutConfiguration(activityType: .cycling, location: .outdoor)
    let second = session.apply(.beginNewActivity(bike, date: at(100), metadata: [:], uuid: UUID()), at: at(100))
    guard case .didEndActivity(let ended, _)? = second.first, case .didBeginActivity(let begun, _)? = second.last else {
      Issue.record("expected end then begin: \(second)")
      return
    }
    #expect(ended.configuration == swim && ended.end == at(100))
    #expect(begun.configuration == bike && begun.start == at(100))
    #expect(session.apply(.endCurrentActivity(at(50)), at: at(150)).count == 1, "a date before the start fails")
    #expect(session.currentActivity != nil)
    #expect(session.apply(.endCurrentActivity(at(150)), at: at(150)).count == 1)
    #expect(session.currentActivity == nil)
    #expect(session.apply(.endCurrentActivity(at(160)), at: at(160)).isEmpty, "nothing to end")
    #expect(session.activities.count == 2)
  }

  @Test func aFailureIsReportedBeforeTheStateChange() {
    var session = newSession()
    _ = session.apply(.startActivity(at(0)), at: at(0))
    let error = HealthError.healthKit(.errorAnotherWorkoutSessionStarted, "another")
    let callbacks = session.fail(error, at: at(5))
    #expect(callbacks == [.didFail(error), .didChange(to: .ended, from: .running, date: at(5))])
    #expect(session.end == at(5))
  }
}
