// Published-style app-extension code: a Siri shortcut's intents extension logs a glass of water, and the app
// delegate presents the permission sheet the extension asked for (applicationShouldRequestHealthAuthorization).

import Foundation
import HealthKit

/// Logs water from an extension, with the app's permission.
public struct WaterShortcut: Sendable {
  static let water = HKQuantityType(.dietaryWater)

  /// A store user.
  public init() {}

  /// In the extension: asks to save water (the containing app presents the sheet).
  public func requestAccess() async throws {
    try await HKHealthStore().requestAuthorization(toShare: [Self.water], read: [])
  }

  /// In the extension: logs `milliliters` of water now, if the user allowed it.
  /// - Returns: whether it was saved.
  public func logGlass(milliliters: Double) async throws -> Bool {
    let store = HKHealthStore()
    guard store.authorizationStatus(for: Self.water) == .sharingAuthorized else { return false }
    let now = Date()
    try await store.save(
      HKQuantitySample(
        type: Self.water, quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: milliliters), start: now,
        end: now))
    return true
  }

  /// In the app delegate's `applicationShouldRequestHealthAuthorization(_:)`: presents the extension's request;
  /// `done` receives whether the prompt completed without a cancel.
  public func applicationShouldRequestHealthAuthorization(done: @escaping @Sendable (Bool) -> Void) {
    HKHealthStore().handleAuthorizationForExtension { success, _ in done(success) }
  }
}
