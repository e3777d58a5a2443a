import Foundation
import HealthKitSim

/// What Water shows after the user taps a glass.
enum WaterLogOutcome: Equatable, Sendable {
  /// The water was saved to Health.
  case logged(UUID)
  /// Water never asked for access: it asks now (Water uses the system prompt directly, without a sheet).
  case needsAuthorization
  /// Access was denied or revoked: show how to turn it back on.
  case showSettingsHint
  /// HealthKit is not available on this device.
  case unavailable
  /// Something else went wrong; see ``WaterScreen/lastError``.
  case failed
}

/// Water's main screen, minus SwiftUI: the decisions its views make, as plain values tests can check.
@MainActor
final class WaterScreen {
  /// The instruction shown when Water lost access to Health on the iPhone.
  static let settingsHint = "Settings → Privacy → Health → Water: turn on Water's access to Water data."

  /// The HealthKit service the screen uses.
  let service: HealthKitService
  /// The error behind the last outcome that was not `.logged`.
  private(set) var lastError: (any Error)?
  /// Today's entries, as last loaded.
  private(set) var history: [WaterEntry] = []

  /// A screen over `service` (the shared one in the app).
  init(service: HealthKitService = .shared) {
    self.service = service
  }

  /// The user taps a glass of `milliliters`.
  func tapGlass(milliliters: Double, at date: Date = .now) async -> WaterLogOutcome {
    guard service.isHealthDataAvailable else { return .unavailable }
    do {
      let id = try await service.logWater(amount: milliliters, date: date)
      lastError = nil
      return .logged(id)
    } catch HealthKitError.notAuthorized {
      lastError = HealthKitError.notAuthorized
      service.checkAuthorizationStatus()
      return service.authorizationStatus == .notDetermined ? .needsAuthorization : .showSettingsHint
    } catch let error as HKError where error.code == .errorAuthorizationDenied {
      // Revoked in Settings since Water last checked: HealthKit refused the save.
      lastError = error
      service.checkAuthorizationStatus()
      return .showSettingsHint
    } catch {
      lastError = error
      return .failed
    }
  }

  /// Reloads today's history; an error leaves it empty.
  func refreshHistory(on day: Date = .now) async {
    do {
      history = try await service.todayEntries(on: day)
    } catch {
      lastError = error
      history = []
    }
  }
}
