import HealthEngine

/// How a device decides whether to present the permission sheet again.
public enum RepromptPolicy: String, Hashable, Sendable {
  /// Apple's documented rule: a sheet whenever a requested permission is undecided (the phone's default).
  case standard
  /// The watch's default: after the user denies or cancels a sheet for an app, no sheet for that app until its
  /// permissions are changed from the iPhone's Watch app.
  case strict

  var simulated: HealthEngine.RepromptPolicy { self == .standard ? .standard : .strict }
}
