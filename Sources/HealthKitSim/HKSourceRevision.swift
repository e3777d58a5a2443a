import HealthModel

/// Which app, on which kind of device, saved an object.
public final class HKSourceRevision: Hashable, CustomStringConvertible, Sendable {
  /// The app.
  public let source: HKSource
  /// The app's version: the version an imported Apple Health export recorded for the source; nil for objects apps
  /// save through HealthKitSim (it does not track app versions).
  public let version: String?
  /// The device the object was saved on: the hardware model an imported export recorded (`"Watch6,1"`), else
  /// `"iPhone"` or `"Watch"` (HealthKitSim reports the kind only); nil for an object that has not been saved.
  public let productType: String?

  /// Creates a source revision.
  public init(source: HKSource, version: String?, productType: String?) {
    self.source = source
    self.version = version
    self.productType = productType
  }

  /// The revision of a stored sample's source (with the name, version and hardware model an imported export
  /// recorded, when it came from one).
  package convenience init(_ source: SampleSource) {
    self.init(
      source: HKSource(bundleIdentifier: source.bundleID, name: source.details?.name), version: source.details?.version,
      productType: source.details?.hardware?.hardwareVersion ?? (source.device == .phone ? "iPhone" : "Watch"))
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
