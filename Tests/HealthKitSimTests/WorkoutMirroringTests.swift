import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// Records what a session tells its delegate across the pair: states, remote data and disconnection.
final class MirrorRecorder: NSObject, HKWorkoutSessionDelegate, @unchecked Sendable {
  let log = Mailbox<String>()

  func workoutSession(
    _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
    from fromState: HKWorkoutSessionState, date: Date
  ) {
    log.post("state \(fromState)->\(toState)")
  }

  func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {
    log.post("fail \((error as? HKError)?.code.rawValue ?? -1)")
  }

  func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
    log.post("data " + data.map { $0.map { String($0) }.joined(separator: ",") }.joined(separator: "|"))
  }

  func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?) {
    log.post("disconnected")
  }

  /// Reads entries until one is `entry` (each read waits with the mailbox's deadline); the ones skipped.
  @discardableResult
  func until(_ entry: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
    var skipped: [String] = []
    while true {
      let next = try await log.next(sourceLocation: sourceLocation)
      if next == entry { return skipped }
      skipped.append(next)
    }
  }
}

/// A watch session mirrored to the iPhone through HealthKitSim on both devices (workouts.md §3): the phone app's
/// `workoutSessionMirroringStartHandler`, control from the phone, the data channel, a dropped link, and
/// `startWatchApp(toHandle:)` with its watch-side stand-in.
@Suite("Workout-session mirroring through HealthKitSim, against real daemons")
struct WorkoutMirroringTests {
  /// A running watch session of the runner app, mirrored to the phone app: (watch session, its recorder, the
  /// phone's mirrored session, its recorder, the mirrored sessions the phone's handler receives).
  func mirrored(_ pair: HealthPair) async throws -> (
    watch: HKWorkoutSession, watchLog: MirrorRecorder, phone: HKWorkoutSession, phoneLog: MirrorRecorder,
    starts: Mailbox<HKWorkoutSession>, phoneStore: HKHealthStore
  ) {
    try await pair.watch.installRunners()
    try await pair.phone.installRunners()
    let starts = Mailbox<HKWorkoutSession>()
    let phoneLog = MirrorRecorder()
    let phoneStore = pair.phone.use(app: runnerID) { () -> HKHealthStore in
      let store = HKHealthStore()
      store.workoutSessionMirroringStartHandler = { session in
        session.delegate = phoneLog
        starts.post(session)
      }
      return store
    }
    let watchLog = MirrorRecorder()
    let watch = try pair.watch.use(app: runnerID) { () throws -> HKWorkoutSession in
      let session = try HKWorkoutSession(healthStore: HKHealthStore(), configuration: outdoorRun())
      session.delegate = watchLog
      session.startActivity(with: t0)
      return session
    }
    try await watchLog.until("state notStarted->running")
    try await watch.startMirroringToCompanionDevice()
    let phone = try await starts.next()
    return (watch, watchLog, phone, phoneLog, starts, phoneStore)
  }

  @Test func thePhoneAppsHandlerGetsAMirroredSessionInTheWatchsStateWithoutABuilder() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      let m = try await mirrored(pair)
      #expect(m.phone.type == .mirrored)
      #expect(m.watch.type == .primary)
      #expect(m.phone.state == .running)
      #expect(m.phone.startDate == t0)
      #expect(m.phone.workoutConfiguration.activityType == .running)
      #expect(m.phone.description.contains("[Mirrored]"))
      withExtendedLifetime(m.phoneStore) {}
    }
  }

  @Test func pausingOnThePhonePausesTheWatchAndBothDelegatesHearIt() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      let m = try await mirrored(pair)
      m.phone.pause()
      try await m.watchLog.until("state running->paused")
      try await m.phoneLog.until("state running->paused")
      #expect(m.watch.state == .paused && m.phone.state == .paused)
      m.phone.resume()
      try await m.watchLog.until("state paused->running")
      try await m.phoneLog.until("state paused->running")
      m.watch.end()
      try await m.phoneLog.until("state running->ended")
      #expect(m.phone.state == .ended)
      withExtendedLifetime(m.phoneStore) {}
    }
  }

  @Test func dataTravelsBothWaysInOrder() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      let m = try await mirrored(pair)
      try await m.watch.sendToRemoteWorkoutSession(data: Data([1, 2, 3]))
      try await m.watch.sendToRemoteWorkoutSession(data: Data([4]))
      try await m.phone.sendToRemoteWorkoutSession(data: Data([9]))
      #expect(try await m.phoneLog.until("data 4").allSatisfy { $0 == "data 1,2,3" || $0.hasPrefix("state") })
      try await m.watchLog.until("data 9")
      withExtendedLifetime(m.phoneStore) {}
    }
  }

  @Test func aMirroredSessionHoldsItsCallbacksUntilTheAppSetsItsDelegate() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await pair.watch.installRunners()
      try await pair.phone.installRunners()
      // The handler keeps the session and sets no delegate: Apple's multi-device sample sets it later, in a task.
      let starts = Mailbox<HKWorkoutSession>()
      let phoneStore = pair.phone.use(app: runnerID) { () -> HKHealthStore in
        let store = HKHealthStore()
        store.workoutSessionMirroringStartHandler = { session in starts.post(session) }
        return store
      }
      let watchLog = MirrorRecorder()
      let watch = try pair.watch.use(app: runnerID) { () throws -> HKWorkoutSession in
        let session = try HKWorkoutSession(healthStore: HKHealthStore(), configuration: outdoorRun())
        session.delegate = watchLog
        return session
      }
      try await watch.startMirroringToCompanionDevice()
      let phone = try await starts.next()
      #expect(phone.state == .notStarted)
      watch.startActivity(with: t0)
      try await watchLog.until("state notStarted->running")
      // The phone's object has taken the change (its state reads running) before it has a delegate.
      let deadline = Date().addingTimeInterval(20)
      while phone.state != .running, Date() < deadline { await Task.yield() }
      #expect(phone.state == .running)
      let phoneLog = MirrorRecorder()
      phone.delegate = phoneLog
      #expect(try await phoneLog.log.next() == "state notStarted->running")
      watch.pause()
      #expect(try await phoneLog.log.next() == "state running->paused")
      withExtendedLifetime(phoneStore) {}
    }
  }

  @Test func aDroppedLinkDisconnectsTheMirrorAndTheReconnectionDeliversANewOne() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      let m = try await mirrored(pair)
      try pair.link.disconnect()
      try await m.phoneLog.until("disconnected")
      do {
        try await m.phone.sendToRemoteWorkoutSession(data: Data([1]))
        Issue.record("a disconnected mirror sent data")
      } catch {
        #expect(error is HKError)
      }
      try pair.link.connect()
      let again = try await m.starts.next()
      #expect(again !== m.phone)
      #expect(again.type == .mirrored && again.state == .running)
      withExtendedLifetime(m.phoneStore) {}
    }
  }

  @Test func startWatchAppLetsTheWatchAppStartASessionFromTheBackground() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await pair.watch.installRunners()
      try await pair.phone.installRunners()
      try pair.watch.setRunState(.background, app: runnerID)
      let handled = Mailbox<HKWorkoutSession>()
      let watchLog = MirrorRecorder()
      let watchStore = pair.watch.use(app: runnerID) { () -> HKHealthStore in
        let store = HKHealthStore()
        store.workoutConfigurationHandler = { configuration in
          do {
            let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
            session.delegate = watchLog
            session.startActivity(with: t0)
            handled.post(session)
          } catch {
            Issue.record("the launched app could not create its session: \(error)")
          }
        }
        return store
      }
      try await pair.phone.use(app: runnerID) {
        try await HKHealthStore().startWatchApp(toHandle: outdoorRun())
      }
      let session = try await handled.next()
      try await watchLog.until("state notStarted->running")
      #expect(session.workoutConfiguration.activityType == .running)
      withExtendedLifetime(watchStore) {}
    }
  }
}
