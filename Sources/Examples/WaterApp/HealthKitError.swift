/// Why Water's HealthKit service refused to act before calling HealthKit.
enum HealthKitError: Error, Equatable {
  /// HealthKit is not available on this device.
  case notAvailable
  /// Water may not save water (never asked, denied or revoked).
  case notAuthorized
}
