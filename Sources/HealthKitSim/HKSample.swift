import Foundation
import HealthModel
import Synchronization

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
    var maker = Maker()
    return maker.make(sample)
  }

  /// The HealthKitSim objects for a query's samples, in order. The samples of one reply share a few types and
  /// sources: each type object, canonical unit and source revision is made once and shared by the samples that
  /// have it (immutable objects, as HealthKit's are), instead of once per sample.
  package static func make(_ samples: [Sample]) -> [HKSample] {
    var maker = Maker()
    var objects: [HKSample] = []
    objects.reserveCapacity(samples.count)
    // Each sample is read in place (borrowed), not copied out of the array and destroyed again as `for sample in`
    // would: a copy retains and releases every string and the metadata of the sample.
    samples.withUnsafeBufferPointer { buffer in
      guard let first = buffer.baseAddress else { return }
      for index in buffer.indices { objects.append(maker.make(at: first + index)) }
    }
    return objects
  }

  /// Makes sample objects, remembering the last type and the last few sources it made objects for.
  struct Maker {
    private var lastType: (code: UInt16, type: HKSampleType, quantityType: HKQuantityType?, unit: HKUnit?)?
    private var sources: [(source: SampleSource, revision: HKSourceRevision)] = []

    mutating func make(_ sample: Sample) -> HKSample {
      withUnsafePointer(to: sample) { make(at: $0) }
    }

    /// The object for the sample at `sample`, whose fields are read in place: a `Sample` passed by value was copied
    /// whole (every string and the metadata retained, then released) through its value witness, per sample.
    mutating func make(at sample: UnsafePointer<Sample>) -> HKSample {
      let type = objectType(sample.pointee.type)
      let source = revision(sample.pointee.source)
      switch sample.pointee.value {
      case .quantity(let value):
        return HKQuantitySample(
          uuid: sample.pointee.uuid, type: type.quantityType!, value: value, unit: type.unit ?? .count(),
          start: sample.pointee.start, end: sample.pointee.end, metadata: .valid(sample.pointee.metadata),
          source: source)
      case .category(let value):
        return HKCategorySample(
          uuid: sample.pointee.uuid, type: type.object as! HKCategoryType, value: value, start: sample.pointee.start,
          end: sample.pointee.end, metadata: .valid(sample.pointee.metadata), source: source)
      }
    }

    /// The type object of the last type made (cast once to `HKQuantityType` for a quantity type, not per sample).
    private mutating func objectType(
      _ type: SampleType
    ) -> (object: HKSampleType, quantityType: HKQuantityType?, unit: HKUnit?) {
      if let last = lastType, last.code == type.code { return (last.type, last.quantityType, last.unit) }
      let (object, unit) = Self.typeObjects(type)
      let quantityType = object as? HKQuantityType
      lastType = (type.code, object, quantityType, unit)
      return (object, quantityType, unit)
    }

    /// Type objects and canonical units made so far, by type code: immutable, so every query shares them (as
    /// HealthKit's type objects are shared). Making them is most of what a query's first sample cost — the type
    /// looked up by name, the canonical unit's string built and parsed (docs/performance.md, metric 9d).
    private static let made = Mutex<[UInt16: (type: HKSampleType, unit: HKUnit?)]>([:])

    /// The type object and canonical unit (nil for a category type) of `type`, made once per process.
    private static func typeObjects(_ type: SampleType) -> (HKSampleType, HKUnit?) {
      if let known = made.withLock({ $0[type.code] }) { return known }
      let object = HKObjectType.make(type)
      let unit = (object as? HKQuantityType)?.canonicalUnit
      made.withLock { $0[type.code] = (object, unit) }
      return (object, unit)
    }

    private mutating func revision(_ source: SampleSource) -> HKSourceRevision {
      // Samples decoded from one reply share their source's storage, so this comparison is mostly of pointers.
      for index in sources.indices where sources[index].source == source { return sources[index].revision }
      let revision = HKSourceRevision(source)
      if sources.count == 8 { sources.removeFirst() }
      sources.append((source, revision))
      return revision
    }
  }
}
