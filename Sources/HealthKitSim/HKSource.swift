import HealthModel

/// The app that saved an object, identified by its bundle identifier; equal and hashed by bundle identifier.
public final class HKSource: Hashable, CustomStringConvertible, Sendable {
  /// The app's name: the name an imported Apple Health export gave the source ("Alice’s Apple Watch"); otherwise
  /// the bundle identifier (the daemons do not sync apps' display names).
  public let name: String
  /// The app's bundle identifier.
  public let bundleIdentifier: String

  /// Creates a source (`HKQuery.predicateForObjects(from:)` matches on `bundleIdentifier`).
  public init(bundleIdentifier: String, name: String? = nil) {
    self.bundleIdentifier = bundleIdentifier
    self.name = name ?? bundleIdentifier
  }

  /// The source of the calling app: the bundle identifier of the current target (empty when none is configured).
  public static func `default`() -> HKSource {
    HKSource(bundleIdentifier: HealthKitSim.currentTarget?.bundleIdentifier ?? "")
  }

  /// Two sources are equal when their bundle identifiers are.
  public static func == (lhs: HKSource, rhs: HKSource) -> Bool { lhs.bundleIdentifier == rhs.bundleIdentifier }
  /// Hashes the bundle identifier.
  public func hash(into hasher: inout Hasher) { hasher.combine(bundleIdentifier) }
  /// The bundle identifier.
  public var description: String { bundleIdentifier }
}
