/// Well-known metadata keys (HKMetadata.h string values).
package enum MetadataKey {
  /// `HKMetadataKeyWasUserEntered`: the sample was entered by the user.
  package static let wasUserEntered = "HKWasUserEntered"
  /// `HKMetadataKeyMenstrualCycleStart`: required on menstrualFlow samples.
  package static let menstrualCycleStart = "HKMenstrualCycleStart"
  /// `HKMetadataKeyTimeZone`.
  package static let timeZone = "HKTimeZone"
  /// `HKMetadataKeySyncIdentifier`.
  package static let syncIdentifier = "HKMetadataKeySyncIdentifier"
  /// `HKMetadataKeySyncVersion`.
  package static let syncVersion = "HKMetadataKeySyncVersion"
  /// `HKMetadataKeyExternalUUID`.
  package static let externalUUID = "HKExternalUUID"
  /// `HKMetadataKeyInsulinDeliveryReason`: required on insulinDelivery samples (an `HKInsulinDeliveryReason`).
  package static let insulinDeliveryReason = "HKInsulinDeliveryReason"
  /// `HKMetadataKeyBloodGlucoseMealTime`: optional on bloodGlucose samples (an `HKBloodGlucoseMealTime`).
  package static let bloodGlucoseMealTime = "HKBloodGlucoseMealTime"
  /// `HKMetadataKeySexualActivityProtectionUsed`: optional on sexualActivity samples (a Bool).
  package static let sexualActivityProtectionUsed = "HKSexualActivityProtectionUsed"

  /// Maps the Swift constant names users write (`HKMetadataKeyWasUserEntered`) to the key strings.
  package static let byConstantName: [String: String] = [
    "HKMetadataKeyWasUserEntered": wasUserEntered,
    "HKMetadataKeyMenstrualCycleStart": menstrualCycleStart,
    "HKMetadataKeyTimeZone": timeZone,
    "HKMetadataKeySyncIdentifier": syncIdentifier,
    "HKMetadataKeySyncVersion": syncVersion,
    "HKMetadataKeyExternalUUID": externalUUID,
    "HKMetadataKeyInsulinDeliveryReason": insulinDeliveryReason,
    "HKMetadataKeyBloodGlucoseMealTime": bloodGlucoseMealTime,
    "HKMetadataKeySexualActivityProtectionUsed": sexualActivityProtectionUsed,
    // Workout keys (HKMetadata.h string values).
    "HKMetadataKeyIndoorWorkout": "HKIndoorWorkout",
    "HKMetadataKeyCoachedWorkout": "HKCoachedWorkout",
    "HKMetadataKeyGroupFitness": "HKGroupFitness",
    "HKMetadataKeyWorkoutBrandName": "HKWorkoutBrandName",
    "HKMetadataKeyWeatherCondition": "HKWeatherCondition",
    "HKMetadataKeyWeatherTemperature": "HKWeatherTemperature",
    "HKMetadataKeyWeatherHumidity": "HKWeatherHumidity",
    "HKMetadataKeyElevationAscended": "HKElevationAscended",
    "HKMetadataKeyElevationDescended": "HKElevationDescended",
    "HKMetadataKeyAverageSpeed": "HKAverageSpeed",
    "HKMetadataKeyMaximumSpeed": "HKMaximumSpeed",
    "HKMetadataKeyAverageMETs": "HKAverageMETs",
    "HKMetadataKeyLapLength": "HKLapLength",
    "HKMetadataKeySwimmingLocationType": "HKSwimmingLocationType",
    "HKMetadataKeySwimmingStrokeStyle": "HKSwimmingStrokeStyle",
    "HKMetadataKeySWOLFScore": "HKSWOLFScore",
    "HKMetadataKeyActivityType": "HKActivityType",
    "HKMetadataKeyPhysicalEffortEstimationType": "HKPhysicalEffortEstimationType",
    "HKMetadataKeyAlpineSlopeGrade": "HKAlpineSlopeGrade",
    "HKMetadataKeyFitnessMachineDuration": "HKFitnessMachineDuration",
    "HKMetadataKeyIndoorBikeDistance": "HKIndoorBikeDistance",
    "HKMetadataKeyCrossTrainerDistance": "HKCrossTrainerDistance",
  ]

  /// A valid value for a required key, for samples the simulator generates itself (random samples): not the start
  /// of a cycle; basal insulin.
  package static func generatedValue(for key: String) -> MetadataValue {
    switch key {
    case menstrualCycleStart: .bool(false)
    case insulinDeliveryReason: .int(1)
    default: .bool(false)
    }
  }
}
