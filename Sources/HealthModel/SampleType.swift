/// A HealthKit object type the simulator knows, identified by a stable numeric code.
///
/// The code is what the journal and the wire carry; the table in ``SampleType/catalog`` gives its name,
/// HealthKit identifier, kind, canonical unit and rules. Adding a type is one entry in that table.
package struct SampleType: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The stable code of the type (never reused).
  package let code: UInt16

  /// Wraps a code; only ``SampleType/lookup(code:)`` checks it against the catalog.
  package init(unchecked code: UInt16) { self.code = code }

  /// The catalog entry of this type.
  package var descriptor: SampleTypeDescriptor { SampleType.descriptorsByCode[Int(code)]! }
  /// The short name (`dietaryWater`).
  package var name: String { descriptor.name }
  /// The HealthKit identifier (`HKQuantityTypeIdentifierDietaryWater`).
  package var identifier: String { descriptor.identifier }
  /// The short name.
  package var description: String { name }
  /// Orders types by code.
  package static func < (a: SampleType, b: SampleType) -> Bool { a.code < b.code }

  /// Whether this is a quantity type (a table lookup; `descriptor` copies the whole entry).
  package var isQuantity: Bool { SampleType.quantityFlags[Int(code)] }

  private static let quantityFlags: [Bool] = {
    var table = [Bool](repeating: false, count: Int(catalog.map(\.code).max()! + 1))
    for entry in catalog where entry.isQuantity { table[Int(entry.code)] = true }
    return table
  }()

  /// Finds a type by code, or nil when the code is unknown.
  package static func lookup(code: UInt16) -> SampleType? {
    Int(code) < descriptorsByCode.count && descriptorsByCode[Int(code)] != nil ? SampleType(unchecked: code) : nil
  }

  /// Finds a type by short name (`dietaryWater`) or HealthKit identifier.
  package static func lookup(name: String) -> SampleType? { byName[name] }

  /// Every known type, in catalog order.
  package static var all: [SampleType] { catalog.map { SampleType(unchecked: $0.code) } }

  private static let descriptorsByCode: [SampleTypeDescriptor?] = {
    var table = [SampleTypeDescriptor?](repeating: nil, count: Int(catalog.map(\.code).max()! + 1))
    for entry in catalog {
      precondition(table[Int(entry.code)] == nil, "duplicate sample type code \(entry.code)")
      table[Int(entry.code)] = entry
    }
    return table
  }()

  /// Parsed canonical units by type code.
  fileprivate static let canonicalUnits: [HealthUnit?] = {
    var table = [HealthUnit?](repeating: nil, count: Int(catalog.map(\.code).max()! + 1))
    for entry in catalog {
      if case .quantity(let unit, _) = entry.kind { table[Int(entry.code)] = try? HealthUnit(parsing: unit) }
    }
    return table
  }()

  private static let byName: [String: SampleType] = {
    var map: [String: SampleType] = [:]
    for entry in catalog {
      map[entry.name] = SampleType(unchecked: entry.code)
      map[entry.identifier] = SampleType(unchecked: entry.code)
    }
    return map
  }()
}

/// Everything HealthPair knows about one object type: names, kind, canonical unit and validation rules.
package struct SampleTypeDescriptor: Sendable {
  /// What kind of object the type describes.
  package enum Kind: Sendable {
    /// A quantity type, with its canonical unit string and aggregation style.
    case quantity(canonicalUnit: String, aggregation: AggregationStyle)
    /// A category type, with its valid values and their HealthKit case names.
    case category(values: [(value: Int, name: String)])
    /// A correlation type: HealthKit refuses authorization requests for it.
    case correlation
    /// A special object type (workouts, clinical records, …; ObjectTypes.swift): requestable, never stored.
    case object(ObjectKind)
  }

  /// The stable code (journal and wire).
  package let code: UInt16
  /// The short name used by HealthKit's Swift identifiers (`dietaryWater`).
  package let name: String
  /// The full HealthKit identifier string.
  package let identifier: String
  /// Quantity, category or correlation.
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
  /// Whether this is a quantity type.
  package var isQuantity: Bool { aggregation != nil }
}

extension SampleType {
  /// The catalog: one entry per type. Codes are stable and never reused.
  ///
  /// Sources: canonical units and aggregation styles from HKTypeIdentifiers.h; category values from
  /// HKCategoryValues.h; read-only types from observed "Authorization to share … is disallowed" crashes.
  package static let catalog: [SampleTypeDescriptor] =
    [
      .init(
        code: 1, name: "dietaryWater", identifier: "HKQuantityTypeIdentifierDietaryWater",
        kind: .quantity(canonicalUnit: "mL", aggregation: .cumulative), appsMayShare: true, requiredMetadata: []),
      .init(
        code: 2, name: "stepCount", identifier: "HKQuantityTypeIdentifierStepCount",
        kind: .quantity(canonicalUnit: "count", aggregation: .cumulative), appsMayShare: true, requiredMetadata: []),
      .init(
        code: 3, name: "activeEnergyBurned", identifier: "HKQuantityTypeIdentifierActiveEnergyBurned",
        kind: .quantity(canonicalUnit: "kcal", aggregation: .cumulative), appsMayShare: true, requiredMetadata: []),
      .init(
        code: 4, name: "heartRate", identifier: "HKQuantityTypeIdentifierHeartRate",
        kind: .quantity(canonicalUnit: "count/s", aggregation: .discreteTemporallyWeighted), appsMayShare: true,
        requiredMetadata: []),
      .init(
        code: 5, name: "bodyMass", identifier: "HKQuantityTypeIdentifierBodyMass",
        kind: .quantity(canonicalUnit: "kg", aggregation: .discreteArithmetic), appsMayShare: true,
        requiredMetadata: []),
      .init(
        code: 6, name: "appleExerciseTime", identifier: "HKQuantityTypeIdentifierAppleExerciseTime",
        kind: .quantity(canonicalUnit: "min", aggregation: .cumulative), appsMayShare: false, requiredMetadata: []),
      .init(
        code: 7, name: "heartRateVariabilitySDNN", identifier: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN",
        kind: .quantity(canonicalUnit: "ms", aggregation: .discreteArithmetic), appsMayShare: true,
        requiredMetadata: []),
      .init(
        code: 8, name: "distanceWalkingRunning", identifier: "HKQuantityTypeIdentifierDistanceWalkingRunning",
        kind: .quantity(canonicalUnit: "m", aggregation: .cumulative), appsMayShare: true, requiredMetadata: []),
      .init(
        code: 20, name: "mindfulSession", identifier: "HKCategoryTypeIdentifierMindfulSession",
        kind: .category(values: [(0, "notApplicable")]), appsMayShare: true, requiredMetadata: []),
      .init(
        code: 21, name: "sleepAnalysis", identifier: "HKCategoryTypeIdentifierSleepAnalysis",
        kind: .category(values: [
          (0, "inBed"), (1, "asleepUnspecified"), (2, "awake"), (3, "asleepCore"), (4, "asleepDeep"),
          (5, "asleepREM"),
        ]), appsMayShare: true, requiredMetadata: []),
      .init(
        code: 22, name: "menstrualFlow", identifier: "HKCategoryTypeIdentifierMenstrualFlow",
        kind: .category(values: [(1, "unspecified"), (2, "light"), (3, "medium"), (4, "heavy"), (5, "none")]),
        appsMayShare: true, requiredMetadata: [MetadataKey.menstrualCycleStart]),
      .init(
        code: 23, name: "appleStandHour", identifier: "HKCategoryTypeIdentifierAppleStandHour",
        kind: .category(values: [(0, "stood"), (1, "idle")]), appsMayShare: false, requiredMetadata: []),
      .init(
        code: 40, name: "bloodPressure", identifier: "HKCorrelationTypeIdentifierBloodPressure",
        kind: .correlation, appsMayShare: false, requiredMetadata: []),
      .init(
        code: 41, name: "food", identifier: "HKCorrelationTypeIdentifierFood",
        kind: .correlation, appsMayShare: false, requiredMetadata: []),
    ] + objectTypeCatalog
}

/// Well-known metadata keys (HKMetadata.h string values).
package enum MetadataKey {
  /// `HKMetadataKeyWasUserEntered`: the sample was entered by the user.
  package static let wasUserEntered = "HKWasUserEntered"
  /// `HKMetadataKeyMenstrualCycleStart`: required on menstrualFlow samples.
  package static let menstrualCycleStart = "HKMenstrualCycleStart"
  /// `HKMetadataKeyTimeZone`.
  package static let timeZone = "HKTimeZone"
  /// `HKMetadataKeySyncIdentifier`.
  package static let syncIdentifier = "HKMetadataKeySyncIdentifier"
  /// `HKMetadataKeySyncVersion`.
  package static let syncVersion = "HKMetadataKeySyncVersion"
  /// `HKMetadataKeyExternalUUID`.
  package static let externalUUID = "HKExternalUUID"

  /// Maps the Swift constant names users write (`HKMetadataKeyWasUserEntered`) to the key strings.
  package static let byConstantName: [String: String] = [
    "HKMetadataKeyWasUserEntered": wasUserEntered,
    "HKMetadataKeyMenstrualCycleStart": menstrualCycleStart,
    "HKMetadataKeyTimeZone": timeZone,
    "HKMetadataKeySyncIdentifier": syncIdentifier,
    "HKMetadataKeySyncVersion": syncVersion,
    "HKMetadataKeyExternalUUID": externalUUID,
  ]
}
