import Foundation
import HealthModel

/// The app that saved an object, identified by its bundle identifier; an `NSObject` equal (`==`, `isEqual(_:)`)
/// and hashed by bundle identifier.
///
/// `@unchecked Sendable`: immutable — every stored property is a `let` of a value never mutated (an `NSObject`
/// subclass cannot be checked by the compiler).
public final class HKSource: NSObject, @unchecked Sendable {
  /// The app's name: the name an imported Apple Health export gave the source ("Alice’s Apple Watch"); otherwise
  /// the bundle identifier (the daemons do not sync apps' display names).
  public let name: String
  /// The app's bundle identifier.
  public let bundleIdentifier: String

  /// Creates a source (`HKQuery.predicateForObjects(from:)` matches on `bundleIdentifier`).
  public init(bundleIdentifier: String, name: String? = nil) {
    self.bundleIdentifier = bundleIdentifier
    self.name = name ?? bundleIdentifier
    super.init()
  }

  /// The source of the calling app: the bundle identifier of the current target (empty when none is configured).
  public static func `default`() -> HKSource {
    HKSource(bundleIdentifier: HealthKitSim.currentTarget?.bundleIdentifier ?? "")
  }

  /// Two sources are equal when their bundle identifiers are.
  public override func isEqual(_ object: Any?) -> Bool {
    (object as? HKSource)?.bundleIdentifier == bundleIdentifier
  }
  /// The bundle identifier's hash.
  public override var hash: Int { bundleIdentifier.hashValue }
  /// The bundle identifier.
  public override var description: String { bundleIdentifier }
  /// `HKSource name (bundle identifier)`.
  public override var debugDescription: String { "HKSource \(name) (\(bundleIdentifier))" }
}
