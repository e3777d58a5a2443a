/// A correlation type (blood pressure, food): the type of ``HKCorrelation`` objects.
///
/// Authorization behaves as on a device: requesting a correlation type raises the "disallowed" exception and
/// `authorizationStatus(for:)` reports `notDetermined`; apps request the member types (`bloodPressureSystolic`,
/// `bloodPressureDiastolic`, the dietary types), then save and query correlations (docs/behavior.md T8–T13).
public final class HKCorrelationType: HKSampleType, @unchecked Sendable {
  /// The type with this identifier.
  public init(_ identifier: HKCorrelationTypeIdentifier) { super.init(identifier: identifier.rawValue) }
}
