import Foundation
import HealthModel

/// A piece of HealthKit data with an identity: its UUID, metadata and source.
///
/// Immutable and equal by UUID. Declared `@unchecked Sendable` because it is a non-final class (HealthKit's
/// hierarchy needs subclasses); every stored property of it and of its subclasses is a `let` of a Sendable type.
public class HKObject: Hashable, @unchecked Sendable {
  /// The object's identifier, chosen when it is created and kept by the store and by sync.
  public let uuid: UUID
  /// Who saved the object: the calling app with no product type before it is saved; the saving app and device
  /// kind for objects a query returns.
  public let sourceRevision: HKSourceRevision
  /// The metadata as the simulator holds it.
  package let metadataPayload: MetadataPayload

  init(uuid: UUID, metadata: MetadataPayload, sourceRevision: HKSourceRevision) {
    self.uuid = uuid
    self.metadataPayload = metadata
    self.sourceRevision = sourceRevision
  }

  /// The metadata (`[HKMetadataKeyWasUserEntered: true]`), or nil when there is none.
  public var metadata: [String: Any]? { metadataPayload.dictionary }

  /// Two objects are equal when their UUIDs are.
  public static func == (lhs: HKObject, rhs: HKObject) -> Bool { lhs.uuid == rhs.uuid }
  /// Hashes the UUID.
  public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }

  /// The object as the daemon's `save` takes it.
  /// - Throws: ``HKSimulatedTermination`` for metadata HealthKit refuses; ``HealthKitSimError`` for an object the
  ///   simulator cannot store.
  package func sampleInput(api: String) throws -> SampleInput {
    throw HealthKitSimError.unsupported("HealthKitSim saves only HKQuantitySample and HKCategorySample objects")
  }
}
