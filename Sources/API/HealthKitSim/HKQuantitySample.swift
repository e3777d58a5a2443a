import Foundation
import HealthModel
import Synchronization

/// A quantity over a time interval: `HKQuantitySample(type: waterType, quantity: …, start: date, end: date)`.
///
/// Construction never fails, as in HealthKit's signatures; an invalid sample (a unit incompatible with the type,
/// an end before the start) makes the `save` that uses it fail with ``HKSimulatedTermination``, where a device
/// would have terminated the app at construction.
///
/// A query returns the iOS 13 subclasses: ``HKCumulativeQuantitySample`` for a cumulative type (steps, energy,
/// distance), ``HKDiscreteQuantitySample`` for the others (heart rate, body mass), as a device does; typed code
/// that downcasts them works. Samples an app creates are plain `HKQuantitySample`s.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public class HKQuantitySample: HKSample, @unchecked Sendable {
  /// The quantity's value, in ``unit``.
  private let value: Double
  /// The ``quantity`` object once made: given to the initializer, or made on first use for a sample a query
  /// returned (most callers of a query read a few samples' quantities, or none). Made once: every read returns the
  /// same object.
  private let madeQuantity = AtomicLazyReference<HKQuantity>()

  /// The quantity type.
  public var quantityType: HKQuantityType { unsafeDowncast(origin.type, to: HKQuantityType.self) }

  /// The quantity's unit: the app's, or the type's canonical unit for a sample a query returned.
  private var unit: HKUnit { origin.unit! }

  /// The quantity, in the unit it was created with (query results use the type's canonical unit).
  public var quantity: HKQuantity {
    if let made = madeQuantity.load() { return made }
    return madeQuantity.storeIfNil(HKQuantity(unit: unit, doubleValue: value))
  }

  /// Creates a sample with a new UUID.
  public init(
    type: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date,
    metadata: [String: Any]? = nil
  ) {
    self.value = quantity.value
    _ = madeQuantity.storeIfNil(quantity)
    super.init(
      uuid: .fresh(), start: startDate, end: endDate, metadata: MetadataPayload(metadata),
      origin: HKSample.unsavedOrigin(type, unit: quantity.unit))
  }

  /// Creates a sample with a new UUID, recorded by `device` (kept with the sample: ``HKObject/device``).
  public init(
    type: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date, device: HKDevice?,
    metadata: [String: Any]?
  ) {
    self.value = quantity.value
    _ = madeQuantity.storeIfNil(quantity)
    super.init(
      uuid: .fresh(), start: startDate, end: endDate, metadata: MetadataPayload(metadata).adding(device),
      origin: HKSample.unsavedOrigin(type, unit: quantity.unit))
  }

  /// A stored sample of `value` in its origin's unit (an origin of an `HKQuantityType` with a unit); its
  /// ``quantity`` object is made when first read.
  init(uuid: UUID, value: Double, start: Date, end: Date, metadata: MetadataPayload, origin: SampleOrigin) {
    assert(origin.holdsQuantities, "a quantity sample's origin")
    self.value = value
    super.init(uuid: uuid, start: start, end: end, metadata: metadata, origin: origin)
  }

  /// The number of quantities the sample aggregates: always 1 in HealthKitSim, which stores no condensed series
  /// (HealthPair model; on a device, condensed workout samples have `count > 1`, workouts.md §1.7).
  public var count: Int { 1 }

  override var valueDescription: String? { "\(formatNumber(value)) \(unit.unitString)" }

  /// The sample as the daemon's `save` takes it; the daemon converts the quantity to the canonical unit.
  override package func sampleInput(api: String) throws -> SampleInput {
    SampleInput(
      uuid: uuid, type: try quantityType.simulatedType(),
      value: .quantity(value, unit: unit.unitString), start: startDate, end: endDate,
      metadata: try metadataPayload.checked(api: api))
  }
}

/// A quantity sample of a cumulative type (iOS 13 / watchOS 6): what queries of steps, energy or distance return.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKCumulativeQuantitySample: HKQuantitySample, @unchecked Sendable {
  /// The sum of the sample's quantities: its ``HKQuantitySample/quantity`` (HealthKitSim's samples hold one).
  public var sumQuantity: HKQuantity { quantity }
}

/// A quantity sample of a discrete type (iOS 13 / watchOS 6): what queries of heart rate or body mass return.
///
/// HealthKitSim's samples hold one quantity (``HKQuantitySample/count`` is 1), so the minimum, maximum, average and
/// most recent quantities are that quantity, and the most recent one covers the sample's interval.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKDiscreteQuantitySample: HKQuantitySample, @unchecked Sendable {
  /// The smallest quantity.
  public var minimumQuantity: HKQuantity { quantity }
  /// The largest quantity.
  public var maximumQuantity: HKQuantity { quantity }
  /// The average quantity.
  public var averageQuantity: HKQuantity { quantity }
  /// The most recent quantity.
  public var mostRecentQuantity: HKQuantity { quantity }
  /// The interval of the most recent quantity: the sample's.
  public var mostRecentQuantityDateInterval: DateInterval {
    DateInterval(start: startDate, end: max(startDate, endDate))
  }
}
