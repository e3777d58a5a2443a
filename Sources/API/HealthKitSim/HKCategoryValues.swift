// Category values, with Apple's raw values (HKCategoryValues.h).

/// The value of category samples that carry none (mindful sessions, handwashing, heart-rate events, …).
public enum HKCategoryValue: Int, Hashable, Sendable, CaseIterable {
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

/// The values of vaginal-bleeding samples (iOS 18): menstrual flow and bleeding during or after pregnancy.
public enum HKCategoryValueVaginalBleeding: Int, Hashable, Sendable, CaseIterable {
  /// Bleeding, amount unspecified (1).
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

/// The severity of a symptom (headache, nausea, fatigue, …).
public enum HKCategoryValueSeverity: Int, Hashable, Sendable, CaseIterable {
  /// Present, severity unspecified (0).
  case unspecified = 0
  /// Not present (1).
  case notPresent = 1
  /// Mild (2).
  case mild = 2
  /// Moderate (3).
  case moderate = 3
  /// Severe (4).
  case severe = 4
}

/// Whether a symptom is present (mood changes, sleep changes).
public enum HKCategoryValuePresence: Int, Hashable, Sendable, CaseIterable {
  /// Present (0).
  case present = 0
  /// Not present (1).
  case notPresent = 1
}

/// The direction of appetite changes.
public enum HKCategoryValueAppetiteChanges: Int, Hashable, Sendable, CaseIterable {
  /// Changed, direction unspecified (0).
  case unspecified = 0
  /// No change (1).
  case noChange = 1
  /// Decreased (2).
  case decreased = 2
  /// Increased (3).
  case increased = 3
}

/// The values of walking-steadiness events (recorded by the system; read-only for apps).
public enum HKCategoryValueAppleWalkingSteadinessEvent: Int, Hashable, Sendable, CaseIterable {
  /// A first low score (1).
  case initialLow = 1
  /// A first very low score (2).
  case initialVeryLow = 2
  /// A low score that persisted (3).
  case repeatLow = 3
  /// A very low score that persisted (4).
  case repeatVeryLow = 4
}

/// The quality of cervical mucus, from least to most fertile; 0 is not a value.
public enum HKCategoryValueCervicalMucusQuality: Int, Hashable, Sendable, CaseIterable {
  /// Dry (1).
  case dry = 1
  /// Sticky (2).
  case sticky = 2
  /// Creamy (3).
  case creamy = 3
  /// Watery (4).
  case watery = 4
  /// Egg white (5).
  case eggWhite = 5
}

/// The kind of contraceptive.
public enum HKCategoryValueContraceptive: Int, Hashable, Sendable, CaseIterable {
  /// Unspecified (1).
  case unspecified = 1
  /// Implant (2).
  case implant = 2
  /// Injection (3).
  case injection = 3
  /// Intrauterine device (4).
  case intrauterineDevice = 4
  /// Intravaginal ring (5).
  case intravaginalRing = 5
  /// Oral (6).
  case oral = 6
  /// Patch (7).
  case patch = 7
}

/// The values of environmental audio exposure events (recorded by Apple Watch; read-only for apps).
public enum HKCategoryValueEnvironmentalAudioExposureEvent: Int, Hashable, Sendable, CaseIterable {
  /// A brief exposure to a loud environment (1).
  case momentaryLimit = 1
}

/// The values of headphone audio exposure events (recorded by the system; read-only for apps).
public enum HKCategoryValueHeadphoneAudioExposureEvent: Int, Hashable, Sendable, CaseIterable {
  /// Significant exposure over seven days (1).
  case sevenDayLimit = 1
}

/// The values of the deprecated audio exposure events.
@available(*, deprecated, renamed: "HKCategoryValueEnvironmentalAudioExposureEvent")
public enum HKCategoryValueAudioExposureEvent: Int, Hashable, Sendable, CaseIterable {
  /// Exposure to a loud environment (1).
  case loudEnvironment = 1
}

/// The values of low cardio fitness events (recorded by the system; read-only for apps).
public enum HKCategoryValueLowCardioFitnessEvent: Int, Hashable, Sendable, CaseIterable {
  /// VO2 max fell into the "Low" classification (1).
  case lowFitness = 1
}

/// The result of a home ovulation test.
public enum HKCategoryValueOvulationTestResult: Int, Hashable, Sendable, CaseIterable {
  /// Negative (1).
  case negative = 1
  /// A luteinizing hormone surge (2).
  case luteinizingHormoneSurge = 2
  /// Indeterminate (3).
  case indeterminate = 3
  /// An estrogen surge (4).
  case estrogenSurge = 4

  /// Apple's deprecated name for ``luteinizingHormoneSurge``.
  @available(*, deprecated, renamed: "luteinizingHormoneSurge")
  public static var positive: HKCategoryValueOvulationTestResult { .luteinizingHormoneSurge }
}

/// The result of a home pregnancy test.
public enum HKCategoryValuePregnancyTestResult: Int, Hashable, Sendable, CaseIterable {
  /// Negative (1).
  case negative = 1
  /// Positive (2).
  case positive = 2
  /// Indeterminate (3).
  case indeterminate = 3
}

/// The result of a home progesterone test.
public enum HKCategoryValueProgesteroneTestResult: Int, Hashable, Sendable, CaseIterable {
  /// Negative (1).
  case negative = 1
  /// Positive (2).
  case positive = 2
  /// Indeterminate (3).
  case indeterminate = 3
}
