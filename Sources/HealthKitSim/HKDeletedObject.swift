import Foundation
import HealthModel

/// A sample that was deleted, as an anchored object query reports it: only its UUID (and no metadata).
public final class HKDeletedObject: Hashable, CustomStringConvertible, Sendable {
  /// The deleted sample's UUID.
  public let uuid: UUID

  /// Wraps a deletion record.
  package init(_ tombstone: Tombstone) { uuid = tombstone.uuid }

  /// The deleted object's metadata; HealthKitSim keeps none (nil).
  public var metadata: [String: Any]? { nil }

  /// Two deleted objects are equal when their UUIDs are.
  public static func == (lhs: HKDeletedObject, rhs: HKDeletedObject) -> Bool { lhs.uuid == rhs.uuid }
  /// Hashes the UUID.
  public func hash(into hasher: inout Hasher) { hasher.combine(uuid) }
  /// `deleted <uuid>`.
  public var description: String { "deleted \(uuid)" }
}
