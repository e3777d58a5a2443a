// Published-style live workout code, in the shape of Apple's multi-device workout sample (WWDC23): the watch runs an
// HKWorkoutSession with its live builder and mirrors it to the iPhone; the iPhone follows the session, controls it,
// and gets the watch's live statistics over the session's data channel, archived with NSKeyedArchiver as the sample
// does. It imports HealthKit, as it would on a device.

import Foundation
import HealthKit

// Each half builds for its platform, as in a real project's watch and phone targets (and both on Linux, where
// HealthPair's HealthKit stands in).
#if os(watchOS) || os(Linux)
  /// The watch side: a run with a live builder, mirrored to the companion iPhone.
  public final class WatchRun: NSObject, HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate, @unchecked Sendable {
    private let store = HKHealthStore()
    private let lock = NSLock()
    private var session: HKWorkoutSession?
    private var builder: HKLiveWorkoutBuilder?
    private var latest: (state: HKWorkoutSessionState, heartRate: Double) = (.notStarted, 0)

    /// Called after every change of ``state`` or ``heartRate``, on a background queue.
    public var onChange: (@Sendable () -> Void)?

    /// Creates a run; nothing starts until ``start(at:)``.
    public override init() { super.init() }

    /// The session's state, as its delegate was last told.
    public var state: HKWorkoutSessionState { lock.withLock { latest.state } }
    /// The last heart rate the builder collected, in beats per minute (0 before any).
    public var heartRate: Double { lock.withLock { latest.heartRate } }

    /// Asks for what a workout app needs: share workouts, read what it shows.
    public func requestAccess() async throws {
      try await store.requestAuthorization(
        toShare: [HKObjectType.workoutType()],
        read: [
          HKQuantityType(.heartRate), HKQuantityType(.activeEnergyBurned), HKQuantityType(.distanceWalkingRunning),
        ])
    }

    /// Starts an outdoor run at `date`, mirrored to the iPhone.
    public func start(at date: Date) async throws {
      let configuration = HKWorkoutConfiguration()
      configuration.activityType = .running
      configuration.locationType = .outdoor
      let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
      let builder = session.associatedWorkoutBuilder()
      builder.dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
      session.delegate = self
      builder.delegate = self
      lock.withLock { (self.session, self.builder) = (session, builder) }
      try await session.startMirroringToCompanionDevice()
      session.startActivity(with: date)
      try await builder.beginCollection(at: date)
    }

    /// Stops at `date`, saves the workout and ends the session.
    public func finish(at date: Date) async throws -> HKWorkout? {
      guard let (session, builder) = lock.withLock({ self.session.flatMap { s in self.builder.map { (s, $0) } } })
      else { return nil }
      session.stopActivity(with: date)
      try await builder.endCollection(at: date)
      let workout = try await builder.finishWorkout()
      session.end()
      return workout
    }

    public func workoutSession(
      _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
      from fromState: HKWorkoutSessionState, date: Date
    ) {
      lock.withLock { latest.state = toState }
      onChange?()
    }

    public func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {}

    public func workoutBuilder(
      _ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>
    ) {
      let statistics = collectedTypes.compactMap { type in
        (type as? HKQuantityType).flatMap { workoutBuilder.statistics(for: $0) }
      }
      if let bpm = statistics.first(where: { $0.quantityType == HKQuantityType(.heartRate) })?.mostRecentQuantity()?
        .doubleValue(for: HKUnit.count().unitDivided(by: .minute()))
      {
        lock.withLock { latest.heartRate = bpm }
      }
      // The phone shows what the watch measures: the statistics, archived, over the mirrored session's channel.
      guard !statistics.isEmpty,
        let archived = try? NSKeyedArchiver.archivedData(withRootObject: statistics, requiringSecureCoding: true)
      else { return }
      workoutBuilder.workoutSession?.sendToRemoteWorkoutSession(data: archived) { _, _ in }
      onChange?()
    }

    public func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}
  }

#endif

#if os(iOS) || os(Linux)
  /// The iPhone side: follows the watch's run through the mirrored session HealthKit hands it.
  public final class PhoneRunViewer: NSObject, HKWorkoutSessionDelegate, @unchecked Sendable {
    private let store = HKHealthStore()
    private let lock = NSLock()
    private var session: HKWorkoutSession?
    private var latest: (state: HKWorkoutSessionState, heartRates: [Int]) = (.notStarted, [])

    /// Called after every change of ``state`` or ``heartRates``, on a background queue.
    public var onChange: (@Sendable () -> Void)?

    /// Registers the mirroring start handler: create the viewer early at every launch.
    public override init() {
      super.init()
      store.workoutSessionMirroringStartHandler = { [weak self] session in
        guard let self else { return }
        self.lock.withLock {
          self.session = session
          self.latest.state = session.state
        }
        // As Apple's sample does: the delegate is set from a task, after the handler returned.
        Task { self.lock.withLock { self.session }?.delegate = self }
        self.onChange?()
      }
    }

    /// The mirrored session's state.
    public var state: HKWorkoutSessionState { lock.withLock { latest.state } }
    /// The heart rates the watch sent (the most recent of each archived heart-rate statistics), in order.
    public var heartRates: [Int] { lock.withLock { latest.heartRates } }

    /// Pauses the run on the watch.
    public func pause() { lock.withLock { session }?.pause() }
    /// Resumes the run on the watch.
    public func resume() { lock.withLock { session }?.resume() }

    public func workoutSession(
      _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
      from fromState: HKWorkoutSessionState, date: Date
    ) {
      lock.withLock { latest.state = toState }
      onChange?()
    }

    public func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {}

    public func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data])
    {
      let bpm = HKUnit.count().unitDivided(by: .minute())
      let values = data.flatMap { item -> [Int] in
        let statistics = (try? NSKeyedUnarchiver.unarchivedArrayOfObjects(ofClass: HKStatistics.self, from: item)) ?? []
        return statistics.filter { $0.quantityType == HKQuantityType(.heartRate) }.compactMap {
          $0.mostRecentQuantity().map { Int($0.doubleValue(for: bpm)) }
        }
      }
      lock.withLock { latest.heartRates += values }
      onChange?()
    }
  }
#endif
