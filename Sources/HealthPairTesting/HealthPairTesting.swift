import Foundation
import HealthKitSim
import HealthPairClient
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
  /// written to standard error. The API then returns its neutral value.
  ///
  /// Also makes SIGINT and SIGTERM (Ctrl-C in `swift test`, a CI runner's cancel, `docker stop`) stop every pair
  /// this process runs and remove their directories before the process ends by the signal, as it would have —
  /// unless the process already handles or ignores the signal itself. Idempotent; ``withHealthPair(_:_:)`` calls
  /// it.
  public static func installTestHandlers() {
    let first = installed.withLock { done in
      defer { done = true }
      return !done
    }
    guard first else { return }
    Interruption.install(ending: .defaultAction, onlyIfDefault: true)
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
