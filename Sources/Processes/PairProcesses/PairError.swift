import HealthModel
import HealthPairClient
import Posix

/// Why a pair could not be started or controlled.
package enum PairError: Error, CustomStringConvertible, Sendable {
  /// No usable daemon executable: where the search looked and what to do.
  case daemonNotFound(String)
  /// A daemon exited before it was ready; its standard error says why.
  case daemonFailed(device: DeviceKind, status: String, stderr: String)
  /// A condition was not reached before the deadline.
  case timeout(String)
  /// A system call failed.
  case system(SystemError)
  /// A call to a daemon failed.
  case client(ClientError)
  /// The directory holds no pair to restart a daemon of.
  case notAPair(root: String)
  /// The process was interrupted by `signal` (``Interruption``): no pair starts any more.
  case interrupted(signal: Int32)

  /// A one-line description.
  package var description: String {
    switch self {
    case .daemonNotFound(let why): "cannot find the healthpaird executable: \(why)"
    case .daemonFailed(let device, let status, let stderr):
      "the \(device) daemon exited before it was ready (\(status)): \(stderr.trimmingWhitespace())"
    case .timeout(let what): "timed out waiting for \(what)"
    case .system(let e): "\(e)"
    case .client(let e): "\(e)"
    case .notAPair(let root): "\(root) holds no pair (no pairing.key); start one with 'healthpair up'"
    case .interrupted(let signal): "interrupted by \(Interruption.name(of: signal))"
    }
  }
}
