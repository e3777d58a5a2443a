import Foundation
import Posix
import Synchronization

/// Configuration and hooks of the simulated HealthKit: which device daemon an ``HKHealthStore`` talks to, as which
/// app, and what happens where a real device would terminate the app.
///
/// A store resolves its target at **each call**, in this order:
/// 1. a task-local override set with ``withTarget(_:operation:)`` (what `HealthPairTesting` uses, so parallel tests
///    never see each other's devices);
/// 2. the process-wide target set with ``configure(socketPath:bundleIdentifier:)``;
/// 3. the environment variables `HEALTHKITSIM_SOCKET` and `HEALTHKITSIM_BUNDLE_ID` (both must be set).
///
/// With none of them, ``HKHealthStore/isHealthDataAvailable()`` returns false and every call fails with
/// `HKError(.errorHealthDataUnavailable)`, as on a device without HealthKit. Because the target is read per call,
/// singletons such as the article's `HealthKitManager.shared` work unchanged across tests.
public enum HealthKitSim {
  /// Which device daemon to talk to (its client socket), and as which app (its bundle identifier).
  public struct Target: Hashable, Sendable, CustomStringConvertible {
    /// The daemon's client socket, for example `<pair>/phone/phone.sock`.
    public var socketPath: String
    /// The bundle identifier the calls are made as; the app must be installed on that device.
    public var bundleIdentifier: String
    /// When the calls come from an app extension of that app (a widget, an intents extension …): the extension's
    /// bundle identifier. The extension reads and saves with its app's permissions, and its `requestAuthorization`
    /// waits for the app's `handleAuthorizationForExtension` (behavior.md A23). Nil for the app itself.
    public var extensionIdentifier: String?

    /// Creates a target: the app's, or with `extensionIdentifier` one of its extensions'.
    public init(socketPath: String, bundleIdentifier: String, extensionIdentifier: String? = nil) {
      self.socketPath = socketPath
      self.bundleIdentifier = bundleIdentifier
      self.extensionIdentifier = extensionIdentifier
    }

    /// `bundle@socket`, or `extension(bundle)@socket`.
    public var description: String {
      (extensionIdentifier.map { "\($0)(\(bundleIdentifier))" } ?? bundleIdentifier) + "@\(socketPath)"
    }
  }

  /// The environment variable naming the daemon socket (`HEALTHKITSIM_SOCKET`).
  public static let socketEnvironmentVariable = "HEALTHKITSIM_SOCKET"
  /// The environment variable naming the app's bundle identifier (`HEALTHKITSIM_BUNDLE_ID`).
  public static let bundleIdentifierEnvironmentVariable = "HEALTHKITSIM_BUNDLE_ID"

  @TaskLocal static var taskTarget: Target?
  private static let processTarget = Mutex<Target?>(nil)

  /// Sets the process-wide target: the one-line setup for an app or a test that runs alone.
  ///
  /// Prefer ``withTarget(_:operation:)`` in tests that may run in parallel.
  public static func configure(socketPath: String, bundleIdentifier: String) {
    configure(Target(socketPath: socketPath, bundleIdentifier: bundleIdentifier))
  }

  /// Sets (or with nil, clears) the process-wide target.
  public static func configure(_ target: Target?) {
    processTarget.withLock { $0 = target }
  }

  /// The process-wide target set with ``configure(socketPath:bundleIdentifier:)``, if any.
  public static var configuredTarget: Target? { processTarget.withLock { $0 } }

  /// The target a store would use for a call made here: task-local override, then process-wide setting, then the
  /// environment; nil when HealthKit is "not available".
  public static var currentTarget: Target? {
    if let target = taskTarget { return target }
    if let target = processTarget.withLock({ $0 }) { return target }
    guard let socket = Posix.environment(socketEnvironmentVariable), !socket.isEmpty,
      let bundle = Posix.environment(bundleIdentifierEnvironmentVariable), !bundle.isEmpty
    else { return nil }
    return Target(socketPath: socket, bundleIdentifier: bundle)
  }

  /// Runs `operation` with every store call inside it (in this task and its child tasks) going to `target`.
  @discardableResult
  public static func withTarget<R>(_ target: Target, operation: () throws -> R) rethrows -> R {
    try $taskTarget.withValue(target, operation: operation)
  }

  /// Runs the async `operation` with every store call inside it (in this task and its child tasks) going to
  /// `target`; the operation keeps the caller's actor isolation.
  @discardableResult
  public static func withTarget<R>(
    _ target: Target, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> R
  ) async rethrows -> R {
    try await $taskTarget.withValue(target, operation: operation, isolation: isolation)
  }

  // MARK: - Failure hooks

  /// What a non-throwing API does where a device would terminate the app (for example `HKUnit(from:)` with a
  /// string that is not a unit); the API then returns a neutral value.
  public typealias TerminationHandler = @Sendable (HKSimulatedTermination) -> Void
  /// What a non-throwing API does when it cannot do its job for a simulator reason (daemon unreachable, app not
  /// installed); the API then returns a neutral value.
  public typealias IssueHandler = @Sendable (HealthKitSimError) -> Void

  private struct Handlers {
    var termination: TerminationHandler = { termination in fatalError(termination.description) }
    var issue: IssueHandler = { issue in Posix.writeStandardError("HealthKitSim: \(issue)\n") }
  }
  private static let handlers = Mutex(Handlers())
  @TaskLocal static var taskTerminationHandler: TerminationHandler?
  @TaskLocal static var taskIssueHandler: IssueHandler?

  /// Called by non-throwing APIs where a device would terminate the app. The default stops the process with
  /// `fatalError` and Apple's message; `HealthPairTesting` installs one that records a test failure instead.
  ///
  /// Throwing, async and completion-handler APIs never call it: they fail with ``HKSimulatedTermination``.
  public static var terminationHandler: TerminationHandler {
    get { handlers.withLock { $0.termination } }
    set { handlers.withLock { $0.termination = newValue } }
  }

  /// Called by non-throwing APIs (`authorizationStatus(for:)`, `earliestPermittedSampleDate()`) that cannot reach
  /// their device or were misused. The default writes the problem to standard error.
  public static var issueHandler: IssueHandler {
    get { handlers.withLock { $0.issue } }
    set { handlers.withLock { $0.issue = newValue } }
  }

  /// Runs `operation` with `handler` receiving the terminations raised in this task and its child tasks instead of
  /// ``terminationHandler``.
  public static func withTerminationHandler<R>(_ handler: @escaping TerminationHandler, operation: () throws -> R)
    rethrows -> R
  {
    try $taskTerminationHandler.withValue(handler, operation: operation)
  }

  /// Runs `operation` with `handler` receiving the simulator problems of non-throwing APIs called in this task and
  /// its child tasks instead of ``issueHandler``.
  public static func withIssueHandler<R>(_ handler: @escaping IssueHandler, operation: () throws -> R) rethrows -> R {
    try $taskIssueHandler.withValue(handler, operation: operation)
  }

  /// Reports a would-terminate condition of a non-throwing API to the task's handler or the process-wide one.
  package static func reportTermination(_ termination: HKSimulatedTermination) {
    (taskTerminationHandler ?? terminationHandler)(termination)
  }

  /// Reports a simulator problem of a non-throwing API.
  package static func reportIssue(_ issue: HealthKitSimError) {
    (taskIssueHandler ?? issueHandler)(issue)
  }
}
