// Return's HealthKit manager (iPhone), from the article ("HealthKit + SwiftUI on iOS 26"). The snippets are kept as
// published; the only change is `import HealthKit` → `import HealthKitSim`. The save the article elides
// ("// ... save via healthStore.save(sample) ...") and the members it uses without showing (`isAvailable`,
// `authorizationStatus`, `isAuthorizedToWrite()`, `hasRequestedHealthKit` in UserDefaults,
// `recordAuthorizationAttempt()`, `mindfulShareTypes`) are written here from its description.

import Foundation
import HealthKitSim

@MainActor
class HealthKitManager {
  static let shared = HealthKitManager()
  let healthStore = HKHealthStore()
  let mindfulType = HKCategoryType(.mindfulSession)

  /// Where `hasRequestedHealthKit` persists (`UserDefaults.standard` in the app; a private suite in tests).
  let defaults: UserDefaults
  /// The error of the last save that failed, for logging (and tests).
  private(set) var lastSaveError: (any Error)?

  /// A manager keeping its flag in `defaults`.
  init(defaults: UserDefaults = .standard) {
    self.defaults = defaults
  }

  /// The UserDefaults key of the flag.
  static let hasRequestedKey = "hasRequestedHealthKit"

  /// Whether Return has asked for HealthKit access and the user actually decided: what makes the second tap show
  /// the Settings hint instead of the sheet.
  var hasRequestedHealthKit: Bool {
    get { defaults.bool(forKey: Self.hasRequestedKey) }
    set { defaults.set(newValue, forKey: Self.hasRequestedKey) }
  }

  /// Whether HealthKit is available on this device.
  var isAvailable: Bool { HKHealthStore.isHealthDataAvailable() }

  /// The live share status of mindful sessions.
  var authorizationStatus: HKAuthorizationStatus { healthStore.authorizationStatus(for: mindfulType) }

  /// The types the SwiftUI `.healthDataAccessRequest` modifier is wired to.
  var mindfulShareTypes: Set<HKSampleType> { [mindfulType] }

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

  func requestAuthorization() async -> Bool {
    guard isAvailable else { return false }

    do {
      try await healthStore.requestAuthorization(
        toShare: [mindfulType],
        read: []  // We only need write access
      )
      hasRequestedHealthKit = authorizationStatus != .notDetermined
      return isAuthorizedToWrite()
    } catch {
      hasRequestedHealthKit = authorizationStatus != .notDetermined
      return false
    }
  }

  /// Records that an authorization attempt happened — only if the user really decided. A sheet that failed to
  /// present leaves the status `notDetermined`, so the next tap asks again instead of locking the user out.
  /// (The `.healthDataAccessRequest` path calls this when the modifier completes.)
  func recordAuthorizationAttempt() {
    hasRequestedHealthKit = authorizationStatus != .notDetermined  // ✓ checks real state
  }

  /// Whether Return may save mindful sessions now.
  func isAuthorizedToWrite() -> Bool {
    guard isAvailable else { return false }
    return healthStore.authorizationStatus(for: mindfulType) == .sharingAuthorized
  }
}
