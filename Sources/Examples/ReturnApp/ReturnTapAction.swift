/// What Return shows when the user taps "Connect Health" (or saves a session without access).
enum ReturnTapAction: Equatable, Sendable {
  /// iPhone, first time: the pre-permission sheet, whose single Continue button triggers the system request.
  case showSheet
  /// Watch, first time: the system request directly (no sheets on watchOS, and Return ships no pre-permission
  /// screen there).
  case requestAuthorization
  /// iPhone, after a decision: the hint to turn access on in Settings (re-requesting would silently do nothing).
  case showSettingsHint
  /// Watch, after a decision: the instruction to use the iPhone's Watch app (the watch has no Health settings).
  case showWatchAppInstruction
  /// Access is granted: nothing to ask.
  case alreadyConnected
  /// HealthKit is not available on this device.
  case unavailable

  /// The text shown for the hint and instruction cases.
  var message: String? {
    switch self {
    case .showSettingsHint: "Settings → Privacy → Health → Return: turn on Mindful Minutes."
    case .showWatchAppInstruction: "Open the Watch app on iPhone → My Watch → Privacy → Health"
    default: nil
    }
  }
}

extension HealthKitManager {
  /// What tapping "Connect Health" shows now: the sheet until the user has really decided, then the Settings
  /// hint (unless access is granted).
  var nextTapAction: ReturnTapAction {
    guard isAvailable else { return .unavailable }
    if isAuthorizedToWrite() { return .alreadyConnected }
    return hasRequestedHealthKit ? .showSettingsHint : .showSheet
  }

  /// The sheet's Continue button: runs the system request, records the attempt, and closes the sheet; returns
  /// whether Return may now save.
  func continueFromPermissionSheet() async -> Bool {
    let authorized = await requestAuthorization()
    recordAuthorizationAttempt()
    return authorized
  }
}
