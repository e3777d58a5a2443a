import Foundation
import HealthEngine
import HealthModel

/// A sample that groups related samples into one entry: a blood-pressure reading (one systolic and one diastolic
/// sample) or a food entry (dietary samples), docs/behavior.md T8–T13.
///
/// Saving a correlation with `HKHealthStore.save(_:)` saves its objects too, all or nothing; queries of the
/// correlation type (``HKCorrelationQuery``, or `HKSampleQuery` with an ``HKCorrelationType``) return
/// `HKCorrelation`s whose ``objects`` are the members the app may read. The members are samples of their own:
/// sample queries of `bloodPressureSystolic` return them as well.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKCorrelation: HKSample, @unchecked Sendable {
  /// The samples the correlation groups.
  public let objects: Set<HKSample>

  /// The correlation type.
  public var correlationType: HKCorrelationType { unsafeDowncast(origin.type, to: HKCorrelationType.self) }

  /// Creates a correlation with a new UUID and no metadata.
  public convenience init(
    type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date,
    objects: Set<HKSample>
  ) {
    self.init(type: correlationType, start: startDate, end: endDate, objects: objects, metadata: nil)
  }

  /// Creates a correlation with a new UUID.
  public init(
    type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date, objects: Set<HKSample>,
    metadata: [String: Any]?
  ) {
    self.objects = objects
    super.init(
      uuid: .fresh(), start: startDate, end: endDate, metadata: MetadataPayload(metadata),
      origin: HKSample.unsavedOrigin(correlationType))
  }

  /// Creates a correlation with a new UUID, recorded by `device`.
  public init(
    type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date, objects: Set<HKSample>,
    device: HKDevice?, metadata: [String: Any]?
  ) {
    self.objects = objects
    super.init(
      uuid: .fresh(), start: startDate, end: endDate, metadata: MetadataPayload(metadata).adding(device),
      origin: HKSample.unsavedOrigin(correlationType))
  }

  init(
    uuid: UUID, type: HKCorrelationType, start: Date, end: Date, objects: Set<HKSample>, metadata: MetadataPayload,
    source: HKSourceRevision
  ) {
    self.objects = objects
    super.init(
      uuid: uuid, start: start, end: end, metadata: metadata,
      origin: SampleOrigin(type: type, unit: nil, source: source))
  }

  /// The objects of one type (`bloodPressureSystolic`, `dietaryEnergyConsumed`, …).
  public func objects(for objectType: HKObjectType) -> Set<HKSample> {
    objects.filter { $0.sampleType.identifier == objectType.identifier }
  }

  /// The correlation as the daemon's `save` takes it, its objects in a stable order (by type, then UUID).
  /// - Throws: as ``HKObject/sampleInput(api:)`` for an object; ``HealthKitSimError`` for an object that is itself
  ///   a correlation.
  func correlationInput(api: String) throws -> CorrelationInput {
    let ordered = objects.sorted {
      ($0.sampleType.identifier, $0.uuid.uuidString) < ($1.sampleType.identifier, $1.uuid.uuidString)
    }
    var members: [SampleInput] = []
    for object in ordered {
      if object is HKCorrelation { throw HealthKitSimError.unsupported("a correlation cannot contain a correlation") }
      members.append(try object.sampleInput(api: api))
    }
    return CorrelationInput(
      uuid: uuid, type: try correlationType.simulatedType(), start: startDate, end: endDate,
      metadata: try metadataPayload.checked(api: api), members: members)
  }

  /// The HealthKitSim object for a correlation a query returned, with the members the app may see.
  package static func make(_ result: CorrelationResult) -> HKCorrelation {
    let correlation = result.correlation
    return HKCorrelation(
      uuid: correlation.uuid, type: HKCorrelationType(HKCorrelationTypeIdentifier(correlation.type.identifier)),
      start: correlation.start, end: correlation.end, objects: Set(result.objects.map(HKSample.make)),
      metadata: .valid(correlation.metadata), source: HKSourceRevision(correlation.source))
  }
}
