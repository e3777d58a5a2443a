import Foundation
import HealthModel

/// The state of a workout session, with Apple's raw values (workouts.md §2.2: `HKWorkoutSession.h`; PyObjC
/// `test_hkworkoutsession.py`). `stopped` and `ended` are terminal.
public enum HKWorkoutSessionState: Int, Hashable, Sendable, CaseIterable {
  /// Created, not yet prepared or started (1).
  case notStarted = 1
  /// Collecting data; `startDate` is set (2).
  case running = 2
  /// Ended: `endDate` is set and the session left session mode (3).
  case ended = 3
  /// Paused (4).
  case paused = 4
  /// In session mode (sensors warm, background runtime) with no activity yet (5).
  case prepared = 5
  /// No new data; the app keeps its background runtime to save (6).
  case stopped = 6

  /// The device's state as the API spells it.
  init(_ state: WorkoutSessionState) { self = Self(rawValue: state.rawValue) ?? .notStarted }
}

/// Whether a session is the primary (it owns the live builder) or a mirror of one on the companion device
/// (watchOS 10 / iOS 17; workouts.md §3.2).
public enum HKWorkoutSessionType: Int, Hashable, Sendable, CaseIterable {
  /// The session the app created (0).
  case primary = 0
  /// A mirror of the companion device's primary session (1).
  case mirrored = 1

  /// The device's type as the API spells it.
  init(_ type: WorkoutSessionType) { self = type == .primary ? .primary : .mirrored }
}

/// What a workout session tells its app (workouts.md §2.3). Callbacks arrive on a serial background queue of the
/// session, in the device's order: a failure's `didFailWithError` before the `didChangeTo` it causes; a state
/// change before the event it generates. A suspended app gets them when it runs again; `date` is when the change
/// really happened.
///
/// Apple's optional methods (`didGenerate`, activities, remote data, disconnect) have empty default
/// implementations in a protocol extension: Linux Swift has no `@objc optional`.
public protocol HKWorkoutSessionDelegate: AnyObject {
  /// The session changed from `fromState` to `toState` at `date`.
  func workoutSession(
    _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
    from fromState: HKWorkoutSessionState, date: Date)
  /// The session failed (another session took the device's slot: code 8; a start from the background: code 14).
  func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error)
  /// The session generated an event (a pause or resume).
  func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent)
  /// An activity began (iOS 16 / watchOS 9).
  func workoutSession(
    _ workoutSession: HKWorkoutSession, didBeginActivityWith workoutConfiguration: HKWorkoutConfiguration,
    date: Date)
  /// The current activity ended (iOS 16 / watchOS 9).
  func workoutSession(
    _ workoutSession: HKWorkoutSession, didEndActivityWith workoutConfiguration: HKWorkoutConfiguration, date: Date)
  /// Data the remote (primary or mirrored) session sent, in received order (watchOS 10 / iOS 17).
  func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data])
  /// The session lost its remote counterpart; a mirrored session is no longer valid after it (watchOS 10 / iOS 17).
  func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?)
}

extension HKWorkoutSessionDelegate {
  /// Does nothing (optional in HealthKit).
  public func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent) {}
  /// Does nothing (optional in HealthKit).
  public func workoutSession(
    _ workoutSession: HKWorkoutSession, didBeginActivityWith workoutConfiguration: HKWorkoutConfiguration,
    date: Date
  ) {}
  /// Does nothing (optional in HealthKit).
  public func workoutSession(
    _ workoutSession: HKWorkoutSession, didEndActivityWith workoutConfiguration: HKWorkoutConfiguration, date: Date
  ) {}
  /// Does nothing (optional in HealthKit).
  public func workoutSession(
    _ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]
  ) {}
  /// Does nothing (optional in HealthKit).
  public func workoutSession(
    _ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?
  ) {}
}

/// What a live workout builder tells its app (workouts.md §2.6), on its session's serial background queue, in the
/// device's order. `didBegin` / `didEnd` are optional in HealthKit: empty defaults here.
public protocol HKLiveWorkoutBuilderDelegate: AnyObject {
  /// Statistics of these types may have changed: read them again (`statistics(for:)`).
  func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>)
  /// The builder collected an event (read `workoutEvents` and `elapsedTime` again).
  func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder)
  /// An activity began (iOS 16 / watchOS 9).
  func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didBegin workoutActivity: HKWorkoutActivity)
  /// An activity ended (iOS 16 / watchOS 9).
  func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didEnd workoutActivity: HKWorkoutActivity)
}

extension HKLiveWorkoutBuilderDelegate {
  /// Does nothing (optional in HealthKit).
  public func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didBegin workoutActivity: HKWorkoutActivity) {}
  /// Does nothing (optional in HealthKit).
  public func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didEnd workoutActivity: HKWorkoutActivity) {}
}
