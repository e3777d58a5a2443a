/// A HealthKit object type the simulator knows, identified by a stable numeric code.
///
/// The code is what the journal and the wire carry; the table in ``SampleType/catalog`` gives its name,
/// HealthKit identifier, kind, canonical unit and rules. Adding a type is one entry in that table.
package struct SampleType: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The stable code of the type (never reused).
  package let code: UInt16

  /// Wraps a code; only ``SampleType/lookup(code:)`` checks it against the catalog.
  package init(unchecked code: UInt16) { self.code = code }

  /// The catalog entry of this type.
  package var descriptor: SampleTypeDescriptor { SampleType.descriptorsByCode[Int(code)]! }
  /// The short name (`dietaryWater`).
  package var name: String { descriptor.name }
  /// The HealthKit identifier (`HKQuantityTypeIdentifierDietaryWater`).
  package var identifier: String { descriptor.identifier }
  /// The short name.
  package var description: String { name }
  /// Orders types by code.
  package static func < (a: SampleType, b: SampleType) -> Bool { a.code < b.code }

  /// Whether this is a quantity type (a table lookup; `descriptor` copies the whole entry).
  package var isQuantity: Bool { SampleType.quantityFlags[Int(code)] }

  private static let quantityFlags: [Bool] = {
    var table = [Bool](repeating: false, count: Int(catalog.map(\.code).max()! + 1))
    for entry in catalog where entry.isQuantity { table[Int(entry.code)] = true }
    return table
  }()

  /// Finds a type by code, or nil when the code is unknown.
  package static func lookup(code: UInt16) -> SampleType? {
    Int(code) < descriptorsByCode.count && descriptorsByCode[Int(code)] != nil ? SampleType(unchecked: code) : nil
  }

  /// Finds a type by short name (`dietaryWater`) or HealthKit identifier.
  package static func lookup(name: String) -> SampleType? { byName[name] }

  /// Every known type, in catalog order.
  package static var all: [SampleType] { catalog.map { SampleType(unchecked: $0.code) } }

  private static let descriptorsByCode: [SampleTypeDescriptor?] = {
    var table = [SampleTypeDescriptor?](repeating: nil, count: Int(catalog.map(\.code).max()! + 1))
    for entry in catalog {
      precondition(table[Int(entry.code)] == nil, "duplicate sample type code \(entry.code)")
      table[Int(entry.code)] = entry
    }
    return table
  }()

  /// Parsed canonical units by type code.
  static let canonicalUnits: [HealthUnit?] = {
    var table = [HealthUnit?](repeating: nil, count: Int(catalog.map(\.code).max()! + 1))
    for entry in catalog {
      if case .quantity(let unit, _) = entry.kind { table[Int(entry.code)] = try? HealthUnit(parsing: unit) }
    }
    return table
  }()

  private static let byName: [String: SampleType] = {
    var map: [String: SampleType] = [:]
    for entry in catalog {
      map[entry.name] = SampleType(unchecked: entry.code)
      map[entry.identifier] = SampleType(unchecked: entry.code)
    }
    return map
  }()
}

extension SampleType {
  /// The catalog: one entry per type. Codes are stable and never reused (they are in journals and on the wire):
  /// 1–59 the first types, 60–99 reserved, 100–299 quantity types, 300–459 category types.
  ///
  /// Every quantity and category type identifier of the iOS 26 SDK is here (the list is checked against
  /// Tests/HealthModelTests/Fixtures/hk-identifiers.txt). Sources (docs/behavior.md, section T): canonical units
  /// and aggregation styles are the comments of HKTypeIdentifiers.h; category values are HKCategoryValues.h's
  /// enumerations with Apple's raw values; required metadata keys are those HKMetadata.h calls required; a type
  /// apps may not share is one Apple's documentation calls read-only, one devices were observed to refuse
  /// ("Authorization to share the following types is disallowed"), or one Apple computes itself (T3).
  /// Characteristic types (codes 60–69, section C) take their values from HKCharacteristicValues.h; special object
  /// types (workouts, clinical records, …, codes 70–99) are in ObjectTypes.swift.
  package static let catalog: [SampleTypeDescriptor] = [
    .init(
      code: 1, name: "dietaryWater", identifier: "HKQuantityTypeIdentifierDietaryWater",
      kind: .quantity(canonicalUnit: "mL", aggregation: .cumulative), appsMayShare: true, requiredMetadata: []),
    .init(
      code: 2, name: "stepCount", identifier: "HKQuantityTypeIdentifierStepCount",
      kind: .quantity(canonicalUnit: "count", aggregation: .cumulative), appsMayShare: true, requiredMetadata: []),
    .init(
      code: 3, name: "activeEnergyBurned", identifier: "HKQuantityTypeIdentifierActiveEnergyBurned",
      kind: .quantity(canonicalUnit: "kcal", aggregation: .cumulative), appsMayShare: true, requiredMetadata: []),
    .init(
      code: 4, name: "heartRate", identifier: "HKQuantityTypeIdentifierHeartRate",
      kind: .quantity(canonicalUnit: "count/s", aggregation: .discreteTemporallyWeighted), appsMayShare: true,
      requiredMetadata: []),
    .init(
      code: 5, name: "bodyMass", identifier: "HKQuantityTypeIdentifierBodyMass",
      kind: .quantity(canonicalUnit: "kg", aggregation: .discreteArithmetic), appsMayShare: true,
      requiredMetadata: []),
    .init(
      code: 6, name: "appleExerciseTime", identifier: "HKQuantityTypeIdentifierAppleExerciseTime",
      kind: .quantity(canonicalUnit: "min", aggregation: .cumulative), appsMayShare: false, requiredMetadata: []),
    .init(
      code: 7, name: "heartRateVariabilitySDNN", identifier: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN",
      kind: .quantity(canonicalUnit: "ms", aggregation: .discreteArithmetic), appsMayShare: true,
      requiredMetadata: []),
    .init(
      code: 8, name: "distanceWalkingRunning", identifier: "HKQuantityTypeIdentifierDistanceWalkingRunning",
      kind: .quantity(canonicalUnit: "m", aggregation: .cumulative), appsMayShare: true, requiredMetadata: []),
    .init(
      code: 20, name: "mindfulSession", identifier: "HKCategoryTypeIdentifierMindfulSession",
      kind: .category(values: [(0, "notApplicable")]), appsMayShare: true, requiredMetadata: []),
    .init(
      code: 21, name: "sleepAnalysis", identifier: "HKCategoryTypeIdentifierSleepAnalysis",
      kind: .category(values: [
        (0, "inBed"), (1, "asleepUnspecified"), (2, "awake"), (3, "asleepCore"), (4, "asleepDeep"),
        (5, "asleepREM"),
      ]), appsMayShare: true, requiredMetadata: []),
    .init(
      code: 22, name: "menstrualFlow", identifier: "HKCategoryTypeIdentifierMenstrualFlow",
      kind: .category(values: [(1, "unspecified"), (2, "light"), (3, "medium"), (4, "heavy"), (5, "none")]),
      appsMayShare: true, requiredMetadata: [MetadataKey.menstrualCycleStart]),
    .init(
      code: 23, name: "appleStandHour", identifier: "HKCategoryTypeIdentifierAppleStandHour",
      kind: .category(values: [(0, "stood"), (1, "idle")]), appsMayShare: false, requiredMetadata: []),
    .init(
      code: 40, name: "bloodPressure", identifier: "HKCorrelationTypeIdentifierBloodPressure",
      kind: .correlation(components: ["bloodPressureSystolic", "bloodPressureDiastolic"]), appsMayShare: false,
      requiredMetadata: []),
    .init(
      code: 41, name: "food", identifier: "HKCorrelationTypeIdentifierFood",
      kind: .correlation(components: SampleTypeDescriptor.dietaryTypes), appsMayShare: false, requiredMetadata: []),

    // Quantity types (100–299), by name. Canonical unit and aggregation style from HKTypeIdentifiers.h.
    .quantity(100, "appleMoveTime", "min", .cumulative, appsMayShare: false),
    .quantity(101, "appleSleepingBreathingDisturbances", "count", .discreteArithmetic, appsMayShare: false),
    .quantity(102, "appleSleepingWristTemperature", "degC", .discreteArithmetic, appsMayShare: false),
    .quantity(103, "appleStandTime", "min", .cumulative, appsMayShare: false),
    .quantity(104, "appleWalkingSteadiness", "%", .discreteArithmetic, appsMayShare: false),
    .quantity(105, "atrialFibrillationBurden", "%", .discreteTemporallyWeighted, appsMayShare: false),
    .quantity(106, "basalBodyTemperature", "degC", .discreteArithmetic),
    .quantity(107, "basalEnergyBurned", "kcal", .cumulative),
    .quantity(108, "bloodAlcoholContent", "%", .discreteArithmetic),
    .quantity(109, "bloodGlucose", "mg/dL", .discreteArithmetic),
    .quantity(110, "bloodPressureDiastolic", "mmHg", .discreteArithmetic),
    .quantity(111, "bloodPressureSystolic", "mmHg", .discreteArithmetic),
    .quantity(112, "bodyFatPercentage", "%", .discreteArithmetic),
    .quantity(113, "bodyMassIndex", "count", .discreteArithmetic),
    .quantity(114, "bodyTemperature", "degC", .discreteArithmetic),
    .quantity(115, "crossCountrySkiingSpeed", "m/s", .discreteArithmetic),
    .quantity(116, "cyclingCadence", "count/min", .discreteTemporallyWeighted),
    .quantity(117, "cyclingFunctionalThresholdPower", "W", .discreteArithmetic),
    .quantity(118, "cyclingPower", "W", .discreteTemporallyWeighted),
    .quantity(119, "cyclingSpeed", "m/s", .discreteTemporallyWeighted),
    .quantity(120, "dietaryBiotin", "g", .cumulative),
    .quantity(121, "dietaryCaffeine", "g", .cumulative),
    .quantity(122, "dietaryCalcium", "g", .cumulative),
    .quantity(123, "dietaryCarbohydrates", "g", .cumulative),
    .quantity(124, "dietaryChloride", "g", .cumulative),
    .quantity(125, "dietaryCholesterol", "g", .cumulative),
    .quantity(126, "dietaryChromium", "g", .cumulative),
    .quantity(127, "dietaryCopper", "g", .cumulative),
    .quantity(128, "dietaryEnergyConsumed", "kcal", .cumulative),
    .quantity(129, "dietaryFatMonounsaturated", "g", .cumulative),
    .quantity(130, "dietaryFatPolyunsaturated", "g", .cumulative),
    .quantity(131, "dietaryFatSaturated", "g", .cumulative),
    .quantity(132, "dietaryFatTotal", "g", .cumulative),
    .quantity(133, "dietaryFiber", "g", .cumulative),
    .quantity(134, "dietaryFolate", "g", .cumulative),
    .quantity(135, "dietaryIodine", "g", .cumulative),
    .quantity(136, "dietaryIron", "g", .cumulative),
    .quantity(137, "dietaryMagnesium", "g", .cumulative),
    .quantity(138, "dietaryManganese", "g", .cumulative),
    .quantity(139, "dietaryMolybdenum", "g", .cumulative),
    .quantity(140, "dietaryNiacin", "g", .cumulative),
    .quantity(141, "dietaryPantothenicAcid", "g", .cumulative),
    .quantity(142, "dietaryPhosphorus", "g", .cumulative),
    .quantity(143, "dietaryPotassium", "g", .cumulative),
    .quantity(144, "dietaryProtein", "g", .cumulative),
    .quantity(145, "dietaryRiboflavin", "g", .cumulative),
    .quantity(146, "dietarySelenium", "g", .cumulative),
    .quantity(147, "dietarySodium", "g", .cumulative),
    .quantity(148, "dietarySugar", "g", .cumulative),
    .quantity(149, "dietaryThiamin", "g", .cumulative),
    .quantity(150, "dietaryVitaminA", "g", .cumulative),
    .quantity(151, "dietaryVitaminB12", "g", .cumulative),
    .quantity(152, "dietaryVitaminB6", "g", .cumulative),
    .quantity(153, "dietaryVitaminC", "g", .cumulative),
    .quantity(154, "dietaryVitaminD", "g", .cumulative),
    .quantity(155, "dietaryVitaminE", "g", .cumulative),
    .quantity(156, "dietaryVitaminK", "g", .cumulative),
    .quantity(157, "dietaryZinc", "g", .cumulative),
    .quantity(158, "distanceCrossCountrySkiing", "m", .cumulative),
    .quantity(159, "distanceCycling", "m", .cumulative),
    .quantity(160, "distanceDownhillSnowSports", "m", .cumulative),
    .quantity(161, "distancePaddleSports", "m", .cumulative),
    .quantity(162, "distanceRowing", "m", .cumulative),
    .quantity(163, "distanceSkatingSports", "m", .cumulative),
    .quantity(164, "distanceSwimming", "m", .cumulative),
    .quantity(165, "distanceWheelchair", "m", .cumulative),
    .quantity(166, "electrodermalActivity", "S", .discreteArithmetic),
    .quantity(167, "environmentalAudioExposure", "dBASPL", .discreteEquivalentContinuousLevel),
    .quantity(168, "environmentalSoundReduction", "dBASPL", .discreteEquivalentContinuousLevel),
    .quantity(169, "estimatedWorkoutEffortScore", "appleEffortScore", .discreteArithmetic),
    .quantity(170, "flightsClimbed", "count", .cumulative),
    .quantity(171, "forcedExpiratoryVolume1", "L", .discreteArithmetic),
    .quantity(172, "forcedVitalCapacity", "L", .discreteArithmetic),
    .quantity(173, "headphoneAudioExposure", "dBASPL", .discreteEquivalentContinuousLevel),
    .quantity(174, "heartRateRecoveryOneMinute", "count/min", .discreteArithmetic),
    .quantity(175, "height", "m", .discreteArithmetic),
    .quantity(176, "inhalerUsage", "count", .cumulative),
    .quantity(177, "insulinDelivery", "IU", .cumulative, requiredMetadata: [MetadataKey.insulinDeliveryReason]),
    .quantity(178, "leanBodyMass", "kg", .discreteArithmetic),
    .quantity(179, "nikeFuel", "count", .cumulative, appsMayShare: false),
    .quantity(180, "numberOfAlcoholicBeverages", "count", .cumulative),
    .quantity(181, "numberOfTimesFallen", "count", .cumulative),
    .quantity(182, "oxygenSaturation", "%", .discreteArithmetic),
    .quantity(183, "paddleSportsSpeed", "m/s", .discreteArithmetic),
    .quantity(184, "peakExpiratoryFlowRate", "L/min", .discreteArithmetic),
    .quantity(185, "peripheralPerfusionIndex", "%", .discreteArithmetic),
    .quantity(186, "physicalEffort", "kcal/(kg*hr)", .discreteArithmetic),
    .quantity(187, "pushCount", "count", .cumulative),
    .quantity(188, "respiratoryRate", "count/s", .discreteArithmetic),
    .quantity(189, "restingHeartRate", "count/min", .discreteTemporallyWeighted),
    .quantity(190, "rowingSpeed", "m/s", .discreteArithmetic),
    .quantity(191, "runningGroundContactTime", "ms", .discreteArithmetic),
    .quantity(192, "runningPower", "W", .discreteArithmetic),
    .quantity(193, "runningSpeed", "m/s", .discreteArithmetic),
    .quantity(194, "runningStrideLength", "m", .discreteArithmetic),
    .quantity(195, "runningVerticalOscillation", "cm", .discreteArithmetic),
    .quantity(196, "sixMinuteWalkTestDistance", "m", .discreteArithmetic),
    .quantity(197, "stairAscentSpeed", "m/s", .discreteArithmetic),
    .quantity(198, "stairDescentSpeed", "m/s", .discreteArithmetic),
    .quantity(199, "swimmingStrokeCount", "count", .cumulative),
    .quantity(200, "timeInDaylight", "min", .cumulative),
    .quantity(201, "underwaterDepth", "m", .discreteArithmetic),
    .quantity(202, "uvExposure", "count", .discreteArithmetic, identifier: "HKQuantityTypeIdentifierUVExposure"),
    .quantity(203, "vo2Max", "ml/(kg*min)", .discreteArithmetic, identifier: "HKQuantityTypeIdentifierVO2Max"),
    .quantity(204, "waistCircumference", "m", .discreteArithmetic),
    .quantity(205, "walkingAsymmetryPercentage", "%", .discreteArithmetic),
    .quantity(206, "walkingDoubleSupportPercentage", "%", .discreteArithmetic),
    .quantity(207, "walkingHeartRateAverage", "count/min", .discreteTemporallyWeighted, appsMayShare: false),
    .quantity(208, "walkingSpeed", "m/s", .discreteArithmetic),
    .quantity(209, "walkingStepLength", "m", .discreteArithmetic),
    .quantity(210, "waterTemperature", "degC", .discreteArithmetic),
    .quantity(211, "workoutEffortScore", "appleEffortScore", .discreteArithmetic),

    // Category types (300–459), by name, with their value enumeration (HKCategoryValues.h).
    .category(300, "abdominalCramps", .severity),
    .category(301, "acne", .severity),
    .category(302, "appetiteChanges", .appetiteChanges),
    .category(303, "appleWalkingSteadinessEvent", .appleWalkingSteadinessEvent, appsMayShare: false),
    .category(304, "audioExposureEvent", .audioExposureEvent, appsMayShare: false),
    .category(305, "bladderIncontinence", .severity),
    .category(306, "bleedingAfterPregnancy", .vaginalBleeding),
    .category(307, "bleedingDuringPregnancy", .vaginalBleeding),
    .category(308, "bloating", .severity),
    .category(309, "breastPain", .severity),
    .category(310, "cervicalMucusQuality", .cervicalMucusQuality),
    .category(311, "chestTightnessOrPain", .severity),
    .category(312, "chills", .severity),
    .category(313, "constipation", .severity),
    .category(314, "contraceptive", .contraceptive),
    .category(315, "coughing", .severity),
    .category(316, "diarrhea", .severity),
    .category(317, "dizziness", .severity),
    .category(318, "drySkin", .severity),
    .category(319, "environmentalAudioExposureEvent", .environmentalAudioExposureEvent, appsMayShare: false),
    .category(320, "fainting", .severity),
    .category(321, "fatigue", .severity),
    .category(322, "fever", .severity),
    .category(323, "generalizedBodyAche", .severity),
    .category(324, "hairLoss", .severity),
    .category(325, "handwashingEvent", .notApplicable),
    .category(326, "headache", .severity),
    .category(327, "headphoneAudioExposureEvent", .headphoneAudioExposureEvent, appsMayShare: false),
    .category(328, "heartburn", .severity),
    .category(329, "highHeartRateEvent", .notApplicable, appsMayShare: false),
    .category(330, "hotFlashes", .severity),
    .category(331, "hypertensionEvent", .notApplicable, appsMayShare: false),
    .category(332, "infrequentMenstrualCycles", .notApplicable, appsMayShare: false),
    .category(333, "intermenstrualBleeding", .notApplicable),
    .category(334, "irregularHeartRhythmEvent", .notApplicable, appsMayShare: false),
    .category(335, "irregularMenstrualCycles", .notApplicable, appsMayShare: false),
    .category(336, "lactation", .notApplicable),
    .category(337, "lossOfSmell", .severity),
    .category(338, "lossOfTaste", .severity),
    .category(339, "lowCardioFitnessEvent", .lowCardioFitnessEvent, appsMayShare: false),
    .category(340, "lowerBackPain", .severity),
    .category(341, "lowHeartRateEvent", .notApplicable, appsMayShare: false),
    .category(342, "memoryLapse", .severity),
    .category(343, "moodChanges", .presence),
    .category(344, "nausea", .severity),
    .category(345, "nightSweats", .severity),
    .category(346, "ovulationTestResult", .ovulationTestResult),
    .category(347, "pelvicPain", .severity),
    .category(348, "persistentIntermenstrualBleeding", .notApplicable, appsMayShare: false),
    .category(349, "pregnancy", .notApplicable),
    .category(350, "pregnancyTestResult", .pregnancyTestResult),
    .category(351, "progesteroneTestResult", .progesteroneTestResult),
    .category(352, "prolongedMenstrualPeriods", .notApplicable, appsMayShare: false),
    .category(353, "rapidPoundingOrFlutteringHeartbeat", .severity),
    .category(354, "runnyNose", .severity),
    .category(355, "sexualActivity", .notApplicable),
    .category(356, "shortnessOfBreath", .severity),
    .category(357, "sinusCongestion", .severity),
    .category(358, "skippedHeartbeat", .severity),
    .category(359, "sleepApneaEvent", .notApplicable, appsMayShare: false),
    .category(360, "sleepChanges", .presence),
    .category(361, "soreThroat", .severity),
    .category(362, "toothbrushingEvent", .notApplicable),
    .category(363, "vaginalDryness", .severity),
    .category(364, "vomiting", .severity),
    .category(365, "wheezing", .severity),
    // Characteristic types (codes 60–69): values from HKCharacteristicValues.h. Apps may only read them.
    .init(
      code: 60, name: "dateOfBirth", identifier: "HKCharacteristicTypeIdentifierDateOfBirth",
      kind: .characteristic(values: []), appsMayShare: false, requiredMetadata: []),
    .init(
      code: 61, name: "biologicalSex", identifier: "HKCharacteristicTypeIdentifierBiologicalSex",
      kind: .characteristic(values: [(1, "female"), (2, "male"), (3, "other")]), appsMayShare: false,
      requiredMetadata: []),
    .init(
      code: 62, name: "bloodType", identifier: "HKCharacteristicTypeIdentifierBloodType",
      kind: .characteristic(values: [
        (1, "aPositive"), (2, "aNegative"), (3, "bPositive"), (4, "bNegative"), (5, "abPositive"), (6, "abNegative"),
        (7, "oPositive"), (8, "oNegative"),
      ]), appsMayShare: false, requiredMetadata: []),
    .init(
      code: 63, name: "fitzpatrickSkinType", identifier: "HKCharacteristicTypeIdentifierFitzpatrickSkinType",
      kind: .characteristic(values: [(1, "I"), (2, "II"), (3, "III"), (4, "IV"), (5, "V"), (6, "VI")]),
      appsMayShare: false, requiredMetadata: []),
    .init(
      code: 64, name: "wheelchairUse", identifier: "HKCharacteristicTypeIdentifierWheelchairUse",
      kind: .characteristic(values: [(1, "no"), (2, "yes")]), appsMayShare: false, requiredMetadata: []),
    .init(
      code: 65, name: "activityMoveMode", identifier: "HKCharacteristicTypeIdentifierActivityMoveMode",
      kind: .characteristic(values: [(1, "activeEnergy"), (2, "appleMoveTime")]), appsMayShare: false,
      requiredMetadata: []),
  ] + objectTypeCatalog
}
