import FoundationEssentials

// How long a sample of each type may last (`HKSampleType.maximumAllowedDuration`, `minimumAllowedDuration`):
// HealthKit's table, read from decompiled iOS 26.1 HealthKit (`HKMaximumSampleDurationForType`,
// `HKMinimumSampleDurationForType`); behavior.md T14.

extension SampleTypeDescriptor {
  /// The longest a sample of the type may last (end − start, a longer one raises when it is made), or nil when the
  /// type is not restricted: 4 days for most sample types, longer for the cycle-tracking and event types that
  /// summarise weeks; nil for characteristic types, activity summaries, prescriptions, clinical records, and the
  /// reproductive-health states that last months.
  package var maximumDuration: Double? {
    switch kind {
    case .characteristic: return nil
    case .object(let objectKind) where [.activitySummary, .visionPrescription, .clinicalRecord].contains(objectKind):
      return nil
    default: break
    }
    if Self.unrestricted.contains(name) { return nil }
    return Self.longerMaximums[name] ?? 4 * 86_400
  }

  /// The shortest a sample of the type may last: 1 ms for the two audio exposure quantities, else 0.
  package var minimumDuration: Double {
    name == "environmentalAudioExposure" || name == "headphoneAudioExposure" ? 0.001 : 0
  }

  /// Whether Apple's estimates of the type can be recalibrated (`allowsRecalibrationForEstimates`): six-minute walk
  /// distance only.
  package var allowsRecalibrationForEstimates: Bool { name == "sixMinuteWalkTestDistance" }

  private static let unrestricted: Set<String> = [
    "menstrualFlow", "pregnancy", "lactation", "contraceptive", "bleedingDuringPregnancy", "bleedingAfterPregnancy",
  ]

  private static let longerMaximums: [String: Double] = {
    var table: [String: Double] = [:]
    let fortnight = [
      "cervicalMucusQuality", "ovulationTestResult", "intermenstrualBleeding", "sexualActivity", "abdominalCramps",
      "breastPain", "bloating", "headache", "acne", "lowerBackPain", "pelvicPain", "moodChanges", "constipation",
      "diarrhea", "fatigue", "nausea", "sleepChanges", "appetiteChanges", "hotFlashes", "pregnancyTestResult",
      "progesteroneTestResult",
    ]
    for name in fortnight { table[name] = 14 * 86_400 }
    table["mindfulSession"] = 28 * 86_400
    for name in ["headphoneAudioExposureEvent", "atrialFibrillationBurden"] { table[name] = 8 * 86_400 }
    for name in ["appleWalkingSteadiness", "appleWalkingSteadinessEvent"] { table[name] = 10 * 86_400 }
    for name in ["hypertensionEvent", "sleepApneaEvent"] { table[name] = 31 * 86_400 }
    table["lowCardioFitnessEvent"] = 85 * 86_400
    for name in [
      "persistentIntermenstrualBleeding", "prolongedMenstrualPeriods", "irregularMenstrualCycles",
      "infrequentMenstrualCycles",
    ] { table[name] = 365 * 86_400 }
    return table
  }()

  /// Checks that `start…end` fits the type's duration limits (strict: a sample exactly at a limit is kept).
  /// - Throws: `validationException` with HealthKit's message (`_HKObjectValidationFailureException` when the object
  ///   is made).
  package func checkDuration(_ start: Date, _ end: Date) throws(HealthError) {
    let duration = end.timeIntervalSince(start)
    if let maximum = maximumDuration, duration > maximum {
      throw .validationException(
        "startDate (\(formatDate(start))) and endDate (\(formatDate(end))) exceed the maximum allowed duration for "
          + "this sample type. Maximum duration for type \(identifier) is \(Self.seconds(maximum))")
    }
    if duration < minimumDuration {
      throw .validationException(
        "Duration between startDate (\(formatDate(start))) and endDate (\(formatDate(end))) is below the minimum "
          + "allowed duration for this sample type. Minimum duration for type \(identifier) is "
          + Self.seconds(minimumDuration))
    }
  }

  /// `%f`: six decimals.
  private static func seconds(_ value: Double) -> String {
    let micro = Int64((value * 1_000_000).rounded())
    let fraction = String(micro % 1_000_000)
    return "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
  }
}
