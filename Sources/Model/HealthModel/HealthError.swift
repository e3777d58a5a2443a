/// An error from the simulated HealthKit: a HealthKit error, a condition that would terminate the app on a real
/// device, or a misuse of the simulator itself.
///
/// On a device, some conditions raise an Objective-C exception that no Swift code can catch (both authorization
/// sets empty, a missing usage description, sharing a read-only type, an invalid sample). HealthPair reports them
/// as ``Kind/wouldTerminate`` errors carrying the exception name and Apple's message, and never crashes.
package struct HealthError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The class of an error.
  package enum Kind: UInt8, Sendable, Hashable {
    /// An `HKError` a real device would return; ``HealthError/code`` is Apple's code.
    case healthKit = 0
    /// A real device would raise an uncatchable exception and terminate the app.
    case wouldTerminate = 1
    /// The simulator was used wrongly (unknown app, no pending prompt, …); not something HealthKit returns.
    case simulator = 2
  }

  /// Which class of error this is.
  package var kind: Kind
  /// The HealthKit code (for `wouldTerminate`, the code the exception's class maps to: invalid argument).
  package var code: HealthErrorCode
  /// A message with context: the types, values or identifiers involved.
  package var message: String
  /// The exception a device would raise, for `wouldTerminate` errors.
  package var exception: String?

  /// Creates an error.
  package init(kind: Kind, code: HealthErrorCode, message: String, exception: String? = nil) {
    self.kind = kind
    self.code = code
    self.message = message
    self.exception = exception
  }

  /// An `HKError` with Apple's code.
  package static func healthKit(_ code: HealthErrorCode, _ message: String) -> HealthError {
    HealthError(kind: .healthKit, code: code, message: message)
  }

  /// A condition that terminates the app on a device with `NSInvalidArgumentException`.
  package static func invalidArgumentException(_ message: String) -> HealthError {
    HealthError(
      kind: .wouldTerminate, code: .errorInvalidArgument, message: message, exception: "NSInvalidArgumentException")
  }

  /// A condition that terminates the app on a device with `_HKObjectValidationFailureException`.
  package static func validationException(_ message: String) -> HealthError {
    HealthError(
      kind: .wouldTerminate, code: .errorInvalidArgument, message: message,
      exception: "_HKObjectValidationFailureException")
  }

  /// A misuse of the simulator.
  package static func simulator(_ message: String) -> HealthError {
    HealthError(kind: .simulator, code: .unknownError, message: message)
  }

  /// A one-line rendering: `errorAuthorizationDenied (4): message`, or the termination notice.
  package var description: String {
    switch kind {
    case .healthKit: "\(code) (\(code.rawValue)): \(message)"
    case .wouldTerminate:
      "this would terminate the app on a device: *** Terminating app due to uncaught exception "
        + "'\(exception ?? "NSInvalidArgumentException")', reason: '\(message)'"
    case .simulator: "simulator: \(message)"
    }
  }
}
