import HealthModel

/// Which device of the pair.
public enum HealthDeviceKind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// The iPhone.
  case phone
  /// The Apple Watch.
  case watch

  /// `phone` or `watch`.
  public var description: String { rawValue }

  /// The daemon's device kind.
  var simulated: DeviceKind { self == .phone ? .phone : .watch }
}
