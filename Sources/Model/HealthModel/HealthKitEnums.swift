// HealthKit's enumerations, with Apple's raw values (HKDefines.h, HKStatistics.h, HKQuery.h).

/// The share (write) authorization state of one type for one app, as `HKAuthorizationStatus` reports it.
///
/// Raw values are Apple's: `notDetermined` 0, `sharingDenied` 1, `sharingAuthorized` 2. The read decision is
/// never expressed by this type: HealthKit hides it from apps.
package enum AuthorizationStatus: Int, Sendable, CaseIterable, CustomStringConvertible {
  /// The user has not decided whether the app may save samples of the type.
  case notDetermined = 0
  /// The app may not save samples of the type.
  case sharingDenied = 1
  /// The app may save samples of the type.
  case sharingAuthorized = 2

  /// The case name, as HealthKit spells it.
  package var description: String {
    switch self {
    case .notDetermined: "notDetermined"
    case .sharingDenied: "sharingDenied"
    case .sharingAuthorized: "sharingAuthorized"
    }
  }
}

/// Whether a request for a set of types would present the permission sheet (`HKAuthorizationRequestStatus`).
///
/// Raw values are Apple's: `unknown` 0, `shouldRequest` 1, `unnecessary` 2. `unnecessary` means "already
/// asked", never "granted".
package enum AuthorizationRequestStatus: Int, Sendable, CaseIterable, CustomStringConvertible {
  /// The status could not be determined because an error occurred.
  case unknown = 0
  /// The app has not yet requested authorization for all of the types.
  case shouldRequest = 1
  /// Every type of the request has already been decided.
  case unnecessary = 2

  /// The case name, as HealthKit spells it.
  package var description: String {
    switch self {
    case .unknown: "unknown"
    case .shouldRequest: "shouldRequest"
    case .unnecessary: "unnecessary"
    }
  }
}

/// HealthKit's error codes (`HKError.Code`), with Apple's raw values.
package enum HealthErrorCode: Int, Sendable, CaseIterable, CustomStringConvertible {
  /// `HKUnknownError` (the deprecated `HKNoError` alias shares raw value 0).
  case unknownError = 0
  /// HealthKit is not available on this device.
  case errorHealthDataUnavailable = 1
  /// A management profile restricts HealthKit on this device.
  case errorHealthDataRestricted = 2
  /// The app passed an invalid argument.
  case errorInvalidArgument = 3
  /// The user has not given the app permission to save data of the type.
  case errorAuthorizationDenied = 4
  /// The app has not yet asked the user for the authorization the task needs.
  case errorAuthorizationNotDetermined = 5
  /// The protected store is unavailable because the device is locked.
  case errorDatabaseInaccessible = 6
  /// The user canceled the operation.
  case errorUserCanceled = 7
  /// Another app started a workout session.
  case errorAnotherWorkoutSessionStarted = 8
  /// The user exited the workout session.
  case errorUserExitedWorkoutSession = 9
  /// The user denied a required clinical authorization.
  case errorRequiredAuthorizationDenied = 10
  /// A statistics query found no data to compute its result from.
  case errorNoData = 11
  /// The workout activity is not allowed.
  case errorWorkoutActivityNotAllowed = 12
  /// The data's size exceeds the maximum allowed.
  case errorDataSizeExceeded = 13
  /// Background workout sessions are not allowed.
  case errorBackgroundWorkoutSessionNotAllowed = 14
  /// Guest User mode forbids changes to protected health data.
  case errorNotPermissibleForGuestUserMode = 15

  /// The case name, as HealthKit spells it in Swift.
  package var description: String { String(describing: Name(code: self)) }

  /// Looks a code up by its Swift case name (`"errorAuthorizationDenied"`) or its raw value (`"4"`).
  package init?(name: String) {
    if let raw = Int(name), let code = HealthErrorCode(rawValue: raw) {
      self = code
      return
    }
    guard let code = HealthErrorCode.allCases.first(where: { $0.description == name }) else { return nil }
    self = code
  }

  private struct Name: CustomStringConvertible {
    let code: HealthErrorCode
    var description: String {
      switch code {
      case .unknownError: "unknownError"
      case .errorHealthDataUnavailable: "errorHealthDataUnavailable"
      case .errorHealthDataRestricted: "errorHealthDataRestricted"
      case .errorInvalidArgument: "errorInvalidArgument"
      case .errorAuthorizationDenied: "errorAuthorizationDenied"
      case .errorAuthorizationNotDetermined: "errorAuthorizationNotDetermined"
      case .errorDatabaseInaccessible: "errorDatabaseInaccessible"
      case .errorUserCanceled: "errorUserCanceled"
      case .errorAnotherWorkoutSessionStarted: "errorAnotherWorkoutSessionStarted"
      case .errorUserExitedWorkoutSession: "errorUserExitedWorkoutSession"
      case .errorRequiredAuthorizationDenied: "errorRequiredAuthorizationDenied"
      case .errorNoData: "errorNoData"
      case .errorWorkoutActivityNotAllowed: "errorWorkoutActivityNotAllowed"
      case .errorDataSizeExceeded: "errorDataSizeExceeded"
      case .errorBackgroundWorkoutSessionNotAllowed: "errorBackgroundWorkoutSessionNotAllowed"
      case .errorNotPermissibleForGuestUserMode: "errorNotPermissibleForGuestUserMode"
      }
    }
  }
}

/// How HealthKit combines quantities of a type (`HKQuantityAggregationStyle`), with Apple's raw values.
package enum AggregationStyle: Int, Sendable, CustomStringConvertible {
  /// Values add up over time (water, steps, energy).
  case cumulative = 0
  /// Independent readings, averaged arithmetically (body mass).
  case discreteArithmetic = 1
  /// Readings averaged by the time each one covers (heart rate).
  case discreteTemporallyWeighted = 2
  /// Sound-level style readings.
  case discreteEquivalentContinuousLevel = 3

  /// Whether the style is one of the discrete ones.
  package var isDiscrete: Bool { self != .cumulative }

  /// The case name, as HealthKit spells it.
  package var description: String {
    switch self {
    case .cumulative: "cumulative"
    case .discreteArithmetic: "discreteArithmetic"
    case .discreteTemporallyWeighted: "discreteTemporallyWeighted"
    case .discreteEquivalentContinuousLevel: "discreteEquivalentContinuousLevel"
    }
  }
}

/// The statistics a statistics query computes (`HKStatisticsOptions`), with Apple's bit values.
package struct StatisticsOptions: OptionSet, Sendable, Hashable {
  /// The raw bit mask.
  package let rawValue: UInt32
  /// Creates options from Apple's bit mask.
  package init(rawValue: UInt32) { self.rawValue = rawValue }

  /// Per-source results (`1 << 0`).
  package static let separateBySource = StatisticsOptions(rawValue: 1 << 0)
  /// Average of a discrete type (`1 << 1`).
  package static let discreteAverage = StatisticsOptions(rawValue: 1 << 1)
  /// Minimum of a discrete type (`1 << 2`).
  package static let discreteMin = StatisticsOptions(rawValue: 1 << 2)
  /// Maximum of a discrete type (`1 << 3`).
  package static let discreteMax = StatisticsOptions(rawValue: 1 << 3)
  /// Sum of a cumulative type (`1 << 4`).
  package static let cumulativeSum = StatisticsOptions(rawValue: 1 << 4)
  /// Most recent value, of any type (`1 << 5`).
  package static let mostRecent = StatisticsOptions(rawValue: 1 << 5)
  /// Total duration covered (`1 << 6`).
  package static let duration = StatisticsOptions(rawValue: 1 << 6)

  /// The options a cumulative type refuses (`supportsStatisticOptions:`): they only apply to discrete types.
  package static let discreteOnly: StatisticsOptions = [.discreteAverage, .discreteMin, .discreteMax]
  /// The options a discrete type refuses: they only apply to cumulative types.
  package static let cumulativeOnly: StatisticsOptions = [.cumulativeSum]
}

/// How a date predicate matches samples (`HKQueryOptions`), with Apple's bit values.
package struct QueryOptions: OptionSet, Sendable, Hashable {
  /// The raw bit mask.
  package let rawValue: UInt32
  /// Creates options from Apple's bit mask.
  package init(rawValue: UInt32) { self.rawValue = rawValue }
  /// The sample must start at or after the range's start (`1 << 0`).
  package static let strictStartDate = QueryOptions(rawValue: 1 << 0)
  /// The sample must end at or before the range's end (`1 << 1`).
  package static let strictEndDate = QueryOptions(rawValue: 1 << 1)
}

/// One of the two independent permissions of a type: share (write) or read.
package enum Direction: UInt8, Sendable, CaseIterable, Hashable, Comparable, CustomStringConvertible {
  /// Permission to save samples of the type.
  case share = 0
  /// Permission to read samples of the type.
  case read = 1

  /// `share` or `read`.
  package var description: String { self == .share ? "share" : "read" }
  /// Orders share before read.
  package static func < (a: Direction, b: Direction) -> Bool { a.rawValue < b.rawValue }
}

/// The user's recorded choice for one (app, type, direction); "not determined" is the absence of a decision.
package enum Decision: UInt8, Sendable, Hashable, CustomStringConvertible {
  /// The user turned the permission on.
  case authorized = 1
  /// The user turned the permission off.
  case denied = 2

  /// `authorized` or `denied`.
  package var description: String { self == .authorized ? "authorized" : "denied" }
}

/// Which of the pair a device is.
package enum DeviceKind: UInt8, Sendable, CaseIterable, Hashable, CustomStringConvertible {
  /// The iPhone.
  case phone = 0
  /// The Apple Watch.
  case watch = 1

  /// `phone` or `watch`.
  package var description: String { self == .phone ? "phone" : "watch" }
  /// The other device of the pair.
  package var peer: DeviceKind { self == .phone ? .watch : .phone }
  /// Parses `phone` or `watch`.
  package init?(name: String) {
    switch name {
    case "phone", "iphone": self = .phone
    case "watch": self = .watch
    default: return nil
    }
  }
}

/// The longest strings the journal and the wire accept, in UTF-8 bytes. Anything stored is checked against them
/// when it is accepted, so nothing acknowledged can make a journal unreadable.
package enum StoredLimits {
  /// Bundle identifiers, app names, metadata keys.
  package static let identifier = 1_024
  /// Usage descriptions.
  package static let description = 1 << 16
  /// Unit strings.
  package static let unit = 256
  /// Metadata string values.
  package static let metadataString = 1 << 20
}
