import Foundation
import HealthEngine
import HealthModel

/// Values: what an argument is as a value, a value as metadata, and a value's kind in messages.
extension PredicateFormat.Parser {
  /// An argument as a value.
  static func value(of any: Any) -> Value {
    switch any {
    case let v as Bool: return .bool(v)
    case let v as Int: return .number(Double(v))
    case let v as Int64: return .number(Double(v))
    case let v as Int32: return .number(Double(v))
    case let v as UInt: return .number(Double(v))
    case let v as Double: return .number(v)
    case let v as Float: return .number(Double(v))
    case let v as String: return .string(v)
    case let v as Date: return .date(v)
    case let v as NSDate: return .date(Date(timeIntervalSinceReferenceDate: v.timeIntervalSinceReferenceDate))
    case let v as UUID: return .uuid(v)
    case let v as NSUUID: return .uuid(UUID(uuidString: v.uuidString)!)
    case let v as HKQuantity: return .quantity(v)
    case let v as HKSource: return .source(v.bundleIdentifier)
    // `workout == %@` with an HKWorkout names its associated samples (HKPredicateKeyPathWorkout).
    case let v as HKWorkout: return .uuid(v.uuid)
    case let v as HKSourceRevision: return .source(v.source.bundleIdentifier)
    // `medicationConceptIdentifier == %@` with an HKHealthConceptIdentifier compares its concept.
    case let v as HKHealthConceptIdentifier: return .string(v.underlying)
    case let v as NSNumber:
      return String(cString: v.objCType) == "c" ? .bool(v.boolValue) : .number(v.doubleValue)
    case let v as NSString: return .string(String(describing: v))
    case let v as [Any]: return .list(v.map(value(of:)))
    case let v as Set<UUID>: return .list(v.map { .uuid($0) })
    case let v as Set<String>: return .list(v.sorted().map { .string($0) })
    case let v as Set<HKSource>: return .list(v.map { .source($0.bundleIdentifier) })
    case let v as NSArray: return .list(v.map(value(of:)))
    case let v as NSSet: return .list(v.allObjects.map(value(of:)))
    case Optional<Any>.none: return .null
    default: return .other(String(describing: type(of: any)))
    }
  }

  /// `value` as a metadata value (a whole number as an integer), or nil when metadata cannot hold it.
  static func metadataValue(_ value: Value) -> MetadataValue? {
    switch value {
    case .bool(let b): .bool(b)
    case .number(let n): n == n.rounded() && abs(n) < 9e15 ? .int(Int64(n)) : .double(n)
    case .string(let s): .string(s)
    case .date(let d): .date(d)
    case .quantity(let q): .quantity(q.value, unit: q.unit.unitString)
    default: nil
    }
  }

  /// What kind of value `value` is, for messages ("a date").
  static func describe(_ value: Value) -> String {
    switch value {
    case .null: "nil"
    case .bool: "a Boolean"
    case .number: "a number"
    case .string: "a string"
    case .date: "a date"
    case .uuid: "a UUID"
    case .quantity: "an HKQuantity"
    case .source: "an HKSource"
    case .list: "a collection"
    case .other(let type): "a \(type)"
    }
  }
}
