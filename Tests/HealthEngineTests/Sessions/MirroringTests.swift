import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

/// A watch and a phone registry whose peer messages are carried while the sender's link is up.
struct SessionPair {
  var watch = watchRegistry([watchApp])
  var phone = SessionRegistry(device: .phone)

  /// Carries `directives` from `device` to the other side and back until no message is left; returns every other
  /// directive with the device that produced it, in order.
  mutating func pump(_ directives: [SessionDirective], from device: DeviceKind, at now: Date)
    -> [(DeviceKind, SessionDirective)]
  {
    var queue = directives.map { (device, $0) }
    var out: [(DeviceKind, SessionDirective)] = []
    while !queue.isEmpty {
      let (sender, directive) = queue.removeFirst()
      guard case .peer(let message) = directive else {
        out.append((sender, directive))
        continue
      }
      let linkUp = sender == .watch ? watch.linkUp : phone.linkUp
      guard linkUp else { continue }
      let replies = sender == .watch ? phone.receive(message, at: now) : watch.receive(message, at: now)
      queue += replies.map { (sender.peer, $0) }
    }
    return out
  }

  /// Callbacks delivered on `device`.
  static func heard(_ directives: [(DeviceKind, SessionDirective)], on device: DeviceKind) -> [SessionCallback] {
    directives.compactMap {
      if $0.0 == device, case .session(_, _, let callback) = $0.1 { return callback }
      return nil
    }
  }

  /// The mirrored objects delivered to the phone's start handler.
  static func handed(_ directives: [(DeviceKind, SessionDirective)]) -> [WorkoutSessionID] {
    directives.compactMap {
      if case .mirroringStarted(_, let id) = $0.1 { return id }
      return nil
    }
  }

  /// A running, mirroring watch session and the phone's mirrored object.
  mutating func mirroredRun() -> (primary: WorkoutSessionID, mirrored: WorkoutSessionID) {
    let id = watch.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    _ = pump(watch.apply(.prepare, to: id, at: at(0)), from: .watch, at: at(0))
    let started = watch.startMirroring(id)
    let delivered = pump(started.directives, from: .watch, at: at(0))
    _ = pump(watch.apply(.startActivity(at(3)), to: id, at: at(3)), from: .watch, at: at(3))
    return (id, Self.handed(delivered).last!)
  }

  /// Both links down or up at once.
  mutating func link(up: Bool, at now: Date) -> [(DeviceKind, SessionDirective)] {
    let fromPhone = phone.linkChanged(up: up, at: now)
    let fromWatch = watch.linkChanged(up: up, at: now)
    return pump(fromPhone, from: .phone, at: now) + pump(fromWatch, from: .watch, at: now)
  }
}

@Suite("Workout sessions: mirroring to the phone (workouts.md §3.2, §3.4, §3.5)")
struct MirroringTests {
  @Test func theMirroredSessionArrivesThroughTheHandlerLaunchingTheAppAndFollowsThePrimary() throws {
    var pair = SessionPair()
    let id = pair.watch.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    _ = pair.watch.apply(.prepare, to: id, at: at(0))
    let started = pair.watch.startMirroring(id)
    #expect(started.error == nil)
    let delivered = pair.pump(started.directives, from: .watch, at: at(0))
    #expect(delivered.first?.1 == .launch(app: watchApp), "the phone app is launched in the background")
    let mirrored = try #require(SessionPair.handed(delivered).first)
    #expect(mirrored.uuid == id.uuid && mirrored.generation == 1)
    #expect(pair.phone.session(mirrored)?.type == .mirrored)
    #expect(pair.phone.session(mirrored)?.state == .prepared)
    let run = pair.pump(pair.watch.apply(.startActivity(at(3)), to: id, at: at(3)), from: .watch, at: at(3))
    #expect(SessionPair.heard(run, on: .phone) == [.didChange(to: .running, from: .prepared, date: at(3))])
    #expect(pair.phone.session(mirrored)?.start == at(3))
    let paused = pair.pump(pair.watch.apply(.pause, to: id, at: at(9)), from: .watch, at: at(9))
    #expect(SessionPair.heard(paused, on: .phone).last == .didGenerate(WorkoutEvent(type: .pause, start: at(9))))
    #expect(pair.watch.startMirroring(id).directives.isEmpty, "already mirroring: ignored")
  }

  @Test func startMirroringRefusals() {
    var pair = SessionPair()
    let (primary, mirrored) = pair.mirroredRun()
    let fromPhone = pair.phone.startMirroring(mirrored)
    #expect(fromPhone.error?.message == "Cannot start mirroring from a mirrored session")
    #expect(fromPhone.error?.code == .errorInvalidArgument)
    _ = pair.pump(pair.watch.apply(.end, to: primary, at: at(10)), from: .watch, at: at(10))
    #expect(pair.watch.startMirroring(primary).error?.code == .errorInvalidArgument)
    let notMirroring = pair.watch.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    #expect(pair.watch.stopMirroring(notMirroring).error?.message == "Session is not mirroring.")
  }

  @Test func phoneControlsActOnTheWatchAndBothHear() {
    var pair = SessionPair()
    let (primary, mirrored) = pair.mirroredRun()
    let paused = pair.pump(pair.phone.apply(.pause, to: mirrored, at: at(20)), from: .phone, at: at(20))
    #expect(pair.watch.session(primary)?.state == .paused)
    #expect(changes(SessionPair.heard(paused, on: .watch)) == ["running→paused"])
    #expect(changes(SessionPair.heard(paused, on: .phone)) == ["running→paused"])
    _ = pair.pump(pair.phone.apply(.resume, to: mirrored, at: at(30)), from: .phone, at: at(30))
    let stopped = pair.pump(pair.phone.apply(.stopActivity(at(40)), to: mirrored, at: at(40)), from: .phone, at: at(40))
    #expect(pair.watch.session(primary)?.state == .stopped, "the watch stops and saves")
    #expect(pair.phone.session(mirrored)?.state == .stopped)
    #expect(SessionPair.heard(stopped, on: .phone) == [.didChange(to: .stopped, from: .running, date: at(40))])
    #expect(pair.phone.apply(.prepare, to: mirrored, at: at(41)).isEmpty)
  }

  @Test func theWatchsActivitiesReachTheMirroredSessionWithTheirDates() {
    var pair = SessionPair()
    let (primary, mirrored) = pair.mirroredRun()
    let leg = WorkoutConfiguration(activityType: .cycling, location: .outdoor)
    let uuid = UUID()
    let began = pair.pump(
      pair.watch.apply(.beginNewActivity(leg, date: at(60), metadata: [:], uuid: uuid), to: primary, at: at(60)),
      from: .watch, at: at(60))
    let heardBegin = SessionPair.heard(began, on: .phone)
    guard case .didBeginActivity(let activity, let date)? = heardBegin.first else {
      Issue.record("the phone heard \(heardBegin)")
      return
    }
    #expect(activity.uuid == uuid && activity.configuration == leg && date == at(60))
    #expect(pair.phone.session(mirrored)?.activities.map(\.uuid) == pair.watch.session(primary)?.activities.map(\.uuid))
    let ended = pair.pump(
      pair.watch.apply(.endCurrentActivity(at(90)), to: primary, at: at(90)), from: .watch, at: at(90))
    guard case .didEndActivity(let done, let endDate)? = SessionPair.heard(ended, on: .phone).first else {
      Issue.record("the phone heard no activity end")
      return
    }
    #expect(done.uuid == uuid && endDate == at(90))
    #expect(pair.phone.session(mirrored)?.activities.last?.end == at(90))
  }

  @Test func aDropKillsTheMirroredObjectAndTheReconnectionDeliversANewOne() throws {
    var pair = SessionPair()
    let (primary, mirrored) = pair.mirroredRun()
    let down = pair.link(up: false, at: at(100))
    guard case .didDisconnect? = SessionPair.heard(down, on: .phone).first else {
      Issue.record("expected a disconnect on the phone: \(down)")
      return
    }
    #expect(SessionPair.heard(down, on: .watch).isEmpty, "the primary hears nothing (HealthPair model)")
    #expect(!pair.phone.isLive(mirrored))
    #expect(pair.phone.apply(.pause, to: mirrored, at: at(101)).isEmpty, "the dead object does nothing")
    _ = pair.pump(pair.watch.apply(.pause, to: primary, at: at(110)), from: .watch, at: at(110))
    #expect(pair.watch.session(primary)?.state == .paused, "the watch runs on alone")
    let up = pair.link(up: true, at: at(200))
    let fresh = try #require(SessionPair.handed(up).first)
    #expect(fresh.uuid == primary.uuid && fresh.generation == 2)
    #expect(pair.phone.session(fresh)?.state == .paused, "the new object starts from the primary's state")
    #expect(pair.phone.session(fresh)?.events.map(\.type) == [.pause])
    #expect(pair.phone.liveMirrored(primary.uuid) == fresh)
  }

  @Test func mirroringRequestedWhileThePhoneIsUnreachableStartsWhenItComesBack() throws {
    var pair = SessionPair()
    _ = pair.link(up: false, at: at(0))
    let id = pair.watch.create(app: watchApp, uuid: UUID(), configuration: outdoorRun)
    _ = pair.watch.apply(.startActivity(at(0)), to: id, at: at(0))
    let started = pair.watch.startMirroring(id)
    #expect(started.error == nil && started.directives.isEmpty)
    let up = pair.link(up: true, at: at(50))
    let mirrored = try #require(SessionPair.handed(up).first)
    #expect(mirrored.generation == 1 && pair.phone.session(mirrored)?.state == .running)
  }

  @Test func endingStopsMirroringWithATrailingDisconnect() {
    var pair = SessionPair()
    let (primary, mirrored) = pair.mirroredRun()
    let ended = pair.pump(pair.watch.apply(.end, to: primary, at: at(60)), from: .watch, at: at(60))
    let phone = SessionPair.heard(ended, on: .phone)
    #expect(phone.first == .didChange(to: .ended, from: .running, date: at(60)))
    guard case .didDisconnect? = phone.last, phone.count == 2 else {
      Issue.record("expected ended, then a disconnect: \(phone)")
      return
    }
    #expect(!pair.phone.isLive(mirrored))
    #expect(pair.watch.mirroring.isEmpty)
    #expect(pair.link(up: false, at: at(70)).isEmpty && pair.link(up: true, at: at(80)).isEmpty)
  }

  @Test func stopMirroringDisconnectsThePhone() {
    var pair = SessionPair()
    let (primary, mirrored) = pair.mirroredRun()
    let stopped = pair.watch.stopMirroring(primary)
    #expect(stopped.error == nil)
    let heard = SessionPair.heard(pair.pump(stopped.directives, from: .watch, at: at(30)), on: .phone)
    guard case .didDisconnect? = heard.first else {
      Issue.record("expected a disconnect: \(heard)")
      return
    }
    #expect(!pair.phone.isLive(mirrored))
    #expect(pair.watch.session(primary)?.state == .running)
  }

  @Test func mirroringAgainAfterStoppingDeliversANewLiveObject() {
    var pair = SessionPair()
    let (primary, mirrored) = pair.mirroredRun()
    _ = pair.pump(pair.watch.stopMirroring(primary).directives, from: .watch, at: at(30))
    let again = pair.watch.startMirroring(primary)
    #expect(again.error == nil)
    let handed = SessionPair.handed(pair.pump(again.directives, from: .watch, at: at(40)))
    #expect(handed.map(\.generation) == [mirrored.generation + 1])
    #expect(handed.first.map { pair.phone.isLive($0) } == true)
    #expect(pair.phone.liveMirrored(primary.uuid) == handed.first)
  }

  @Test func endFromThePhoneEndsTheWatchSession() {
    var pair = SessionPair()
    let (primary, mirrored) = pair.mirroredRun()
    let ended = pair.pump(pair.phone.apply(.end, to: mirrored, at: at(50)), from: .phone, at: at(50))
    #expect(pair.watch.session(primary)?.state == .ended && pair.watch.active == nil)
    #expect(changes(SessionPair.heard(ended, on: .watch)) == ["running→ended"])
    #expect(changes(SessionPair.heard(ended, on: .phone)) == ["running→ended"])
    #expect(!pair.phone.isLive(mirrored))
  }

  @Test func unknownObjectsAndStaleMessagesAreIgnored() {
    var pair = SessionPair()
    let unknown = WorkoutSessionID(uuid: UUID())
    #expect(pair.watch.apply(.startActivity(at(0)), to: unknown, at: at(0)).isEmpty)
    #expect(pair.watch.fail(unknown, .healthKit(.unknownError, "x"), at: at(0)).isEmpty)
    #expect(pair.phone.receive(.stateChanged(UUID(), to: .running, from: .prepared, date: at(1)), at: at(1)).isEmpty)
    #expect(pair.phone.receive(.mirrorStop(UUID()), at: at(1)).isEmpty)
    #expect(pair.watch.receive(.control(UUID(), .pause), at: at(1)).isEmpty)
    #expect(pair.watch.receive(.dataAnswer(UUID(), sequence: 99, error: nil), at: at(1)).isEmpty)
    #expect(pair.watch.startMirroring(unknown).error?.code == .errorInvalidArgument)
  }
}
