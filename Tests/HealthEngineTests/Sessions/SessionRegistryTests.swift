import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

/// The session callbacks among `directives` for `app`, in order.
func callbacks(_ directives: [SessionDirective], for app: String) -> [SessionCallback] {
  directives.compactMap {
    if case .session(let to, _, let callback) = $0, to == app { return callback }
    return nil
  }
}

/// The builder callbacks among `directives`.
func builderCallbacks(_ directives: [SessionDirective]) -> [BuilderCallback] {
  directives.compactMap {
    if case .builder(_, _, let callback) = $0 { return callback }
    return nil
  }
}

/// A watch registry with `apps` in the foreground.
func watchRegistry(_ apps: [String] = [watchApp, otherApp]) -> SessionRegistry {
  var registry = SessionRegistry(device: .watch)
  for app in apps { _ = registry.setRunState(app, .foreground) }
  return registry
}

@Suite("Workout sessions: one per device, the foreground rule, recovery (workouts.md §2.4, §2.6)")
struct SessionRegistryTests {
  @Test func anotherAppsSessionEndsTheFirstWithCode8BeforeTheNewOneStarts() {
    var registry = watchRegistry()
    let first = registry.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    _ = registry.apply(.startActivity(at(0)), to: first, at: at(0))
    #expect(registry.active == first)
    let second = registry.create(app: otherApp, uuid: UUID(), configuration: outdoorRun)
    let directives = registry.apply(.prepare, to: second, at: at(60))
    let old = callbacks(directives, for: watchApp)
    guard case .didFail(let error)? = old.first else {
      Issue.record("expected the old session to fail first: \(directives)")
      return
    }
    #expect(error.code == .errorAnotherWorkoutSessionStarted)
    #expect(changes(old) == ["running→ended"])
    #expect(changes(callbacks(directives, for: otherApp)) == ["notStarted→prepared"])
    let firstOld = directives.firstIndex { $0.app == watchApp }!
    let firstNew = directives.firstIndex { $0.app == otherApp }!
    #expect(firstOld < firstNew, "the old session hears before the new one proceeds")
    #expect(registry.active == second)
    #expect(registry.session(first)?.state == .ended)
  }

  @Test func theSameAppsSecondSessionAlsoEndsTheFirst() {
    var registry = watchRegistry()
    let first = registry.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    _ = registry.apply(.prepare, to: first, at: at(0))
    let second = registry.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    let directives = registry.apply(.startActivity(at(1)), to: second, at: at(1))
    #expect(directives.count == 3)
    #expect(registry.session(first)?.state == .ended && registry.active == second)
  }

  @Test func aNotStartedSessionDoesNotHoldTheSlot() {
    var registry = watchRegistry()
    let idle = registry.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    let other = registry.create(app: otherApp, uuid: UUID(), configuration: outdoorRun)
    let directives = registry.apply(.startActivity(at(0)), to: other, at: at(0))
    #expect(callbacks(directives, for: watchApp).isEmpty)
    #expect(registry.session(idle)?.state == .notStarted)
  }

  @Test func aBackgroundAppCannotStartUnlessAWatchAppLaunchAllowedIt() {
    var registry = watchRegistry()
    _ = registry.setRunState(watchApp, .background)
    let id = registry.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    let refused = registry.apply(.startActivity(at(0)), to: id, at: at(0))
    guard case .didFail(let error)? = callbacks(refused, for: watchApp).first else {
      Issue.record("expected code 14: \(refused)")
      return
    }
    #expect(error.code == .errorBackgroundWorkoutSessionNotAllowed)
    #expect(registry.session(id)?.state == .notStarted && registry.active == nil)
    #expect(registry.apply(.prepare, to: id, at: at(1)).count == 1, "prepare is refused too")
    registry.allowBackgroundStart(watchApp)
    #expect(changes(callbacks(registry.apply(.prepare, to: id, at: at(2)), for: watchApp)) == ["notStarted→prepared"])
    #expect(registry.backgroundStartAllowed.isEmpty, "the permission is used once")
    let started = registry.apply(.startActivity(at(3)), to: id, at: at(3))
    #expect(changes(callbacks(started, for: watchApp)) == ["prepared→running"], "a prepared session starts anyway")
  }

  @Test func theSessionOutlivesItsAppAndIsRecovered() {
    var registry = watchRegistry()
    let id = registry.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    registry.setDelegate(id, present: true)
    _ = registry.associatedBuilder(id)
    _ = registry.apply(.startActivity(at(0)), to: id, at: at(0))
    try? registry.beginCollection(id, at: at(0))
    #expect(registry.recover(otherApp) == nil)
    _ = registry.setRunState(watchApp, .notRunning)
    #expect(registry.delegates.isEmpty, "the dead process's delegates are gone")
    let samples = [heartRateInput(120, at: at(10))]
    let directives = registry.sensorSamples(samples, denied: [], at: at(10))
    #expect(directives.count == 1, "the samples are stored; the dead app hears nothing")
    #expect(registry.recover(watchApp) == id)
    #expect(registry.session(id)?.state == .running)
    #expect(registry.builders[id]?.samples.count == 1)
    _ = registry.setRunState(watchApp, .foreground)
    _ = registry.apply(.end, to: id, at: at(20))
    #expect(registry.recover(watchApp) == nil, "nothing to recover once ended")
  }

  @Test func aSuspendedAppGetsItsCallbacksInOrderWhenItResumes() {
    var registry = watchRegistry()
    let id = registry.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    _ = registry.apply(.startActivity(at(0)), to: id, at: at(0))
    _ = registry.setRunState(watchApp, .suspended)
    let quiet = registry.fail(id, .healthKit(.unknownError, "system"), at: at(30))
    #expect(quiet.isEmpty)
    let resumed = registry.setRunState(watchApp, .foreground)
    let heard = callbacks(resumed, for: watchApp)
    #expect(heard.count == 2)
    #expect(heard.last == .didChange(to: .ended, from: .running, date: at(30)), "the date is when it happened")
  }

  @Test func sessionEventsReachTheBuilderUnlessTurnedOff() throws {
    var registry = watchRegistry()
    let id = registry.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    _ = registry.associatedBuilder(id)
    _ = registry.apply(.startActivity(at(0)), to: id, at: at(0))
    try registry.beginCollection(id, at: at(0))
    let paused = registry.apply(.pause, to: id, at: at(60))
    #expect(builderCallbacks(paused) == [.didCollectEvent(WorkoutEvent(type: .pause, start: at(60)))])
    let index = paused.firstIndex { if case .builder = $0 { true } else { false } }!
    #expect(index == paused.count - 1, "the session's delegate hears first")
    try registry.setShouldCollectWorkoutEvents(id, false)
    #expect(builderCallbacks(registry.apply(.resume, to: id, at: at(90))).isEmpty)
    #expect(registry.builders[id]?.events.count == 1)
  }

  @Test func theBuilderIsCreatedOnceAndMirroredSessionsHaveNone() {
    var registry = watchRegistry()
    let id = registry.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    #expect(registry.associatedBuilder(id)?.metadata.isEmpty == true)
    _ = try? registry.withBuilder(id) { $0.metadata["k"] = .int(2) }
    #expect(registry.associatedBuilder(id)?.metadata["k"] == .int(2))
    #expect(registry.associatedBuilder(WorkoutSessionID(uuid: UUID())) == nil)
  }

  @Test func samplesWithoutAnActiveSessionAreIgnored() {
    var registry = watchRegistry()
    #expect(registry.sensorSamples([heartRateInput(100, at: at(1))], denied: [], at: at(1)).isEmpty)
  }
}
