import Foundation
import HealthEngine
import HealthModel

/// The device that recorded an object (`HKDevice.local()`, or a paired accessory the app describes).
///
/// An `NSObject` equal when every property is. HealthKitSim keeps the device an app passes to a sample's
/// initializer with the sample (under reserved metadata keys the app never sees), so ``HKObject/device`` reads it
/// back on both devices and `HKQuery.predicateForObjects(withDeviceProperty:allowedValues:)` filters on it.
///
/// `@unchecked Sendable`: immutable — every stored property is a `let` of a value never mutated (an `NSObject`
/// subclass cannot be checked by the compiler).
public final class HKDevice: NSObject, @unchecked Sendable {
  /// The device's name (`iPhone`, `Apple Watch`).
  public let name: String?
  /// The manufacturer (`Apple Inc.`).
  public let manufacturer: String?
  /// The model (`iPhone`, `Watch`).
  public let model: String?
  /// The hardware version.
  public let hardwareVersion: String?
  /// The firmware version.
  public let firmwareVersion: String?
  /// The software version.
  public let softwareVersion: String?
  /// A local identifier the app chose.
  public let localIdentifier: String?
  /// The FDA Unique Device Identifier's device identifier.
  public let udiDeviceIdentifier: String?

  /// Creates a device description.
  public init(
    name: String?, manufacturer: String?, model: String?, hardwareVersion: String?, firmwareVersion: String?,
    softwareVersion: String?, localIdentifier: String?, udiDeviceIdentifier: String?
  ) {
    self.name = name
    self.manufacturer = manufacturer
    self.model = model
    self.hardwareVersion = hardwareVersion
    self.firmwareVersion = firmwareVersion
    self.softwareVersion = softwareVersion
    self.localIdentifier = localIdentifier
    self.udiDeviceIdentifier = udiDeviceIdentifier
    super.init()
  }

  /// The device the app runs on: the simulated iPhone (`iPhone`) or Apple Watch (`Apple Watch`, model `Watch`),
  /// manufactured by Apple Inc. With no target configured (or an unreachable daemon), the iPhone.
  public static func local() -> HKDevice {
    let kind = (try? Session.current(api: "HKDevice.local()"))?.client.device ?? .phone
    return kind == .watch
      ? HKDevice(
        name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: nil, firmwareVersion: nil,
        softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil)
      : HKDevice(
        name: "iPhone", manufacturer: "Apple Inc.", model: "iPhone", hardwareVersion: nil, firmwareVersion: nil,
        softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil)
  }

  /// The properties that are set, with the ``DeviceProperty`` that names each.
  var properties: [(DeviceProperty, String)] {
    let values: [(DeviceProperty, String?)] = [
      (.name, name), (.manufacturer, manufacturer), (.model, model), (.hardwareVersion, hardwareVersion),
      (.firmwareVersion, firmwareVersion), (.softwareVersion, softwareVersion), (.localIdentifier, localIdentifier),
      (.udiDeviceIdentifier, udiDeviceIdentifier),
    ]
    return values.compactMap { property, value in value.map { (property, $0) } }
  }

  /// The device stored with an object's metadata, or nil when there is none.
  convenience init?(metadata: MetadataPayload) {
    guard case .valid(let metadata) = metadata else { return nil }
    func value(_ property: DeviceProperty) -> String? {
      if case .string(let s)? = metadata[property.metadataKey] { return s }
      return nil
    }
    guard DeviceProperty.allCases.contains(where: { value($0) != nil }) else { return nil }
    self.init(
      name: value(.name), manufacturer: value(.manufacturer), model: value(.model),
      hardwareVersion: value(.hardwareVersion), firmwareVersion: value(.firmwareVersion),
      softwareVersion: value(.softwareVersion), localIdentifier: value(.localIdentifier),
      udiDeviceIdentifier: value(.udiDeviceIdentifier))
  }

  /// The device an imported Apple Health export described (`name:Apple Watch, manufacturer:Apple Inc., …`), or nil
  /// when it has none of HKDevice's properties.
  convenience init?(exportDevice: HardwareDetails) {
    func value(_ property: DeviceProperty) -> String? { exportDevice[property.exportKey] }
    guard DeviceProperty.allCases.contains(where: { value($0) != nil }) else { return nil }
    self.init(
      name: value(.name), manufacturer: value(.manufacturer), model: value(.model),
      hardwareVersion: value(.hardwareVersion), firmwareVersion: value(.firmwareVersion),
      softwareVersion: value(.softwareVersion), localIdentifier: value(.localIdentifier),
      udiDeviceIdentifier: value(.udiDeviceIdentifier))
  }

  /// Equal when every property is.
  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? HKDevice else { return false }
    return properties.map(\.1) == other.properties.map(\.1) && properties.map(\.0) == other.properties.map(\.0)
  }
  /// Hashes the properties.
  public override var hash: Int {
    var hasher = Hasher()
    for (property, value) in properties {
      hasher.combine(property)
      hasher.combine(value)
    }
    return hasher.finalize()
  }
  /// `<HKDevice>, name:iPhone, manufacturer:Apple Inc., model:iPhone`.
  public override var description: String {
    (["<HKDevice>"] + properties.map { "\($0.0.name):\($0.1)" }).joined(separator: ", ")
  }
  /// As ``description``.
  public override var debugDescription: String { description }
}

/// `HKDevicePropertyKeyName`.
public let HKDevicePropertyKeyName = "HKDevicePropertyKeyName"
/// `HKDevicePropertyKeyManufacturer`.
public let HKDevicePropertyKeyManufacturer = "HKDevicePropertyKeyManufacturer"
/// `HKDevicePropertyKeyModel`.
public let HKDevicePropertyKeyModel = "HKDevicePropertyKeyModel"
/// `HKDevicePropertyKeyHardwareVersion`.
public let HKDevicePropertyKeyHardwareVersion = "HKDevicePropertyKeyHardwareVersion"
/// `HKDevicePropertyKeyFirmwareVersion`.
public let HKDevicePropertyKeyFirmwareVersion = "HKDevicePropertyKeyFirmwareVersion"
/// `HKDevicePropertyKeySoftwareVersion`.
public let HKDevicePropertyKeySoftwareVersion = "HKDevicePropertyKeySoftwareVersion"
/// `HKDevicePropertyKeyLocalIdentifier`.
public let HKDevicePropertyKeyLocalIdentifier = "HKDevicePropertyKeyLocalIdentifier"
/// `HKDevicePropertyKeyUDIDeviceIdentifier`.
public let HKDevicePropertyKeyUDIDeviceIdentifier = "HKDevicePropertyKeyUDIDeviceIdentifier"

extension DeviceProperty {
  /// The property a `HKDevicePropertyKey…` constant names, or nil.
  init?(key: String) {
    let keys: [String: DeviceProperty] = [
      HKDevicePropertyKeyName: .name, HKDevicePropertyKeyManufacturer: .manufacturer,
      HKDevicePropertyKeyModel: .model, HKDevicePropertyKeyHardwareVersion: .hardwareVersion,
      HKDevicePropertyKeyFirmwareVersion: .firmwareVersion, HKDevicePropertyKeySoftwareVersion: .softwareVersion,
      HKDevicePropertyKeyLocalIdentifier: .localIdentifier,
      HKDevicePropertyKeyUDIDeviceIdentifier: .udiDeviceIdentifier,
    ]
    guard let property = keys[key] else { return nil }
    self = property
  }
}
