import Foundation
import HealthModel
import Synchronization

/// A quantity over a time interval: `HKQuantitySample(type: waterType, quantity: …, start: date, end: date)`.
///
/// Construction never fails, as in HealthKit's signatures; an invalid sample (a unit incompatible with the type,
/// an end before the start) makes the `save` that uses it fail with ``HKSimulatedTermination``, where a device
/// would have terminated the app at construction.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKQuantitySample: HKSample, @unchecked Sendable {
  /// The quantity type.
  public let quantityType: HKQuantityType
  /// The quantity's value, in ``unit``.
  private let value: Double
  /// The quantity's unit.
  private let unit: HKUnit
  /// The ``quantity`` object once made: given to the initializer, or made on first use for a sample a query
  /// returned (most callers of a query read a few samples' quantities, or none; a 100-sample reply made 100 objects
  /// more than it needed — docs/performance.md, metric 9d). Made once: every read returns the same object.
  private let madeQuantity = AtomicLazyReference<HKQuantity>()

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
    self.quantityType = type
    self.value = quantity.value
    self.unit = quantity.unit
    _ = madeQuantity.storeIfNil(quantity)
    super.init(
      uuid: .fresh(), type: type, start: startDate, end: endDate, metadata: MetadataPayload(metadata),
      source: HKSample.unsavedSource)
  }

  /// Creates a sample with a new UUID, recorded by `device` (kept with the sample: ``HKObject/device``).
  public init(
    type: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date, device: HKDevice?,
    metadata: [String: Any]?
  ) {
    self.quantityType = type
    self.value = quantity.value
    self.unit = quantity.unit
    _ = madeQuantity.storeIfNil(quantity)
    super.init(
      uuid: .fresh(), type: type, start: startDate, end: endDate,
      metadata: MetadataPayload(metadata).adding(device), source: HKSample.unsavedSource)
  }

  /// A stored sample of `value` in `unit`; its ``quantity`` object is made when first read.
  init(
    uuid: UUID, type: HKQuantityType, value: Double, unit: HKUnit, start: Date, end: Date, metadata: MetadataPayload,
    source: HKSourceRevision
  ) {
    self.quantityType = type
    self.value = value
    self.unit = unit
    super.init(uuid: uuid, type: type, start: start, end: end, metadata: metadata, source: source)
  }

  /// The number of quantities the sample aggregates; always 1 in HealthKitSim.
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
