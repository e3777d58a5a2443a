import Dispatch
import Foundation
import HealthKitSim
import Posix
import Synchronization
import Testing

@testable import HealthPairTesting

@Suite("HealthPairTesting: nothing hangs")
struct DeadlineTests {
  /// The classic mistake: awaiting the app's request before answering its sheet. The app waits for the user, the user
  /// (the test) waits for the app; the harness ends it at the pair's deadline with an error naming the sheet.
  /// (How soon it ends is measured by the next test: an async test resumes only when the runner's few pool threads
  /// let it, which on a busy machine can be seconds after the harness ended the sheet.)
  @Test func aRequestAwaitedBeforeItsSheetIsAnsweredFailsAtTheDeadlineNamingTheSheet() async throws {
    let error = await #expect(throws: HealthPairTestingError.self) {
      try await withHealthPair(HealthPairOptions(timeout: 1, reportFailures: false)) { pair in
        try pair.phone.install(app: waterID, writeUsage: "Water logs what you drink.", readUsage: "Totals.")
        try await pair.phone.use(app: waterID) {
          try await HKHealthStore().requestAuthorization(toShare: [waterType], read: [waterType])  // the mistake
          try await pair.phone.user.allowAll()
        }
      }
    }
    guard case .sheetNotAnswered(let device, let sheet, let deadline)? = error else {
      Issue.record("expected sheetNotAnswered, got \(String(describing: error))")
      return
    }
    #expect(device == .phone && deadline == 1)
    #expect(sheet.app == waterID && sheet.share == [waterType] && sheet.read == [waterType])
    let message = error?.description ?? ""
    let parts = [waterID, "HKQuantityTypeIdentifierDietaryWater", "awaited before the sheet was answered", "async let"]
    for part in parts {
      #expect(message.contains(part), "\(message)")
    }
  }

  /// An app extension's request whose app never calls `handleAuthorizationForExtension` ends at the deadline with an
  /// error naming it (the extension's call ends with `HKError.unknownError`), instead of hanging the test.
  @Test func anExtensionRequestItsAppNeverHandlesEndsAtTheDeadline() async throws {
    let ended = Mutex<(any Error)?>(nil)
    let error = await #expect(throws: HealthPairTestingError.self) {
      try await withHealthPair(HealthPairOptions(timeout: 1, reportFailures: false)) { pair in
        try pair.phone.install(app: waterID, writeUsage: "Water logs what you drink.")
        try await pair.phone.use(extension: "\(waterID).intents", of: waterID) {
          do { try await HKHealthStore().requestAuthorization(toShare: [waterType], read: []) } catch {
            ended.withLock { $0 = error }
          }
        }
      }
    }
    guard case .extensionRequestNotHandled(.phone, let request, 1)? = error else {
      Issue.record("expected extensionRequestNotHandled, got \(String(describing: error))")
      return
    }
    #expect(request.app == waterID && request.share == [waterType])
    #expect(error?.description.contains("handleAuthorizationForExtension") == true)
    #expect((ended.withLock { $0 } as? HKError)?.code == .unknownError, "the extension's call ended")
  }

  /// The same mistake in a synchronous (XCTest-style) test — blocking on the completion before answering — fails at
  /// the deadline: the harness ends the sheet, so the app's completion runs and the blocked wait returns, long
  /// before the test's own 30 s bound on it.
  @Test func aBlockingWaitBeforeTheAnswerEndsAtTheDeadline() async throws {
    let (error, waited) = try await Self.blockOnAnUnansweredSheet { pair in
      try pair.phone.user.allowAll()  // too late: the mistake is waiting for the app before answering
    }
    #expect(waited == .success, "the app's completion ran because the harness ended the sheet")
    guard let sheet = Self.unansweredPhoneSheet(error) else { return }
    #expect(sheet.app == waterID && sheet.share == [waterType] && sheet.read.isEmpty)
  }

  /// The watchdog follows a restarted device's new connection: a sheet shown after the phone crashed and came back
  /// still ends at the deadline instead of hanging the test.
  @Test func afterARestartAnUnansweredSheetStillEndsAtTheDeadline() async throws {
    let (error, waited) = try await Self.blockOnAnUnansweredSheet(
      before: { pair in
        pair.phone.kill()
        try pair.phone.restart()
      }, after: { _ in })
    #expect(waited == .success, "the harness ended the sheet shown on the restarted phone")
    guard let sheet = Self.unansweredPhoneSheet(error) else { return }
    #expect(sheet.app == waterID)
  }

  /// A synchronous test of a pair with a 1 s deadline: Water is installed on the phone, `before` runs, Water asks to
  /// share water with a completion, the test blocks on that completion (up to 30 s), then `after` runs. The error
  /// the pair ended with (if the harness's) and how the blocked wait ended.
  private static func blockOnAnUnansweredSheet(
    before: @escaping @Sendable (HealthPair) throws -> Void = { _ in },
    after: @escaping @Sendable (HealthPair) throws -> Void
  ) async throws -> (HealthPairTestingError?, DispatchTimeoutResult?) {
    try await Posix.onOwnThread { () -> (HealthPairTestingError?, DispatchTimeoutResult?) in
      var waited: DispatchTimeoutResult?
      do {
        try withHealthPair(HealthPairOptions(timeout: 1, reportFailures: false)) { pair in
          try pair.phone.install(app: waterID, writeUsage: "Water logs what you drink.")
          try before(pair)
          let done = DispatchSemaphore(value: 0)
          pair.phone.use(app: waterID) {
            HKHealthStore().requestAuthorization(toShare: [waterType], read: nil) { _, _ in done.signal() }
          }
          waited = done.wait(timeout: .now() + 30)
          try after(pair)
        }
        return (nil, waited)
      } catch {
        return (error as? HealthPairTestingError, waited)
      }
    }
  }

  /// The sheet of a `sheetNotAnswered` error on the phone with a 1 s deadline; records an issue for any other.
  private static func unansweredPhoneSheet(_ error: HealthPairTestingError?) -> PermissionSheet? {
    guard case .sheetNotAnswered(.phone, let sheet, 1)? = error else {
      Issue.record("expected sheetNotAnswered on the phone, got \(String(describing: error))")
      return nil
    }
    return sheet
  }

  /// When the app swallows the error the harness gave it, the next harness wait fails at once with the same error,
  /// and so does withHealthPair even if the body ends normally.
  @Test func afterAnUnansweredSheetEveryWaitFailsAtOnceAndSoDoesThePair() async throws {
    let recorded = Mutex<HealthPairTestingError?>(nil)
    let error = await #expect(throws: HealthPairTestingError.self) {
      try await withHealthPair(HealthPairOptions(timeout: 1, reportFailures: false)) { pair in
        try pair.watch.install(app: returnID, writeUsage: "Return saves mindful minutes.")
        try? await pair.watch.use(app: returnID) {
          try await HKHealthStore().requestAuthorization(toShare: [mindfulType], read: [])
        }
        recorded.withLock { $0 = pair.failure }
        #expect(try pair.watch.sheets(app: returnID).map(\.outcome) == [.failedToPresent])
        let expected = try #require(recorded.withLock { $0 })
        do {
          try await pair.watch.user.allowAll(timeout: 30)
          Issue.record("answering a sheet that is gone succeeded")
        } catch {
          #expect((error as? HealthPairTestingError) == expected, "fails with the recorded error")
        }
        // At once: with a failure recorded, a wait throws it before evaluating its condition even once, so it never
        // waits for an event or its deadline.
        let evaluated = Mutex(0)
        await #expect(throws: expected) {
          try await pair.waiter.wait(for: "anything", timeout: 30) { @Sendable () -> Bool? in
            evaluated.withLock { $0 += 1 }
            return nil
          }
        }
        #expect(throws: expected) {
          try pair.waiter.wait(for: "anything", timeout: 30) { () -> Bool? in
            evaluated.withLock { $0 += 1 }
            return nil
          }
        }
        #expect(evaluated.withLock { $0 } == 0)
      }
    }
    guard case .sheetNotAnswered(.watch, let sheet, _)? = error else {
      Issue.record("expected sheetNotAnswered on the watch, got \(String(describing: error))")
      return
    }
    #expect(sheet.share == [mindfulType])
    #expect(recorded.withLock { $0 } == error)
  }

  /// A sheet answered in time is no failure, however long the rest of the test takes. (The deadline is generous:
  /// on a loaded machine, answering a sheet while other tests run in parallel has taken over 2 s.)
  @Test func aSheetAnsweredInTimeIsNoFailure() async throws {
    try await withHealthPair(HealthPairOptions(timeout: 30)) { pair in
      try pair.phone.install(app: waterID, writeUsage: "Water logs what you drink.")
      try await pair.phone.authorize(waterID, share: [waterType])
      #expect(pair.failure == nil)
    }
  }
}
