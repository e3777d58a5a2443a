import Foundation
import HealthModel

/// An object with a type and a time interval: the base of quantity and category samples.
public class HKSample: HKObject, @unchecked Sendable {
  /// The sample's type.
  public let sampleType: HKSampleType
  /// The start of the interval.
  public let startDate: Date
  /// The end of the interval (equal to the start for an instantaneous sample).
  public let endDate: Date

  init(uuid: UUID, type: HKSampleType, start: Date, end: Date, metadata: MetadataPayload, source: HKSourceRevision) {
    self.sampleType = type
    self.startDate = start
    self.endDate = end
    super.init(uuid: uuid, metadata: metadata, sourceRevision: source)
  }

  /// Whether the sample has an open end; always false in HealthKitSim.
  public var hasUndeterminedDuration: Bool { false }

  /// The sort-key marker for an `NSSortDescriptor` key HealthKitSim does not know (a query using it fails).
  var unsupportedSortKey: Date { startDate }

  /// The source revision of an object created by the calling app and not yet saved.
  static var unsavedSource: HKSourceRevision {
    HKSourceRevision(source: .default(), version: nil, productType: nil)
  }

  /// The HealthKitSim object for a stored sample: an `HKQuantitySample` in the type's canonical unit, or an
  /// `HKCategorySample`.
  package static func make(_ sample: Sample) -> HKSample {
    let type = HKObjectType.make(sample.type)
    let source = HKSourceRevision(sample.source)
    switch sample.value {
    case .quantity(let value):
      let quantityType = type as! HKQuantityType
      let unit = quantityType.canonicalUnit ?? .count()
      return HKQuantitySample(
        uuid: sample.uuid, type: quantityType, quantity: HKQuantity(unit: unit, doubleValue: value),
        start: sample.start, end: sample.end, metadata: .valid(sample.metadata), source: source)
    case .category(let value):
      return HKCategorySample(
        uuid: sample.uuid, type: type as! HKCategoryType, value: value, start: sample.start, end: sample.end,
        metadata: .valid(sample.metadata), source: source)
    }
  }
}
