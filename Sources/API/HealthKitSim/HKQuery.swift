import Foundation
import HealthEngine
import HealthModel

/// "No limit" for a query's `limit` (0).
public let HKObjectQueryNoLimit = 0

/// The base of every query: the type it reads and its predicate. Run one with ``HKHealthStore/execute(_:)`` and end
/// it with ``HKHealthStore/stop(_:)``.
///
/// A query runs once: executing it again is reported to ``HealthKitSim/terminationHandler`` (a device raises an
/// exception) and ignored. Its handlers run on a serial background queue of the query's own, one at a time; after
/// `stop(_:)` returns, no handler of the query is called again (a handler running on another thread is waited for;
/// a handler may stop its own query).
///
/// Declared `@unchecked Sendable`: the query's public properties are immutable, and its run state lives in a
/// lock-protected ``QueryRun``.
public class HKQuery: NSObject, @unchecked Sendable {
  /// The type the query reads.
  public let objectType: HKObjectType?
  /// The predicate, as given.
  public let predicate: NSPredicate?
  /// The predicate decomposed into what the daemon filters on (or why it cannot be).
  let filter: Result<QueryFilter, any Error>
  /// The query's execution state and handler gate.
  let run = QueryRun()

  init(objectType: HKObjectType?, predicate: NSPredicate?) {
    self.objectType = objectType
    self.predicate = predicate
    self.filter = QueryFilter.decompose(predicate)
    super.init()
  }

  /// The sample type the query reads.
  public var sampleType: HKSampleType? { objectType as? HKSampleType }

  /// Starts the query against `session`; called once by `execute(_:)` on the caller's thread. Subclasses register
  /// what must be in place before `execute` returns, then do the rest on ``QueryRun/queue``.
  func start(_ session: Session) {}

  /// Reports a failure to start (no target, daemon unreachable) through the query's handler.
  func fail(_ error: any Error) {}

  // MARK: - Predicates

  /// Samples whose interval matches `startDate`…`endDate`: by default `endDate >= start AND startDate < end`;
  /// `.strictStartDate` requires `startDate >= start`, `.strictEndDate` requires `endDate <= end`.
  public static func predicateForSamples(withStart startDate: Date?, end endDate: Date?, options: HKQueryOptions = [])
    -> NSPredicate
  {
    HealthKitSimPredicate(
      .dates(DateRange(start: startDate, end: endDate, options: QueryOptions(rawValue: UInt32(options.rawValue)))))
  }

  /// Objects saved by `source`.
  public static func predicateForObjects(from source: HKSource) -> NSPredicate {
    predicateForObjects(from: [source])
  }

  /// Objects saved by any of `sources`.
  public static func predicateForObjects(from sources: Set<HKSource>) -> NSPredicate {
    HealthKitSimPredicate(.sources(Set(sources.map(\.bundleIdentifier))))
  }

  /// Objects saved by any of these source revisions (HealthKitSim matches their apps: it keeps no versions).
  public static func predicateForObjects(from sourceRevisions: Set<HKSourceRevision>) -> NSPredicate {
    HealthKitSimPredicate(.sources(Set(sourceRevisions.map(\.source.bundleIdentifier))))
  }

  /// The object with this UUID.
  public static func predicateForObject(with uuid: UUID) -> NSPredicate {
    HealthKitSimPredicate(.uuids([uuid]))
  }

  /// The objects with these UUIDs.
  public static func predicateForObjects(with uuids: Set<UUID>) -> NSPredicate {
    HealthKitSimPredicate(.uuids(uuids))
  }

  /// Objects whose metadata has `key`.
  public static func predicateForObjects(withMetadataKey key: String) -> NSPredicate {
    HealthKitSimPredicate(.metadata(key: key, .exists))
  }

  /// Objects whose metadata value for `key` is one of `allowedValues` (strings, numbers, dates, quantities; a
  /// value of another class matches nothing).
  public static func predicateForObjects(withMetadataKey key: String, allowedValues: [Any]) -> NSPredicate {
    HealthKitSimPredicate(.metadata(key: key, .oneOf(allowedValues.compactMap(MetadataPayload.value))))
  }

  /// Objects whose metadata value for `key` compares with `value` by `operatorType` (`.greaterThan`, …): numbers
  /// numerically (Booleans as 0 and 1), strings and dates in order, quantities in a common unit; values that
  /// cannot be compared match nothing. Operators other than the six comparisons match nothing either.
  public static func predicateForObjects(
    withMetadataKey key: String, operatorType: HKComparisonOperator, value: Any
  ) -> NSPredicate {
    guard let op = ComparisonOperator(appleRawValue: operatorType.rawValue),
      let converted = MetadataPayload.value(value)
    else {
      return HealthKitSimPredicate(.constant(false))
    }
    return HealthKitSimPredicate(.metadata(key: key, .compare(op, converted)))
  }

  /// Objects recorded by a device whose property `key` (`HKDevicePropertyKeyModel`, …) is one of `allowedValues`.
  /// An unknown key matches nothing.
  public static func predicateForObjects(withDeviceProperty key: String, allowedValues: Set<String>) -> NSPredicate {
    guard let property = DeviceProperty(key: key) else { return HealthKitSimPredicate(.constant(false)) }
    return HealthKitSimPredicate(.device(property, allowedValues))
  }

  /// Objects recorded by one of these devices (every property the device sets must match).
  public static func predicateForObjects(from devices: Set<HKDevice>) -> NSPredicate {
    let alternatives = devices.map { device -> SampleFilter in
      .and(device.properties.map { property, value in .device(property, [value]) })
    }
    return HealthKitSimPredicate(.or(alternatives))
  }

  /// Quantity samples whose quantity compares with `quantity` by `operatorType` (compared in the type's canonical
  /// unit; a quantity of another dimension matches nothing).
  public static func predicateForQuantitySamples(
    with operatorType: HKComparisonOperator, quantity: HKQuantity
  ) -> NSPredicate {
    guard let op = ComparisonOperator(appleRawValue: operatorType.rawValue), quantity.unit.parsed != nil else {
      return HealthKitSimPredicate(.constant(false))
    }
    return HealthKitSimPredicate(.quantity(op, quantity.value, unit: quantity.unit.unitString))
  }

  /// Category samples whose value compares with `value` by `operatorType`.
  public static func predicateForCategorySamples(
    with operatorType: HKComparisonOperator, value: Int
  ) -> NSPredicate {
    guard let op = ComparisonOperator(appleRawValue: operatorType.rawValue) else {
      return HealthKitSimPredicate(.constant(false))
    }
    return HealthKitSimPredicate(.value(op, Double(value)))
  }

  /// Objects that are not members of a correlation (docs/behavior.md T11): a sample query or a statistics query of
  /// a blood-pressure or dietary type then leaves out the samples a correlation groups. An anchored query does not
  /// apply it (its changes are filtered in this process, which does not know the members).
  public static func predicateForObjectsWithNoCorrelation() -> NSPredicate {
    HealthKitSimPredicate(.notInCorrelation)
  }

  /// Category samples with this value.
  public static func predicateForCategorySamples(equalTo value: Int) -> NSPredicate {
    HealthKitSimPredicate(.value(.equalTo, Double(value)))
  }

  /// Category samples whose value is one of `values`.
  public static func predicateForCategorySamples(valueIn values: Set<Int>) -> NSPredicate {
    HealthKitSimPredicate(.or(values.sorted().map { .value(.equalTo, Double($0)) }))
  }
}

extension ComparisonOperator {
  /// The comparison an `NSComparisonPredicate.Operator` raw value names (Apple's values: `lessThan` 0 …
  /// `notEqualTo` 5), or nil for the others (`matches`, `like`, `contains`, …).
  init?(appleRawValue raw: UInt) {
    switch raw {
    case 0: self = .lessThan
    case 1: self = .lessThanOrEqualTo
    case 2: self = .greaterThan
    case 3: self = .greaterThanOrEqualTo
    case 4: self = .equalTo
    case 5: self = .notEqualTo
    default: return nil
    }
  }
}

/// A sample type and predicate for queries that take several (`HKObserverQuery(queryDescriptors:…)`,
/// `HKAnchoredObjectQuery(queryDescriptors:…)`).
///
/// `@unchecked Sendable`: immutable — every stored property is a `let` of a value never mutated (an `NSObject`
/// subclass cannot be checked by the compiler).
public final class HKQueryDescriptor: NSObject, @unchecked Sendable {
  /// The sample type.
  public let sampleType: HKSampleType
  /// The predicate, if any.
  public let predicate: NSPredicate?

  /// Creates a descriptor.
  public init(sampleType: HKSampleType, predicate: NSPredicate?) {
    self.sampleType = sampleType
    self.predicate = predicate
    super.init()
  }
}
