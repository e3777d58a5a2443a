/// Everything HealthPair knows about one object type: names, kind, canonical unit and validation rules.
package struct SampleTypeDescriptor: Sendable {
  /// What kind of object the type describes.
  package enum Kind: Sendable {
    /// A quantity type, with its canonical unit string and aggregation style.
    case quantity(canonicalUnit: String, aggregation: AggregationStyle)
    /// A category type, with its valid values and their HealthKit case names.
    case category(values: [(value: Int, name: String)])
    /// A correlation type, with the short names of the quantity types its objects contain. HealthKit refuses
    /// authorization requests for it: apps request its component types instead.
    case correlation(components: [String])
    /// A characteristic type (`HKCharacteristicType`): one value the user sets in the Health app, read-only for apps
    /// and not a sample type. `values` are the enumeration's cases with Apple's raw values (`notSet` 0 left out);
    /// empty for the date of birth.
    case characteristic(values: [(value: Int, name: String)])
    /// A special object type (workouts, clinical records, …; ObjectTypes.swift): requestable, never stored.
    case object(ObjectKind)
  }

  /// The stable code (journal and wire).
  package let code: UInt16
  /// The short name used by HealthKit's Swift identifiers (`dietaryWater`).
  package let name: String
  /// The full HealthKit identifier string.
  package let identifier: String
  /// Quantity, category, correlation or characteristic.
  package let kind: Kind
  /// Whether apps may request share (write) permission; false for Apple-computed types.
  package let appsMayShare: Bool
  /// Metadata keys every sample of the type must carry.
  package let requiredMetadata: [String]

  /// The canonical unit, for quantity types (parsed once per type).
  package var canonicalUnit: HealthUnit? { SampleType.canonicalUnits[Int(code)] }
  /// The aggregation style, for quantity types.
  package var aggregation: AggregationStyle? {
    if case .quantity(_, let style) = kind { return style }
    return nil
  }
  /// The valid category values, for category types.
  package var categoryValues: [(value: Int, name: String)]? {
    if case .category(let values) = kind { return values }
    return nil
  }
  /// Whether this is a correlation type.
  package var isCorrelation: Bool {
    if case .correlation = kind { return true }
    return false
  }
  /// The short names of the quantity types a correlation's objects contain (empty for other kinds).
  package var correlationComponents: [String] {
    if case .correlation(let components) = kind { return components }
    return []
  }
  /// Whether this is a quantity type.
  package var isQuantity: Bool { aggregation != nil }
  /// Whether this is a characteristic type (read-only, not a sample type: docs/behavior.md C1).
  package var isCharacteristic: Bool {
    if case .characteristic = kind { return true }
    return false
  }
  /// The enumeration cases of a characteristic type (empty for the date of birth), nil for other kinds.
  package var characteristicValues: [(value: Int, name: String)]? {
    if case .characteristic(let values) = kind { return values }
    return nil
  }
  /// Whether the type is an `HKSampleType`: every type but the characteristic types and the activity summary type
  /// (what queries, saves and `HKSampleType` accept; special object types are sample types with no objects stored).
  package var isSampleType: Bool { !isCharacteristic && objectKind != .activitySummary }
}

extension SampleTypeDescriptor {
  /// A quantity type entry. The identifier is `HKQuantityTypeIdentifier` + the name with its first letter
  /// capitalized, unless given (`vo2Max` is `HKQuantityTypeIdentifierVO2Max`).
  static func quantity(
    _ code: UInt16, _ name: String, _ canonicalUnit: String, _ aggregation: AggregationStyle,
    identifier: String? = nil, appsMayShare: Bool = true, requiredMetadata: [String] = []
  ) -> SampleTypeDescriptor {
    SampleTypeDescriptor(
      code: code, name: name, identifier: identifier ?? "HKQuantityTypeIdentifier" + capitalized(name),
      kind: .quantity(canonicalUnit: canonicalUnit, aggregation: aggregation), appsMayShare: appsMayShare,
      requiredMetadata: requiredMetadata)
  }

  /// A category type entry; the identifier is `HKCategoryTypeIdentifier` + the capitalized name.
  static func category(
    _ code: UInt16, _ name: String, _ values: CategoryValueSet, appsMayShare: Bool = true,
    requiredMetadata: [String] = []
  ) -> SampleTypeDescriptor {
    SampleTypeDescriptor(
      code: code, name: name, identifier: "HKCategoryTypeIdentifier" + capitalized(name),
      kind: .category(values: values.values), appsMayShare: appsMayShare, requiredMetadata: requiredMetadata)
  }

  private static func capitalized(_ name: String) -> String { name.prefix(1).uppercased() + name.dropFirst() }

  /// The dietary quantity types: what a `food` correlation may contain.
  static let dietaryTypes: [String] = [
    "dietaryBiotin", "dietaryCaffeine", "dietaryCalcium", "dietaryCarbohydrates", "dietaryChloride",
    "dietaryCholesterol", "dietaryChromium", "dietaryCopper", "dietaryEnergyConsumed", "dietaryFatMonounsaturated",
    "dietaryFatPolyunsaturated", "dietaryFatSaturated", "dietaryFatTotal", "dietaryFiber", "dietaryFolate",
    "dietaryIodine", "dietaryIron", "dietaryMagnesium", "dietaryManganese", "dietaryMolybdenum", "dietaryNiacin",
    "dietaryPantothenicAcid", "dietaryPhosphorus", "dietaryPotassium", "dietaryProtein", "dietaryRiboflavin",
    "dietarySelenium", "dietarySodium", "dietarySugar", "dietaryThiamin", "dietaryVitaminA", "dietaryVitaminB12",
    "dietaryVitaminB6", "dietaryVitaminC", "dietaryVitaminD", "dietaryVitaminE", "dietaryVitaminK", "dietaryWater",
    "dietaryZinc",
  ]
}
