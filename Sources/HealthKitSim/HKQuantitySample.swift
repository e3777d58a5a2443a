import Foundation
import HealthModel

/// A quantity over a time interval: `HKQuantitySample(type: waterType, quantity: …, start: date, end: date)`.
///
/// Construction never fails, as in HealthKit's signatures; an invalid sample (a unit incompatible with the type,
/// an end before the start) makes the `save` that uses it fail with ``HKSimulatedTermination``, where a device
/// would have terminated the app at construction.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKQuantitySample: HKSample, @unchecked Sendable {
  /// The quantity, in the unit it was created with (query results use the type's canonical unit).
  public let quantity: HKQuantity
  /// The quantity type.
  public let quantityType: HKQuantityType

  /// Creates a sample with a new UUID.
  public init(
    type: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date,
    metadata: [String: Any]? = nil
  ) {
    self.quantity = quantity
    self.quantityType = type
    super.init(
      uuid: UUID(), type: type, start: startDate, end: endDate, metadata: MetadataPayload(metadata),
      source: HKSample.unsavedSource)
  }

  /// Creates a sample with a new UUID, recorded by `device` (kept with the sample: ``HKObject/device``).
  public init(
    type: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date, device: HKDevice?,
    metadata: [String: Any]?
  ) {
    self.quantity = quantity
    self.quantityType = type
    super.init(
      uuid: UUID(), type: type, start: startDate, end: endDate,
      metadata: MetadataPayload(metadata).adding(device), source: HKSample.unsavedSource)
  }

  init(
    uuid: UUID, type: HKQuantityType, quantity: HKQuantity, start: Date, end: Date, metadata: MetadataPayload,
    source: HKSourceRevision
  ) {
    self.quantity = quantity
    self.quantityType = type
    super.init(uuid: uuid, type: type, start: start, end: end, metadata: metadata, source: source)
  }

  /// The number of quantities the sample aggregates; always 1 in HealthKitSim.
  public var count: Int { 1 }

  override var valueDescription: String? { quantity.description }

  /// The sample as the daemon's `save` takes it; the daemon converts the quantity to the canonical unit.
  override package func sampleInput(api: String) throws -> SampleInput {
    SampleInput(
      uuid: uuid, type: try quantityType.simulatedType(),
      value: .quantity(quantity.value, unit: quantity.unit.unitString), start: startDate, end: endDate,
      metadata: try metadataPayload.checked(api: api))
  }
}
