import Foundation
import HealthModel

/// A sample that was deleted, as an anchored object query reports it: only its UUID (and no metadata).
///
/// `@unchecked Sendable`: immutable — every stored property is a `let` of a value never mutated (an `NSObject`
/// subclass cannot be checked by the compiler).
public final class HKDeletedObject: NSObject, @unchecked Sendable {
  /// The deleted sample's UUID.
  public let uuid: UUID

  /// Wraps a deletion record.
  package init(_ tombstone: Tombstone) {
    uuid = tombstone.uuid
    super.init()
  }

  /// The deleted object's metadata; HealthKitSim keeps none (nil).
  public var metadata: [String: Any]? { nil }

  /// Two deleted objects are equal when their UUIDs are.
  public override func isEqual(_ object: Any?) -> Bool { (object as? HKDeletedObject)?.uuid == uuid }
  /// The UUID's hash.
  public override var hash: Int { uuid.hashValue }
  /// `deleted <uuid>`.
  public override var description: String { "deleted \(uuid)" }
  /// As ``description``.
  public override var debugDescription: String { description }
}
