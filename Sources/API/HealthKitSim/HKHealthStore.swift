import Foundation
import HealthModel

/// The access point to the simulated HealthKit store of one device, for one app.
///
/// Which device and app come from ``HealthKitSim`` configuration, resolved at each call (task-local target,
/// process-wide setting, then environment), never from the app's code: the same `HKHealthStore()` works against
/// the phone in one test and the watch in the next.
///
/// Sendable, like Apple's. Async methods are `nonisolated` and never block a thread; completion handlers are called
/// on a background queue. `authorizationStatus(for:)` and `earliestPermittedSampleDate()` are synchronous in
/// HealthKit, so they make a blocking round trip to the local daemon.
public final class HKHealthStore: Sendable {
  /// The store's workout-session handlers (`workoutSessionMirroringStartHandler`, `workoutConfigurationHandler`).
  let sessionHooks = SessionHooks()

  /// Creates a store.
  public init() {}

  /// Whether HealthKit is available: true when a target is configured (see ``HealthKitSim``).
  public static func isHealthDataAvailable() -> Bool { HealthKitSim.currentTarget != nil }

  /// Whether the device can download Health Records: true (HealthPair's iPhone keeps the records a scenario or the
  /// harness has a provider send, behavior.md F1; the watch keeps none).
  public func supportsHealthRecords() -> Bool { true }

  /// The share permission of the app for `type`: `notDetermined` until asked, then `sharingAuthorized` or
  /// `sharingDenied`. The read permission is never reported.
  ///
  /// With no target configured it returns `notDetermined`; when the daemon cannot answer it reports the problem to
  /// ``HealthKitSim/issueHandler`` and returns `notDetermined`.
  public func authorizationStatus(for type: HKObjectType) -> HKAuthorizationStatus {
    let api = "HKHealthStore.authorizationStatus(for:)"
    guard HealthKitSim.currentTarget != nil else { return .notDetermined }
    do {
      let session = try Session.current(api: api)
      let status = try session.perform(.authorizationStatus(session.bundleID, try type.simulatedType()), api: api)
      return HKAuthorizationStatus(rawValue: status.rawValue) ?? .notDetermined
    } catch {
      report(error, api: api)
      return .notDetermined
    }
  }

  /// The date before which samples can be neither saved nor read on this device: the distant past on the phone, now
  /// minus the retention window (7 days by default) on the watch.
  ///
  /// With no target configured, or when the daemon cannot answer, it returns the distant past (the latter is reported
  /// to ``HealthKitSim/issueHandler``).
  public func earliestPermittedSampleDate() -> Date {
    let api = "HKHealthStore.earliestPermittedSampleDate()"
    guard HealthKitSim.currentTarget != nil else { return .distantPast }
    do {
      let session = try Session.current(api: api)
      return try session.perform(.earliestPermittedSampleDate, api: api)
    } catch {
      report(error, api: api)
      return .distantPast
    }
  }

  private func report(_ error: any Error, api: String) {
    switch error {
    case let issue as HealthKitSimError: HealthKitSim.reportIssue(issue)
    case let termination as HKSimulatedTermination: HealthKitSim.reportTermination(termination)
    default: HealthKitSim.reportIssue(.misuse("\(api) failed: \(error)"))
    }
  }
}
