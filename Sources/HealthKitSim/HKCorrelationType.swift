/// A correlation type (blood pressure, food).
///
/// HealthKitSim knows these types so that authorization behaves as on a device (requesting them raises the
/// "disallowed" exception; `authorizationStatus(for:)` reports `notDetermined`), but it does not save or query
/// `HKCorrelation` objects.
public final class HKCorrelationType: HKSampleType, @unchecked Sendable {
  /// The type with this identifier.
  public init(_ identifier: HKCorrelationTypeIdentifier) { super.init(identifier: identifier.rawValue) }
}
