// Return's watchOS manager, from the article ("HealthKit + SwiftUI on iOS 26"), kept as published but for
// `import HealthKit` → `import HealthKitSim`. The save the article calls "identical to iOS variant" and the tap
// decision (the Watch-app instruction instead of a re-prompt) are written here from its description.

import Foundation
import HealthKitSim

@MainActor
class WatchHealthKitManager {
  static let shared = WatchHealthKitManager()
  let healthStore = HKHealthStore()
  let mindfulType = HKCategoryType(.mindfulSession)

  /// The error of the last save that failed, for logging (and tests).
  private(set) var lastSaveError: (any Error)?

  private init() {}

  var isAvailable: Bool { HKHealthStore.isHealthDataAvailable() }

  /// Returns true if the system request completed (success or already-authorized).
  /// Caller checks isAuthorizedToWrite() separately for the actual share state.
  func requestAuthorization() async -> Bool {
    guard isAvailable else { return false }
    do {
      try await healthStore.requestAuthorization(toShare: [mindfulType], read: [])
      return true
    } catch {
      return false
    }
  }

  func isAuthorizedToWrite() -> Bool {
    guard isAvailable else { return false }
    return healthStore.authorizationStatus(for: mindfulType) == .sharingAuthorized
  }

  /// Saves a mindful session (identical to the iOS variant).
  func saveMindfulSession(start: Date, end: Date) async -> Bool {
    guard isAvailable else { return false }
    guard end > start else { return false }

    let sample = HKCategorySample(
      type: mindfulType,
      value: HKCategoryValue.notApplicable.rawValue,
      start: start,
      end: end
    )
    do {
      try await healthStore.save(sample)
      lastSaveError = nil
      return true
    } catch {
      lastSaveError = error
      return false
    }
  }

  /// What tapping "Connect Health" on the watch shows: the system request while the watch would still present
  /// it, else — rather than a re-prompt that the watch would not show — the Watch-app instruction.
  func nextTapAction() async -> ReturnTapAction {
    guard isAvailable else { return .unavailable }
    if isAuthorizedToWrite() { return .alreadyConnected }
    let status = try? await healthStore.statusForAuthorizationRequest(toShare: [mindfulType], read: [])
    return status == .shouldRequest ? .requestAuthorization : .showWatchAppInstruction
  }
}
