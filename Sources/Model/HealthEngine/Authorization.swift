import FoundationEssentials
import HealthModel

/// An app installed on a device, with the Info.plist usage descriptions HealthKit requires.
package struct AppRecord: Hashable, Sendable {
  /// The bundle identifier (`com.example.water`).
  package var bundleID: String
  /// The name the permission sheet and Settings show.
  package var displayName: String
  /// `NSHealthUpdateUsageDescription`: why the app writes; required to request share permission.
  package var writeUsageDescription: String?
  /// `NSHealthShareUsageDescription`: why the app reads; required to request read permission for any type but the
  /// clinical ones (those need ``HealthRecordsInfo/usageDescription``).
  package var readUsageDescription: String?
  /// The HealthKit entitlements the app is signed with besides `com.apple.developer.healthkit` (background
  /// delivery, health records).
  package var entitlements: Set<Entitlement>
  /// The Info.plist keys for clinical records: their usage description and the required types.
  package var healthRecords: HealthRecordsInfo

  /// Creates an app record.
  package init(
    bundleID: String, displayName: String, writeUsageDescription: String?, readUsageDescription: String?,
    entitlements: Set<Entitlement> = [], healthRecords: HealthRecordsInfo = HealthRecordsInfo()
  ) {
    self.bundleID = bundleID
    self.displayName = displayName
    self.writeUsageDescription = writeUsageDescription
    self.readUsageDescription = readUsageDescription
    self.entitlements = entitlements
    self.healthRecords = healthRecords
  }
}

/// One permission: a type in one direction.
package struct Permission: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The object type.
  package var type: SampleType
  /// Share or read.
  package var direction: Direction

  /// Creates a permission.
  package init(_ type: SampleType, _ direction: Direction) {
    self.type = type
    self.direction = direction
  }

  /// Orders by type, then share before read.
  package static func < (a: Permission, b: Permission) -> Bool {
    (a.type.code, a.direction.rawValue) < (b.type.code, b.direction.rawValue)
  }

  /// `share dietaryWater`.
  package var description: String { "\(direction) \(type)" }
}

/// The key of one recorded decision.
package struct AuthorizationKey: Hashable, Sendable {
  /// The app.
  package var bundleID: String
  /// The permission.
  package var permission: Permission

  /// Creates a key.
  package init(_ bundleID: String, _ permission: Permission) {
    self.bundleID = bundleID
    self.permission = permission
  }
}

/// One change to a recorded decision.
package struct AuthorizationChange: Hashable, Sendable {
  /// The permission that changed.
  package var permission: Permission
  /// The new decision.
  package var decision: Decision

  /// Creates a change.
  package init(_ permission: Permission, _ decision: Decision) {
    self.permission = permission
    self.decision = decision
  }
}

/// What the user does in Settings → Privacy → Health (phone) or in the iPhone's Watch app (for the watch).
package enum SettingsChange: Hashable, Sendable, CustomStringConvertible {
  /// Turns one permission on or off; only permissions the app has requested are listed in Settings.
  case set(Permission, on: Bool)
  /// "Turn Off All": every decided permission of the app becomes denied.
  case turnAllOff
  /// Forgets every decision of the app, as deleting and reinstalling it would.
  case reset

  /// A readable form.
  package var description: String {
    switch self {
    case .set(let p, let on): "\(p) \(on ? "on" : "off")"
    case .turnAllOff: "turn all off"
    case .reset: "reset"
    }
  }
}

/// How a device decides whether to present the permission sheet again.
package enum RepromptPolicy: String, Sendable, Hashable, CaseIterable {
  /// Apple's documented rule: present the sheet whenever a requested permission is undetermined.
  case standard
  /// HealthPair model "watch lockout": after the user denies or cancels a sheet for an app, present nothing for
  /// that app again until its permissions are changed from the iPhone's Watch app or it is reset.
  case strict
}

/// What happens when a sheet "fails to present" (the article's transient failure).
package enum PresentationFailureMode: String, Sendable, Hashable, CaseIterable {
  /// The request completes with success = false and an error; nothing is recorded.
  case error
  /// The request completes with success = true though nothing was shown; nothing is recorded.
  case silent
}

/// The configurable behaviour of one device.
package struct DevicePolicy: Hashable, Sendable {
  /// The re-prompt model.
  package var reprompt: RepromptPolicy
  /// How long the device keeps samples, in seconds; nil keeps everything.
  package var retention: Double?
  /// Whether an app's decisions stay on this device or are shared with the other one (both devices must say
  /// `companion` for decisions to travel).
  package var authorization: AuthorizationModel
  /// Whether the watch has Settings → Health → Apps of its own (observed on recent watchOS) or only the iPhone's
  /// Watch app can change a watch app's permissions (the article's model). Meaningless on the phone.
  package var watchSettings: WatchSettingsModel
  /// The locale model behind the default units `preferredUnits(for:)` returns (docs/behavior.md R6).
  package var units: UnitLocale
  /// Background delivery's response window and retry delay (behavior.md B5).
  package var background: BackgroundDeliveryModel
  /// The device's time zone: its local days and the calendar statistics collections use (docs/behavior.md K1).
  /// UTC unless set; the pair shares one unless a device travels.
  package var timeZone: TimeZoneRule
  /// The Health app's data-source order per type, where the user changed it (docs/behavior.md P2); types not
  /// listed use the default order.
  package var sourceOrders: [SampleType: SourceOrder]

  /// Creates a policy.
  package init(
    reprompt: RepromptPolicy, retention: Double?, authorization: AuthorizationModel = .independent,
    watchSettings: WatchSettingsModel = .onWatch, units: UnitLocale = .us,
    background: BackgroundDeliveryModel = .standard, timeZone: TimeZoneRule = .utc,
    sourceOrders: [SampleType: SourceOrder] = [:]
  ) {
    self.reprompt = reprompt
    self.retention = retention
    self.authorization = authorization
    self.watchSettings = watchSettings
    self.units = units
    self.background = background
    self.timeZone = timeZone
    self.sourceOrders = sourceOrders
  }

  /// The calendar of the device's time zone.
  package var calendar: LocalCalendar { LocalCalendar(timeZone) }

  /// The default watch retention window: 7 days (HealthPair model; Apple says only "limited").
  package static let defaultWatchRetention: Double = 7 * 86400

  /// The default policy of a device kind: phone standard with no retention; watch strict with 7 days.
  package static func defaults(for device: DeviceKind) -> DevicePolicy {
    device == .phone
      ? DevicePolicy(reprompt: .standard, retention: nil)
      : DevicePolicy(reprompt: .strict, retention: defaultWatchRetention)
  }
}

/// How authorization relates the two devices (docs/behavior.md A15, A18).
package enum AuthorizationModel: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// Each device keeps its own decisions (the product brief; HealthPair's default).
  case independent = 0
  /// A companion app's decisions travel over the link like samples and converge, the later decision winning
  /// (Apple documents shared authorization for companion apps: WWDC15-203, WWDC16-209).
  case companion = 1

  /// `independent` or `companion`.
  package var description: String { self == .independent ? "independent" : "companion" }
}

/// Where a watch app's permissions can be changed (docs/behavior.md W2).
package enum WatchSettingsModel: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// Settings → Health → Apps on the watch itself, and the iPhone's Watch app (observed on recent watchOS; the
  /// default).
  case onWatch = 0
  /// Only the iPhone's Watch app: the watch has no Health settings (the article's model).
  case iPhoneOnly = 1

  /// `on-watch` or `iphone-only`.
  package var description: String { self == .onWatch ? "on-watch" : "iphone-only" }
}

/// One decision as it travels between companion devices: nil means the decision was forgotten (a reset).
package struct SharedDecision: Hashable, Sendable {
  /// The permission.
  package var permission: Permission
  /// The decision, or nil when it was reset.
  package var decision: Decision?

  /// Creates a shared decision.
  package init(_ permission: Permission, _ decision: Decision?) {
    self.permission = permission
    self.decision = decision
  }
}

/// When and where a decision was made: what decides which of two companion decisions wins (the later; on a tie,
/// the iPhone's).
package struct DecisionStamp: Hashable, Sendable, Comparable {
  /// The deciding device's clock.
  package var at: Date
  /// The deciding device.
  package var device: DeviceKind

  /// Creates a stamp.
  package init(at: Date, device: DeviceKind) {
    self.at = at
    self.device = device
  }

  /// Earlier first; at the same instant the watch's before the iPhone's.
  package static func < (a: DecisionStamp, b: DecisionStamp) -> Bool {
    a.at != b.at ? a.at < b.at : (a.device == .watch && b.device == .phone)
  }
}

/// A permission sheet waiting for the user.
package struct Prompt: Hashable, Sendable {
  /// A runtime identifier, unique per daemon run.
  package var id: UInt64
  /// The requesting app.
  package var bundleID: String
  /// The permissions listed on the sheet: the requested ones not yet decided.
  package var permissions: [Permission]
  /// When it was presented (device clock).
  package var shownAt: Date
  /// A per-object read sheet (`requestPerObjectReadAuthorization`): the objects it lists, in date order, each with
  /// its own toggle (`permissions` then holds the type's read permission); nil for a sheet of types.
  package var objects: [UUID]?

  /// Creates a prompt.
  package init(id: UInt64, bundleID: String, permissions: [Permission], shownAt: Date, objects: [UUID]? = nil) {
    self.id = id
    self.bundleID = bundleID
    self.permissions = permissions
    self.shownAt = shownAt
    self.objects = objects
  }
}

/// How the user answers (or fails to see) a permission sheet.
package enum PromptAnswer: Hashable, Sendable {
  /// "Turn On All" then "Allow".
  case allowAll
  /// "Don't Allow": every listed permission is recorded as denied.
  case denyAll
  /// Per-permission toggles; listed permissions not mentioned stay off (denied).
  case choices([Permission: Bool])
  /// A per-object sheet's toggles: the listed objects in the set are turned on, the others off.
  case objects(Set<UUID>)
  /// The user dismissed the sheet: the call fails with errorUserCanceled and nothing is recorded.
  case cancel
  /// The sheet never appeared: nothing is recorded.
  case failToPresent(PresentationFailureMode)
  /// The user left the app (home, app switcher, a call) while the sheet was up: devices dismiss the sheet; the
  /// call fails with errorAuthorizationNotDetermined (5) and nothing is recorded (behavior.md A17).
  case leaveApp
}

/// What the app's pending `requestAuthorization` call receives.
package struct AuthorizationCallResult: Hashable, Sendable {
  /// HealthKit's `success`: the sheet, if needed, completed and was not cancelled. Never means "granted".
  package var success: Bool
  /// The error, when success is false.
  package var error: HealthError?

  /// Creates a result.
  package init(success: Bool, error: HealthError?) {
    self.success = success
    self.error = error
  }

  /// Success with no error.
  package static let succeeded = AuthorizationCallResult(success: true, error: nil)
}

/// How a prompt ended, as recorded in the device's prompt history.
package enum PromptOutcome: Hashable, Sendable, CustomStringConvertible {
  /// Still waiting for the user.
  case pending
  /// Answered; the decisions recorded.
  case answered([AuthorizationChange])
  /// Cancelled by the user.
  case cancelled
  /// Failed to present.
  case failedToPresent(PresentationFailureMode)
  /// Withdrawn because the app was uninstalled or the daemon stopped.
  case withdrawn
  /// Dismissed because the app went to the background.
  case dismissed

  /// A short description.
  package var description: String {
    switch self {
    case .pending: "pending"
    case .answered(let changes) where changes.isEmpty: "answered"
    case .answered(let changes):
      "answered: " + changes.map { "\($0.permission) \($0.decision)" }.joined(separator: ", ")
    case .cancelled: "cancelled"
    case .failedToPresent(let mode): "failed to present (\(mode.rawValue))"
    case .withdrawn: "withdrawn"
    case .dismissed: "dismissed (the app went to the background)"
    }
  }
}

/// One entry of the device's prompt history (runtime only; cleared on restart).
package struct PromptRecord: Hashable, Sendable {
  /// The prompt as shown.
  package var prompt: Prompt
  /// How it ended.
  package var outcome: PromptOutcome

  /// Creates a record.
  package init(prompt: Prompt, outcome: PromptOutcome) {
    self.prompt = prompt
    self.outcome = outcome
  }
}
