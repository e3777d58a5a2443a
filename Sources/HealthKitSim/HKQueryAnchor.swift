/// Where an anchored object query left off: pass the anchor a query returned to the next one to get only the
/// changes since.
public final class HKQueryAnchor: Hashable, CustomStringConvertible, Sendable {
  /// The device's change number.
  let value: UInt64

  /// An anchor from a raw value (``HKAnchoredObjectQueryNoAnchor``, 0, starts from the beginning).
  public init(fromValue value: Int) { self.value = UInt64(max(0, value)) }

  init(_ value: UInt64) { self.value = value }

  /// Two anchors are equal when their change numbers are.
  public static func == (lhs: HKQueryAnchor, rhs: HKQueryAnchor) -> Bool { lhs.value == rhs.value }
  /// Hashes the change number.
  public func hash(into hasher: inout Hasher) { hasher.combine(value) }
  /// `anchor <n>`.
  public var description: String { "anchor \(value)" }
}

/// The raw value of "no anchor" (0): a query from it returns every current sample and no deletions.
public let HKAnchoredObjectQueryNoAnchor = 0
