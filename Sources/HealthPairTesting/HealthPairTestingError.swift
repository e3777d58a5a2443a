import HealthPairClient
import HealthModel

/// Why the harness could not do what a test asked.
public enum HealthPairTestingError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The pair could not be launched (daemon executable missing, a daemon failed to start).
  case launchFailed(String)
  /// A condition was not reached before the deadline.
  case timeout(waitingFor: String, seconds: Double)
  /// A device refused an operation (no sheet pending, a permission Settings does not list, an unknown app).
  case deviceRefused(device: HealthDeviceKind, operation: String, reason: String)
  /// A device's daemon could not be reached.
  case deviceUnreachable(device: HealthDeviceKind, reason: String)
  /// A type outside HealthKitSim's catalog was used.
  case unsupportedType(String)

  /// A one-line description.
  public var description: String {
    switch self {
    case .launchFailed(let why): "cannot launch the phone + watch pair: \(why)"
    case .timeout(let what, let seconds): "timed out after \(seconds) s waiting for \(what)"
    case .deviceRefused(let device, let operation, let reason): "the \(device) refused \(operation): \(reason)"
    case .deviceUnreachable(let device, let reason): "cannot reach the \(device): \(reason)"
    case .unsupportedType(let identifier): "\(identifier) is not a type HealthKitSim simulates"
    }
  }

  /// Maps a client error of an operation on `device`.
  static func from(_ error: any Error, device: HealthDeviceKind, operation: String) -> HealthPairTestingError {
    switch error {
    case let error as HealthPairTestingError: return error
    case ClientError.rejected(let rejection):
      return .deviceRefused(device: device, operation: operation, reason: rejection.message)
    case let error as ClientError: return .deviceUnreachable(device: device, reason: error.description)
    default: return .deviceUnreachable(device: device, reason: "\(error)")
    }
  }
}
