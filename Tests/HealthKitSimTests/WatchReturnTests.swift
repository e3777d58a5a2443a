import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

@testable import ReturnApp

// Serialized: WatchHealthKitManager is the article's singleton (`private init()`), shared by these tests.
@Suite("The article's Return app on the watch against real daemons", .serialized)
@MainActor
struct WatchReturnTests {
  let manager = WatchHealthKitManager.shared

  @Test func afterADecisionTheWatchShowsTheWatchAppInstructionInsteadOfReprompting() async throws {
    try await withArticlePair { pair in
      try await pair.watch.use(app: returnID) {
        #expect(await manager.nextTapAction() == .requestAuthorization)
        async let completed = manager.requestAuthorization()
        try await pair.watch.user.dontAllow()
        #expect(await completed, "the system request completed")
        #expect(!manager.isAuthorizedToWrite())
        let action = await manager.nextTapAction()
        #expect(action == .showWatchAppInstruction)
        #expect(action.message == "Open the Watch app on iPhone → My Watch → Privacy → Health")
        #expect(await manager.requestAuthorization(), "re-requesting completes at once…")
        #expect(try pair.watch.sheets(app: returnID).count == 1, "…without a sheet")

        // The user follows the instruction on the iPhone; the change reaches the watch over the link.
        try pair.watch.settings.grant(share: mindfulType, of: returnID)
        try await pair.waitForSync()
        #expect(manager.isAuthorizedToWrite())
        #expect(await manager.nextTapAction() == .alreadyConnected)
      }
    }
  }

  @Test func afterAPresentationFailureTheWatchAsksAgain() async throws {
    try await withArticlePair { pair in
      try await pair.watch.use(app: returnID) {
        async let completed = manager.requestAuthorization()
        try await pair.watch.user.failToPresent()
        #expect(await completed == false)
        #expect(try pair.watch.isLockedOut(app: returnID) == false)
        #expect(await manager.nextTapAction() == .requestAuthorization)
      }
    }
  }

  @Test func afterARevocationFromTheWatchAppTheWatchGetsAuthorizationDeniedAndShowsTheInstruction() async throws {
    try await withArticlePair { pair in
      try await pair.watch.use(app: returnID) {
        async let completed = manager.requestAuthorization()
        try await pair.watch.user.allowAll()
        #expect(await completed)
        #expect(await manager.saveMindfulSession(start: t0, end: t0.addingTimeInterval(600)))
        let kept = try pair.watch.storedSamples(of: mindfulType).map(\.uuid)

        try pair.watch.settings.revoke(share: mindfulType, of: returnID)
        try await pair.waitForSync()
        #expect(
          await manager.saveMindfulSession(start: t0.addingTimeInterval(3600), end: t0.addingTimeInterval(4200))
            == false)
        let error = try #require(manager.lastSaveError)
        #expect(isHKError(error, .errorAuthorizationDenied), "\(error)")
        #expect(await manager.nextTapAction() == .showWatchAppInstruction)
        #expect(try pair.watch.storedSamples(of: mindfulType).map(\.uuid) == kept, "the saved session stays")
        #expect(try pair.phone.storedSamples(of: mindfulType).map(\.uuid) == kept, "and it synced to the phone")
      }
    }
  }

  @Test func aMindfulSessionSavedOnTheWatchAppearsInThePhonesDailyMindfulMinutes() async throws {
    try await withArticlePair { pair in
      try await pair.watch.use(app: returnID) {
        async let completed = manager.requestAuthorization()
        try await pair.watch.user.allowAll()
        #expect(await completed)
        #expect(
          await manager.saveMindfulSession(start: t0.addingTimeInterval(3600), end: t0.addingTimeInterval(3600 + 600)))
        #expect(
          await manager.saveMindfulSession(start: t0.addingTimeInterval(7200), end: t0.addingTimeInterval(7200 + 300)))
      }
      try await pair.waitForSync()
      // A reader on the phone (the Health app's view) adds up the day's sessions.
      try await pair.phone.authorize(dashboardID, read: [mindfulType])
      let minutes = try await pair.phone.use(app: dashboardID) { try await dailyMindfulMinutes(on: t0) }
      #expect(minutes == 15)
      let yesterday = try await pair.phone.use(app: dashboardID) {
        try await dailyMindfulMinutes(on: t0.addingTimeInterval(-86_400))
      }
      #expect(yesterday == 0)
      let sources = try pair.phone.storedSamples(of: mindfulType).map(\.sourceRevision)
      #expect(sources.allSatisfy { $0.source.bundleIdentifier == returnID && $0.productType == "Watch" })
    }
  }

  /// The minutes of mindful sessions that start on the UTC day of `day`.
  func dailyMindfulMinutes(on day: Date) async throws -> Double {
    let start = Date(timeIntervalSince1970: (day.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
    let predicate = HKQuery.predicateForSamples(
      withStart: start, end: start.addingTimeInterval(86_400), options: .strictStartDate)
    let sessions = try await samples(HKHealthStore(), mindfulType, predicate: predicate)
    return sessions.reduce(0) { $0 + $1.endDate.timeIntervalSince($1.startDate) } / 60
  }
}
