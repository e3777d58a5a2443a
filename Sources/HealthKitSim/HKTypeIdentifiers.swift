// HealthKit's type identifiers: RawRepresentable string structs whose raw values are Apple's identifier strings.

/// The identifier of a quantity type (`HKQuantityTypeIdentifierDietaryWater`).
public struct HKQuantityTypeIdentifier: RawRepresentable, Hashable, Sendable {
  /// Apple's identifier string.
  public let rawValue: String
  /// Wraps an identifier string.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Wraps an identifier string.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Water drunk; canonical unit mL, cumulative.
  public static let dietaryWater = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryWater")
  /// Steps; canonical unit count, cumulative.
  public static let stepCount = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierStepCount")
  /// Active energy; canonical unit kcal, cumulative.
  public static let activeEnergyBurned = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned")
  /// Heart rate; canonical unit count/s, discrete (temporally weighted).
  public static let heartRate = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierHeartRate")
  /// Body mass; canonical unit kg, discrete (arithmetic).
  public static let bodyMass = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBodyMass")
  /// Exercise minutes, computed by Apple (read-only for apps); canonical unit min, cumulative.
  public static let appleExerciseTime = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierAppleExerciseTime")
  /// Heart rate variability (SDNN); canonical unit ms, discrete (arithmetic).
  public static let heartRateVariabilitySDNN = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierHeartRateVariabilitySDNN")
  /// Walking and running distance; canonical unit m, cumulative.
  public static let distanceWalkingRunning = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierDistanceWalkingRunning")
}

/// The identifier of a category type (`HKCategoryTypeIdentifierMindfulSession`).
public struct HKCategoryTypeIdentifier: RawRepresentable, Hashable, Sendable {
  /// Apple's identifier string.
  public let rawValue: String
  /// Wraps an identifier string.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Wraps an identifier string.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Mindful sessions; value `HKCategoryValue.notApplicable` only.
  public static let mindfulSession = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierMindfulSession")
  /// Sleep; values from ``HKCategoryValueSleepAnalysis``.
  public static let sleepAnalysis = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierSleepAnalysis")
  /// Menstrual flow; values from ``HKCategoryValueMenstrualFlow``; requires `HKMetadataKeyMenstrualCycleStart`.
  public static let menstrualFlow = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierMenstrualFlow")
  /// Stand hours, computed by Apple (read-only for apps); values from ``HKCategoryValueAppleStandHour``.
  public static let appleStandHour = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierAppleStandHour")
}

/// The identifier of a correlation type (`HKCorrelationTypeIdentifierBloodPressure`).
public struct HKCorrelationTypeIdentifier: RawRepresentable, Hashable, Sendable {
  /// Apple's identifier string.
  public let rawValue: String
  /// Wraps an identifier string.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Wraps an identifier string.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Blood pressure (systolic + diastolic).
  public static let bloodPressure = HKCorrelationTypeIdentifier("HKCorrelationTypeIdentifierBloodPressure")
  /// Food (nutrients).
  public static let food = HKCorrelationTypeIdentifier("HKCorrelationTypeIdentifierFood")
}
