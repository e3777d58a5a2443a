/// HKCategoryValues.h's value enumerations, with Apple's raw values and Swift case names: what a category type's
/// samples may hold.
enum CategoryValueSet {
  /// `HKCategoryValue`: types that carry no value.
  case notApplicable
  /// `HKCategoryValueSeverity`: most symptoms.
  case severity
  /// `HKCategoryValuePresence`: mood and sleep changes.
  case presence
  /// `HKCategoryValueAppetiteChanges`.
  case appetiteChanges
  /// `HKCategoryValueAppleWalkingSteadinessEvent`.
  case appleWalkingSteadinessEvent
  /// `HKCategoryValueCervicalMucusQuality` (0 is not a value: a device refuses it).
  case cervicalMucusQuality
  /// `HKCategoryValueContraceptive`.
  case contraceptive
  /// `HKCategoryValueEnvironmentalAudioExposureEvent`.
  case environmentalAudioExposureEvent
  /// `HKCategoryValueHeadphoneAudioExposureEvent`.
  case headphoneAudioExposureEvent
  /// `HKCategoryValueAudioExposureEvent` (deprecated with its type).
  case audioExposureEvent
  /// `HKCategoryValueLowCardioFitnessEvent`.
  case lowCardioFitnessEvent
  /// `HKCategoryValueOvulationTestResult` (the deprecated `positive` is `luteinizingHormoneSurge`, 2).
  case ovulationTestResult
  /// `HKCategoryValuePregnancyTestResult`.
  case pregnancyTestResult
  /// `HKCategoryValueProgesteroneTestResult`.
  case progesteroneTestResult
  /// `HKCategoryValueVaginalBleeding` (iOS 18; `HKCategoryValueMenstrualFlow` has the same values).
  case vaginalBleeding

  /// The raw values and case names.
  var values: [(value: Int, name: String)] {
    switch self {
    case .notApplicable: [(0, "notApplicable")]
    case .severity: [(0, "unspecified"), (1, "notPresent"), (2, "mild"), (3, "moderate"), (4, "severe")]
    case .presence: [(0, "present"), (1, "notPresent")]
    case .appetiteChanges: [(0, "unspecified"), (1, "noChange"), (2, "decreased"), (3, "increased")]
    case .appleWalkingSteadinessEvent:
      [
        (1, "initialLow"), (2, "initialVeryLow"), (3, "repeatLow"), (4, "repeatVeryLow"),
      ]
    case .cervicalMucusQuality: [(1, "dry"), (2, "sticky"), (3, "creamy"), (4, "watery"), (5, "eggWhite")]
    case .contraceptive:
      [
        (1, "unspecified"), (2, "implant"), (3, "injection"), (4, "intrauterineDevice"), (5, "intravaginalRing"),
        (6, "oral"), (7, "patch"),
      ]
    case .environmentalAudioExposureEvent: [(1, "momentaryLimit")]
    case .headphoneAudioExposureEvent: [(1, "sevenDayLimit")]
    case .audioExposureEvent: [(1, "loudEnvironment")]
    case .lowCardioFitnessEvent: [(1, "lowFitness")]
    case .ovulationTestResult:
      [
        (1, "negative"), (2, "luteinizingHormoneSurge"), (3, "indeterminate"), (4, "estrogenSurge"),
      ]
    case .pregnancyTestResult: [(1, "negative"), (2, "positive"), (3, "indeterminate")]
    case .progesteroneTestResult: [(1, "negative"), (2, "positive"), (3, "indeterminate")]
    case .vaginalBleeding: [(1, "unspecified"), (2, "light"), (3, "medium"), (4, "heavy"), (5, "none")]
    }
  }
}
