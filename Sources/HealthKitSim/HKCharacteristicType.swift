import HealthModel

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

/// A characteristic type: data that rarely changes, which the user enters in the Health app (date of birth,
/// biological sex, blood type, skin type, wheelchair use, move mode).
///
/// Apps may only read it: it is an `HKObjectType` but not an `HKSampleType`, so it cannot be requested to share
/// (`requestAuthorization(toShare:)` takes sample types) nor queried. Request it to read, then call the store's
/// method for it (``HKHealthStore/biologicalSex()`` and the like).
public final class HKCharacteristicType: HKObjectType, @unchecked Sendable {
  /// The type with this identifier. An identifier outside HealthKitSim's catalog makes later calls fail with
  /// ``HealthKitSimError/unsupported(_:)``.
  public init(_ identifier: HKCharacteristicTypeIdentifier) { super.init(identifier: identifier.rawValue) }
}

extension HKObjectType {
  /// The characteristic type with this identifier, or nil when HealthKitSim does not know it.
  public static func characteristicType(forIdentifier identifier: HKCharacteristicTypeIdentifier)
    -> HKCharacteristicType?
  {
    guard let type = SampleType.lookup(name: identifier.rawValue), type.descriptor.isCharacteristic else { return nil }
    return HKCharacteristicType(identifier)
  }
}
