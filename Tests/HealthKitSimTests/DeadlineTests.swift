import Dispatch
import Foundation
import HealthKitSim
import HealthPairTesting
import Posix
import Synchronization
import Testing

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

  /// The same mistake in a synchronous (XCTest-style) test — blocking on the completion before answering — fails at
  /// the deadline. Run on a thread of its own, so the time measured is the harness's, not the test runner's.
  @Test func aBlockingWaitBeforeTheAnswerEndsAtTheDeadline() async throws {
    let (error, seconds) = try await Posix.onOwnThread { () -> (HealthPairTestingError?, Double) in
      let started = DispatchTime.now()
      func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 }
      do {
        try withHealthPair(HealthPairOptions(timeout: 1, reportFailures: false)) { pair in
          try pair.phone.install(app: waterID, writeUsage: "Water logs what you drink.")
          let done = DispatchSemaphore(value: 0)
          pair.phone.use(app: waterID) {
            HKHealthStore().requestAuthorization(toShare: [waterType], read: nil) { _, _ in done.signal() }
          }
          _ = done.wait(timeout: .now() + 30)  // the mistake: waiting for the app before answering
          try pair.phone.user.allowAll()
        }
        return (nil, elapsed())
      } catch {
        return (error as? HealthPairTestingError, elapsed())
      }
    }
    #expect(seconds < 5, "ended after \(seconds) s, not at the 1 s deadline")
    guard case .sheetNotAnswered(.phone, let sheet, 1)? = error else {
      Issue.record("expected sheetNotAnswered on the phone, got \(String(describing: error))")
      return
    }
    #expect(sheet.app == waterID && sheet.share == [waterType] && sheet.read.isEmpty)
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
        let started = DispatchTime.now()
        do {
          try await pair.watch.user.allowAll(timeout: 30)
          Issue.record("answering a sheet that is gone succeeded")
        } catch {
          let expected = recorded.withLock { $0 }
          #expect(expected != nil && (error as? HealthPairTestingError) == expected, "fails with the recorded error")
          #expect(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds < 5_000_000_000, "and at once")
        }
      }
    }
    guard case .sheetNotAnswered(.watch, let sheet, _)? = error else {
      Issue.record("expected sheetNotAnswered on the watch, got \(String(describing: error))")
      return
    }
    #expect(sheet.share == [mindfulType])
    #expect(recorded.withLock { $0 } == error)
  }

  /// A sheet answered in time is no failure, however long the rest of the test takes.
  @Test func aSheetAnsweredInTimeIsNoFailure() async throws {
    try await withHealthPair(HealthPairOptions(timeout: 2)) { pair in
      try pair.phone.install(app: waterID, writeUsage: "Water logs what you drink.")
      try await pair.phone.authorize(waterID, share: [waterType])
      #expect(pair.failure == nil)
    }
  }
}
