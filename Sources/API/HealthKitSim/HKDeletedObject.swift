import Foundation
import HealthModel

/// A sample that was deleted, as an anchored object query reports it: its UUID and, when it had them, its
/// `HKMetadataKeySyncIdentifier` and `HKMetadataKeySyncVersion` (behavior.md D8).
///
/// `@unchecked Sendable`: immutable — every stored property is a `let` of a value never mutated (an `NSObject`
/// subclass cannot be checked by the compiler).
public final class HKDeletedObject: NSObject, @unchecked Sendable {
  /// The deleted sample's UUID.
  public let uuid: UUID

  /// The deleted object's kept metadata, as the simulator holds it.
  private let keptMetadata: MetadataPayload

  /// Wraps a deletion record.
  package init(_ tombstone: Tombstone) {
    uuid = tombstone.uuid
    keptMetadata = .valid(tombstone.metadata)
    super.init()
  }

  /// The deleted object's metadata: as Apple documents, only its `HKMetadataKeySyncIdentifier` and
  /// `HKMetadataKeySyncVersion` are copied from the original object ("All other metadata is lost"); nil when it
  /// had neither.
  public var metadata: [String: Any]? {
    guard let dictionary = keptMetadata.dictionary, !dictionary.isEmpty else { return nil }
    return dictionary
  }

  /// Two deleted objects are equal when their UUIDs are.
  public override func isEqual(_ object: Any?) -> Bool { (object as? HKDeletedObject)?.uuid == uuid }
  /// The UUID's hash.
  public override var hash: Int { uuid.hashValue }
  /// `deleted <uuid>`.
  public override var description: String { "deleted \(uuid)" }
  /// As ``description``.
  public override var debugDescription: String { description }
}
