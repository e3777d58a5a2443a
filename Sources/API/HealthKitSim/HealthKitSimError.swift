import Foundation

/// A failure of the simulator itself, never something HealthKit returns: the device daemon cannot be reached, the
/// simulator was misused (for example the app is not installed on the device), or the code uses a HealthKit feature
/// HealthKitSim does not simulate.
public enum HealthKitSimError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
  /// The daemon behind `socketPath` could not be reached or went away.
  case unreachable(socketPath: String, reason: String)
  /// The daemon refused the call as a misuse of the simulator (unknown app, no pending sheet, …).
  case misuse(String)
  /// The call needs something HealthKitSim does not simulate (a type outside its catalog, an unsupported predicate).
  case unsupported(String)

  /// A one-line description.
  public var description: String {
    switch self {
    case .unreachable(let path, let reason): "HealthKitSim cannot reach the device daemon at \(path): \(reason)"
    case .misuse(let message): "HealthKitSim was misused: \(message)"
    case .unsupported(let message): "HealthKitSim does not support this: \(message)"
    }
  }

  /// The description, for `localizedDescription`.
  public var errorDescription: String? { description }
}
