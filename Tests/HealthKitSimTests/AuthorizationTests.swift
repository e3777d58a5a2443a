import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

@Suite("Authorization, call by call, against real daemons")
struct AuthorizationTests {
  @Test func allowingRecordsBothDirectionsButOnlyShareIsReported() async throws {
    try await withArticlePair { pair in
      let store = HKHealthStore()
      try await pair.phone.use(app: waterID) {
        #expect(
          try await store.statusForAuthorizationRequest(toShare: [waterType], read: [waterType]) == .shouldRequest)
        async let request: Void = store.requestAuthorization(toShare: [waterType], read: [waterType])
        let sheet = try await pair.phone.user.waitForSheet(app: waterID)
        #expect(sheet.share == [waterType] && sheet.read == [waterType])
        #expect(
          store.authorizationStatus(for: waterType) == .notDetermined, "nothing is recorded while the sheet is up")
        try await pair.phone.user.allowAll()
        try await request
        #expect(store.authorizationStatus(for: waterType) == .sharingAuthorized)
        #expect(try await store.statusForAuthorizationRequest(toShare: [waterType], read: [waterType]) == .unnecessary)
        // Asking again shows nothing and succeeds at once.
        try await store.requestAuthorization(toShare: [waterType], read: [waterType])
      }
      #expect(try pair.phone.decision(app: waterID, read: waterType) == .authorized)
      #expect(try pair.phone.sheets(app: waterID).map(\.outcome) == [.answered])
    }
  }

  @Test func dontAllowSucceedsLikeAllow() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType]) { try await $0.dontAllow() }
      pair.phone.use(app: waterID) {
        #expect(HKHealthStore().authorizationStatus(for: waterType) == .sharingDenied)
      }
      #expect(try pair.phone.decision(app: waterID, read: waterType) == .denied)
    }
  }

  @Test func perTypeChoicesAndReadOnlyRequestsReportSharingDenied() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(otherID, share: [waterType, stepsType], read: [waterType]) {
        try await $0.choose(share: [stepsType], read: [waterType])
      }
      try await pair.phone.authorize(dashboardID, read: [mindfulType])
      let store = HKHealthStore()
      pair.phone.use(app: otherID) {
        #expect(store.authorizationStatus(for: stepsType) == .sharingAuthorized)
        #expect(store.authorizationStatus(for: waterType) == .sharingDenied)
      }
      #expect(try pair.phone.decision(app: otherID, read: waterType) == .authorized)
      pair.phone.use(app: dashboardID) {
        #expect(store.authorizationStatus(for: mindfulType) == .sharingDenied, "asked for read only: sharingDenied")
      }
    }
  }

  @Test func cancellingFailsWithUserCanceledAndRecordsNothing() async throws {
    try await withArticlePair { pair in
      let store = HKHealthStore()
      try await pair.phone.use(app: waterID) {
        async let request: Void = store.requestAuthorization(toShare: [waterType], read: [])
        try await pair.phone.user.cancel()
        do {
          try await request
          Issue.record("cancelling should fail the request")
        } catch {
          #expect(isHKError(error, .errorUserCanceled))
        }
        #expect(store.authorizationStatus(for: waterType) == .notDetermined)
        #expect(try await store.statusForAuthorizationRequest(toShare: [waterType], read: []) == .shouldRequest)
      }
    }
  }

  @Test(arguments: [false, true])
  func aSheetThatFailsToPresentRecordsNothing(silently: Bool) async throws {
    try await withArticlePair { pair in
      let store = HKHealthStore()
      try await pair.phone.use(app: returnID) {
        async let request: Void = store.requestAuthorization(toShare: [mindfulType], read: [])
        try await pair.phone.user.failToPresent(silently: silently)
        if silently {
          try await request
        } else {
          do {
            try await request
            Issue.record("a failed presentation should fail the request")
          } catch {
            #expect(isHKError(error, .unknownError))
          }
        }
        #expect(store.authorizationStatus(for: mindfulType) == .notDetermined)
      }
      #expect(try pair.phone.sheets(app: returnID).map(\.outcome) == [.failedToPresent])
    }
  }

  @Test func theCompletionHandlerFormsReportSuccessAndErrors() async throws {
    try await withArticlePair { pair in
      let store = HKHealthStore()
      let results = Mailbox<String>()
      pair.phone.use(app: waterID) {
        store.requestAuthorization(toShare: [waterType], read: [waterType]) { success, error in
          results.post("\(success) \(error.map { "\($0)" } ?? "nil")")
        }
      }
      try await pair.phone.user.allowAll()
      #expect(try await results.next() == "true nil")
      pair.phone.use(app: returnID) {
        store.requestAuthorization(toShare: [mindfulType], read: nil) { success, error in
          results.post("\(success) \((error as? HKError)?.code.description ?? "nil")")
        }
      }
      try await pair.phone.user.cancel()
      #expect(try await results.next() == "false errorUserCanceled")
      let statuses = Mailbox<HKAuthorizationRequestStatus>()
      pair.phone.use(app: waterID) {
        store.getRequestStatusForAuthorization(toShare: [waterType], read: [waterType]) { status, _ in
          statuses.post(status)
        }
      }
      #expect(try await statuses.next() == .unnecessary)
      pair.phone.use(app: waterID) {
        store.getRequestStatusForAuthorization(toShare: [waterType, stepsType], read: []) { status, _ in
          statuses.post(status)
        }
      }
      #expect(try await statuses.next() == .shouldRequest)
    }
  }

  @Test func requestsADeviceWouldCrashOnAreSimulatedTerminations() async throws {
    try await withArticlePair { pair in
      let store = HKHealthStore()
      func termination(_ body: () async throws -> Void) async -> HKSimulatedTermination? {
        do {
          try await body()
          return nil
        } catch {
          return error as? HKSimulatedTermination
        }
      }
      await pair.phone.use(app: returnID) {
        let empty = await termination { try await store.requestAuthorization(toShare: [], read: []) }
        #expect(empty?.reason == "Must request authorization for at least one data type")
        let noReadUsage = await termination { try await store.requestAuthorization(toShare: [], read: [mindfulType]) }
        #expect(noReadUsage?.reason.hasPrefix("NSHealthShareUsageDescription must be set") == true)
        let readOnly = await termination {
          try await store.requestAuthorization(toShare: [HKQuantityType(.appleExerciseTime)], read: [])
        }
        #expect(readOnly?.reason.contains("HKQuantityTypeIdentifierAppleExerciseTime") == true)
        #expect(readOnly?.exceptionName == "NSInvalidArgumentException")
        let status = await termination {
          _ = try await store.statusForAuthorizationRequest(toShare: [], read: [])
        }
        #expect(status != nil, "the request status applies the same checks")
      }
      let sheets = try pair.phone.sheets()
      #expect(sheets.isEmpty)
    }
  }

  @Test func anAppThatIsNotInstalledIsASimulatorMisuse() async throws {
    try await withArticlePair { pair in
      await pair.phone.use(app: "com.example.missing") {
        await #expect { try await HKHealthStore().requestAuthorization(toShare: [waterType], read: []) } throws: {
          guard case .misuse(let message) = $0 as? HealthKitSimError else { return false }
          return message.contains("com.example.missing")
        }
      }
    }
  }

  @Test func aTypeOutsideTheCatalogIsUnsupported() async throws {
    try await withArticlePair { pair in
      // An identifier of the iOS 27 beta SDK, outside the catalog (behavior.md T1).
      let unknown = HKQuantityType(HKQuantityTypeIdentifier("HKQuantityTypeIdentifierHeartRateVariabilityRMSSD"))
      await pair.phone.use(app: waterID) {
        await #expect { try await HKHealthStore().requestAuthorization(toShare: [unknown], read: []) } throws: {
          guard case .unsupported = $0 as? HealthKitSimError else { return false }
          return true
        }
      }
    }
  }
}
