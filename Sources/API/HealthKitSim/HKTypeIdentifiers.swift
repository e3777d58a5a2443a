// HealthKit's type identifiers: RawRepresentable string structs whose raw values are Apple's identifier strings.
//
// One static member per type of HealthModel's catalog (SampleType.catalog), in alphabetical order; a test
// (HealthKitSimTests, "Type identifiers") checks that this file names exactly the catalog's types.

/// The identifier of a quantity type (`HKQuantityTypeIdentifierDietaryWater`).
public struct HKQuantityTypeIdentifier: RawRepresentable, Hashable, Sendable {
  /// Apple's identifier string.
  public let rawValue: String
  /// Wraps an identifier string.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Wraps an identifier string.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Active energy; canonical unit kcal, cumulative.
  public static let activeEnergyBurned = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned")
  /// Exercise minutes, computed by Apple (read-only for apps); canonical unit min, cumulative.
  public static let appleExerciseTime = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierAppleExerciseTime")
  /// Canonical unit min, cumulative; read-only (Apple computes it).
  public static let appleMoveTime = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierAppleMoveTime")
  /// Canonical unit count, discrete (arithmetic); read-only (Apple computes it).
  public static let appleSleepingBreathingDisturbances = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierAppleSleepingBreathingDisturbances")
  /// Canonical unit degC, discrete (arithmetic); read-only (Apple computes it).
  public static let appleSleepingWristTemperature = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierAppleSleepingWristTemperature")
  /// Canonical unit min, cumulative; read-only (Apple computes it).
  public static let appleStandTime = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierAppleStandTime")
  /// Canonical unit %, discrete (arithmetic); read-only (Apple computes it).
  public static let appleWalkingSteadiness = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierAppleWalkingSteadiness")
  /// Canonical unit %, discrete (temporally weighted); read-only (Apple computes it).
  public static let atrialFibrillationBurden = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierAtrialFibrillationBurden")
  /// Canonical unit degC, discrete (arithmetic).
  public static let basalBodyTemperature = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBasalBodyTemperature")
  /// Canonical unit kcal, cumulative.
  public static let basalEnergyBurned = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBasalEnergyBurned")
  /// Canonical unit %, discrete (arithmetic).
  public static let bloodAlcoholContent = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBloodAlcoholContent")
  /// Canonical unit mg/dL, discrete (arithmetic).
  public static let bloodGlucose = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBloodGlucose")
  /// Canonical unit mmHg, discrete (arithmetic).
  public static let bloodPressureDiastolic = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBloodPressureDiastolic")
  /// Canonical unit mmHg, discrete (arithmetic).
  public static let bloodPressureSystolic = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBloodPressureSystolic")
  /// Canonical unit %, discrete (arithmetic).
  public static let bodyFatPercentage = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBodyFatPercentage")
  /// Body mass; canonical unit kg, discrete (arithmetic).
  public static let bodyMass = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBodyMass")
  /// Canonical unit count, discrete (arithmetic).
  public static let bodyMassIndex = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBodyMassIndex")
  /// Canonical unit degC, discrete (arithmetic).
  public static let bodyTemperature = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBodyTemperature")
  /// Canonical unit m/s, discrete (arithmetic).
  public static let crossCountrySkiingSpeed = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierCrossCountrySkiingSpeed")
  /// Canonical unit count/min, discrete (temporally weighted).
  public static let cyclingCadence = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierCyclingCadence")
  /// Canonical unit W, discrete (arithmetic).
  public static let cyclingFunctionalThresholdPower = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierCyclingFunctionalThresholdPower")
  /// Canonical unit W, discrete (temporally weighted).
  public static let cyclingPower = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierCyclingPower")
  /// Canonical unit m/s, discrete (temporally weighted).
  public static let cyclingSpeed = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierCyclingSpeed")
  /// Canonical unit g, cumulative.
  public static let dietaryBiotin = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryBiotin")
  /// Canonical unit g, cumulative.
  public static let dietaryCaffeine = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryCaffeine")
  /// Canonical unit g, cumulative.
  public static let dietaryCalcium = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryCalcium")
  /// Canonical unit g, cumulative.
  public static let dietaryCarbohydrates = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryCarbohydrates")
  /// Canonical unit g, cumulative.
  public static let dietaryChloride = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryChloride")
  /// Canonical unit g, cumulative.
  public static let dietaryCholesterol = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryCholesterol")
  /// Canonical unit g, cumulative.
  public static let dietaryChromium = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryChromium")
  /// Canonical unit g, cumulative.
  public static let dietaryCopper = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryCopper")
  /// Canonical unit kcal, cumulative.
  public static let dietaryEnergyConsumed = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryEnergyConsumed")
  /// Canonical unit g, cumulative.
  public static let dietaryFatMonounsaturated = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierDietaryFatMonounsaturated")
  /// Canonical unit g, cumulative.
  public static let dietaryFatPolyunsaturated = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierDietaryFatPolyunsaturated")
  /// Canonical unit g, cumulative.
  public static let dietaryFatSaturated = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryFatSaturated")
  /// Canonical unit g, cumulative.
  public static let dietaryFatTotal = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryFatTotal")
  /// Canonical unit g, cumulative.
  public static let dietaryFiber = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryFiber")
  /// Canonical unit g, cumulative.
  public static let dietaryFolate = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryFolate")
  /// Canonical unit g, cumulative.
  public static let dietaryIodine = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryIodine")
  /// Canonical unit g, cumulative.
  public static let dietaryIron = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryIron")
  /// Canonical unit g, cumulative.
  public static let dietaryMagnesium = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryMagnesium")
  /// Canonical unit g, cumulative.
  public static let dietaryManganese = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryManganese")
  /// Canonical unit g, cumulative.
  public static let dietaryMolybdenum = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryMolybdenum")
  /// Canonical unit g, cumulative.
  public static let dietaryNiacin = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryNiacin")
  /// Canonical unit g, cumulative.
  public static let dietaryPantothenicAcid = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryPantothenicAcid")
  /// Canonical unit g, cumulative.
  public static let dietaryPhosphorus = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryPhosphorus")
  /// Canonical unit g, cumulative.
  public static let dietaryPotassium = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryPotassium")
  /// Canonical unit g, cumulative.
  public static let dietaryProtein = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryProtein")
  /// Canonical unit g, cumulative.
  public static let dietaryRiboflavin = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryRiboflavin")
  /// Canonical unit g, cumulative.
  public static let dietarySelenium = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietarySelenium")
  /// Canonical unit g, cumulative.
  public static let dietarySodium = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietarySodium")
  /// Canonical unit g, cumulative.
  public static let dietarySugar = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietarySugar")
  /// Canonical unit g, cumulative.
  public static let dietaryThiamin = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryThiamin")
  /// Canonical unit g, cumulative.
  public static let dietaryVitaminA = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryVitaminA")
  /// Canonical unit g, cumulative.
  public static let dietaryVitaminB12 = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryVitaminB12")
  /// Canonical unit g, cumulative.
  public static let dietaryVitaminB6 = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryVitaminB6")
  /// Canonical unit g, cumulative.
  public static let dietaryVitaminC = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryVitaminC")
  /// Canonical unit g, cumulative.
  public static let dietaryVitaminD = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryVitaminD")
  /// Canonical unit g, cumulative.
  public static let dietaryVitaminE = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryVitaminE")
  /// Canonical unit g, cumulative.
  public static let dietaryVitaminK = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryVitaminK")
  /// Water drunk; canonical unit mL, cumulative.
  public static let dietaryWater = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryWater")
  /// Canonical unit g, cumulative.
  public static let dietaryZinc = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDietaryZinc")
  /// Canonical unit m, cumulative.
  public static let distanceCrossCountrySkiing = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierDistanceCrossCountrySkiing")
  /// Canonical unit m, cumulative.
  public static let distanceCycling = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDistanceCycling")
  /// Canonical unit m, cumulative.
  public static let distanceDownhillSnowSports = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierDistanceDownhillSnowSports")
  /// Canonical unit m, cumulative.
  public static let distancePaddleSports = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDistancePaddleSports")
  /// Canonical unit m, cumulative.
  public static let distanceRowing = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDistanceRowing")
  /// Canonical unit m, cumulative.
  public static let distanceSkatingSports = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDistanceSkatingSports")
  /// Canonical unit m, cumulative.
  public static let distanceSwimming = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDistanceSwimming")
  /// Walking and running distance; canonical unit m, cumulative.
  public static let distanceWalkingRunning = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDistanceWalkingRunning")
  /// Canonical unit m, cumulative.
  public static let distanceWheelchair = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDistanceWheelchair")
  /// Canonical unit S, discrete (arithmetic).
  public static let electrodermalActivity = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierElectrodermalActivity")
  /// Canonical unit dBASPL, discrete (equivalent continuous level).
  public static let environmentalAudioExposure = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierEnvironmentalAudioExposure")
  /// Canonical unit dBASPL, discrete (equivalent continuous level).
  public static let environmentalSoundReduction = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierEnvironmentalSoundReduction")
  /// Canonical unit appleEffortScore, discrete (arithmetic).
  public static let estimatedWorkoutEffortScore = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierEstimatedWorkoutEffortScore")
  /// Canonical unit count, cumulative.
  public static let flightsClimbed = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierFlightsClimbed")
  /// Canonical unit L, discrete (arithmetic).
  public static let forcedExpiratoryVolume1 = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierForcedExpiratoryVolume1")
  /// Canonical unit L, discrete (arithmetic).
  public static let forcedVitalCapacity = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierForcedVitalCapacity")
  /// Canonical unit dBASPL, discrete (equivalent continuous level).
  public static let headphoneAudioExposure = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierHeadphoneAudioExposure")
  /// Heart rate; canonical unit count/s, discrete (temporally weighted).
  public static let heartRate = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierHeartRate")
  /// Canonical unit count/min, discrete (arithmetic).
  public static let heartRateRecoveryOneMinute = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierHeartRateRecoveryOneMinute")
  /// Heart rate variability (SDNN); canonical unit ms, discrete (arithmetic).
  public static let heartRateVariabilitySDNN = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierHeartRateVariabilitySDNN")
  /// Canonical unit m, discrete (arithmetic).
  public static let height = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierHeight")
  /// Canonical unit count, cumulative.
  public static let inhalerUsage = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierInhalerUsage")
  /// Canonical unit IU, cumulative; requires `HKMetadataKeyInsulinDeliveryReason`.
  public static let insulinDelivery = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierInsulinDelivery")
  /// Canonical unit kg, discrete (arithmetic).
  public static let leanBodyMass = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierLeanBodyMass")
  /// Canonical unit count, cumulative; read-only (Apple computes it).
  public static let nikeFuel = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierNikeFuel")
  /// Canonical unit count, cumulative.
  public static let numberOfAlcoholicBeverages = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierNumberOfAlcoholicBeverages")
  /// Canonical unit count, cumulative.
  public static let numberOfTimesFallen = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierNumberOfTimesFallen")
  /// Canonical unit %, discrete (arithmetic).
  public static let oxygenSaturation = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierOxygenSaturation")
  /// Canonical unit m/s, discrete (arithmetic).
  public static let paddleSportsSpeed = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierPaddleSportsSpeed")
  /// Canonical unit L/min, discrete (arithmetic).
  public static let peakExpiratoryFlowRate = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierPeakExpiratoryFlowRate")
  /// Canonical unit %, discrete (arithmetic).
  public static let peripheralPerfusionIndex = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierPeripheralPerfusionIndex")
  /// Canonical unit kcal/(kg*hr), discrete (arithmetic).
  public static let physicalEffort = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierPhysicalEffort")
  /// Canonical unit count, cumulative.
  public static let pushCount = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierPushCount")
  /// Canonical unit count/s, discrete (arithmetic).
  public static let respiratoryRate = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierRespiratoryRate")
  /// Canonical unit count/min, discrete (temporally weighted).
  public static let restingHeartRate = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierRestingHeartRate")
  /// Canonical unit m/s, discrete (arithmetic).
  public static let rowingSpeed = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierRowingSpeed")
  /// Canonical unit ms, discrete (arithmetic).
  public static let runningGroundContactTime = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierRunningGroundContactTime")
  /// Canonical unit W, discrete (arithmetic).
  public static let runningPower = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierRunningPower")
  /// Canonical unit m/s, discrete (arithmetic).
  public static let runningSpeed = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierRunningSpeed")
  /// Canonical unit m, discrete (arithmetic).
  public static let runningStrideLength = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierRunningStrideLength")
  /// Canonical unit cm, discrete (arithmetic).
  public static let runningVerticalOscillation = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierRunningVerticalOscillation")
  /// Canonical unit m, discrete (arithmetic).
  public static let sixMinuteWalkTestDistance = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierSixMinuteWalkTestDistance")
  /// Canonical unit m/s, discrete (arithmetic).
  public static let stairAscentSpeed = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierStairAscentSpeed")
  /// Canonical unit m/s, discrete (arithmetic).
  public static let stairDescentSpeed = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierStairDescentSpeed")
  /// Steps; canonical unit count, cumulative.
  public static let stepCount = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierStepCount")
  /// Canonical unit count, cumulative.
  public static let swimmingStrokeCount = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierSwimmingStrokeCount")
  /// Canonical unit min, cumulative.
  public static let timeInDaylight = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierTimeInDaylight")
  /// Canonical unit m, discrete (arithmetic).
  public static let underwaterDepth = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierUnderwaterDepth")
  /// Canonical unit count, discrete (arithmetic).
  public static let uvExposure = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierUVExposure")
  /// Canonical unit ml/(kg*min), discrete (arithmetic).
  public static let vo2Max = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierVO2Max")
  /// Canonical unit m, discrete (arithmetic).
  public static let waistCircumference = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierWaistCircumference")
  /// Canonical unit %, discrete (arithmetic).
  public static let walkingAsymmetryPercentage = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierWalkingAsymmetryPercentage")
  /// Canonical unit %, discrete (arithmetic).
  public static let walkingDoubleSupportPercentage = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierWalkingDoubleSupportPercentage")
  /// Canonical unit count/min, discrete (temporally weighted); read-only (Apple computes it).
  public static let walkingHeartRateAverage = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierWalkingHeartRateAverage")
  /// Canonical unit m/s, discrete (arithmetic).
  public static let walkingSpeed = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierWalkingSpeed")
  /// Canonical unit m, discrete (arithmetic).
  public static let walkingStepLength = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierWalkingStepLength")
  /// Canonical unit degC, discrete (arithmetic).
  public static let waterTemperature = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierWaterTemperature")
  /// Canonical unit appleEffortScore, discrete (arithmetic).
  public static let workoutEffortScore = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierWorkoutEffortScore")
}

/// The identifier of a category type (`HKCategoryTypeIdentifierMindfulSession`).
public struct HKCategoryTypeIdentifier: RawRepresentable, Hashable, Sendable {
  /// Apple's identifier string.
  public let rawValue: String
  /// Wraps an identifier string.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Wraps an identifier string.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Values from ``HKCategoryValueSeverity``.
  public static let abdominalCramps = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierAbdominalCramps")
  /// Values from ``HKCategoryValueSeverity``.
  public static let acne = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierAcne")
  /// Values from ``HKCategoryValueAppetiteChanges``.
  public static let appetiteChanges = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierAppetiteChanges")
  /// Stand hours, computed by Apple (read-only for apps); values from ``HKCategoryValueAppleStandHour``.
  public static let appleStandHour = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierAppleStandHour")
  /// Values from ``HKCategoryValueAppleWalkingSteadinessEvent``; read-only (Apple records it).
  public static let appleWalkingSteadinessEvent = HKCategoryTypeIdentifier(
    "HKCategoryTypeIdentifierAppleWalkingSteadinessEvent")
  /// Values from ``HKCategoryValueAudioExposureEvent``; read-only (Apple records it);
  /// deprecated in iOS 14 for `environmentalAudioExposureEvent`.
  public static let audioExposureEvent = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierAudioExposureEvent")
  /// Values from ``HKCategoryValueSeverity``.
  public static let bladderIncontinence = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierBladderIncontinence")
  /// Values from ``HKCategoryValueVaginalBleeding``.
  public static let bleedingAfterPregnancy = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierBleedingAfterPregnancy")
  /// Values from ``HKCategoryValueVaginalBleeding``.
  public static let bleedingDuringPregnancy = HKCategoryTypeIdentifier(
    "HKCategoryTypeIdentifierBleedingDuringPregnancy")
  /// Values from ``HKCategoryValueSeverity``.
  public static let bloating = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierBloating")
  /// Values from ``HKCategoryValueSeverity``.
  public static let breastPain = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierBreastPain")
  /// Values from ``HKCategoryValueCervicalMucusQuality``.
  public static let cervicalMucusQuality = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierCervicalMucusQuality")
  /// Values from ``HKCategoryValueSeverity``.
  public static let chestTightnessOrPain = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierChestTightnessOrPain")
  /// Values from ``HKCategoryValueSeverity``.
  public static let chills = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierChills")
  /// Values from ``HKCategoryValueSeverity``.
  public static let constipation = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierConstipation")
  /// Values from ``HKCategoryValueContraceptive``.
  public static let contraceptive = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierContraceptive")
  /// Values from ``HKCategoryValueSeverity``.
  public static let coughing = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierCoughing")
  /// Values from ``HKCategoryValueSeverity``.
  public static let diarrhea = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierDiarrhea")
  /// Values from ``HKCategoryValueSeverity``.
  public static let dizziness = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierDizziness")
  /// Values from ``HKCategoryValueSeverity``.
  public static let drySkin = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierDrySkin")
  /// Values from ``HKCategoryValueEnvironmentalAudioExposureEvent``; read-only (Apple records it).
  public static let environmentalAudioExposureEvent = HKCategoryTypeIdentifier(
    "HKCategoryTypeIdentifierEnvironmentalAudioExposureEvent")
  /// Values from ``HKCategoryValueSeverity``.
  public static let fainting = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierFainting")
  /// Values from ``HKCategoryValueSeverity``.
  public static let fatigue = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierFatigue")
  /// Values from ``HKCategoryValueSeverity``.
  public static let fever = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierFever")
  /// Values from ``HKCategoryValueSeverity``.
  public static let generalizedBodyAche = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierGeneralizedBodyAche")
  /// Values from ``HKCategoryValueSeverity``.
  public static let hairLoss = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierHairLoss")
  /// Value `HKCategoryValue.notApplicable` only.
  public static let handwashingEvent = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierHandwashingEvent")
  /// Values from ``HKCategoryValueSeverity``.
  public static let headache = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierHeadache")
  /// Values from ``HKCategoryValueHeadphoneAudioExposureEvent``; read-only (Apple records it).
  public static let headphoneAudioExposureEvent = HKCategoryTypeIdentifier(
    "HKCategoryTypeIdentifierHeadphoneAudioExposureEvent")
  /// Values from ``HKCategoryValueSeverity``.
  public static let heartburn = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierHeartburn")
  /// Value `HKCategoryValue.notApplicable` only; read-only (Apple records it).
  public static let highHeartRateEvent = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierHighHeartRateEvent")
  /// Values from ``HKCategoryValueSeverity``.
  public static let hotFlashes = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierHotFlashes")
  /// Value `HKCategoryValue.notApplicable` only; read-only (Apple records it).
  public static let hypertensionEvent = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierHypertensionEvent")
  /// Value `HKCategoryValue.notApplicable` only; read-only (Apple records it).
  public static let infrequentMenstrualCycles = HKCategoryTypeIdentifier(
    "HKCategoryTypeIdentifierInfrequentMenstrualCycles")
  /// Value `HKCategoryValue.notApplicable` only.
  public static let intermenstrualBleeding = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierIntermenstrualBleeding")
  /// Value `HKCategoryValue.notApplicable` only; read-only (Apple records it).
  public static let irregularHeartRhythmEvent = HKCategoryTypeIdentifier(
    "HKCategoryTypeIdentifierIrregularHeartRhythmEvent")
  /// Value `HKCategoryValue.notApplicable` only; read-only (Apple records it).
  public static let irregularMenstrualCycles = HKCategoryTypeIdentifier(
    "HKCategoryTypeIdentifierIrregularMenstrualCycles")
  /// Value `HKCategoryValue.notApplicable` only.
  public static let lactation = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierLactation")
  /// Values from ``HKCategoryValueSeverity``.
  public static let lossOfSmell = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierLossOfSmell")
  /// Values from ``HKCategoryValueSeverity``.
  public static let lossOfTaste = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierLossOfTaste")
  /// Values from ``HKCategoryValueLowCardioFitnessEvent``; read-only (Apple records it).
  public static let lowCardioFitnessEvent = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierLowCardioFitnessEvent")
  /// Values from ``HKCategoryValueSeverity``.
  public static let lowerBackPain = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierLowerBackPain")
  /// Value `HKCategoryValue.notApplicable` only; read-only (Apple records it).
  public static let lowHeartRateEvent = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierLowHeartRateEvent")
  /// Values from ``HKCategoryValueSeverity``.
  public static let memoryLapse = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierMemoryLapse")
  /// Menstrual flow; values from ``HKCategoryValueMenstrualFlow``; requires `HKMetadataKeyMenstrualCycleStart`.
  public static let menstrualFlow = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierMenstrualFlow")
  /// Mindful sessions; value `HKCategoryValue.notApplicable` only.
  public static let mindfulSession = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierMindfulSession")
  /// Values from ``HKCategoryValuePresence``.
  public static let moodChanges = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierMoodChanges")
  /// Values from ``HKCategoryValueSeverity``.
  public static let nausea = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierNausea")
  /// Values from ``HKCategoryValueSeverity``.
  public static let nightSweats = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierNightSweats")
  /// Values from ``HKCategoryValueOvulationTestResult``.
  public static let ovulationTestResult = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierOvulationTestResult")
  /// Values from ``HKCategoryValueSeverity``.
  public static let pelvicPain = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierPelvicPain")
  /// Value `HKCategoryValue.notApplicable` only; read-only (Apple records it).
  public static let persistentIntermenstrualBleeding = HKCategoryTypeIdentifier(
    "HKCategoryTypeIdentifierPersistentIntermenstrualBleeding")
  /// Value `HKCategoryValue.notApplicable` only.
  public static let pregnancy = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierPregnancy")
  /// Values from ``HKCategoryValuePregnancyTestResult``.
  public static let pregnancyTestResult = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierPregnancyTestResult")
  /// Values from ``HKCategoryValueProgesteroneTestResult``.
  public static let progesteroneTestResult = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierProgesteroneTestResult")
  /// Value `HKCategoryValue.notApplicable` only; read-only (Apple records it).
  public static let prolongedMenstrualPeriods = HKCategoryTypeIdentifier(
    "HKCategoryTypeIdentifierProlongedMenstrualPeriods")
  /// Values from ``HKCategoryValueSeverity``.
  public static let rapidPoundingOrFlutteringHeartbeat = HKCategoryTypeIdentifier(
    "HKCategoryTypeIdentifierRapidPoundingOrFlutteringHeartbeat")
  /// Values from ``HKCategoryValueSeverity``.
  public static let runnyNose = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierRunnyNose")
  /// Value `HKCategoryValue.notApplicable` only.
  public static let sexualActivity = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierSexualActivity")
  /// Values from ``HKCategoryValueSeverity``.
  public static let shortnessOfBreath = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierShortnessOfBreath")
  /// Values from ``HKCategoryValueSeverity``.
  public static let sinusCongestion = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierSinusCongestion")
  /// Values from ``HKCategoryValueSeverity``.
  public static let skippedHeartbeat = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierSkippedHeartbeat")
  /// Sleep; values from ``HKCategoryValueSleepAnalysis``.
  public static let sleepAnalysis = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierSleepAnalysis")
  /// Value `HKCategoryValue.notApplicable` only; read-only (Apple records it).
  public static let sleepApneaEvent = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierSleepApneaEvent")
  /// Values from ``HKCategoryValuePresence``.
  public static let sleepChanges = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierSleepChanges")
  /// Values from ``HKCategoryValueSeverity``.
  public static let soreThroat = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierSoreThroat")
  /// Value `HKCategoryValue.notApplicable` only.
  public static let toothbrushingEvent = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierToothbrushingEvent")
  /// Values from ``HKCategoryValueSeverity``.
  public static let vaginalDryness = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierVaginalDryness")
  /// Values from ``HKCategoryValueSeverity``.
  public static let vomiting = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierVomiting")
  /// Values from ``HKCategoryValueSeverity``.
  public static let wheezing = HKCategoryTypeIdentifier("HKCategoryTypeIdentifierWheezing")
}

/// The identifier of a correlation type (`HKCorrelationTypeIdentifierBloodPressure`).
public struct HKCorrelationTypeIdentifier: RawRepresentable, Hashable, Sendable {
  /// Apple's identifier string.
  public let rawValue: String
  /// Wraps an identifier string.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Wraps an identifier string.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Blood pressure: one `bloodPressureSystolic` and one `bloodPressureDiastolic` sample.
  public static let bloodPressure = HKCorrelationTypeIdentifier("HKCorrelationTypeIdentifierBloodPressure")
  /// Food: dietary quantity samples (`dietaryEnergyConsumed`, `dietaryProtein`, …).
  public static let food = HKCorrelationTypeIdentifier("HKCorrelationTypeIdentifierFood")
}

/// The identifier of a characteristic type (`HKCharacteristicTypeIdentifierDateOfBirth`).
public struct HKCharacteristicTypeIdentifier: RawRepresentable, Hashable, Sendable {
  /// Apple's identifier string.
  public let rawValue: String
  /// Wraps an identifier string.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Wraps an identifier string.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// The date of birth; read with ``HKHealthStore/dateOfBirthComponents()``.
  public static let dateOfBirth = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierDateOfBirth")
  /// The biological sex; read with ``HKHealthStore/biologicalSex()``.
  public static let biologicalSex = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierBiologicalSex")
  /// The blood type; read with ``HKHealthStore/bloodType()``.
  public static let bloodType = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierBloodType")
  /// The Fitzpatrick skin type; read with ``HKHealthStore/fitzpatrickSkinType()``.
  public static let fitzpatrickSkinType = HKCharacteristicTypeIdentifier(
    "HKCharacteristicTypeIdentifierFitzpatrickSkinType")
  /// Whether the user uses a wheelchair; read with ``HKHealthStore/wheelchairUse()``.
  public static let wheelchairUse = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierWheelchairUse")
  /// What the move ring counts; read with ``HKHealthStore/activityMoveMode()``.
  public static let activityMoveMode = HKCharacteristicTypeIdentifier(
    "HKCharacteristicTypeIdentifierActivityMoveMode")
}
