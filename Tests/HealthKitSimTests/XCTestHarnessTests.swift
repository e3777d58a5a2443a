import Dispatch
import Foundation
import HealthKitSim
import HealthPairTesting
import Synchronization
import XCTest

@testable import WaterApp

/// The harness from XCTest, as docs/testing-your-app.md shows it.
final class XCTestHarnessTests: XCTestCase {
  /// A synchronous test: plain throwing calls and blocking waits. It runs on the main thread, so what it waits for
  /// must not need the main actor (the completion-handler API does not).
  func testTheUserAllowsAccessInASynchronousTest() throws {
    try withHealthPair { pair in
      try pair.phone.install(app: "com.example.water", writeUsage: "Water logs what you drink.")
      let water = HKQuantityType(.dietaryWater)
      let result = Mutex<Bool?>(nil)
      let done = DispatchSemaphore(value: 0)
      pair.phone.use(app: "com.example.water") {
        HKHealthStore().requestAuthorization(toShare: [water], read: nil) { success, _ in
          result.withLock { $0 = success }
          done.signal()
        }
      }
      try pair.phone.user.allowAll()
      XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
      XCTAssertEqual(result.withLock { $0 }, true)
      pair.phone.use(app: "com.example.water") {
        XCTAssertEqual(HKHealthStore().authorizationStatus(for: water), .sharingAuthorized)
      }
    }
  }

  /// An async test can drive an app whose code hops to the main actor.
  func testWaterLogsAGlassInAnAsyncTest() async throws {
    try await withHealthPair { pair in
      try pair.phone.install(
        app: "com.example.water", writeUsage: "Water logs what you drink.", readUsage: "Water shows today's total.")
      let service = HealthKitService()
      try await pair.phone.use(app: "com.example.water") {
        async let asked: Void = service.requestAuthorization()
        try await pair.phone.user.allowAll()
        try await asked
        XCTAssertTrue(service.isAuthorized)
        _ = try await service.logWater(amount: 250)
      }
      XCTAssertEqual(try pair.phone.storedSamples().count, 1)
    }
  }
}
