import Foundation
import HealthKitSim

/// Return with the article's naive line: `hasRequestedHealthKit = true` whatever happened, so a sheet that failed to
/// present counts as a refusal and the user is sent to Settings for a question they never saw.
@MainActor
final class NaiveHealthKitManager: HealthKitManager {
  /// Requests access, then marks the attempt as done unconditionally.
  override func requestAuthorization() async -> Bool {
    guard isAvailable else { return false }

    do {
      try await healthStore.requestAuthorization(toShare: [mindfulType], read: [])
      hasRequestedHealthKit = true  // ❌ wrong: treats transient failures as denial
      return isAuthorizedToWrite()
    } catch {
      hasRequestedHealthKit = true  // ❌ wrong: treats transient failures as denial
      return false
    }
  }

  /// Marks the attempt as done unconditionally.
  override func recordAuthorizationAttempt() {
    hasRequestedHealthKit = true  // ❌ wrong: treats transient failures as denial
  }
}
