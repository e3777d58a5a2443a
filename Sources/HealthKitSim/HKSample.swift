import Foundation
import HealthModel

/// An object with a type and a time interval: the base of quantity and category samples.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
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

  /// What HealthKit prints for a sample: its value (subclasses), UUID, source, device kind and interval
  /// (`250 mL 5A0C… "com.example.water" (nil), "iPhone" (2026-01-05 08:00:00 +0000 - 2026-01-05 08:00:00 +0000)`).
  public override var description: String {
    let source = sourceRevision
    let value = valueDescription.map { $0 + " " } ?? ""
    return "\(value)\(uuid.uuidString) \"\(source.source.name)\" (\(source.version ?? "nil")), "
      + "\"\(source.productType ?? "unsaved")\" (\(HKSample.print(startDate)) - \(HKSample.print(endDate)))"
  }

  /// The value part of ``description`` (`250 mL`, `1`), if any.
  var valueDescription: String? { nil }

  private static func print(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
    return formatter.string(from: date)
  }

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
