import FoundationEssentials
import HealthModel

/// How a predicate compares (`NSComparisonPredicate.Operator` for HealthKit's comparison predicates).
package enum ComparisonOperator: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
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

  /// Whether `order` (the sign of left − right) satisfies the operator.
  package func holds(_ order: Int) -> Bool {
    switch self {
    case .lessThan: order < 0
    case .lessThanOrEqualTo: order <= 0
    case .greaterThan: order > 0
    case .greaterThanOrEqualTo: order >= 0
    case .equalTo: order == 0
    case .notEqualTo: order != 0
    }
  }

  /// `<`, `<=`, … as a predicate format writes it.
  package var description: String {
    switch self {
    case .lessThan: "<"
    case .lessThanOrEqualTo: "<="
    case .greaterThan: ">"
    case .greaterThanOrEqualTo: ">="
    case .equalTo: "=="
    case .notEqualTo: "!="
    }
  }
}

/// A property of `HKDevice` that `predicateForObjects(withDeviceProperty:allowedValues:)` filters on.
package enum DeviceProperty: UInt8, Sendable, Hashable, CaseIterable {
  /// `HKDevicePropertyKeyName`.
  case name = 0
  /// `HKDevicePropertyKeyManufacturer`.
  case manufacturer = 1
  /// `HKDevicePropertyKeyModel`.
  case model = 2
  /// `HKDevicePropertyKeyHardwareVersion`.
  case hardwareVersion = 3
  /// `HKDevicePropertyKeyFirmwareVersion`.
  case firmwareVersion = 4
  /// `HKDevicePropertyKeySoftwareVersion`.
  case softwareVersion = 5
  /// `HKDevicePropertyKeyLocalIdentifier`.
  case localIdentifier = 6
  /// `HKDevicePropertyKeyUDIDeviceIdentifier`.
  case udiDeviceIdentifier = 7

  /// The reserved metadata key that carries the property of a sample's `HKDevice` (HealthKitSim stores the
  /// device an app passes to an initializer as metadata, hidden from the app's `metadata`).
  package var metadataKey: String { MetadataKey.devicePrefix + name }

  /// The property's name (`model`).
  package var name: String {
    switch self {
    case .name: "name"
    case .manufacturer: "manufacturer"
    case .model: "model"
    case .hardwareVersion: "hardwareVersion"
    case .firmwareVersion: "firmwareVersion"
    case .softwareVersion: "softwareVersion"
    case .localIdentifier: "localIdentifier"
    case .udiDeviceIdentifier: "UDIDeviceIdentifier"
    }
  }
}

extension DeviceProperty {
  /// The property's key in the device description of an Apple Health export (`hardware` for the hardware version).
  package var exportKey: String {
    switch self {
    case .name: "name"
    case .manufacturer: "manufacturer"
    case .model: "model"
    case .hardwareVersion: "hardware"
    case .firmwareVersion: "firmware"
    case .softwareVersion: "software"
    case .localIdentifier: "localIdentifier"
    case .udiDeviceIdentifier: "UDIDeviceIdentifier"
    }
  }

  /// The property of `sample`'s device: of the device an app gave the sample (its reserved metadata keys), else of
  /// the device an imported Apple Health export described for the sample's source (docs/behavior.md I3).
  package func value(of sample: Sample) -> String? { value(metadata: sample.metadata, source: sample.source) }

  /// The property of the device of an object with this metadata and source (a sample, a workout), as
  /// ``value(of:)`` reads it.
  package func value(metadata: Metadata, source: SampleSource) -> String? {
    if case .string(let value)? = metadata[metadataKey] { return value }
    guard let hardware = source.details?.hardware,
      !metadata.keys.contains(where: { $0.hasPrefix(MetadataKey.devicePrefix) })
    else { return nil }
    return hardware[exportKey]
  }
}

extension MetadataKey {
  /// The prefix of the reserved keys that carry a sample's `HKDevice` (one key per property).
  package static let devicePrefix = "_HealthPair.device."
}

/// A condition on one metadata key.
package enum MetadataCondition: Hashable, Sendable {
  /// The key is present (`predicateForObjects(withMetadataKey:)`).
  case exists
  /// The value equals one of these (`predicateForObjects(withMetadataKey:allowedValues:)`).
  case oneOf([MetadataValue])
  /// The value compares with this one (`predicateForObjects(withMetadataKey:operatorType:value:)`).
  case compare(ComparisonOperator, MetadataValue)
}

extension SampleFilter {
  /// The sign of x − y; values converted between units count as equal within a relative 1e-12 (0.5 L is 500 mL
  /// even though the conversion leaves 500.00000000000006).
  static func sign(_ x: Double, _ y: Double, converted: Bool) -> Int {
    if converted, abs(x - y) <= 1e-12 * max(abs(x), abs(y)) { return 0 }
    return x < y ? -1 : x > y ? 1 : 0
  }
}

extension MetadataCondition {
  /// Whether a metadata value (nil: the key is missing) satisfies the condition. As NSPredicate compares
  /// (behavior.md Q9): a missing key is nil, which equals nothing, so only `!=` holds — `metadata.%K != YES` keeps
  /// the objects that lack the key, as the "exclude manual entries" idiom needs.
  package func holds(for value: MetadataValue?) -> Bool {
    guard let value else {
      if case .compare(.notEqualTo, _) = self { return true }
      return false
    }
    switch self {
    case .exists: return true
    case .oneOf(let allowed): return allowed.contains { SampleFilter.order(value, $0) == 0 }
    case .compare(.notEqualTo, let other): return SampleFilter.order(value, other) != 0
    case .compare(let op, let other): return SampleFilter.order(value, other).map(op.holds) ?? false
    }
  }
}

/// Which of a sample's dates a ``SampleFilter/date(_:_:_:)`` condition reads.
package enum SampleDateField: UInt8, Sendable, Hashable, CaseIterable {
  /// `startDate`.
  case start = 0
  /// `endDate`.
  case end = 1
}

/// A predicate on samples beyond a date range and sources, evaluated sample by sample: UUIDs, metadata, device
/// properties, values, and their boolean combinations (`HKQuery`'s predicate factories, combined with
/// `NSCompoundPredicate`).
package indirect enum SampleFilter: Hashable, Sendable {
  /// Always true (`NSPredicate(value: true)`) or always false.
  case constant(Bool)
  /// All must hold.
  case and([SampleFilter])
  /// One must hold.
  case or([SampleFilter])
  /// Must not hold.
  case not(SampleFilter)
  /// The sample's interval matches the range.
  case dates(DateRange)
  /// Saved by one of these apps.
  case sources(Set<String>)
  /// One of these identifiers (`predicateForObject(with:)`, `predicateForObjects(with:)`).
  case uuids(Set<UUID>)
  /// A metadata condition.
  case metadata(key: String, MetadataCondition)
  /// The sample's device has this property with one of these values.
  case device(DeviceProperty, Set<String>)
  /// The sample's value (a quantity in the type's canonical unit, or a category value) compares with this one
  /// (`predicateForQuantitySamples(with:quantity:)`, `predicateForCategorySamples(with:value:)`).
  case value(ComparisonOperator, Double)
  /// The sample's quantity compares with this quantity, converted to the type's canonical unit
  /// (`predicateForQuantitySamples(with:quantity:)`); another dimension matches nothing.
  case quantity(ComparisonOperator, Double, unit: String)
  /// The sample's start or end date compares with this instant (seconds since 2001-01-01): a format predicate such as
  /// `startDate > %@` that no ``DateRange`` expresses.
  case date(SampleDateField, ComparisonOperator, Double)
  /// The object is not one of a correlation's members (`predicateForObjectsWithNoCorrelation()`). Only the store
  /// knows the members: ``resolvingCorrelations(members:)`` turns this into the identifiers it excludes before a
  /// query runs (behavior.md T11). Left unresolved it lets every object through.
  case notInCorrelation
  /// The workout's activity type is one of these raw values (`predicateForWorkouts(with:)`, key path
  /// `workoutActivityType`). Workout-only: a plain sample never matches.
  case workoutActivityType(Set<UInt>)
  /// The workout's (or activity's) duration in seconds compares with this one (`predicateForWorkouts(with:duration:)`).
  /// Workout-only.
  case workoutDuration(ComparisonOperator, Double)
  /// The workout's (or activity's) statistic of a quantity type, in the type's canonical unit, compares with this
  /// value (iOS 16's `predicateForWorkouts(withSumQuantity:…)`/minimum/maximum/average forms and the deprecated
  /// `totalEnergyBurned`/`totalDistance`/… forms). A workout without that statistic does not match. Workout-only.
  case workoutStatistic(SampleType, WorkoutStatisticKind, ComparisonOperator, Double)
  /// Some activity of the workout satisfies the inner filter (`predicateForWorkouts(activityPredicate:)`); the inner
  /// cases that apply to an activity are activity type, duration, dates, statistics, identifiers and metadata.
  /// Workout-only.
  case workoutActivity(SampleFilter)
  /// The samples associated with this workout (`predicateForObjects(from: workout)`). Only the store knows the
  /// association: ``resolvingAssociations(_:)`` turns this into the identifiers before a query runs. Left
  /// unresolved it matches nothing.
  case associatedWith(UUID)
  /// The electrocardiogram's classification or symptoms status is one of these raw values
  /// (`predicateForElectrocardiograms(classification:)`, `…(symptomsStatus:)`). Electrocardiogram-only.
  case electrocardiogram(ECGProperty, Set<Int>)
  /// The State of Mind's valence compares with this value (`predicateForStatesOfMind(withValence:operatorType:)`).
  /// State-of-Mind-only.
  case stateOfMindValence(ComparisonOperator, Double)
  /// The State of Mind's kind is this raw value, or its labels or associations include it
  /// (`predicateForStatesOfMind(with:)`). State-of-Mind-only.
  case stateOfMind(StateOfMindField, Int)
  /// The CDA document's extracted header field equals this text (`NSPredicate(format: "%K == %@",
  /// HKPredicateKeyPathCDATitle, …)`). CDA-document-only.
  case cdaField(CDAField, String)
  /// A medication or dose event condition (`predicateForUserAnnotatedMedications(…)`,
  /// `predicateForMedicationDoseEvent(…)`). Medication- and dose-only.
  case medication(MedicationCondition)
  /// The clinical record's FHIR resource is of this type, with this identifier when one is given
  /// (`predicateForClinicalRecords(withFHIRResourceType:)`, `…(from:FHIRResourceType:identifier:)`). Clinical-only.
  case fhirResource(String, identifier: String?)

  /// The filter with ``notInCorrelation`` replaced by "not one of `members`" (the identifiers of every correlation's
  /// members in the store); `members` is asked for only when the filter holds that case.
  package func resolvingCorrelations(members: () -> Set<UUID>) -> SampleFilter {
    guard mentionsCorrelations else { return self }
    let excluded = SampleFilter.not(.uuids(members()))
    func resolve(_ f: SampleFilter) -> SampleFilter {
      switch f {
      case .notInCorrelation: excluded
      case .and(let parts): .and(parts.map(resolve))
      case .or(let parts): .or(parts.map(resolve))
      case .not(let part): .not(resolve(part))
      default: f
      }
    }
    return resolve(self)
  }

  /// Whether the filter holds ``notInCorrelation`` anywhere.
  package var mentionsCorrelations: Bool {
    switch self {
    case .notInCorrelation: true
    case .and(let parts), .or(let parts): parts.contains { $0.mentionsCorrelations }
    case .not(let part): part.mentionsCorrelations
    default: false
    }
  }

  /// Whether `sample` passes the filter.
  package func matches(_ sample: Sample) -> Bool {
    switch self {
    case .constant(let value): return value
    case .notInCorrelation: return true
    case .and(let parts): return parts.allSatisfy { $0.matches(sample) }
    case .or(let parts): return parts.contains { $0.matches(sample) }
    case .not(let part): return !part.matches(sample)
    case .dates(let range):
      return range.matches(
        start: sample.start.timeIntervalSinceReferenceDate, end: sample.end.timeIntervalSinceReferenceDate)
    case .sources(let bundles): return bundles.contains(sample.source.bundleID)
    case .uuids(let uuids): return uuids.contains(sample.uuid)
    case .metadata(let key, let condition): return condition.holds(for: sample.metadata[key])
    case .device(let property, let values):
      guard let value = property.value(of: sample) else { return false }
      return values.contains(value)
    case .value(let op, let other):
      let value: Double =
        switch sample.value {
        case .quantity(let v): v
        case .category(let c): Double(c)
        }
      return op.holds(value < other ? -1 : value > other ? 1 : 0)
    case .quantity(let op, let amount, let unit):
      guard case .quantity(let value) = sample.value, let canonical = sample.type.descriptor.canonicalUnit,
        let from = try? HealthUnit.cached(unit), let other = try? from.convert(amount, to: canonical)
      else { return false }
      return op.holds(Self.sign(value, other, converted: true))
    case .date(let field, let op, let instant):
      let date = (field == .start ? sample.start : sample.end).timeIntervalSinceReferenceDate
      return op.holds(date < instant ? -1 : date > instant ? 1 : 0)
    case .workoutActivityType, .workoutDuration, .workoutStatistic, .workoutActivity, .associatedWith,
      .electrocardiogram, .stateOfMindValence, .stateOfMind, .fhirResource, .cdaField, .medication:
      return false
    }
  }

  /// Whether `tombstone` passes the filter, as far as a deleted object can tell (its identifier and source; dates,
  /// metadata, devices and values are gone, so those conditions let it through).
  package func matches(_ tombstone: Tombstone) -> Bool {
    switch self {
    case .constant(let value): return value
    case .and(let parts): return parts.allSatisfy { $0.matches(tombstone) }
    case .or(let parts): return parts.contains { $0.matches(tombstone) }
    case .not(let part): return part.isDeletionAware ? !part.matches(tombstone) : true
    case .sources(let bundles): return bundles.contains(tombstone.source.bundleID)
    case .uuids(let uuids): return uuids.contains(tombstone.uuid)
    case .dates, .date, .metadata, .device, .value, .quantity, .notInCorrelation: return true
    case .workoutActivityType, .workoutDuration, .workoutStatistic, .workoutActivity, .associatedWith,
      .electrocardiogram, .stateOfMindValence, .stateOfMind, .fhirResource, .cdaField, .medication:
      return true
    }
  }

  /// Whether a deleted object can be checked against the filter (identifiers and sources only).
  private var isDeletionAware: Bool {
    switch self {
    case .constant, .sources, .uuids: true
    case .and(let parts), .or(let parts): parts.allSatisfy(\.isDeletionAware)
    case .not(let part): part.isDeletionAware
    case .dates, .date, .metadata, .device, .value, .quantity, .notInCorrelation: false
    case .workoutActivityType, .workoutDuration, .workoutStatistic, .workoutActivity, .associatedWith,
      .electrocardiogram, .stateOfMindValence, .stateOfMind, .fhirResource, .cdaField, .medication:
      false
    }
  }

  /// The order of two metadata values: numbers (Booleans as 0 and 1) numerically, strings and dates in order,
  /// quantities once converted to the same unit. Nil when they cannot be compared (a string and a number,
  /// quantities of different dimensions), which matches nothing — as `NSPredicate` comparing mismatched classes.
  package static func order(_ a: MetadataValue, _ b: MetadataValue) -> Int? {
    func sign(_ x: Double, _ y: Double, converted: Bool = false) -> Int { Self.sign(x, y, converted: converted) }
    func number(_ v: MetadataValue) -> Double? {
      switch v {
      case .bool(let b): b ? 1 : 0
      case .int(let i): Double(i)
      case .double(let d): d
      default: nil
      }
    }
    switch (a, b) {
    case (.string(let x), .string(let y)): return x < y ? -1 : x > y ? 1 : 0
    case (.date(let x), .date(let y)): return sign(x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
    case (.quantity(let x, let xu), .quantity(let y, let yu)):
      guard let ux = try? HealthUnit.cached(xu), let uy = try? HealthUnit.cached(yu),
        let converted = try? ux.convert(x, to: uy)
      else { return nil }
      return sign(converted, y, converted: true)
    default:
      guard let x = number(a), let y = number(b) else { return nil }
      return sign(x, y)
    }
  }
}
