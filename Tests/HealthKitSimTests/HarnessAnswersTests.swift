import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

private let sleepyID = "com.example.sleepy"

@Suite("HealthPairTesting: what the harness already knows, it says at once")
struct HarnessAnswersTests {
  /// The daemon refuses a request by an app that is not installed at once; the user's wait for its sheet ends with
  /// that reason instead of timing out.
  @Test func aWaitForTheSheetOfARefusedRequestFailsAtOnceWithTheDaemonsReason() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await pair.phone.use(app: sleepyID) {
        async let asked: Void = HKHealthStore().requestAuthorization(toShare: [waterType], read: [])
        let error = await #expect(throws: HealthPairTestingError.self) { try await pair.phone.user.allowAll() }
        guard case .deviceRefused(let device, let operation, let reason)? = error else {
          Issue.record("expected the device's refusal, got \(String(describing: error))")
          return
        }
        #expect(device == .phone)
        #expect(reason.contains("'\(sleepyID)' is not installed on the phone"), "\(reason)")
        #expect(operation.contains("requestAuthorization") && operation.contains("HarnessAnswersTests.swift:"))
        do {
          try await asked
          Issue.record("the request of an app that is not installed succeeded")
        } catch {
          #expect(error is HealthKitSimError, "\(error)")
        }
      }
      // Once installed, its next request is awaited as usual: the old refusal no longer counts.
      try pair.phone.install(app: sleepyID, writeUsage: "Sleepy logs water.")
      try await pair.phone.use(app: sleepyID) {
        async let asked: Void = HKHealthStore().requestAuthorization(toShare: [waterType], read: [])
        try await pair.phone.user.allowAll(app: sleepyID)
        try await asked
      }
      #expect(try pair.phone.decision(app: sleepyID, share: waterType) == .authorized)
    }
  }

  /// The blocking form too, for a request that would terminate the app (no usage description).
  @Test func theBlockingWaitEndsAtOnceForARequestThatWouldTerminateTheApp() throws {
    try withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try pair.phone.install(app: sleepyID)
      pair.phone.use(app: sleepyID) {
        HKHealthStore().requestAuthorization(toShare: [waterType], read: nil) { _, _ in }
      }
      let error = #expect(throws: HealthPairTestingError.self) { try pair.phone.user.waitForSheet(app: sleepyID) }
      guard case .deviceRefused(_, _, let reason)? = error else {
        Issue.record("expected the device's refusal, got \(String(describing: error))")
        return
      }
      #expect(reason.contains("NSHealthUpdateUsageDescription"), "\(reason)")
    }
  }

  /// `restart()` of a running daemon stops it first, as `healthpair restart` does; its journal keeps its state.
  @Test func restartingARunningDeviceStopsItThenStartsIt() async throws {
    try await withArticlePair { pair in
      let kept = water(250)
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      try await pair.phone.use(app: waterID) { try await HKHealthStore().save(kept) }
      try pair.phone.restart()
      #expect(try pair.phone.storedSamples().map(\.uuid) == [kept.uuid])
      try await pair.phone.use(app: waterID) { try await HKHealthStore().save(water(300)) }
      try pair.phone.restart()
      try await pair.waitForSync()
      #expect(try pair.watch.storedSamples().count == 2)
    }
  }

  /// `HKUnit(from:)` with a string that is not a unit fails the test at the line that called it.
  @Test func anInvalidUnitStringIsReportedAtTheCallersLine() throws {
    try withHealthPair { _ in
      let line = #line + 2
      withKnownIssue("HKUnit(from:) with a string that is not a unit would crash a device") {
        _ = HKUnit(from: "not a unit")
      } matching: { issue in
        issue.sourceLocation?.fileID == #fileID && issue.sourceLocation?.line == line
      }
    }
  }

  /// `HKUnit(from: "")` is a scalar unit on devices (a published plugin builds it whenever it sets up, and reads body
  /// mass index with it).
  @Test func theEmptyUnitStringIsTheDimensionlessUnit() throws {
    try withHealthPair { _ in
      let empty = HKUnit(from: "")
      #expect(empty.unitString == "")
      #expect(HKQuantity(unit: .count(), doubleValue: 25.5).doubleValue(for: empty) == 25.5)
      #expect(HKQuantity(unit: empty, doubleValue: 3).is(compatibleWith: .count()))
    }
  }
}
