import Foundation
import HealthKitSim
import Posix
import Synchronization

#if canImport(Testing)
  import Testing
#endif
#if canImport(XCTest)
  import XCTest
#endif

/// The harness's process-wide setup.
public enum HealthPairTesting {
  private static let installed = Mutex(false)

  /// Makes HealthKitSim's reports from non-throwing APIs test failures instead of crashes: a would-terminate
  /// condition (``HealthKitSim/terminationHandler``) and a simulator problem (``HealthKitSim/issueHandler``) are
  /// recorded with Swift Testing's `Issue.record` inside a Swift Testing test, with `XCTFail` otherwise, and always
  /// written to standard error. The API then returns its neutral value. Idempotent; ``withHealthPair(_:_:)`` calls it.
  public static func installTestHandlers() {
    let first = installed.withLock { done in
      defer { done = true }
      return !done
    }
    guard first else { return }
    HealthKitSim.terminationHandler = { termination in recordFailure(termination.description) }
    HealthKitSim.issueHandler = { issue in recordFailure(issue.description) }
  }

  /// Records a test failure in whichever framework runs the current test.
  static func recordFailure(_ message: String) {
    Posix.writeStandardError("HealthPairTesting: \(message)\n")
    #if canImport(Testing)
      if Test.current != nil {
        Issue.record(Comment(rawValue: message))
        return
      }
    #endif
    #if canImport(XCTest)
      XCTFail(message)
    #endif
  }
}
