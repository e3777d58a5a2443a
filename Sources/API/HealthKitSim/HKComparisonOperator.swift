import Foundation

/// The comparison of `HKQuery`'s comparison predicates: `NSComparisonPredicate.Operator`'s cases with Apple's raw
/// values, so `operatorType: .greaterThan` reads as it does on Apple platforms.
///
/// swift-corelibs-foundation deprecates `NSComparisonPredicate` (it cannot evaluate `NSExpression`s), and naming the
/// class in HealthKitSim's signatures would print a deprecation warning in every build that depends on HealthKitSim.
/// Code that passes a value typed `NSComparisonPredicate.Operator` still compiles, through deprecated overloads.
public enum HKComparisonOperator: UInt, Sendable, Hashable, CaseIterable {
  /// `<`.
  case lessThan = 0
  /// `<=`.
  case lessThanOrEqualTo = 1
  /// `>`.
  case greaterThan = 2
  /// `>=`.
  case greaterThanOrEqualTo = 3
  /// `==`.
  case equalTo = 4
  /// `!=`.
  case notEqualTo = 5
  /// `MATCHES` (matches nothing in HealthKit's predicates).
  case matches = 6
  /// `LIKE` (matches nothing in HealthKit's predicates).
  case like = 7
  /// `BEGINSWITH` (matches nothing in HealthKit's predicates).
  case beginsWith = 8
  /// `ENDSWITH` (matches nothing in HealthKit's predicates).
  case endsWith = 9
  /// `IN` (matches nothing in HealthKit's predicates).
  case `in` = 10
  /// A custom selector (matches nothing in HealthKit's predicates).
  case customSelector = 11
  /// `CONTAINS` (matches nothing in HealthKit's predicates).
  case contains = 99
  /// `BETWEEN` (matches nothing in HealthKit's predicates).
  case between = 100
}

extension HKQuery {
  /// The metadata comparison predicate, for an operator typed with Foundation's deprecated type.
  @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux: write .greaterThan …")
  @_disfavoredOverload
  public static func predicateForObjects(
    withMetadataKey key: String, operatorType: NSComparisonPredicate.Operator, value: Any
  ) -> NSPredicate {
    guard let op = HKComparisonOperator(rawValue: operatorType.rawValue) else {
      return HealthKitSimPredicate(.constant(false))
    }
    return predicateForObjects(withMetadataKey: key, operatorType: op, value: value)
  }

  /// The quantity comparison predicate, for an operator typed with Foundation's deprecated type.
  @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux: write .greaterThan …")
  @_disfavoredOverload
  public static func predicateForQuantitySamples(
    with operatorType: NSComparisonPredicate.Operator, quantity: HKQuantity
  ) -> NSPredicate {
    guard let op = HKComparisonOperator(rawValue: operatorType.rawValue) else {
      return HealthKitSimPredicate(.constant(false))
    }
    return predicateForQuantitySamples(with: op, quantity: quantity)
  }

  /// The category value comparison predicate, for an operator typed with Foundation's deprecated type.
  @available(*, deprecated, message: "NSComparisonPredicate is deprecated on Linux: write .greaterThan …")
  @_disfavoredOverload
  public static func predicateForCategorySamples(
    with operatorType: NSComparisonPredicate.Operator, value: Int
  ) -> NSPredicate {
    guard let op = HKComparisonOperator(rawValue: operatorType.rawValue) else {
      return HealthKitSimPredicate(.constant(false))
    }
    return predicateForCategorySamples(with: op, value: value)
  }
}
