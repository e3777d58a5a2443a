import Foundation
import HealthModel

/// Which app, on which kind of device, saved an object; an `NSObject` equal when app, version and product type
/// are.
///
/// `@unchecked Sendable`: immutable — every stored property is a `let` of a value never mutated (an `NSObject`
/// subclass cannot be checked by the compiler).
public final class HKSourceRevision: NSObject, @unchecked Sendable {
  /// The app.
  public let source: HKSource
  /// The app's version: the version an imported Apple Health export recorded for the source; nil for objects apps
  /// save through HealthKitSim (it does not track app versions).
  public let version: String?
  /// The device the object was saved on: the hardware model an imported export recorded (`"Watch6,1"`), else
  /// `"iPhone"` or `"Watch"` (HealthKitSim reports the kind only); nil for an object that has not been saved.
  public let productType: String?
  /// The operating system the object was saved on: the software version an imported export recorded for the
  /// source's device, else 26.0.0 for an object saved on the simulated iPhone or watch (HealthPair models the iOS 26
  /// and watchOS 26 SDK), and 0.0.0 for an object that has not been saved.
  public let operatingSystemVersion: OperatingSystemVersion
  /// The device description an imported Apple Health export gave the source, which ``HKObject/device`` reads for
  /// the source's samples; nil otherwise.
  package let exportDevice: HardwareDetails?

  /// Creates a source revision.
  public convenience init(source: HKSource, version: String?, productType: String?) {
    self.init(
      source: source, version: version, productType: productType,
      operatingSystemVersion: OperatingSystemVersion(majorVersion: 0, minorVersion: 0, patchVersion: 0),
      exportDevice: nil)
  }

  /// Creates a source revision with the operating system version of the device.
  public convenience init(
    source: HKSource, version: String?, productType: String?, operatingSystemVersion: OperatingSystemVersion
  ) {
    self.init(
      source: source, version: version, productType: productType, operatingSystemVersion: operatingSystemVersion,
      exportDevice: nil)
  }

  /// Creates a source revision with the device description an imported export recorded.
  package init(
    source: HKSource, version: String?, productType: String?, operatingSystemVersion: OperatingSystemVersion,
    exportDevice: HardwareDetails?
  ) {
    self.source = source
    self.version = version
    self.productType = productType
    self.operatingSystemVersion = operatingSystemVersion
    self.exportDevice = exportDevice
    super.init()
  }

  /// Creates a source revision with no product type.
  public convenience init(source: HKSource, version: String?) {
    self.init(source: source, version: version, productType: nil)
  }

  /// The revision of a stored sample's source (with the name, version and hardware model an imported export
  /// recorded, when it came from one).
  package convenience init(_ source: SampleSource) {
    self.init(
      source: HKSource(bundleIdentifier: source.bundleID, name: source.details?.name), version: source.details?.version,
      productType: source.details?.hardware?.hardwareVersion ?? (source.device == .phone ? "iPhone" : "Watch"),
      operatingSystemVersion: Self.version(source.details?.hardware?.softwareVersion),
      exportDevice: source.details?.hardware)
  }

  /// The modelled SDK's version, 26.0.0.
  static let modelled = OperatingSystemVersion(majorVersion: 26, minorVersion: 0, patchVersion: 0)

  /// `10.1` as 10.1.0; ``modelled`` when there is no readable version (every sample saved through HealthKitSim: no
  /// parsing on a query's path).
  static func version(_ text: String?) -> OperatingSystemVersion {
    guard let text else { return modelled }
    let parts = text.split(separator: ".").map { Int($0) }
    guard let major = parts.first ?? nil, !parts.contains(nil) else { return modelled }
    return OperatingSystemVersion(
      majorVersion: major, minorVersion: parts.count > 1 ? parts[1]! : 0, patchVersion: parts.count > 2 ? parts[2]! : 0)
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
