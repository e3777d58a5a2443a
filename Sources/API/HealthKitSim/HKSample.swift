import Foundation
import HealthModel
import Synchronization

/// An object with a type and a time interval: the base of quantity and category samples.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public class HKSample: HKObject, @unchecked Sendable {
  /// The start of the interval.
  public let startDate: Date
  /// The end of the interval (equal to the start for an instantaneous sample).
  public let endDate: Date

  init(uuid: UUID, start: Date, end: Date, metadata: MetadataPayload, origin: SampleOrigin) {
    self.startDate = start
    self.endDate = end
    super.init(uuid: uuid, metadata: metadata, origin: origin)
  }

  /// The sample's type.
  public var sampleType: HKSampleType { origin.type }

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

  /// The origin of an object the calling app creates: its type, its unit (a quantity sample's), no saved source.
  static func unsavedOrigin(_ type: HKSampleType, unit: HKUnit? = nil) -> SampleOrigin {
    SampleOrigin(type: type, unit: unit, source: unsavedSource)
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

  /// Makes sample objects, remembering the origins (type and source) of the samples it made objects for.
  struct Maker {
    private var origins: [(code: UInt16, source: SampleSource, origin: SampleOrigin)] = []
    // The origin of the last sample made, with its type code and source, apart so that checking them copies nothing.
    private var lastOrigin: SampleOrigin?
    private var lastCode: UInt16 = 0
    private var lastSource = SampleSource(bundleID: "", device: .phone)
    private var sources: [(source: SampleSource, revision: HKSourceRevision)] = []

    mutating func make(_ sample: Sample) -> HKSample {
      withUnsafePointer(to: sample) { make(at: $0) }
    }

    /// The object for the sample at `sample`, whose fields are read in place: a `Sample` passed by value was copied
    /// whole (every string and the metadata retained, then released) through its value witness, per sample.
    mutating func make(at sample: UnsafePointer<Sample>) -> HKSample {
      let origin = self.origin(at: sample)
      // The value's kind must be the type's (the typed accessors downcast the origin's type); the decoder does not
      // check it, so a reply that broke it stops here, as the casts this replaced did.
      switch sample.pointee.value {
      case .quantity(let value):
        precondition(origin.holdsQuantities, "a quantity value for \(origin.type.identifier), not a quantity type")
        // As on a device (iOS 13), the object is of the subclass for the type's aggregation style.
        if origin.isCumulative {
          return HKCumulativeQuantitySample(
            uuid: sample.pointee.uuid, value: value, start: sample.pointee.start, end: sample.pointee.end,
            metadata: .valid(sample.pointee.metadata), origin: origin)
        }
        return HKDiscreteQuantitySample(
          uuid: sample.pointee.uuid, value: value, start: sample.pointee.start, end: sample.pointee.end,
          metadata: .valid(sample.pointee.metadata), origin: origin)
      case .category(let value):
        precondition(origin.holdsCategories, "a category value for \(origin.type.identifier), not a category type")
        return HKCategorySample(
          uuid: sample.pointee.uuid, value: value, start: sample.pointee.start, end: sample.pointee.end,
          metadata: .valid(sample.pointee.metadata), origin: origin)
      }
    }

    /// The origin shared by the samples of `type` from `source`: the last one made for them, most often (a reply's
    /// samples are mostly of one type and a few sources). One shared object, so making a sample retains one
    /// reference, not the type, unit and revision each.
    private mutating func origin(at sample: UnsafePointer<Sample>) -> SampleOrigin {
      let code = sample.pointee.type.code
      // The samples of one reply share their source's storage (the reply lists each source once): the last origin's
      // source is compared with the sample's in place, without copying it (a retain and a release of each of its
      // strings), and strings with the same storage compare at once.
      if let lastOrigin, lastCode == code, Self.same(lastSource, sample.pointee.source) { return lastOrigin }
      let found = origin(SampleType(unchecked: code), sample.pointee.source)
      (lastOrigin, lastCode, lastSource) = (found, code, sample.pointee.source)
      return found
    }

    /// `a == b`, decided here (inlined) for sources that share their storage, as a reply's samples do: the
    /// derived `==` is a call into HealthModel that compares every field through its conformance.
    private static func same(_ a: borrowing SampleSource, _ b: borrowing SampleSource) -> Bool {
      a.device == b.device && a.bundleID == b.bundleID && (a.details === b.details || a.details == b.details)
    }

    private mutating func origin(_ type: SampleType, _ source: SampleSource) -> SampleOrigin {
      for entry in origins where entry.code == type.code && entry.source == source { return entry.origin }
      let (object, unit) = Self.typeObjects(type)
      let made = SampleOrigin(type: object, unit: unit ?? (object is HKQuantityType ? .count() : nil),
        source: revision(source))
      if origins.count == 8 { origins.removeFirst() }
      origins.append((type.code, source, made))
      return made
    }

    /// Type objects and canonical units made so far, by type code: immutable, so every query shares them (as
    /// HealthKit's type objects are shared): a type is looked up by name and its canonical unit parsed once per
    /// process, not per query.
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

/// What a sample object shares with others: its type object, the unit its value is in (quantity samples) and its
/// source revision. The objects of one query reply that have the same type and source share one origin, so making
/// one of them retains a single reference, and freeing it releases one. An object the app creates has an origin of
/// its own. Immutable.
package final class SampleOrigin: Sendable {
  /// The sample type: an `HKQuantityType` for a quantity sample, `HKCategoryType` for a category sample,
  /// `HKCorrelationType` for a correlation (each subclass's typed accessor relies on it).
  let type: HKSampleType
  /// The unit of a quantity sample's value: the app's for a sample it made, the type's canonical unit for a stored
  /// one; nil for other samples.
  let unit: HKUnit?
  /// Who saved the object (``HKSample/unsavedSource`` before it is saved).
  let source: HKSourceRevision
  /// Whether an `HKQuantitySample` may have this origin: a quantity type, with a unit.
  let holdsQuantities: Bool
  /// Whether an `HKCategorySample` may have this origin: a category type.
  let holdsCategories: Bool
  /// Whether the type is a cumulative quantity type (its stored samples are ``HKCumulativeQuantitySample``s).
  let isCumulative: Bool

  init(type: HKSampleType, unit: HKUnit?, source: HKSourceRevision) {
    self.type = type
    self.unit = unit
    self.source = source
    self.holdsQuantities = type is HKQuantityType && unit != nil
    self.holdsCategories = type is HKCategoryType
    self.isCumulative = (type as? HKQuantityType)?.aggregationStyle == .cumulative
  }
}
