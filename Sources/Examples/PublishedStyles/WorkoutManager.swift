// Written the way Apple's watch workout samples are (WWDC21 "Build a workout app for Apple Watch", WWDC23 "Build a
// multi-device workout app"): a WorkoutManager that owns an HKWorkoutSession and its associatedWorkoutBuilder, feeds
// the builder from an HKLiveWorkoutDataSource, is the delegate of both, starts, pauses, resumes and ends the
// workout, reads heart rate, active energy and distance with statistics(for:) in didCollectDataOf, and finishes the
// workout when the session reaches .ended. It imports HealthKit — on Linux the HealthPair module — and knows
// nothing about HealthPair.
//
// One change from the sample: the sample publishes its metrics with DispatchQueue.main.async for SwiftUI; this one
// keeps them behind a lock and calls `onChange` from the delegate's queue (a test process has no main run loop).

import Foundation
import HealthKit

/// Runs one workout on the watch and publishes its live metrics.
public final class WorkoutManager: NSObject, @unchecked Sendable {
  /// The metrics as the workout view shows them.
  public struct Metrics: Sendable, Equatable {
    /// Whether the session is running (not paused).
    public var running = false
    /// The latest heart rate, in beats per minute.
    public var heartRate: Double = 0
    /// The average heart rate so far, in beats per minute.
    public var averageHeartRate: Double = 0
    /// Active energy so far, in kilocalories.
    public var activeEnergy: Double = 0
    /// Distance so far, in metres.
    public var distance: Double = 0
    /// The session's state (`HKWorkoutSessionState` raw value).
    public var sessionState: Int = HKWorkoutSessionState.notStarted.rawValue
    /// Whether the builder began collecting.
    public var collecting = false
    /// The errors the session reported, as `HKError` codes.
    public var errors: [Int] = []

    /// Empty metrics.
    public init() {}
  }

  let healthStore = HKHealthStore()
  var session: HKWorkoutSession?
  var builder: HKLiveWorkoutBuilder?

  private let lock = NSLock()
  private var _metrics = Metrics()
  private var _workout: HKWorkout?

  /// Called on a background queue after each change of ``metrics`` or ``workout``.
  public var onChange: (@Sendable () -> Void)?

  /// The metrics so far.
  public var metrics: Metrics { lock.withLock { _metrics } }
  /// The saved workout, once the session ended and the builder finished.
  public var workout: HKWorkout? { lock.withLock { _workout } }
  /// The time the workout has been running, pauses excluded (what the sample's timer shows).
  public var elapsedTime: TimeInterval { builder?.elapsedTime ?? 0 }

  /// Creates a manager.
  public override init() { super.init() }

  // MARK: - Authorization

  /// Asks to save workouts and read heart rate, energy, distance and activity rings.
  public func requestAuthorization(completion: @escaping @Sendable (Bool) -> Void) {
    let typesToShare: Set = [HKQuantityType.workoutType()]
    let typesToRead: Set = [
      HKQuantityType.quantityType(forIdentifier: .heartRate)!,
      HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned)!,
      HKQuantityType.quantityType(forIdentifier: .distanceWalkingRunning)!,
      HKQuantityType.quantityType(forIdentifier: .distanceCycling)!,
      HKObjectType.activitySummaryType(),
    ]
    healthStore.requestAuthorization(toShare: typesToShare, read: typesToRead) { success, _ in
      completion(success)
    }
  }

  // MARK: - Session state control

  /// Starts a workout of `workoutType` outdoors now.
  public func startWorkout(workoutType: HKWorkoutActivityType) {
    let configuration = HKWorkoutConfiguration()
    configuration.activityType = workoutType
    configuration.locationType = .outdoor

    do {
      session = try HKWorkoutSession(healthStore: healthStore, configuration: configuration)
      builder = session?.associatedWorkoutBuilder()
    } catch {
      // Handle any exceptions.
      return
    }

    builder?.dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: configuration)
    session?.delegate = self
    builder?.delegate = self

    // Start the workout session and begin data collection.
    let startDate = Date()
    session?.startActivity(with: startDate)
    builder?.beginCollection(withStart: startDate) { success, _ in
      // The workout has started.
      self.lock.withLock { self._metrics.collecting = success }
      self.onChange?()
    }
  }

  /// Pauses or resumes.
  public func togglePause() {
    if metrics.running { pause() } else { resume() }
  }

  /// Pauses the session.
  public func pause() { session?.pause() }

  /// Resumes the session.
  public func resume() { session?.resume() }

  /// Ends the session; the workout is saved once the session reports `.ended`.
  public func endWorkout() { session?.end() }

  // MARK: - Workout metrics

  func updateForStatistics(_ statistics: HKStatistics?) {
    guard let statistics = statistics else { return }
    lock.withLock {
      switch statistics.quantityType {
      case HKQuantityType.quantityType(forIdentifier: .heartRate):
        let heartRateUnit = HKUnit.count().unitDivided(by: HKUnit.minute())
        _metrics.heartRate = statistics.mostRecentQuantity()?.doubleValue(for: heartRateUnit) ?? 0
        _metrics.averageHeartRate = statistics.averageQuantity()?.doubleValue(for: heartRateUnit) ?? 0
      case HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned):
        let energyUnit = HKUnit.kilocalorie()
        _metrics.activeEnergy = statistics.sumQuantity()?.doubleValue(for: energyUnit) ?? 0
      case HKQuantityType.quantityType(forIdentifier: .distanceWalkingRunning),
        HKQuantityType.quantityType(forIdentifier: .distanceCycling):
        let meterUnit = HKUnit.meter()
        _metrics.distance = statistics.sumQuantity()?.doubleValue(for: meterUnit) ?? 0
      default:
        return
      }
    }
    onChange?()
  }

  /// Forgets the finished workout, ready for the next one.
  public func resetWorkout() {
    builder = nil
    session = nil
    lock.withLock {
      _workout = nil
      _metrics = Metrics()
    }
  }
}

// MARK: - HKWorkoutSessionDelegate

extension WorkoutManager: HKWorkoutSessionDelegate {
  public func workoutSession(
    _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
    from fromState: HKWorkoutSessionState, date: Date
  ) {
    lock.withLock {
      _metrics.running = toState == .running
      _metrics.sessionState = toState.rawValue
    }
    onChange?()

    // Wait for the session to transition states before ending the builder.
    if toState == .ended {
      builder?.endCollection(withEnd: date) { _, _ in
        self.builder?.finishWorkout { workout, _ in
          self.lock.withLock { self._workout = workout }
          self.onChange?()
        }
      }
    }
  }

  public func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: Error) {
    lock.withLock { _metrics.errors.append((error as? HKError)?.code.rawValue ?? -1) }
    onChange?()
  }
}

// MARK: - HKLiveWorkoutBuilderDelegate

extension WorkoutManager: HKLiveWorkoutBuilderDelegate {
  public func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {
  }

  public func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
    for type in collectedTypes {
      guard let quantityType = type as? HKQuantityType else {
        return  // Nothing to do.
      }

      let statistics = workoutBuilder.statistics(for: quantityType)

      // Update the published values.
      updateForStatistics(statistics)
    }
  }
}
