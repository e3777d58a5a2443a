import HealthEngine
import HealthKitSim
import HealthModel

/// The user's recorded choice for one permission, including the read decision apps never see.
public enum PermissionDecision: String, Hashable, Sendable {
  /// Never asked, or reset.
  case notDetermined
  /// Turned on.
  case authorized
  /// Turned off (on the sheet or later in Settings).
  case denied

  init(_ decision: Decision?) {
    switch decision {
    case .authorized: self = .authorized
    case .denied: self = .denied
    case nil: self = .notDetermined
    }
  }
}
