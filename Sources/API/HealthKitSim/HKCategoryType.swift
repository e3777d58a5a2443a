/// A type of category data (mindful sessions, sleep): `HKCategoryType(.mindfulSession)`.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKCategoryType: HKSampleType, @unchecked Sendable {
  /// The type with this identifier. An identifier outside HealthKitSim's catalog makes later calls fail with
  /// ``HealthKitSimError/unsupported(_:)``.
  public init(_ identifier: HKCategoryTypeIdentifier) { super.init(identifier: identifier.rawValue) }
}
