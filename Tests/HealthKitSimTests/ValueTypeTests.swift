import Foundation
import HealthKitSim
import Synchronization
import Testing

@testable import HealthModel

/// Collects the would-terminate reports of non-throwing APIs called in `body`.
func terminations(_ body: () -> Void) -> [HKSimulatedTermination] {
  let seen = Mutex<[HKSimulatedTermination]>([])
  HealthKitSim.withTerminationHandler({ t in seen.withLock { $0.append(t) } }) { body() }
  return seen.withLock { $0 }
}

@Suite("Values: units, quantities, errors, identifiers (no daemon)")
struct ValueTypeTests {
  /// `m^2` raised to `Int.max` overflows the powers: reported, never a trap.
  @Test func aHugePowerIsReportedNotATrap() {
    #expect(terminations { _ = HKUnit.meter().unitRaised(toPower: 2).unitRaised(toPower: Int.max) }.count == 1)
    #expect(terminations { _ = HKUnit.meter().unitRaised(toPower: 2).unitRaised(toPower: Int.min) }.count == 1)
  }

  @Test(arguments: [
    (HKUnit.literUnit(with: .milli), "mL"), (.count().unitDivided(by: .minute()), "count/min"),
    (.kilocalorie(), "kcal"),
    (.gramUnit(with: .kilo), "kg"), (.meter().unitRaised(toPower: 2), "m^2"), (.second().reciprocal(), "s^-1"),
    (.fluidOunceUS(), "fl_oz_us"), (.degreeFahrenheit(), "degF"), (.secondUnit(with: .milli), "ms"),
    (.gramUnit(with: .kilo).unitDivided(by: .meter().unitRaised(toPower: 2)), "kg/m^2"), (.percent(), "%"),
    (.literUnit(with: .micro), "mcL"), (.meterUnit(with: .deca), "dam"), (.jouleUnit(with: .kilo), "kJ"),
    (.volt(), "V"), (.voltUnit(with: .milli), "mV"), (.radianAngle(), "rad"), (.radianAngleUnit(with: .milli), "mrad"),
    (.degreeAngle(), "deg"), (.lux(), "lx"), (.luxUnit(with: .kilo), "klx"), (.decibelHearingLevel(), "dBHL"),
    (.diopter(), "D"), (.prismDiopter(), "pD"), (.appleEffortScore(), "appleEffortScore"),
  ])
  func unitFactoriesSpellHealthKitsUnitStrings(unit: HKUnit, expected: String) {
    #expect(unit.unitString == expected)
    var parsed: HKUnit?
    let reports = terminations { parsed = HKUnit(from: expected) }
    #expect(reports.isEmpty)
    #expect(parsed == unit)
  }

  @Test func metricPrefixesHaveApplesRawValues() {
    #expect(HKMetricPrefix.none.rawValue == 0)
    #expect(HKMetricPrefix.pico.rawValue == 1)
    #expect(HKMetricPrefix.milli.rawValue == 4)
    #expect(HKMetricPrefix.kilo.rawValue == 9)
    #expect(HKMetricPrefix.tera.rawValue == 12)
    #expect(HKMetricPrefix.femto.rawValue == 13)
  }

  @Test func quantitiesConvertWithApplesConstants() {
    let cup = HKQuantity(unit: .cupUS(), doubleValue: 1)
    #expect(abs(cup.doubleValue(for: .literUnit(with: .milli)) - 236.5882365) < 1e-9)
    #expect(abs(cup.doubleValue(for: .fluidOunceUS()) - 8) < 1e-9)
    let rate = HKQuantity(unit: .count().unitDivided(by: .minute()), doubleValue: 60)
    #expect(abs(rate.doubleValue(for: HKUnit(from: "count/s")) - 1) < 1e-12)
    #expect(
      abs(HKQuantity(unit: .degreeCelsius(), doubleValue: 100).doubleValue(for: .degreeFahrenheit()) - 212) < 1e-9)
    #expect(cup.is(compatibleWith: .liter()))
    #expect(!cup.is(compatibleWith: .count()))
    #expect(cup.compare(HKQuantity(unit: .literUnit(with: .milli), doubleValue: 300)) == .orderedAscending)
    #expect(waterType.is(compatibleWith: .fluidOunceUS()))
    #expect(!waterType.is(compatibleWith: .kilocalorie()))
    #expect(waterType.aggregationStyle == .cumulative)
    #expect(heartRateType.aggregationStyle == .discreteTemporallyWeighted)
  }

  /// Metadata keys carry Apple's string values, which often differ from the constant's name (pinned on devices by
  /// StanfordSpezi's Grove `MetadataKeyVocabularyTests`).
  @Test func metadataKeysHaveApplesStringValues() {
    let pinned: [(String, String)] = [
      (HKMetadataKeyHeartRateMotionContext, "HKMetadataKeyHeartRateMotionContext"),
      (HKMetadataKeyAverageSpeed, "HKAverageSpeed"), (HKMetadataKeyElevationAscended, "HKElevationAscended"),
      (HKMetadataKeyIndoorWorkout, "HKIndoorWorkout"), (HKMetadataKeyDeviceName, "HKDeviceName"),
      (HKMetadataKeyCyclingFunctionalThresholdPowerTestType, "HKCyclingCyclingFunctionalThresholdPowerTestType"),
      (HKMetadataKeyWeatherTemperature, "HKWeatherTemperature"), (HKMetadataKeyWasUserEntered, "HKWasUserEntered"),
    ]
    for (constant, value) in pinned { #expect(constant == value) }
    #expect(HKHeartRateMotionContext.active.rawValue == 2 && HKHeartRateSensorLocation.foot.rawValue == 6)
  }

  /// VO2 max as apps write it (behavior.md U1): `ml/kg/min` parses — no termination — as `ml/(kg*min)`.
  @Test func vo2MaxSpellingsAppsWriteAreOneUnit() {
    var twoSlashes: HKUnit?
    #expect(terminations { twoSlashes = HKUnit(from: "ml/kg/min") }.isEmpty)
    let vo2 = HKQuantity(unit: HKUnit(from: "ml/kg*min"), doubleValue: 42)
    guard let twoSlashes else { return }
    #expect(vo2.is(compatibleWith: twoSlashes))
    #expect(abs(vo2.doubleValue(for: twoSlashes) - 42) < 1e-12)
    #expect(abs(vo2.doubleValue(for: HKUnit(from: "L/kg/hr")) - 2.52) < 1e-12)
    #expect(HKQuantityType(.vo2Max).is(compatibleWith: twoSlashes))
  }

  /// Issue 13: the units of HKUnit's hearing, vision, light and electrical factories convert within their own
  /// dimension only (an angle between degrees and radians; a prism diopter is not an angle).
  @Test func newerUnitsConvertWithinTheirDimension() {
    let right = HKQuantity(unit: .degreeAngle(), doubleValue: 90)
    #expect(abs(right.doubleValue(for: .radianAngle()) - Double.pi / 2) < 1e-12)
    #expect(abs(HKQuantity(unit: .voltUnit(with: .milli), doubleValue: 1500).doubleValue(for: .volt()) - 1.5) < 1e-12)
    #expect(abs(HKQuantity(unit: .luxUnit(with: .kilo), doubleValue: 2).doubleValue(for: .lux()) - 2000) < 1e-9)
    #expect(!right.is(compatibleWith: .prismDiopter()))
    #expect(!HKQuantity(unit: .diopter(), doubleValue: 2).is(compatibleWith: .meter().reciprocal()))
    #expect(
      !HKQuantity(unit: .decibelHearingLevel(), doubleValue: 20).is(
        compatibleWith: .decibelAWeightedSoundPressureLevel()))
    #expect(!HKQuantity(unit: .volt(), doubleValue: 1).is(compatibleWith: .watt()))
    var value = 0.0
    let reports = terminations { value = HKQuantity(unit: .diopter(), doubleValue: 2).doubleValue(for: .degreeAngle()) }
    #expect(reports.count == 1)
    #expect(value.isNaN)
  }

  @Test func whatWouldCrashADeviceGoesToTheTerminationHandler() {
    var unit: HKUnit?
    let badUnit = terminations { unit = HKUnit(from: "furlongs") }
    #expect(badUnit.count == 1)
    #expect(badUnit.first?.exceptionName == "NSInvalidArgumentException")
    #expect(badUnit.first?.api == "HKUnit(from:)")
    #expect(badUnit.first?.description.hasPrefix("this would terminate the app on a device") == true)
    #expect(unit?.unitString == "furlongs", "the invalid unit keeps its string")

    var value = 0.0
    let badConversion = terminations {
      value = HKQuantity(unit: .literUnit(with: .milli), doubleValue: 250).doubleValue(for: .count())
    }
    #expect(badConversion.count == 1)
    #expect(badConversion.first?.reason.contains("incompatible") == true)
    #expect(value.isNaN)
    #expect(terminations { _ = HKUnit.degreeCelsius().unitDivided(by: .second()) }.count == 1)
  }

  @Test func hkErrorMatchesLikeApplesSDK() {
    let error: any Error = HKError(.errorAuthorizationDenied, message: "Not authorized")
    #expect(HKError.errorDomain == "com.apple.healthkit")
    #expect(HKErrorDomain == "com.apple.healthkit")
    var caught = ""
    do { throw error } catch HKError.errorNoData { caught = "no data" } catch HKError.errorAuthorizationDenied {
      caught = "denied"
    } catch { caught = "other" }
    #expect(caught == "denied")
    switch (error as! HKError).code {
    case .errorAuthorizationDenied: break
    default: Issue.record("switch on the code did not match")
    }
    let bridged = error as NSError
    #expect(bridged.domain == "com.apple.healthkit")
    #expect(bridged.code == 4)
    #expect(error.localizedDescription == "Not authorized")
    #expect(HKError(.errorNoData).message == "errorNoData")
  }

  @Test func errorCodesAndStatusesHaveApplesRawValues() {
    let codes: [(HKError.Code, Int)] = [
      (.unknownError, 0), (.errorHealthDataUnavailable, 1), (.errorHealthDataRestricted, 2), (.errorInvalidArgument, 3),
      (.errorAuthorizationDenied, 4), (.errorAuthorizationNotDetermined, 5), (.errorDatabaseInaccessible, 6),
      (.errorUserCanceled, 7), (.errorRequiredAuthorizationDenied, 10), (.errorNoData, 11),
      (.errorNotPermissibleForGuestUserMode, 15),
    ]
    for (code, raw) in codes { #expect(code.rawValue == raw, "\(code)") }
    #expect(HKAuthorizationStatus.sharingAuthorized.rawValue == 2)
    #expect(HKAuthorizationStatus.sharingDenied.rawValue == 1)
    #expect(HKAuthorizationRequestStatus.shouldRequest.rawValue == 1)
    #expect(HKAuthorizationRequestStatus.unnecessary.rawValue == 2)
    #expect(HKCategoryValue.notApplicable.rawValue == 0)
    #expect(HKCategoryValueSleepAnalysis.asleepREM.rawValue == 5)
    #expect(HKCategoryValueMenstrualFlow.heavy.rawValue == 4)
    #expect(HKStatisticsOptions.cumulativeSum.rawValue == 16)
    #expect(HKStatisticsOptions.duration.rawValue == 64)
    #expect(HKQueryOptions.strictEndDate.rawValue == 2)
  }

  @Test func typeIdentifiersAreApplesStringsAndTypesCompareByIdentifier() {
    #expect(HKQuantityTypeIdentifier.dietaryWater.rawValue == "HKQuantityTypeIdentifierDietaryWater")
    #expect(HKCategoryTypeIdentifier.mindfulSession.rawValue == "HKCategoryTypeIdentifierMindfulSession")
    #expect(HKMetadataKeyWasUserEntered == "HKWasUserEntered")
    #expect(HKQuantityType(.dietaryWater) == HKObjectType.quantityType(forIdentifier: .dietaryWater))
    #expect(HKObjectType.quantityType(forIdentifier: HKQuantityTypeIdentifier("HKQuantityTypeIdentifierNope")) == nil)
    #expect(
      HKObjectType.categoryType(forIdentifier: .sleepAnalysis)?.identifier == "HKCategoryTypeIdentifierSleepAnalysis")
    let share: Set<HKSampleType> = [waterType, HKQuantityType(.dietaryWater), mindfulType]
    #expect(share.count == 2)
    let read: Set<HKObjectType> = share
    #expect(read.contains(HKCategoryType(.mindfulSession)))
  }

  @Test func samplesKeepWhatTheyWereGiven() throws {
    let sample = water(250, metadata: [HKMetadataKeyWasUserEntered: true, "count": 3, "note": "glass"])
    #expect(sample.quantity.doubleValue(for: .liter()) == 0.25)
    #expect(sample.startDate == t0 && sample.endDate == t0)
    let metadata = try #require(sample.metadata)
    #expect(metadata[HKMetadataKeyWasUserEntered] as? Bool == true)
    #expect(metadata["count"] as? Int == 3)
    #expect(metadata["note"] as? String == "glass")
    #expect(sample.sourceRevision.productType == nil, "not saved yet")
    #expect(water(250).uuid != water(250).uuid)
    #expect(session(minutes: 10).endDate.timeIntervalSince(t0) == 600)
  }

  @Test func datePredicatesFollowApplesRules() {
    let day = HKQuery.predicateForSamples(withStart: t0, end: t0.addingTimeInterval(3600))
    let strict = HKQuery.predicateForSamples(withStart: t0, end: t0.addingTimeInterval(3600), options: .strictStartDate)
    let straddling = session(minutes: 20, at: t0.addingTimeInterval(-600))
    #expect(day.evaluate(with: straddling), "default: ends after the start")
    #expect(!strict.evaluate(with: straddling), "strictStartDate: must start inside")
    #expect(!day.evaluate(with: water(1, at: t0.addingTimeInterval(3600))), "the end is exclusive")
    let fromOther = HKQuery.predicateForObjects(from: HKSource(bundleIdentifier: otherID))
    #expect(!fromOther.evaluate(with: water(1)), "an unsaved object comes from the calling app")
  }
}

/// The public `HKError.Code` mirrors the daemon-side `HealthErrorCode` (a public type cannot be the package one):
/// every code the daemons can return must map to the same HealthKit case, never silently to `unknownError`.
@Suite("HKError.Code mirrors the model's codes")
struct ErrorCodeParityTests {
  @Test func everyModelCodeHasTheSameHealthKitCase() {
    #expect(HKError.Code.allCases.count == HealthErrorCode.allCases.count)
    for code in HealthErrorCode.allCases {
      #expect(HKError.Code(rawValue: code.rawValue)?.description == code.description, "\(code)")
    }
  }
}
