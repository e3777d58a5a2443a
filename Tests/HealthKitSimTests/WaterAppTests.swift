import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

@testable import WaterApp

@Suite("The article's Water app against real daemons")
@MainActor
struct WaterAppTests {
  @Test func withWriteGrantedAndReadDeniedWaterSeesOnlyItsOwnEntries() async throws {
    try await withArticlePair { pair in
      // Another app logged water this morning, with full access.
      try await pair.phone.authorize(otherID, share: [waterType], read: [waterType])
      let theirs = water(500, at: t0.addingTimeInterval(600))
      try await pair.phone.use(app: otherID) { try await HKHealthStore().save(theirs) }

      let service = HealthKitService()
      let screen = WaterScreen(service: service)
      try await pair.phone.use(app: waterID) {
        #expect(await screen.tapGlass(milliliters: 250, at: t0) == .needsAuthorization)
        async let asked: Void = service.requestAuthorization()
        try await pair.phone.user.choose(share: [waterType], read: [])  // write on, read off
        try await asked
        #expect(service.isAuthorized, "Water trusts the share decision")
        let outcome = await screen.tapGlass(milliliters: 250, at: t0.addingTimeInterval(1200))
        guard case .logged(let mine) = outcome else {
          Issue.record("expected the glass to be logged, got \(outcome)")
          return
        }
        await screen.refreshHistory(on: t0)
        #expect(screen.history.map(\.id) == [mine], "read denied: only Water's own entry, and no error")
        #expect(screen.history.first?.milliliters == 250)
        #expect(screen.lastError == nil)

        // The hidden read decision is the only reason: turning read on in Settings shows the other entry too.
        try pair.phone.settings.grant(read: waterType, of: waterID)
        await screen.refreshHistory(on: t0)
        #expect(screen.history.map(\.id) == [mine, theirs.uuid])
      }
      #expect(try pair.phone.sampleCount(of: waterType) == 2, "both entries are stored; Water just cannot see one")
    }
  }

  @Test func afterARevocationWaterGetsAuthorizationDeniedKeepsItsEntriesAndShowsTheSettingsHint() async throws {
    try await withArticlePair { pair in
      let service = HealthKitService()
      let screen = WaterScreen(service: service)
      try await pair.phone.use(app: waterID) {
        async let asked: Void = service.requestAuthorization()
        try await pair.phone.user.allowAll()
        try await asked
        let outcome = await screen.tapGlass(milliliters: 250, at: t0)
        guard case .logged(let kept) = outcome else {
          Issue.record("expected the glass to be logged, got \(outcome)")
          return
        }
        try pair.phone.settings.revoke(share: waterType, of: waterID)
        #expect(service.isAuthorized, "Water has not re-checked since the revocation")

        #expect(await screen.tapGlass(milliliters: 300, at: t0.addingTimeInterval(60)) == .showSettingsHint)
        let error = try #require(screen.lastError)
        #expect(isHKError(error, .errorAuthorizationDenied), "HealthKit refused the save: \(error)")
        #expect(!service.isAuthorized && service.authorizationStatus == .sharingDenied)
        #expect(await screen.tapGlass(milliliters: 300, at: t0.addingTimeInterval(120)) == .showSettingsHint)
        #expect(WaterScreen.settingsHint.hasPrefix("Settings → Privacy → Health"))
        #expect(try pair.phone.storedSamples(of: waterType).map(\.uuid) == [kept], "the old entry stays")
      }
    }
  }
}
