import Foundation
import HealthModel

// Metadata keys, with the string values of HKMetadata.h.

/// Whether the user entered the sample by hand (`Bool`); the Health app marks such samples.
public let HKMetadataKeyWasUserEntered = MetadataKey.wasUserEntered
/// Whether a menstrual-flow sample starts a cycle (`Bool`); required on menstrualFlow samples.
public let HKMetadataKeyMenstrualCycleStart = MetadataKey.menstrualCycleStart
/// The time zone the sample was recorded in (`String`, a time zone name).
public let HKMetadataKeyTimeZone = MetadataKey.timeZone
/// An identifier that ties versions of one object together (`String`); requires a sync version.
public let HKMetadataKeySyncIdentifier = MetadataKey.syncIdentifier
/// The version of an object with a sync identifier (`Int`).
public let HKMetadataKeySyncVersion = MetadataKey.syncVersion
/// An identifier the app assigns to the sample (`String`).
public let HKMetadataKeyExternalUUID = MetadataKey.externalUUID
/// Why insulin was delivered (an ``HKInsulinDeliveryReason`` raw value); required on insulinDelivery samples.
public let HKMetadataKeyInsulinDeliveryReason = MetadataKey.insulinDeliveryReason
/// How a blood glucose reading relates to a meal (an ``HKBloodGlucoseMealTime`` raw value); optional.
public let HKMetadataKeyBloodGlucoseMealTime = MetadataKey.bloodGlucoseMealTime
/// Whether protection was used during sexual activity (`Bool`); optional on sexualActivity samples.
public let HKMetadataKeySexualActivityProtectionUsed = MetadataKey.sexualActivityProtectionUsed

/// The medical reason for an insulin dose (`HKMetadataKeyInsulinDeliveryReason`), with Apple's raw values.
public enum HKInsulinDeliveryReason: Int, Hashable, Sendable, CaseIterable {
  /// Basal insulin, for the body's base metabolic needs (1).
  case basal = 1
  /// Bolus insulin, for episodic needs such as a meal or a correction (2).
  case bolus = 2
}

/// How a blood glucose reading relates to a meal (`HKMetadataKeyBloodGlucoseMealTime`), with Apple's raw values.
public enum HKBloodGlucoseMealTime: Int, Hashable, Sendable, CaseIterable {
  /// Measured just before a meal (1).
  case preprandial = 1
  /// Measured after a meal (2).
  case postprandial = 2
}

/// Metadata as HealthKitSim stores it: converted to the simulator's values, or the first value HealthKit would
/// refuse (kept so the `save` that uses the object can fail as a device would).
package enum MetadataPayload: Hashable, Sendable {
  /// Every value is a string, number, Boolean, date or quantity.
  case valid(Metadata)
  /// `key` holds a value of a type HealthKit does not accept.
  case invalid(key: String, typeName: String)

  /// Converts an app's `[String: Any]` metadata.
  package init(_ metadata: [String: Any]?) {
    var converted: Metadata = [:]
    for (key, value) in metadata ?? [:] {
      guard let value = MetadataPayload.value(value) else {
        self = .invalid(key: key, typeName: String(describing: type(of: value)))
        return
      }
      converted[key] = value
    }
    self = .valid(converted)
  }

  /// The simulator's value for an app's metadata value, or nil for a class HealthKit refuses.
  package static func value(_ any: Any) -> MetadataValue? {
    switch any {
    case let b as Bool: return .bool(b)
    case let i as Int: return .int(Int64(i))
    case let i as Int64: return .int(i)
    case let i as Int32: return .int(Int64(i))
    case let d as Double: return .double(d)
    case let f as Float: return .double(Double(f))
    case let s as String: return .string(s)
    case let d as Date: return .date(d)
    case let q as HKQuantity: return .quantity(q.value, unit: q.unit.unitString)
    case let n as NSNumber:
      return String(cString: n.objCType) == "c" ? .bool(n.boolValue) : .double(n.doubleValue)
    default: return nil
    }
  }

  /// The metadata for the daemon.
  /// - Throws: ``HKSimulatedTermination`` for a value HealthKit refuses.
  package func checked(api: String) throws(HKSimulatedTermination) -> Metadata {
    switch self {
    case .valid(let metadata): return metadata
    case .invalid(let key, let typeName):
      throw .invalidArgument(
        "Invalid class \(typeName) for metadata key: \(key). Expected NSString, NSDate, NSNumber, or HKQuantity.",
        api: api)
    }
  }

  /// The metadata with `device`'s properties under HealthKitSim's reserved keys (an invalid payload stays so).
  package func adding(_ device: HKDevice?) -> MetadataPayload {
    guard let device, case .valid(var metadata) = self else { return self }
    for (property, value) in device.properties { metadata[property.metadataKey] = .string(value) }
    return .valid(metadata)
  }

  /// The metadata as an app reads it back: Bool, Int, Double, String, Date or HKQuantity values; nil when empty.
  /// HealthKitSim's reserved device keys are left out.
  package var dictionary: [String: Any]? {
    guard case .valid(let metadata) = self else { return nil }
    var result: [String: Any] = [:]
    for (key, value) in metadata where !key.hasPrefix(MetadataKey.devicePrefix) {
      switch value {
      case .bool(let b): result[key] = b
      case .int(let i): result[key] = Int(i)
      case .double(let d): result[key] = d
      case .string(let s): result[key] = s
      case .date(let d): result[key] = d
      case .quantity(let v, let unit): result[key] = HKQuantity(unit: HKUnit(from: unit), doubleValue: v)
      }
    }
    return result.isEmpty ? nil : result
  }
}
