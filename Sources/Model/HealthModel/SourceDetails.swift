/// What an Apple Health export records about a sample's source besides its bundle identifier (which exports do
/// not carry): the source's name (`HKSource.name`), its version (`HKSourceRevision.version`) and the hardware that
/// recorded it (`HKDevice`).
///
/// Immutable and shared: every sample of a source refers to one instance, so millions of imported samples from a
/// few sources cost a reference each, and comparing two samples' sources is a pointer comparison when they share
/// it. Equal and hashed by value (the hash is computed once).
package final class SourceDetails: Hashable, Sendable, CustomStringConvertible {
  /// The source's name as the export gives it (`sourceName`: "Alice’s Apple Watch", "Health", "MyFitnessPal").
  package let name: String
  /// The source's version (`sourceVersion`), when the export gives one.
  package let version: String?
  /// The hardware (`device`), when the export gives one.
  package let hardware: HardwareDetails?
  private let hashValueCache: Int

  /// Creates source details.
  package init(name: String, version: String? = nil, hardware: HardwareDetails? = nil) {
    self.name = name
    self.version = version
    self.hardware = hardware
    var hasher = Hasher()
    hasher.combine(name)
    hasher.combine(version)
    hasher.combine(hardware)
    hashValueCache = hasher.finalize()
  }

  /// Equal when name, version and hardware are (the same instance always is).
  package static func == (a: SourceDetails, b: SourceDetails) -> Bool {
    a === b
      || (a.hashValueCache == b.hashValueCache && a.name == b.name && a.version == b.version
        && a.hardware == b.hardware)
  }

  /// Hashes the precomputed hash of the value.
  package func hash(into hasher: inout Hasher) { hasher.combine(hashValueCache) }

  /// `name (version)`.
  package var description: String { version.map { "\(name) (\($0))" } ?? name }
}

/// The hardware that recorded a sample (`HKDevice`): the `key:value` fields of the export's device description, in
/// the export's order (`name`, `manufacturer`, `model`, `hardware`, `software`, `creation date`, …).
///
/// The description's object address (`<<HKDevice: 0x…>`) differs from record to record in real exports and means
/// nothing; it is not kept.
package struct HardwareDetails: Hashable, Sendable {
  /// The fields, in order.
  package var fields: [Field]

  /// One `key:value` field.
  package struct Field: Hashable, Sendable {
    /// The key (`name`, `manufacturer`, `model`, `hardware`, `firmware`, `software`, `localIdentifier`, …).
    package var key: String
    /// The value.
    package var value: String

    /// Creates a field.
    package init(_ key: String, _ value: String) {
      self.key = key
      self.value = value
    }
  }

  /// The most fields a description may have (the journal and the wire refuse more).
  package static let maxFields = 32

  /// Creates hardware details.
  package init(fields: [Field]) { self.fields = fields }

  /// The value of the first field with this key.
  package subscript(key: String) -> String? { fields.first { $0.key == key }?.value }

  /// `HKDevice.name` (`Apple Watch`, `iPhone`).
  package var name: String? { self["name"] }
  /// `HKDevice.manufacturer` (`Apple Inc.`).
  package var manufacturer: String? { self["manufacturer"] }
  /// `HKDevice.model` (`Watch`, `iPhone`).
  package var model: String? { self["model"] }
  /// `HKDevice.hardwareVersion` (`Watch6,1`).
  package var hardwareVersion: String? { self["hardware"] }
  /// `HKDevice.softwareVersion` (`10.1`).
  package var softwareVersion: String? { self["software"] }

  /// Whether the hardware is an Apple device of the kind the pair simulates: an iPhone or an Apple Watch, made by
  /// `Apple Inc.` or, as exports of watchOS 3–5 records write it, `Apple` (docs/behavior.md I2).
  package var appleDeviceKind: DeviceKind? {
    guard manufacturer == "Apple Inc." || manufacturer == "Apple" else { return nil }
    switch model {
    case "iPhone": return .phone
    case "Watch": return .watch
    default: return nil
    }
  }
}
