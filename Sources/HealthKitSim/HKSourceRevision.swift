import HealthModel

/// Which app, on which kind of device, saved an object.
public final class HKSourceRevision: Hashable, CustomStringConvertible, Sendable {
  /// The app.
  public let source: HKSource
  /// The app's version; HealthKitSim does not track versions (nil).
  public let version: String?
  /// The kind of device the object was saved on: `"iPhone"` or `"Watch"` (HealthKitSim reports the kind only);
  /// nil for an object that has not been saved.
  public let productType: String?

  /// Creates a source revision.
  public init(source: HKSource, version: String?, productType: String?) {
    self.source = source
    self.version = version
    self.productType = productType
  }

  /// The revision of a stored sample's source.
  package convenience init(_ source: SampleSource) {
    self.init(
      source: HKSource(bundleIdentifier: source.bundleID), version: nil,
      productType: source.device == .phone ? "iPhone" : "Watch")
  }

  /// Equal when app, version and product type are.
  public static func == (lhs: HKSourceRevision, rhs: HKSourceRevision) -> Bool {
    lhs.source == rhs.source && lhs.version == rhs.version && lhs.productType == rhs.productType
  }
  /// Hashes app, version and product type.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(source)
    hasher.combine(version)
    hasher.combine(productType)
  }
  /// `bundle (productType)`.
  public var description: String { "\(source) (\(productType ?? "unsaved"))" }
}
