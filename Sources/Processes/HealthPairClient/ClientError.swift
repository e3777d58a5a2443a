import HealthModel
import Posix

/// Why a call to a daemon did not produce an answer, or produced an error.
package enum ClientError: Error, Sendable, CustomStringConvertible {
  /// The socket could not be reached.
  case connect(SystemError)
  /// The daemon closed the connection or went away.
  case disconnected(String)
  /// No answer came before the deadline.
  case timeout(request: String, seconds: Double)
  /// The daemon answered with something this client cannot use.
  case protocolViolation(String)
  /// The daemon answered with an error (a HealthKit error, a termination, or a simulator error).
  case rejected(HealthError)

  /// The HealthKit-side error, when the daemon rejected the request.
  package var healthError: HealthError? {
    if case .rejected(let e) = self { return e }
    return nil
  }

  /// A one-line description.
  package var description: String {
    switch self {
    case .connect(let e):
      e.errno == .noSuchFile || e.errno == .connectionRefused
        ? "cannot reach the daemon: \(e). No daemon is listening there: start the pair with 'healthpair up' "
          + "(or 'healthpair restart <phone|watch>' if one of its daemons stopped)"
        : "cannot reach the daemon: \(e)"
    case .disconnected(let why): "the daemon went away: \(why)"
    case .timeout(let request, let seconds): "no answer to \(request) within \(seconds) s"
    case .protocolViolation(let why): "protocol violation: \(why)"
    case .rejected(let e): "\(e)"
    }
  }
}

