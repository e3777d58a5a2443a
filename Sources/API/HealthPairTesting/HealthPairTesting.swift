import Foundation
import HealthKitSim
import HealthPairClient
import PairProcesses
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
    HealthKitSim.terminationHandler = { termination in
      recordFailure(termination.description, at: termination.callSite)
    }
    HealthKitSim.issueHandler = { issue in recordFailure(issue.description) }
  }

  /// Records a test failure in whichever framework runs the current test: at `site` (the app's call) when known —
  /// Swift Testing points the issue there, XCTest's message starts with it.
  static func recordFailure(_ message: String, at site: HKCallSite? = nil) {
    let located = site.map { "\($0): \(message)" } ?? message
    Posix.writeStandardError("HealthPairTesting: \(located)\n")
    #if canImport(Testing)
      if Test.current != nil {
        if let site {
          Issue.record(
            Comment(rawValue: message),
            sourceLocation: SourceLocation(
              fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column))
        } else {
          Issue.record(Comment(rawValue: message))
        }
        return
      }
    #endif
    #if canImport(XCTest)
      XCTFail(located)
    #endif
  }
}
