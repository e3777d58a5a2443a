import Foundation

/// How ``withHealthPair(_:_:)`` launches a pair.
public struct HealthPairOptions: Sendable {
  /// If set, both devices' virtual clocks start at this date (else they follow the real clock).
  public var clock: Date?
  /// The default deadline of every wait (sheets, sync, link), in seconds — and how long a permission sheet may stay
  /// up unanswered before the test fails with ``HealthPairTestingError/sheetNotAnswered(device:sheet:seconds:)``.
  public var timeout: Double
  /// When the test fails (the body throws), print both devices' state side by side and the last app calls each
  /// daemon logged (its outcome and the virtual clock) to standard error, where the test log shows them.
  public var reportFailures: Bool
  /// When the test fails, keep the pair's directory (journals, daemon logs) and print its path, instead of
  /// removing it.
  public var keepDirectoryOnFailure: Bool

  /// Creates options.
  public init(
    clock: Date? = nil, timeout: Double = 10, reportFailures: Bool = true, keepDirectoryOnFailure: Bool = false
  ) {
    self.clock = clock
    self.timeout = timeout
    self.reportFailures = reportFailures
    self.keepDirectoryOnFailure = keepDirectoryOnFailure
  }
}

/// Launches a fresh pair in a temporary directory, runs `body` with it, and shuts the pair down — whether `body`
/// returns or throws. For XCTest and synchronous Swift Testing tests.
///
/// Also installs ``HealthPairTesting/installTestHandlers()``, so HealthKitSim's would-terminate reports become test
/// failures.
/// - Throws: ``HealthPairTestingError/launchFailed(_:)``;
///   ``HealthPairTestingError/sheetNotAnswered(device:sheet:seconds:)`` when a sheet stayed up unanswered for the
///   deadline (whatever `body` did then); else what `body` throws.
@discardableResult
public func withHealthPair<R>(_ options: HealthPairOptions = HealthPairOptions(), _ body: (HealthPair) throws -> R)
  throws -> R
{
  HealthPairTesting.installTestHandlers()
  let pair = try HealthPair(options: options)
  defer { pair.shutdown() }
  let result: R
  do { result = try body(pair) } catch {
    let thrown = pair.failure.map { $0 as any Error } ?? error
    pair.reportFailure(thrown, options)
    throw thrown
  }
  if let failure = pair.failure {
    pair.reportFailure(failure, options)
    throw failure
  }
  return result
}

/// Launches a fresh pair in a temporary directory, awaits `body` with it (on the caller's actor), and shuts the pair
/// down — whether `body` returns or throws.
///
/// Also installs ``HealthPairTesting/installTestHandlers()``, so HealthKitSim's would-terminate reports become test
/// failures.
/// - Throws: ``HealthPairTestingError/launchFailed(_:)``;
///   ``HealthPairTestingError/sheetNotAnswered(device:sheet:seconds:)`` when a sheet stayed up unanswered for the
///   deadline (whatever `body` did then); else what `body` throws.
@discardableResult
public func withHealthPair<R>(
  _ options: HealthPairOptions = HealthPairOptions(), isolation: isolated (any Actor)? = #isolation,
  _ body: (HealthPair) async throws -> R
) async throws -> R {
  HealthPairTesting.installTestHandlers()
  let pair = try HealthPair(options: options)
  defer { pair.shutdown() }
  let result: R
  do { result = try await body(pair) } catch {
    let thrown = pair.failure.map { $0 as any Error } ?? error
    pair.reportFailure(thrown, options)
    throw thrown
  }
  if let failure = pair.failure {
    pair.reportFailure(failure, options)
    throw failure
  }
  return result
}
