import FoundationEssentials

/// A deterministic random generator (SplitMix64): the same seed yields the same sample identifiers and values.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64
  /// Creates a generator.
  package init(seed: UInt64) { state = seed }
  /// The next 64 random bits.
  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  /// A random version-4 UUID.
  package mutating func uuid() -> UUID {
    var bytes = withUnsafeBytes(of: (next(), next())) { Array($0) }
    bytes[6] = (bytes[6] & 0x0F) | 0x40
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10],
        bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }
}
