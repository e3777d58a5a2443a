import Foundation
import HealthModel

// Metadata keys, with the string values of HKMetadata.h.

/// Whether the user entered the sample by hand (`Bool`); the Health app marks such samples.
public let HKMetadataKeyWasUserEntered = MetadataKey.wasUserEntered
/// Whether a menstrual-flow sample starts a cycle (`Bool`); required on menstrualFlow samples.
public let HKMetadataKeyMenstrualCycleStart = MetadataKey.menstrualCycleStart
/// The time zone the sample was recorded in (`String`, a time zone name).
public let HKMetadataKeyTimeZone = MetadataKey.timeZone
/// An identifier that ties versions of one object together (`String`); requires a sync version.
public let HKMetadataKeySyncIdentifier = MetadataKey.syncIdentifier
/// The version of an object with a sync identifier (`Int`).
public let HKMetadataKeySyncVersion = MetadataKey.syncVersion
/// An identifier the app assigns to the sample (`String`).
public let HKMetadataKeyExternalUUID = MetadataKey.externalUUID
/// Why insulin was delivered (an ``HKInsulinDeliveryReason`` raw value); required on insulinDelivery samples.
public let HKMetadataKeyInsulinDeliveryReason = MetadataKey.insulinDeliveryReason
/// How a blood glucose reading relates to a meal (an ``HKBloodGlucoseMealTime`` raw value); optional.
public let HKMetadataKeyBloodGlucoseMealTime = MetadataKey.bloodGlucoseMealTime
/// Whether protection was used during sexual activity (`Bool`); optional on sexualActivity samples.
public let HKMetadataKeySexualActivityProtectionUsed = MetadataKey.sexualActivityProtectionUsed

// More keys of HKMetadata.h, with Apple's string values (several differ from the constant's name, as Apple ships
// them). HealthPair stores them like any metadata and gives them no meaning of their own.

/// The name of the device that took the sample (`String`).
public let HKMetadataKeyDeviceName = "HKDeviceName"
/// The manufacturer of the device that took the sample (`String`).
public let HKMetadataKeyDeviceManufacturerName = "HKDeviceManufacturerName"
/// The serial number of the device that took the sample (`String`).
public let HKMetadataKeyDeviceSerialNumber = "HKDeviceSerialNumber"
/// The device identifier part of a Unique Device Identifier (`String`).
public let HKMetadataKeyUDIDeviceIdentifier = "HKUDIDeviceIdentifier"
/// The production identifier part of a Unique Device Identifier (`String`).
public let HKMetadataKeyUDIProductionIdentifier = "HKUDIProductionIdentifier"
/// A digital signature of the sample (`Data` in a device's format).
public let HKMetadataKeyDigitalSignature = "HKDigitalSignature"
/// Whether the sample was taken in a lab (`Bool`).
public let HKMetadataKeyWasTakenInLab = "HKWasTakenInLab"
/// The lower limit of a lab result's reference range (an `HKQuantity`).
public let HKMetadataKeyReferenceRangeLowerLimit = "HKReferenceRangeLowerLimit"
/// The upper limit of a lab result's reference range (an `HKQuantity`).
public let HKMetadataKeyReferenceRangeUpperLimit = "HKReferenceRangeUpperLimit"
/// Where the heart rate sensor was worn (an ``HKHeartRateSensorLocation`` raw value).
public let HKMetadataKeyHeartRateSensorLocation = "HKHeartRateSensorLocation"
/// What the user was doing during a heart rate reading (an ``HKHeartRateMotionContext`` raw value).
public let HKMetadataKeyHeartRateMotionContext = "HKMetadataKeyHeartRateMotionContext"
/// What the user was doing during a reading (a raw value).
public let HKMetadataKeyUserMotionContext = "HKMetadataKeyUserMotionContext"
/// The threshold a high or low heart rate event crossed (an `HKQuantity`).
public let HKMetadataKeyHeartRateEventThreshold = "HKHeartRateEventThreshold"
/// Where a body temperature was taken (a raw value).
public let HKMetadataKeyBodyTemperatureSensorLocation = "HKBodyTemperatureSensorLocation"
/// Whether a workout took place indoors (`Bool`).
public let HKMetadataKeyIndoorWorkout = "HKIndoorWorkout"
/// Whether a workout was coached (`Bool`).
public let HKMetadataKeyCoachedWorkout = "HKCoachedWorkout"
/// Whether a workout was part of a group class (`Bool`).
public let HKMetadataKeyGroupFitness = "HKGroupFitness"
/// The brand of a workout, such as a class's studio (`String`).
public let HKMetadataKeyWorkoutBrandName = "HKWorkoutBrandName"
/// The kind of food a dietary sample or food correlation describes (`String`).
public let HKMetadataKeyFoodType = "HKFoodType"
/// The average speed of a workout (an `HKQuantity`).
public let HKMetadataKeyAverageSpeed = "HKAverageSpeed"
/// The maximum speed of a workout (an `HKQuantity`).
public let HKMetadataKeyMaximumSpeed = "HKMaximumSpeed"
/// The average metabolic equivalents of a workout (an `HKQuantity` in kcal/hr·kg).
public let HKMetadataKeyAverageMETs = "HKAverageMETs"
/// The elevation climbed during a workout (an `HKQuantity`).
public let HKMetadataKeyElevationAscended = "HKElevationAscended"
/// The elevation descended during a workout (an `HKQuantity`).
public let HKMetadataKeyElevationDescended = "HKElevationDescended"
/// The weather during a workout (a raw value).
public let HKMetadataKeyWeatherCondition = "HKWeatherCondition"
/// The humidity during a workout (an `HKQuantity` in percent).
public let HKMetadataKeyWeatherHumidity = "HKWeatherHumidity"
/// The temperature during a workout (an `HKQuantity`).
public let HKMetadataKeyWeatherTemperature = "HKWeatherTemperature"
/// Where a swim took place (a raw value).
public let HKMetadataKeySwimmingLocationType = "HKSwimmingLocationType"
/// The stroke of a swimming lap (a raw value).
public let HKMetadataKeySwimmingStrokeStyle = "HKSwimmingStrokeStyle"
/// The length of a pool lap (an `HKQuantity`).
public let HKMetadataKeyLapLength = "HKLapLength"
/// How a VO2 max was measured (a raw value).
public let HKMetadataKeyVO2MaxTestType = "HKVO2MaxTestType"
/// A VO2 max value attached to an event (an `HKQuantity`).
public let HKMetadataKeyVO2MaxValue = "HKVO2MaxValue"
/// The threshold of a low cardio fitness event (an `HKQuantity`).
public let HKMetadataKeyLowCardioFitnessEventThreshold = "HKLowCardioFitnessEventThreshold"
/// The audio exposure level an event crossed (an `HKQuantity`).
public let HKMetadataKeyAudioExposureLevel = "HKMetadataKeyAudioExposureLevel"
/// How long an audio exposure lasted (an `HKQuantity`).
public let HKMetadataKeyAudioExposureDuration = "HKMetadataKeyAudioExposureDuration"
/// The barometric pressure of a reading (an `HKQuantity`).
public let HKMetadataKeyBarometricPressure = "HKMetadataKeyBarometricPressure"
/// The side of the body a device was worn on (a raw value).
public let HKMetadataKeyDevicePlacementSide = "HKMetadataKeyDevicePlacementSide"
/// An estimate made over a whole session (an `HKQuantity`).
public let HKMetadataKeySessionEstimate = "HKMetadataKeySessionEstimate"
/// How a physical effort was estimated (a raw value).
public let HKMetadataKeyPhysicalEffortEstimationType = "HKPhysicalEffortEstimationType"
/// How a heart rate recovery was tested (a raw value).
public let HKMetadataKeyHeartRateRecoveryTestType = "HKMetadataKeyHeartRateRecoveryTestType"
/// How long the activity before a heart rate recovery lasted (an `HKQuantity`).
public let HKMetadataKeyHeartRateRecoveryActivityDuration = "HKMetadataKeyHeartRateRecoveryActivityDuration"
/// The highest heart rate seen during a recovery test (an `HKQuantity`).
public let HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate =
  "HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate"
/// The grade of a ski slope (an `HKQuantity` in percent).
public let HKMetadataKeyAlpineSlopeGrade = "HKAlpineSlopeGrade"
/// The distance a cross trainer reported (an `HKQuantity`).
public let HKMetadataKeyCrossTrainerDistance = "HKCrossTrainerDistance"
/// The distance an indoor bike reported (an `HKQuantity`).
public let HKMetadataKeyIndoorBikeDistance = "HKIndoorBikeDistance"
/// The duration a fitness machine reported (an `HKQuantity`).
public let HKMetadataKeyFitnessMachineDuration = "HKFitnessMachineDuration"
/// The headphone gain during an audio exposure (an `HKQuantity`).
public let HKMetadataKeyHeadphoneGain = "HKMetadataKeyHeadphoneGain"
/// The maximum light intensity of a daylight sample (an `HKQuantity`).
public let HKMetadataKeyMaximumLightIntensity = "HKMetadataKeyMaximumLightIntensity"
/// The salinity of the water of a dive or swim (a raw value).
public let HKMetadataKeyWaterSalinity = "HKMetadataKeyWaterSalinity"
/// How a cycling functional threshold power was tested (a raw value; Apple's string repeats "Cycling").
public let HKMetadataKeyCyclingFunctionalThresholdPowerTestType = "HKCyclingCyclingFunctionalThresholdPowerTestType"
/// The version of the ECG algorithm (`String`).
public let HKMetadataKeyAppleECGAlgorithmVersion = "HKMetadataKeyAppleECGAlgorithmVersion"

/// What the user was doing during a heart rate reading (`HKMetadataKeyHeartRateMotionContext`), with Apple's raw
/// values.
public enum HKHeartRateMotionContext: Int, Hashable, Sendable, CaseIterable {
  /// Not set (0).
  case notSet = 0
  /// At rest (1).
  case sedentary = 1
  /// Moving (2).
  case active = 2
}

/// Where a heart rate sensor was worn (`HKMetadataKeyHeartRateSensorLocation`), with Apple's raw values.
public enum HKHeartRateSensorLocation: Int, Hashable, Sendable, CaseIterable {
  /// Elsewhere (0).
  case other = 0
  /// The chest (1).
  case chest = 1
  /// The wrist (2).
  case wrist = 2
  /// A finger (3).
  case finger = 3
  /// A hand (4).
  case hand = 4
  /// An ear lobe (5).
  case earLobe = 5
  /// A foot (6).
  case foot = 6
}

/// The medical reason for an insulin dose (`HKMetadataKeyInsulinDeliveryReason`), with Apple's raw values.
public enum HKInsulinDeliveryReason: Int, Hashable, Sendable, CaseIterable {
  /// Basal insulin, for the body's base metabolic needs (1).
  case basal = 1
  /// Bolus insulin, for episodic needs such as a meal or a correction (2).
  case bolus = 2
}

/// How a blood glucose reading relates to a meal (`HKMetadataKeyBloodGlucoseMealTime`), with Apple's raw values.
public enum HKBloodGlucoseMealTime: Int, Hashable, Sendable, CaseIterable {
  /// Measured just before a meal (1).
  case preprandial = 1
  /// Measured after a meal (2).
  case postprandial = 2
}

/// Metadata as HealthKitSim stores it: converted to the simulator's values, or the first value HealthKit would
/// refuse (kept so the `save` that uses the object can fail as a device would).
package enum MetadataPayload: Hashable, Sendable {
  /// Every value is a string, number, Boolean, date or quantity.
  case valid(Metadata)
  /// `key` holds a value of a type HealthKit does not accept.
  case invalid(key: String, typeName: String)

  /// Converts an app's `[String: Any]` metadata.
  package init(_ metadata: [String: Any]?) {
    var converted: Metadata = [:]
    for (key, value) in metadata ?? [:] {
      guard let value = MetadataPayload.value(value) else {
        self = .invalid(key: key, typeName: String(describing: type(of: value)))
        return
      }
      converted[key] = value
    }
    self = .valid(converted)
  }

  /// The simulator's value for an app's metadata value, or nil for a class HealthKit refuses.
  package static func value(_ any: Any) -> MetadataValue? {
    switch any {
    case let b as Bool: return .bool(b)
    case let i as Int: return .int(Int64(i))
    case let i as Int64: return .int(i)
    case let i as Int32: return .int(Int64(i))
    case let d as Double: return .double(d)
    case let f as Float: return .double(Double(f))
    case let s as String: return .string(s)
    case let d as Date: return .date(d)
    case let q as HKQuantity: return .quantity(q.value, unit: q.unit.unitString)
    case let n as NSNumber:
      return String(cString: n.objCType) == "c" ? .bool(n.boolValue) : .double(n.doubleValue)
    default: return nil
    }
  }

  /// The metadata for the daemon.
  /// - Throws: ``HKSimulatedTermination`` for a value HealthKit refuses.
  package func checked(api: String) throws(HKSimulatedTermination) -> Metadata {
    switch self {
    case .valid(let metadata): return metadata
    case .invalid(let key, let typeName):
      throw .invalidArgument(
        "Invalid class \(typeName) for metadata key: \(key). Expected NSString, NSDate, NSNumber, or HKQuantity.",
        api: api)
    }
  }

  /// The metadata with `device`'s properties under HealthKitSim's reserved keys (an invalid payload stays so).
  package func adding(_ device: HKDevice?) -> MetadataPayload {
    guard let device, case .valid(var metadata) = self else { return self }
    for (property, value) in device.properties { metadata[property.metadataKey] = .string(value) }
    return .valid(metadata)
  }

  /// The metadata as an app reads it back: Bool, Int, Double, String, Date or HKQuantity values; nil when empty.
  /// HealthKitSim's reserved device keys are left out.
  package var dictionary: [String: Any]? {
    guard case .valid(let metadata) = self else { return nil }
    var result: [String: Any] = [:]
    for (key, value) in metadata where !key.hasPrefix(MetadataKey.devicePrefix) && key != ECGRecording.associationKey {
      switch value {
      case .bool(let b): result[key] = b
      case .int(let i): result[key] = Int(i)
      case .double(let d): result[key] = d
      case .string(let s): result[key] = s
      case .date(let d): result[key] = d
      case .quantity(let v, let unit): result[key] = HKQuantity(unit: HKUnit(from: unit), doubleValue: v)
      }
    }
    return result.isEmpty ? nil : result
  }
}
