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
    make(sample, kind: TypeObjects(sample.type), source: HKSourceRevision(sample.source))
  }

  /// The HealthKitSim objects for stored samples, in order — what a query hands its app. Samples of one type share
  /// its type object and unit, and samples of one source its source revision (all immutable, equal to what
  /// ``make(_:)-swift.type.method`` builds), so a day of one app's samples builds those once, not once per sample.
  package static func make(_ samples: [Sample]) -> [HKSample] {
    var kinds: [(type: SampleType, objects: TypeObjects)] = []
    var sources: [(source: SampleSource, revision: HKSourceRevision)] = []
    var result: [HKSample] = []
    result.reserveCapacity(samples.count)
    for sample in samples {
      let kind: TypeObjects
      if let known = kinds.first(where: { $0.type == sample.type }) {
        kind = known.objects
      } else {
        kind = TypeObjects(sample.type)
        kinds.append((sample.type, kind))
      }
      let revision: HKSourceRevision
      // A linear search: a query's results come from a handful of sources (a cap keeps a pathological mix linear).
      if let known = sources.first(where: { $0.source == sample.source }) {
        revision = known.revision
      } else {
        revision = HKSourceRevision(sample.source)
        if sources.count < 32 { sources.append((sample.source, revision)) }
      }
      result.append(make(sample, kind: kind, source: revision))
    }
    return result
  }

  /// A catalog type's HealthKitSim type object and, for a quantity type, its canonical unit.
  struct TypeObjects {
    let type: HKSampleType
    let unit: HKUnit?

    init(_ type: SampleType) {
      self.type = HKObjectType.make(type)
      unit = (self.type as? HKQuantityType).map { $0.canonicalUnit ?? .count() }
    }
  }

  private static func make(_ sample: Sample, kind: TypeObjects, source: HKSourceRevision) -> HKSample {
    switch sample.value {
    case .quantity(let value):
      return HKQuantitySample(
        uuid: sample.uuid, type: kind.type as! HKQuantityType,
        quantity: HKQuantity(unit: kind.unit ?? .count(), doubleValue: value), start: sample.start, end: sample.end,
        metadata: .valid(sample.metadata), source: source)
    case .category(let value):
      return HKCategorySample(
        uuid: sample.uuid, type: kind.type as! HKCategoryType, value: value, start: sample.start, end: sample.end,
        metadata: .valid(sample.metadata), source: source)
    }
  }

}
