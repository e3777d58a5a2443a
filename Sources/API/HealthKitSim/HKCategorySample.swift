import Foundation
import HealthModel

/// A category value over a time interval: `HKCategorySample(type: mindfulType, value: 0, start: s, end: e)`.
///
/// Construction never fails, as in HealthKit's signatures; an invalid sample (a value the type does not define, an
/// end before the start, missing required metadata) makes the `save` that uses it fail with
/// ``HKSimulatedTermination``, where a device would have terminated the app at construction.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKCategorySample: HKSample, @unchecked Sendable {
  /// The category value (`HKCategoryValue.notApplicable.rawValue` for mindful sessions).
  public let value: Int

  /// The category type.
  public var categoryType: HKCategoryType { unsafeDowncast(origin.type, to: HKCategoryType.self) }

  /// Creates a sample with a new UUID.
  public init(
    type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date, metadata: [String: Any]? = nil
  ) {
    self.value = value
    super.init(
      uuid: .fresh(), start: startDate, end: endDate, metadata: MetadataPayload(metadata),
      origin: HKSample.unsavedOrigin(type))
  }

  /// Creates a sample with a new UUID, recorded by `device` (kept with the sample: ``HKObject/device``).
  public init(
    type: HKCategoryType, value: Int, start startDate: Date, end endDate: Date, device: HKDevice?,
    metadata: [String: Any]?
  ) {
    self.value = value
    super.init(
      uuid: .fresh(), start: startDate, end: endDate, metadata: MetadataPayload(metadata).adding(device),
      origin: HKSample.unsavedOrigin(type))
  }

  override var valueDescription: String? { String(value) }

  /// A stored sample (an origin of an `HKCategoryType`).
  init(uuid: UUID, value: Int, start: Date, end: Date, metadata: MetadataPayload, origin: SampleOrigin) {
    assert(origin.holdsCategories, "a category sample's origin")
    self.value = value
    super.init(uuid: uuid, start: start, end: end, metadata: metadata, origin: origin)
  }

  /// The sample as the daemon's `save` takes it.
  override package func sampleInput(api: String) throws -> SampleInput {
    SampleInput(
      uuid: uuid, type: try categoryType.simulatedType(), value: .category(value), start: startDate, end: endDate,
      metadata: try metadataPayload.checked(api: api))
  }
}
