import Foundation

/// Where an anchored object query left off: pass the anchor a query returned to the next one to get only the
/// changes since.
///
/// An `NSObject` that adopts `NSSecureCoding`, as on a device, so apps persist it the usual way:
/// `NSKeyedArchiver.archivedData(withRootObject: anchor, requiringSecureCoding: true)`, then
/// `NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: data)` — in a file or in `UserDefaults`.
/// The anchor is the device's change number, which the journal keeps: an unarchived anchor resumes an anchored
/// query after the daemon restarted.
///
/// `@unchecked Sendable`: immutable — every stored property is a `let` of a value never mutated (an `NSObject`
/// subclass cannot be checked by the compiler).
public final class HKQueryAnchor: NSObject, NSSecureCoding, @unchecked Sendable {
  /// The device's change number.
  let value: UInt64

  /// The key the change number is archived under.
  private static let archiveKey = "HKQueryAnchorValue"

  /// An anchor from a raw value (``HKAnchoredObjectQueryNoAnchor``, 0, starts from the beginning).
  public init(fromValue value: Int) {
    self.value = UInt64(max(0, value))
    super.init()
  }

  init(_ value: UInt64) {
    self.value = value
    super.init()
  }

  /// True: the anchor decodes only as itself.
  public static var supportsSecureCoding: Bool { true }

  /// Archives the change number.
  public func encode(with coder: NSCoder) {
    coder.encode(Int64(bitPattern: value), forKey: Self.archiveKey)
  }

  /// Unarchives an anchor; nil when the archive holds no change number.
  public init?(coder: NSCoder) {
    guard coder.containsValue(forKey: Self.archiveKey) else { return nil }
    value = UInt64(bitPattern: coder.decodeInt64(forKey: Self.archiveKey))
    super.init()
  }

  /// Two anchors are equal when their change numbers are.
  public override func isEqual(_ object: Any?) -> Bool { (object as? HKQueryAnchor)?.value == value }
  /// The change number's hash.
  public override var hash: Int { value.hashValue }
  /// `HKQueryAnchor(<n>)`.
  public override var description: String { "HKQueryAnchor(\(value))" }
  /// As ``description``.
  public override var debugDescription: String { description }
}

/// The raw value of "no anchor" (0): a query from it returns every current sample and no deletions.
public let HKAnchoredObjectQueryNoAnchor = 0
