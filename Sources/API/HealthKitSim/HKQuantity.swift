import Foundation
import HealthModel

/// An amount in a unit (`HKQuantity(unit: .literUnit(with: .milli), doubleValue: 250)`).
///
/// An `NSObject`: two quantities are equal (`==`, `isEqual(_:)`) when their units are compatible and their values
/// are the same once converted, as HealthKit compares them.
///
/// `@unchecked Sendable`: immutable — every stored property is a `let` of a value never mutated (an `NSObject`
/// subclass cannot be checked by the compiler).
public final class HKQuantity: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
  /// The unit the quantity was created with.
  package let unit: HKUnit
  /// The value in ``unit``.
  package let value: Double

  /// Creates a quantity.
  public init(unit: HKUnit, doubleValue value: Double) {
    self.unit = unit
    self.value = value
    super.init()
  }

  /// True: archives of a quantity decode only as a quantity (`NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`),
  /// as apps send them over `sendToRemoteWorkoutSession(data:)`.
  public static var supportsSecureCoding: Bool { true }

  /// Archives the unit string and the value.
  public func encode(with coder: NSCoder) {
    coder.encode(unit.unitString as NSString, forKey: "HKQuantityUnit")
    coder.encode(value, forKey: "HKQuantityValue")
  }

  /// Unarchives a quantity; nil when the archive holds no unit or one that does not parse.
  public init?(coder: NSCoder) {
    guard let text = coder.decodeObject(of: NSString.self, forKey: "HKQuantityUnit") as String? else { return nil }
    if text.isEmpty {
      self.unit = HKUnit(from: text)  // the scalar unit
    } else {
      guard let parsed = try? HealthUnit(parsing: text) else { return nil }
      self.unit = HKUnit(parsed: parsed)
    }
    self.value = coder.decodeDouble(forKey: "HKQuantityValue")
    super.init()
  }

  /// The quantity itself: it is immutable.
  public func copy(with zone: NSZone? = nil) -> Any { self }

  /// The value converted to `unit`.
  ///
  /// Converting to an incompatible unit raises an exception on a device: it is reported to
  /// ``HealthKitSim/terminationHandler`` and the result is `nan`.
  public func doubleValue(for unit: HKUnit) -> Double {
    guard let from = self.unit.parsed, let to = unit.parsed else {
      report("cannot convert '\(self.unit.unitString)' to '\(unit.unitString)': not a valid unit")
      return .nan
    }
    do { return try from.convert(value, to: to) } catch {
      report("Attempt to convert incompatible units: '\(from)', '\(to)' (\(error))")
      return .nan
    }
  }

  /// Whether the quantity converts to `unit`.
  public func `is`(compatibleWith unit: HKUnit) -> Bool {
    guard let from = self.unit.parsed, let to = unit.parsed else { return false }
    return from.isCompatible(with: to)
  }

  /// Orders two compatible quantities; incompatible ones are reported to ``HealthKitSim/terminationHandler`` and
  /// compare as the same.
  public func compare(_ quantity: HKQuantity) -> ComparisonResult {
    guard self.is(compatibleWith: quantity.unit) else {
      report("Attempt to compare incompatible quantities: \(self), \(quantity)")
      return .orderedSame
    }
    let other = quantity.doubleValue(for: unit)
    return value < other ? .orderedAscending : value > other ? .orderedDescending : .orderedSame
  }

  /// Equal when compatible and the same amount (never reported as an incompatible comparison).
  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? HKQuantity, let from = other.unit.parsed, let to = unit.parsed,
      let converted = try? from.convert(other.value, to: to)
    else { return false }
    // Within a relative 1e-12: 0.25 L is 250 mL though the conversion leaves 250.00000000000003.
    return abs(converted - value) <= 1e-12 * max(abs(converted), abs(value))
  }
  /// The dimension's hash: equal quantities measure the same dimension.
  public override var hash: Int { unit.parsed.map { "\($0.dimension)".hashValue } ?? unit.unitString.hashValue }
  /// `250 mL`.
  public override var description: String { "\(formatNumber(value)) \(unit.unitString)" }
  /// As ``description``.
  public override var debugDescription: String { description }

  private func report(_ reason: String) {
    HealthKitSim.reportTermination(.invalidArgument(reason, api: "HKQuantity"))
  }
}
