import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

@testable import ReturnApp

/// Runs `body` with a UserDefaults suite of its own, removed afterwards.
@MainActor
func withDefaults<R>(_ body: (UserDefaults) async throws -> R) async rethrows -> R {
  let name = "HealthKitSimTests.\(UUID().uuidString)"
  let defaults = UserDefaults(suiteName: name)!
  defer { defaults.removePersistentDomain(forName: name) }
  return try await body(defaults)
}

@Suite("The article's Return app (iPhone) against real daemons")
@MainActor
struct ReturnAppTests {
  @Test(arguments: [false, true])
  func afterAPresentationFailureTheNaiveReturnLocksTheUserOut(silently: Bool) async throws {
    try await withArticlePair { pair in
      try await withDefaults { defaults in
        let manager = NaiveHealthKitManager(defaults: defaults)
        try await pair.phone.use(app: returnID) {
          #expect(manager.nextTapAction == .showSheet)
          async let connected = manager.continueFromPermissionSheet()
          try await pair.phone.user.failToPresent(silently: silently)
          #expect(await connected == false)
          #expect(manager.authorizationStatus == .notDetermined, "the user never saw a question")
          #expect(manager.nextTapAction == .showSettingsHint, "yet the next tap sends them to Settings")
          let status = try await manager.healthStore.statusForAuthorizationRequest(toShare: [mindfulType], read: [])
          #expect(status == .shouldRequest, "HealthKit would still have shown the sheet")
        }
        #expect(try pair.phone.sheets(app: returnID).map(\.outcome) == [.failedToPresent], "never a sheet again")
      }
    }
  }

  @Test(arguments: [false, true])
  func afterAPresentationFailureTheCorrectReturnAsksAgain(silently: Bool) async throws {
    try await withArticlePair { pair in
      try await withDefaults { defaults in
        let manager = HealthKitManager(defaults: defaults)
        try await pair.phone.use(app: returnID) {
          #expect(manager.nextTapAction == .showSheet)
          async let first = manager.continueFromPermissionSheet()
          try await pair.phone.user.failToPresent(silently: silently)
          #expect(await first == false)
          #expect(!manager.hasRequestedHealthKit)
          #expect(manager.nextTapAction == .showSheet, "the next tap asks again")
          async let second = manager.continueFromPermissionSheet()
          try await pair.phone.user.allowAll()
          #expect(await second == true)
          #expect(manager.nextTapAction == .alreadyConnected)
          #expect(await manager.saveMindfulSession(start: t0, end: t0.addingTimeInterval(600)))
        }
        #expect(try pair.phone.sheets(app: returnID).map(\.outcome) == [.failedToPresent, .answered])
      }
    }
  }

  @Test func afterADecisionTheSecondTapShowsTheSettingsHint() async throws {
    try await withArticlePair { pair in
      try await withDefaults { defaults in
        let manager = HealthKitManager(defaults: defaults)
        try await pair.phone.use(app: returnID) {
          async let connected = manager.continueFromPermissionSheet()
          try await pair.phone.user.dontAllow()
          #expect(await connected == false)
          #expect(manager.hasRequestedHealthKit)
          #expect(manager.nextTapAction == .showSettingsHint)
          #expect(manager.nextTapAction.message?.hasPrefix("Settings → Privacy → Health") == true)
          // Requesting again would silently do nothing: no sheet.
          #expect(await manager.requestAuthorization() == false)
        }
        #expect(try pair.phone.sheets(app: returnID).count == 1)
        // The flag persists in UserDefaults: a fresh manager (next launch) remembers.
        #expect(HealthKitManager(defaults: defaults).hasRequestedHealthKit)
      }
    }
  }

  @Test func afterARevocationReturnGetsAuthorizationDeniedKeepsItsSessionsAndShowsTheSettingsHint() async throws {
    try await withArticlePair { pair in
      try await withDefaults { defaults in
        let manager = HealthKitManager(defaults: defaults)
        try await pair.phone.use(app: returnID) {
          async let connected = manager.continueFromPermissionSheet()
          try await pair.phone.user.allowAll()
          #expect(await connected)
          #expect(await manager.saveMindfulSession(start: t0, end: t0.addingTimeInterval(600)))
          let kept = try pair.phone.storedSamples(of: mindfulType).map(\.uuid)
          try pair.phone.settings.revoke(share: mindfulType, of: returnID)
          #expect(
            await manager.saveMindfulSession(start: t0.addingTimeInterval(3600), end: t0.addingTimeInterval(4200))
              == false)
          let error = try #require(manager.lastSaveError)
          #expect(isHKError(error, .errorAuthorizationDenied), "\(error)")
          #expect(manager.nextTapAction == .showSettingsHint)
          #expect(try pair.phone.storedSamples(of: mindfulType).map(\.uuid) == kept, "the saved session stays")
          #expect(kept.count == 1)
        }
      }
    }
  }
}
