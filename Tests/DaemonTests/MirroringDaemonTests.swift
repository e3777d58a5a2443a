import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Wire

/// Workout-session mirroring between the two daemons over the peer link (workouts.md §3.2–§3.5): the watch's
/// session mirrored to the phone app, controlled from the phone, the data channel both ways, a dropped link, and
/// `startWatchApp`.
@Suite("Workout-session mirroring between the daemons (real processes)")
struct MirroringDaemonTests {
  static let app = WorkoutSessionDaemonTests.runApp.bundleID
  static let run = WorkoutConfiguration(activityType: .running, location: .outdoor)

  /// What both devices' clients have heard, kept across waits.
  final class Heard {
    let pair: Pair
    var phone: [DaemonEvent] = []
    var watch: [DaemonEvent] = []

    /// Collects every session and link event on both devices from now on.
    init(_ pair: Pair) throws {
      self.pair = pair
      pair.keepSubscribed([.sessions, .link])
      for client in [pair.phone, pair.watch] {
        client.collectEvents()
        try client.subscribe([.sessions, .link])
      }
    }

    /// Takes what the clients collected since the last look.
    func take() {
      phone += pair.phone.takeCollectedEvents()
      watch += pair.watch.takeCollectedEvents()
    }

    /// Waits (20 s at most) until `condition` holds of what was heard, re-checking on every pushed event.
    func wait(_ what: String, _ condition: (Heard) -> Bool) throws {
      try pair.wait(for: what, timeout: 20, mask: [.sessions, .link]) { () -> Bool in
        take()
        return condition(self)
      }
    }

    /// The session callbacks `events` carry for object `id`.
    static func callbacks(_ events: [DaemonEvent], _ id: WorkoutSessionID) -> [SessionCallback] {
      events.compactMap { if case .workoutSession(_, id, let callback) = $0 { callback } else { nil } }
    }

    /// The mirrored objects the phone app's start handler received, in order.
    var mirroredOnPhone: [WorkoutSessionID] {
      phone.compactMap { if case .mirroringStarted(MirroringDaemonTests.app, let id) = $0 { id } else { nil } }
    }
  }

  /// A pair with the run app on both devices and a running watch session mirrored to the phone: what was heard,
  /// the watch's primary and the phone's mirrored object (both with delegates).
  static func mirrored(_ pair: Pair) throws -> (Heard, watch: WorkoutSessionID, phone: WorkoutSessionID) {
    for client in [pair.phone, pair.watch] { try client.installApp(WorkoutSessionDaemonTests.runApp) }
    let heard = try Heard(pair)
    let watch = try pair.watch.workoutSession(app, .create(uuid: UUID(), configuration: run)).id
    _ = try pair.watch.workoutSession(app, .setDelegate(watch, true))
    #expect(try pair.watch.workoutSession(app, .command(watch, .startActivity(t0))).state == .running)
    _ = try pair.watch.workoutSession(app, .startMirroring(watch))
    try heard.wait("the phone app's mirroring start handler") { !$0.mirroredOnPhone.isEmpty }
    let phone = heard.mirroredOnPhone[0]
    _ = try pair.phone.workoutSession(app, .setDelegate(phone, true))
    return (heard, watch, phone)
  }

  /// Sets the app's run state on `client`; the call answers the app's active session, which a phone app with only
  /// a mirrored object does not have (`errorNoData`: the state changed all the same).
  static func setRunState(_ client: DeviceClient, _ state: AppRunState) throws {
    do { _ = try client.workoutSession(app, .runState(state)) } catch ClientError.rejected(let error) {
      #expect(error.code == .errorNoData, "\(error)")
    }
  }

  @Test func aWatchSessionsMirroringGivesThePhoneAppAMirroredSessionInThePrimarysState() throws {
    try withPair { pair in
      let (_, watch, phone) = try Self.mirrored(pair)
      #expect(phone.uuid == watch.uuid)
      #expect(phone.generation == 1)
      let status = try pair.phone.workoutSession(Self.app, .status(phone))
      #expect(status.type == .mirrored)
      #expect(status.state == .running)
      #expect(status.start == t0)
      #expect(status.builder == nil, "a mirrored session has no builder")
    }
  }

  @Test func pausingTheMirroredSessionPausesTheWatchAndBothAppsHearTheSameChange() throws {
    try withPair { pair in
      let (heard, watch, phone) = try Self.mirrored(pair)
      _ = try pair.phone.workoutSession(Self.app, .command(phone, .pause))
      func paused(_ events: [DaemonEvent], _ id: WorkoutSessionID) -> Date? {
        Heard.callbacks(events, id).lazy.compactMap {
          if case .didChange(.paused, .running, let date) = $0 { date } else { nil }
        }.first
      }
      try heard.wait("both apps hear the pause") { paused($0.watch, watch) != nil && paused($0.phone, phone) != nil }
      #expect(paused(heard.watch, watch) == paused(heard.phone, phone))
      #expect(try pair.watch.workoutSession(Self.app, .status(watch)).state == .paused)
      #expect(try pair.phone.workoutSession(Self.app, .status(phone)).state == .paused)
    }
  }

  @Test func dataTravelsBothWaysAndASuspendedPhoneAppGetsWhatWasHeldAsOneArray() throws {
    try withPair { pair in
      let (heard, watch, phone) = try Self.mirrored(pair)
      func sent(_ events: [DaemonEvent], _ id: WorkoutSessionID, _ sequence: UInt64) -> Bool {
        events.contains { if case .workoutDataSent(_, id, sequence, nil) = $0 { true } else { false } }
      }
      func received(_ events: [DaemonEvent], _ id: WorkoutSessionID) -> [[Data]] {
        Heard.callbacks(events, id).compactMap { if case .didReceiveData(let items) = $0 { items } else { nil } }
      }
      let toPhone = try pair.watch.workoutSession(Self.app, .sendData(watch, Data([1, 2, 3]))).sequence
      let toWatch = try pair.phone.workoutSession(Self.app, .sendData(phone, Data([4, 5]))).sequence
      try heard.wait("both sends complete") { sent($0.watch, watch, toPhone) && sent($0.phone, phone, toWatch) }
      #expect(received(heard.phone, phone) == [[Data([1, 2, 3])]])
      #expect(received(heard.watch, watch) == [[Data([4, 5])]])

      try Self.setRunState(pair.phone, .suspended)
      let first = try pair.watch.workoutSession(Self.app, .sendData(watch, Data([6]))).sequence
      let second = try pair.watch.workoutSession(Self.app, .sendData(watch, Data([7]))).sequence
      try heard.wait("the held sends complete") { sent($0.watch, watch, first) && sent($0.watch, watch, second) }
      try pair.phone.ping()
      heard.take()
      #expect(received(heard.phone, phone).count == 1, "nothing reaches a suspended app")
      try Self.setRunState(pair.phone, .foreground)
      try heard.wait("the resumed app gets what was held") { received($0.phone, phone).count == 2 }
      #expect(received(heard.phone, phone).last == [Data([6]), Data([7])])
    }
  }

  @Test func aDroppedLinkDisconnectsTheMirroredSessionAndTheReconnectionMirrorsAgain() throws {
    try withPair { pair in
      let (heard, watch, phone) = try Self.mirrored(pair)
      _ = try pair.watch.link(.disconnect)
      try heard.wait("the mirrored session's disconnect") {
        Heard.callbacks($0.phone, phone).contains { if case .didDisconnect = $0 { true } else { false } }
      }
      #expect(try pair.watch.workoutSession(Self.app, .status(watch)).state == .running, "the primary runs on")
      _ = try pair.watch.link(.connect)
      try heard.wait("a new mirrored session") { $0.mirroredOnPhone.count == 2 }
      #expect(heard.mirroredOnPhone[1] == WorkoutSessionID(uuid: watch.uuid, generation: 2))
      let status = try pair.phone.workoutSession(Self.app, .status(heard.mirroredOnPhone[1]))
      #expect(status.type == .mirrored && status.state == .running)
    }
  }

  @Test func startWatchAppLetsTheWatchAppStartOneSessionFromTheBackground() throws {
    try withPair { pair in
      for client in [pair.phone, pair.watch] { try client.installApp(WorkoutSessionDaemonTests.runApp) }
      let heard = try Heard(pair)
      let app = Self.app
      // Without the phone's launch a background app cannot start a session: code 14.
      let early = try pair.watch.workoutSession(app, .create(uuid: UUID(), configuration: Self.run)).id
      try Self.setRunState(pair.watch, .background)
      #expect(try pair.watch.workoutSession(app, .command(early, .startActivity(t0))).state == .notStarted)
      try heard.wait("the refused start") {
        Heard.callbacks($0.watch, early).contains {
          if case .didFail(let error) = $0 { error.code == .errorBackgroundWorkoutSessionNotAllowed } else { false }
        }
      }

      do { _ = try pair.phone.workoutSession(app, .startWatchApp(Self.run)) } catch ClientError.rejected(let error) {
        #expect(error.code == .errorNoData, "the phone has no active session to answer with: \(error)")
      }
      try heard.wait("the watch app handles the configuration") {
        $0.watch.contains { if case .workoutConfigurationHandled(app, Self.run) = $0 { true } else { false } }
      }
      let session = try pair.watch.workoutSession(app, .create(uuid: UUID(), configuration: Self.run)).id
      #expect(try pair.watch.workoutSession(app, .command(session, .startActivity(t0))).state == .running)
    }
  }
}
