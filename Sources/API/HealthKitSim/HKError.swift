import Foundation

/// The error domain of HealthKit errors (`"com.apple.healthkit"`).
public let HKErrorDomain = "com.apple.healthkit"

/// An error HealthKit returns, with Apple's code and the device's message.
///
/// Shaped like Apple's `HKError`: a struct with a nested ``Code`` (Apple's raw values) and static members naming
/// each code, so the usual patterns work unchanged:
///
/// ```swift
/// do { try await store.save(sample) }
/// catch HKError.errorAuthorizationDenied { showSettingsHint() }
/// catch let error as HKError where error.code == .errorNoData { … }
/// ```
public struct HKError: Error, Hashable, Sendable, CustomStringConvertible, CustomNSError, LocalizedError {
  /// HealthKit's error codes, with Apple's raw values (HKDefines.h).
  public enum Code: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// `HKUnknownError` (0): an unknown error.
    case unknownError = 0
    /// HealthKit is not available on this device (1).
    case errorHealthDataUnavailable = 1
    /// A management profile restricts HealthKit on this device (2).
    case errorHealthDataRestricted = 2
    /// The app passed an invalid argument (3).
    case errorInvalidArgument = 3
    /// The user has not given the app permission to save data of the type (4).
    case errorAuthorizationDenied = 4
    /// The app has not yet asked the user for the authorization the task needs (5).
    case errorAuthorizationNotDetermined = 5
    /// The protected store is unavailable because the device is locked (6).
    case errorDatabaseInaccessible = 6
    /// The user canceled the operation (7).
    case errorUserCanceled = 7
    /// Another app started a workout session (8).
    case errorAnotherWorkoutSessionStarted = 8
    /// The user exited the workout session (9).
    case errorUserExitedWorkoutSession = 9
    /// The user denied a required clinical authorization (10).
    case errorRequiredAuthorizationDenied = 10
    /// A statistics query found no data to compute its result from (11).
    case errorNoData = 11
    /// The workout activity is not allowed (12).
    case errorWorkoutActivityNotAllowed = 12
    /// The data's size exceeds the maximum allowed (13).
    case errorDataSizeExceeded = 13
    /// Background workout sessions are not allowed (14).
    case errorBackgroundWorkoutSessionNotAllowed = 14
    /// Guest User mode forbids changes to protected health data (15).
    case errorNotPermissibleForGuestUserMode = 15

    /// `HKNoError`, Apple's deprecated name for raw value 0.
    @available(*, deprecated, renamed: "unknownError")
    public static var noError: Code { .unknownError }

    /// The Swift case name (`errorAuthorizationDenied`).
    public var description: String {
      switch self {
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

  /// The error's code.
  public let code: Code
  /// The message: the device's explanation, with the types or identifiers involved.
  public let message: String
  /// String entries of `userInfo` beside the description (`HKDetailedCDAValidationErrorKey`).
  let details: [String: String]

  /// Creates an error with a code and the device's message.
  public init(_ code: Code, message: String) {
    self.init(code, message: message, details: [:])
  }

  /// Creates an error with a code, the device's message and further `userInfo` entries.
  init(_ code: Code, message: String, details: [String: String]) {
    self.code = code
    self.message = message
    self.details = details
  }

  /// Creates an error the way Apple's `HKError(_:userInfo:)` does; `NSLocalizedDescriptionKey` becomes the message.
  public init(_ code: Code, userInfo: [String: Any] = [:]) {
    self.init(code, message: userInfo[NSLocalizedDescriptionKey] as? String ?? "\(code)")
  }

  /// `"com.apple.healthkit"`, as in `NSError.domain`.
  public static let errorDomain = HKErrorDomain
  /// The raw code, as in `NSError.code`.
  public var errorCode: Int { code.rawValue }
  /// `NSLocalizedDescriptionKey`: the message.
  public var errorUserInfo: [String: Any] {
    details.reduce(into: [NSLocalizedDescriptionKey: message]) { $0[$1.key] = $1.value }
  }
  /// `NSError.userInfo`: ``errorUserInfo``.
  public var userInfo: [String: Any] { errorUserInfo }
  /// The message, for `localizedDescription`.
  public var errorDescription: String? { message }
  /// `errorAuthorizationDenied (4): Not authorized to save …`.
  public var description: String { "\(code) (\(code.rawValue)): \(message)" }

  /// Code 0, `unknownError`.
  public static var unknownError: Code { .unknownError }
  /// Code 1, `errorHealthDataUnavailable`.
  public static var errorHealthDataUnavailable: Code { .errorHealthDataUnavailable }
  /// Code 2, `errorHealthDataRestricted`.
  public static var errorHealthDataRestricted: Code { .errorHealthDataRestricted }
  /// Code 3, `errorInvalidArgument`.
  public static var errorInvalidArgument: Code { .errorInvalidArgument }
  /// Code 4, `errorAuthorizationDenied`.
  public static var errorAuthorizationDenied: Code { .errorAuthorizationDenied }
  /// Code 5, `errorAuthorizationNotDetermined`.
  public static var errorAuthorizationNotDetermined: Code { .errorAuthorizationNotDetermined }
  /// Code 6, `errorDatabaseInaccessible`.
  public static var errorDatabaseInaccessible: Code { .errorDatabaseInaccessible }
  /// Code 7, `errorUserCanceled`.
  public static var errorUserCanceled: Code { .errorUserCanceled }
  /// Code 8, `errorAnotherWorkoutSessionStarted`.
  public static var errorAnotherWorkoutSessionStarted: Code { .errorAnotherWorkoutSessionStarted }
  /// Code 9, `errorUserExitedWorkoutSession`.
  public static var errorUserExitedWorkoutSession: Code { .errorUserExitedWorkoutSession }
  /// Code 10, `errorRequiredAuthorizationDenied`.
  public static var errorRequiredAuthorizationDenied: Code { .errorRequiredAuthorizationDenied }
  /// Code 11, `errorNoData`.
  public static var errorNoData: Code { .errorNoData }
  /// Code 12, `errorWorkoutActivityNotAllowed`.
  public static var errorWorkoutActivityNotAllowed: Code { .errorWorkoutActivityNotAllowed }
  /// Code 13, `errorDataSizeExceeded`.
  public static var errorDataSizeExceeded: Code { .errorDataSizeExceeded }
  /// Code 14, `errorBackgroundWorkoutSessionNotAllowed`.
  public static var errorBackgroundWorkoutSessionNotAllowed: Code { .errorBackgroundWorkoutSessionNotAllowed }
  /// Code 15, `errorNotPermissibleForGuestUserMode`.
  public static var errorNotPermissibleForGuestUserMode: Code { .errorNotPermissibleForGuestUserMode }
}

/// Matches an error against an `HKError` code, so `catch HKError.errorAuthorizationDenied` and
/// `case HKError.errorNoData:` work on `any Error` as with Apple's SDK.
public func ~= (code: HKError.Code, error: any Error) -> Bool {
  (error as? HKError)?.code == code
}
