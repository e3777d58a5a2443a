/// Whether the app may save objects of a type, as `authorizationStatus(for:)` reports it (Apple's raw values).
///
/// It describes the **share** permission only; HealthKit never tells an app whether it may read.
public enum HKAuthorizationStatus: Int, Hashable, Sendable, CaseIterable {
  /// The user has not decided whether the app may save objects of the type (0).
  case notDetermined = 0
  /// The app may not save objects of the type (1); also reported for a type whose read permission alone was asked.
  case sharingDenied = 1
  /// The app may save objects of the type (2).
  case sharingAuthorized = 2
}

/// Whether requesting authorization for a set of types would present the permission sheet (Apple's raw values).
public enum HKAuthorizationRequestStatus: Int, Hashable, Sendable, CaseIterable {
  /// The status could not be determined because an error occurred (0).
  case unknown = 0
  /// Some type of the request has not been asked yet: a request would present the sheet (1).
  case shouldRequest = 1
  /// Every type of the request has already been asked, whatever the answer (2).
  case unnecessary = 2
}
