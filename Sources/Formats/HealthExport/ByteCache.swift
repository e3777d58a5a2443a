/// A small cache keyed by byte strings (attribute values): a hash, then a byte comparison.
struct ByteCache<Value> {
  private var entries: [UInt64: [(key: [UInt8], value: Value)]] = [:]
  private var count = 0

  /// A 64-bit hash of `bytes`, eight at a time (the same in every process).
  static func hash(_ bytes: UnsafeBufferPointer<UInt8>, salt: UInt64 = 0) -> UInt64 {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ salt ^ UInt64(bytes.count)
    guard let base = bytes.baseAddress else { return h }
    let raw = UnsafeRawPointer(base)
    var i = 0
    while i + 8 <= bytes.count {
      h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
      h ^= h >> 29
      i += 8
    }
    var tail: UInt64 = 0
    var shift: UInt64 = 0
    while i < bytes.count {
      tail |= UInt64(bytes[i]) << shift
      shift += 8
      i += 1
    }
    h = (h ^ tail) &* 0x9E37_79B9_7F4A_7C15
    return h ^ (h >> 32)
  }

  /// The value cached under `bytes` (whose ``hash(_:salt:)`` is `hash`, when the caller has it), if any.
  func find(_ bytes: UnsafeBufferPointer<UInt8>, hash: UInt64? = nil) -> Value? {
    guard let bucket = entries[hash ?? Self.hash(bytes)] else { return nil }
    for entry in bucket where entry.key.count == bytes.count {
      if bytes.isEmpty { return entry.value }
      if entry.key.withUnsafeBufferPointer({ memcmpBytes($0.baseAddress!, bytes.baseAddress!, bytes.count) }) {
        return entry.value
      }
    }
    return nil
  }

  /// Caches `value` under a copy of `bytes`; past 8,192 entries the cache is emptied first.
  mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, hash: UInt64? = nil, _ value: Value) {
    // Bounded: a file with endlessly varied values clears the cache rather than growing it.
    if count >= 8192 {
      entries.removeAll(keepingCapacity: true)
      count = 0
    }
    entries[hash ?? Self.hash(bytes), default: []].append((Array(bytes), value))
    count += 1
  }
}
