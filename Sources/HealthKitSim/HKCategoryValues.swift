// Category values, with Apple's raw values (HKCategoryValues.h).

/// The value of category samples that carry none (mindful sessions).
public enum HKCategoryValue: Int, Hashable, Sendable {
  /// The only valid value of mindful sessions (0).
  case notApplicable = 0
}

/// The values of sleep-analysis samples.
public enum HKCategoryValueSleepAnalysis: Int, Hashable, Sendable, CaseIterable {
  /// In bed (0).
  case inBed = 0
  /// Asleep, stage unspecified (1).
  case asleepUnspecified = 1
  /// Awake (2).
  case awake = 2
  /// Core sleep, AASM stages 1 and 2 (3).
  case asleepCore = 3
  /// Deep sleep, AASM stage 3 (4).
  case asleepDeep = 4
  /// REM sleep (5).
  case asleepREM = 5

  /// Apple's deprecated name for ``asleepUnspecified``.
  @available(*, deprecated, renamed: "asleepUnspecified")
  public static var asleep: HKCategoryValueSleepAnalysis { .asleepUnspecified }

  /// The values that mean "asleep".
  public static var allAsleepValues: Set<HKCategoryValueSleepAnalysis> {
    [.asleepUnspecified, .asleepCore, .asleepDeep, .asleepREM]
  }
}

/// The values of stand-hour samples.
public enum HKCategoryValueAppleStandHour: Int, Hashable, Sendable, CaseIterable {
  /// The user stood during the hour (0).
  case stood = 0
  /// The user did not stand (1).
  case idle = 1
}

/// The values of menstrual-flow samples (Apple's `HKCategoryValueVaginalBleeding` has the same values).
public enum HKCategoryValueMenstrualFlow: Int, Hashable, Sendable, CaseIterable {
  /// Flow, amount unspecified (1).
  case unspecified = 1
  /// Light (2).
  case light = 2
  /// Medium (3).
  case medium = 3
  /// Heavy (4).
  case heavy = 4
  /// None (5).
  case none = 5
}
