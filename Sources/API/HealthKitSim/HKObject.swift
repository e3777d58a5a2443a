import Foundation
import HealthModel
import Posix
import Synchronization

/// A piece of HealthKit data with an identity: its UUID, metadata, source and device.
///
/// An `NSObject`, immutable but for whether this process saved it, equal (`==`, `isEqual(_:)`) and hashed by UUID.
/// Declared `@unchecked Sendable` because it is a non-final class (HealthKit's hierarchy needs subclasses); every
/// other stored property of it and of its subclasses is a `let` of a Sendable type.
public class HKObject: NSObject, @unchecked Sendable {
  /// The object's identifier, chosen when it is created and kept by the store and by sync.
  public let uuid: UUID
  /// The object's type, source revision and unit, shared by the objects of a query reply that have the same ones.
  package let origin: SampleOrigin
  /// The metadata as the simulator holds it.
  package let metadataPayload: MetadataPayload
  /// Whether this object was saved by this process (`save` succeeded with it): `add(_:to:)` and a workout builder's
  /// `add(_:)` then associate it instead of saving it again. The only state that changes after creation.
  let savedHere = Atomic<Bool>(false)

  init(uuid: UUID, metadata: MetadataPayload, origin: SampleOrigin) {
    self.uuid = uuid
    self.metadataPayload = metadata
    self.origin = origin
    super.init()
  }

  /// Who saved the object: the calling app with no product type before it is saved; the saving app and device
  /// kind for objects a query returns.
  public var sourceRevision: HKSourceRevision { origin.source }

  /// The metadata (`[HKMetadataKeyWasUserEntered: true]`), or nil when there is none. The keys HealthKitSim uses to
  /// carry the object's ``device`` are left out.
  public var metadata: [String: Any]? { metadataPayload.dictionary }

  /// The device that recorded the data, when the app gave one to the initializer (`HKDevice.local()`), or the
  /// device an imported Apple Health export described for the object's source; nil otherwise, as for most
  /// app-saved objects on a device.
  public var device: HKDevice? {
    HKDevice(metadata: metadataPayload) ?? sourceRevision.exportDevice.flatMap { HKDevice(exportDevice: $0) }
  }

  /// Two objects are equal when their UUIDs are.
  public override func isEqual(_ object: Any?) -> Bool { (object as? HKObject)?.uuid == uuid }
  /// The UUID's hash.
  public override var hash: Int { uuid.hashValue }
  /// The class and UUID.
  public override var description: String { "\(type(of: self)) \(uuid.uuidString)" }
  /// As ``description``, with the metadata.
  public override var debugDescription: String {
    guard let metadata, !metadata.isEmpty else { return description }
    let pairs = metadata.keys.sorted().map { "\($0) = \(metadata[$0]!)" }
    return description + " metadata: {" + pairs.joined(separator: ", ") + "}"
  }

  /// Whether the store already holds the object: saved by this process, or returned by a query.
  var isStored: Bool { savedHere.load(ordering: .relaxed) || sourceRevision.productType != nil }

  /// The object as the daemon's `save` takes it.
  /// - Throws: ``HKSimulatedTermination`` for metadata HealthKit refuses; ``HealthKitSimError`` for an object the
  ///   simulator cannot store.
  package func sampleInput(api: String) throws -> SampleInput {
    throw HealthKitSimError.unsupported("HealthKitSim saves only HKQuantitySample and HKCategorySample objects")
  }
}

extension UUID {
  /// A new random (version 4) identifier for an object the app creates, from the kernel's `getrandom` through the
  /// syscall seam's pool (``Posix/fillRandom(_:)``: one system call per 256 identifiers), never a file or a system
  /// call per object as `UUID()` makes on Linux.
  static func fresh() -> UUID {
    var b: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    withUnsafeMutableBytes(of: &b) { Posix.fillRandom($0) }
    b.6 = (b.6 & 0x0F) | 0x40
    b.8 = (b.8 & 0x3F) | 0x80
    return UUID(uuid: b)
  }
}
