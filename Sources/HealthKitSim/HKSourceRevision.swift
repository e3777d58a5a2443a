import Foundation
import HealthModel

/// Which app, on which kind of device, saved an object; an `NSObject` equal when app, version and product type
/// are.
public final class HKSourceRevision: NSObject, @unchecked Sendable {
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
    super.init()
  }

  /// Creates a source revision with no product type.
  public convenience init(source: HKSource, version: String?) {
    self.init(source: source, version: version, productType: nil)
  }

  /// The revision of a stored sample's source.
  package convenience init(_ source: SampleSource) {
    self.init(
      source: HKSource(bundleIdentifier: source.bundleID), version: nil,
      productType: source.device == .phone ? "iPhone" : "Watch")
  }

  /// Equal when app, version and product type are.
  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? HKSourceRevision else { return false }
    return source == other.source && version == other.version && productType == other.productType
  }
  /// Hashes app, version and product type.
  public override var hash: Int {
    var hasher = Hasher()
    hasher.combine(source.bundleIdentifier)
    hasher.combine(version)
    hasher.combine(productType)
    return hasher.finalize()
  }
  /// `bundle (productType)`.
  public override var description: String { "\(source) (\(productType ?? "unsaved"))" }
  /// As ``description``.
  public override var debugDescription: String { description }
}
