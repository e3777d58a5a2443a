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
