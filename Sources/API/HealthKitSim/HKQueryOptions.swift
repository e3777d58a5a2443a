/// How a date predicate matches samples, with Apple's bit values.
public struct HKQueryOptions: OptionSet, Hashable, Sendable {
  /// The raw bit mask.
  public let rawValue: UInt
  /// Creates options from Apple's bit mask.
  public init(rawValue: UInt) { self.rawValue = rawValue }
  /// The sample must start at or after the range's start (`1 << 0`).
  public static let strictStartDate = HKQueryOptions(rawValue: 1 << 0)
  /// The sample must end at or before the range's end (`1 << 1`).
  public static let strictEndDate = HKQueryOptions(rawValue: 1 << 1)
}
