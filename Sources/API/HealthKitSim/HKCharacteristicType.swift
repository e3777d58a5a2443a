import HealthModel

/// A characteristic type: data that rarely changes, which the user enters in the Health app (date of birth,
/// biological sex, blood type, skin type, wheelchair use, move mode).
///
/// Apps may only read it: it is an `HKObjectType` but not an `HKSampleType`, so it cannot be requested to share
/// (`requestAuthorization(toShare:)` takes sample types) nor queried. Request it to read, then call the store's
/// method for it (``HKHealthStore/biologicalSex()`` and the like).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
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
