import Foundation
import HealthEngine
import HealthKitSim
import HealthModel
import HealthPairClient
import Wire

/// Where an app's process is, as far as workout sessions care: whether it may start a session (only in the
/// foreground, else `didFailWithError` code 14, unless a `startWatchApp` launch allowed it) and whether its
/// session callbacks are delivered now, held until it runs again, or dropped.
public enum HealthAppRunState: Sendable, Hashable, CaseIterable {
  /// On screen: sessions may start; callbacks are delivered. An app that creates a session is in the foreground
  /// unless the test said otherwise.
  case foreground
  /// Running in the background: callbacks are delivered; sessions may not start (code 14).
  case background
  /// Suspended: callbacks are held and delivered in order when it runs again.
  case suspended
  /// No process (never launched, or it died): callbacks are dropped; the session itself runs on and can be
  /// recovered (`recoverActiveWorkoutSession`).
  case notRunning

  var simulated: AppRunState {
    switch self {
    case .foreground: .foreground
    case .background: .background
    case .suspended: .suspended
    case .notRunning: .notRunning
    }
  }
}

/// How hard the watch's wearer works, which drives the heart rate, energy and distance a workout session's sensors
/// produce: an intensity (a fraction of the heart-rate reserve) or a speed the activity's motion model turns into
/// one. HealthPair model: the named levels are Karvonen fractions (rest 0.1, easy 0.6, moderate 0.72, hard 0.85,
/// maximal 1.0); before any change the wearer works at `easy`.
public enum WearerEffort: Sendable, Hashable {
  /// A fraction of the heart-rate reserve, clamped to 0...1.
  case intensity(Double)
  /// A speed in metres per second.
  case speed(metersPerSecond: Double)

  /// Standing still (0.1).
  public static let rest = WearerEffort.intensity(0.1)
  /// Conversational (0.6): a 6:00 min/km run for the default wearer.
  public static let easy = WearerEffort.intensity(0.6)
  /// Tempo (0.72).
  public static let moderate = WearerEffort.intensity(0.72)
  /// Threshold and above (0.85).
  public static let hard = WearerEffort.intensity(0.85)
  /// All out (1.0).
  public static let maximal = WearerEffort.intensity(1.0)

  /// A pace in minutes per kilometre (6.0 is 6:00 min/km).
  public static func pace(minutesPerKilometre: Double) -> WearerEffort {
    .speed(metersPerSecond: minutesPerKilometre > 0 ? 1000 / (minutesPerKilometre * 60) : 0)
  }

  var simulated: Effort {
    switch self {
    case .intensity(let value): .intensity(value)
    case .speed(let value): .speed(value)
    }
  }
}

extension HealthDevice {
  // MARK: - Workout sessions (the world around them)

  /// Puts `app`'s process in `state` (see ``HealthAppRunState``): moving to the foreground or background delivers
  /// the session callbacks held while it was suspended; `notRunning` drops them and the app's delegates.
  /// - Throws: ``HealthPairTestingError`` (an app that is not installed).
  public func setRunState(_ state: HealthAppRunState, app bundleIdentifier: String) throws(HealthPairTestingError) {
    try world("setRunState(\(state), app: \(bundleIdentifier))", app: bundleIdentifier, .runState(state.simulated))
  }

  /// The wearer works at `effort` from the device's time on (what was measured before keeps the old effort). With
  /// a session running the change holds from now until the next one; without one it is the wearer's whole profile.
  /// - Throws: ``HealthPairTestingError``.
  public func setWearerEffort(_ effort: WearerEffort) throws(HealthPairTestingError) {
    try world("setWearerEffort(\(effort))", app: "", .effort(effort.simulated))
  }

  /// Puts the watch on the wrist (`true`) or takes it off (`false`) at the device's time: off the wrist, its
  /// sensors measure nothing (no heart rate). Putting on a worn watch, or taking off a bare one, changes nothing.
  /// ``lock()`` is the other half of taking a watch off: it locks the device's data.
  /// - Throws: ``HealthPairTestingError``.
  public func setOnWrist(_ on: Bool) throws(HealthPairTestingError) {
    try world("setOnWrist(\(on))", app: "", .wrist(on: on))
  }

  /// Every workout stored on the device, whoever saved it (what the Health app lists), in store order.
  /// - Throws: ``HealthPairTestingError``.
  public func storedWorkouts() throws(HealthPairTestingError) -> [HKWorkout] {
    try control("storedWorkouts") { try $0.storedWorkouts().map(HKWorkout.init) }
  }

  /// Makes a world call; "no session" (`errorNoData`, the call's answer when there is no active session) is
  /// success.
  private func world(_ operation: String, app: String, _ call: SessionCall) throws(HealthPairTestingError) {
    try control(operation) { client in
      do {
        _ = try client.workoutSession(app, call)
      } catch let error as ClientError where error.healthError?.code == .errorNoData {
        return
      }
    }
  }
}
