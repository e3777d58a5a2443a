import HealthEngine
import HealthKitSim
import HealthModel

/// A data source as the Health app lists it: an app on one device (behavior.md P2). The same app on the iPhone and
/// on the watch are two sources, as an iPhone's and an Apple Watch's own step counts are.
public struct HealthDataSource: Hashable, Sendable, CustomStringConvertible {
  /// The app's bundle identifier.
  public let bundleIdentifier: String
  /// The device it saved its samples on.
  public let device: HealthDeviceKind

  /// The app `bundleIdentifier` on `device`.
  public init(app bundleIdentifier: String, on device: HealthDeviceKind) {
    self.bundleIdentifier = bundleIdentifier
    self.device = device
  }

  /// `bundle@device`.
  public var description: String { "\(bundleIdentifier)@\(device)" }
}

extension SimulatedUser {
  /// In the Health app (Browse → the type → Data Sources & Access → Edit) the user drags `sources` to the top, in
  /// that order; statistics de-duplicate overlapping samples by the order (behavior.md P1–P4). An empty list goes
  /// back to the default order. Only the iPhone has the list; the order reaches the watch over the link.
  /// - Throws: ``HealthPairTestingError`` (on the watch: refused).
  public func orderDataSources(of type: HKQuantityType, _ sources: [HealthDataSource]) throws(HealthPairTestingError) {
    let simulated: SampleType
    do { simulated = try type.simulatedType() } catch { throw .unsupportedType(type.identifier) }
    let list = sources.map { SampleSource(bundleID: $0.bundleIdentifier, device: $0.device.simulated) }
    try device.control("orderDataSources(of: \(type.identifier))") { try $0.setSourceOrder(simulated, list) }
  }
}
