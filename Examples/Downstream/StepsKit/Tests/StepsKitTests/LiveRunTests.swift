#if canImport(HealthPairTesting)
  import Foundation
  import HealthKit
  import HealthPairTesting
  import StepsKit
  import Testing

  /// Change notices from background queues, awaited until a condition holds (the test's time limit is the deadline).
  final class Changes: Sendable {
    let stream: AsyncStream<Void>
    let continuation: AsyncStream<Void>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream(of: Void.self) }

    /// Returns once `condition` holds, re-checking after each notice.
    func until(_ condition: () -> Bool) async {
      if condition() { return }
      for await _ in stream where condition() { return }
    }
  }

  @Test(.timeLimit(.minutes(1)))
  func aWatchRunIsMirroredToThePhoneWhichControlsItAndSeesItsHeartRate() async throws {
    let start = Date(timeIntervalSince1970: 1_767_600_000)
    let app = "com.example.runs"
    try await withHealthPair(HealthPairOptions(clock: start)) { pair in
      for device in [pair.phone, pair.watch] {
        try device.install(app: app, writeUsage: "Records runs.", readUsage: "Shows your heart rate.")
      }
      let phoneChanges = Changes()
      let viewer = pair.phone.use(app: app) { PhoneRunViewer() }
      viewer.onChange = { phoneChanges.continuation.yield() }
      let watchChanges = Changes()
      let run = WatchRun()
      run.onChange = { watchChanges.continuation.yield() }
      try await pair.watch.use(app: app) {
        async let asked: Void = run.requestAccess()
        try await pair.watch.user.allowAll()
        try await asked
        try await run.start(at: start)
      }
      await phoneChanges.until { viewer.state == .running }
      try pair.watch.advanceClock(by: 60)
      await phoneChanges.until { !viewer.heartRates.isEmpty }
      #expect(viewer.heartRates.allSatisfy { (60...220).contains($0) })
      #expect(viewer.heartRates.last == Int(run.heartRate))

      viewer.pause()
      await watchChanges.until { run.state == .paused }
      viewer.resume()
      await watchChanges.until { run.state == .running }

      let workout = try await pair.watch.use(app: app) { try await run.finish(at: start + 60) }
      #expect(workout?.workoutActivityType == .running)
      #expect(workout?.statistics(for: HKQuantityType(.heartRate)) != nil)
      await phoneChanges.until { viewer.state == .ended }
      #expect(try pair.watch.storedWorkouts().count == 1)
    }
  }
#endif
