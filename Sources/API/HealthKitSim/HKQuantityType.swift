import HealthModel

/// How HealthKit combines quantities of a type, with Apple's raw values.
public enum HKQuantityAggregationStyle: Int, Hashable, Sendable {
  /// Values add up over time (water, steps, energy).
  case cumulative = 0
  /// Independent readings, averaged arithmetically (body mass).
  case discreteArithmetic = 1
  /// Readings averaged by the time each covers (heart rate).
  case discreteTemporallyWeighted = 2
  /// Sound-level style readings.
  case discreteEquivalentContinuousLevel = 3

  /// Apple's deprecated name for ``discreteArithmetic``.
  @available(*, deprecated, renamed: "discreteArithmetic")
  public static var discrete: HKQuantityAggregationStyle { .discreteArithmetic }
}

/// A type of quantity data (water, steps, heart rate): `HKQuantityType(.dietaryWater)`.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKQuantityType: HKSampleType, @unchecked Sendable {
  /// The type with this identifier. An identifier outside HealthKitSim's catalog makes later calls fail with
  /// ``HealthKitSimError/unsupported(_:)``.
  public init(_ identifier: HKQuantityTypeIdentifier) { super.init(identifier: identifier.rawValue) }

  /// How quantities of the type combine; `cumulative` for types HealthKitSim does not know.
  public var aggregationStyle: HKQuantityAggregationStyle {
    guard let style = (try? simulatedType())?.descriptor.aggregation else { return .cumulative }
    return HKQuantityAggregationStyle(rawValue: style.rawValue) ?? .cumulative
  }

  /// Whether quantities in `unit` can be stored as this type (the unit measures the canonical unit's dimension).
  public func `is`(compatibleWith unit: HKUnit) -> Bool {
    guard let canonical = (try? simulatedType())?.descriptor.canonicalUnit, let parsed = unit.parsed else {
      return false
    }
    return parsed.isCompatible(with: canonical)
  }

  /// The type's canonical unit (mL for water), the unit query results are expressed in.
  package var canonicalUnit: HKUnit? {
    (try? simulatedType())?.descriptor.canonicalUnit.map { HKUnit(parsed: $0) }
  }
}
