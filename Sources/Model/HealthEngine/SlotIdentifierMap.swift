import FoundationEssentials

/// Sample identifier → index of the newest slot with that identifier: open addressing with linear probing over a
/// power-of-two array of 8-byte buckets, at most three quarters full.
///
/// A bucket holds the slot index + 1 in its low 32 bits (0: empty) and the high 32 bits of the identifier's hash
/// in its high 32 bits; the identifier itself is read from the slot, and only when the hash bits match. The home
/// bucket is derived from those same hash bits, so growing never reads a slot. The hash is a fixed function of the
/// identifier's bytes (no per-process seed), so the same inserts give the same buckets in every process: a
/// snapshot stores the buckets as they are and restoring them costs a copy, not ten million inserts. (Against
/// `[UUID: Int32]`, a third of the memory and one cache miss per lookup instead of three.)
package struct SlotIdentifierMap: Sendable, Equatable {
  /// The buckets (a power of two of them, at least 8).
  package private(set) var buckets: [UInt64]
  /// How many identifiers are mapped.
  package private(set) var count: Int

  /// An empty map.
  package init() {
    buckets = [UInt64](repeating: 0, count: 8)
    count = 0
  }

  /// A map restored from a snapshot's buckets, checked so that no lookup can fail or loop: a power-of-two
  /// number of buckets, fewer used than there are, each used one pointing below `slotCount`.
  /// - Throws: ``StateRestoreError``.
  package init(restoring buckets: [UInt64], count: Int, slotCount: Int) throws(StateRestoreError) {
    guard buckets.count >= 8, buckets.count & (buckets.count - 1) == 0, count >= 0, count <= slotCount,
      count * 4 <= buckets.count * 3
    else {
      throw StateRestoreError("identifier map of \(count) entries in \(buckets.count) buckets is malformed")
    }
    var used = 0
    for bucket in buckets where bucket != 0 {
      let stored = Int(bucket & 0xFFFF_FFFF)
      guard stored >= 1, stored <= slotCount else {
        throw StateRestoreError("identifier map points past the \(slotCount) slots")
      }
      used += 1
    }
    guard used == count else { throw StateRestoreError("identifier map holds \(used) entries, not \(count)") }
    self.buckets = buckets
    self.count = count
  }

  /// The hash of an identifier: both halves of its bytes (little-endian) mixed with the splitmix64 finalizer.
  @inline(__always)
  static func hash(_ uuid: UUID) -> UInt32 {
    withUnsafeBytes(of: uuid.uuid) { bytes in
      let low = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
      let high = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
      var z = low &+ high &* 0x9E37_79B9_7F4A_7C15
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return UInt32(truncatingIfNeeded: (z ^ (z >> 31)) >> 32)
    }
  }

  /// The index of the newest slot with identifier `uuid`, or nil.
  @inline(__always)
  package func find(_ uuid: UUID, in slots: ContiguousArray<SampleStore.Slot>) -> Int32? {
    let tag = Self.hash(uuid)
    let mask = buckets.count - 1
    var i = Int(tag) & mask
    while true {
      let bucket = buckets[i]
      if bucket == 0 { return nil }
      if UInt32(truncatingIfNeeded: bucket >> 32) == tag {
        let index = Int32(truncatingIfNeeded: bucket & 0xFFFF_FFFF) - 1
        if slots[Int(index)].uuid == uuid { return index }
      }
      i = (i + 1) & mask
    }
  }

  /// Maps `uuid` to slot `index` (replacing an older slot with the same identifier).
  package mutating func set(_ uuid: UUID, _ index: Int32, in slots: ContiguousArray<SampleStore.Slot>) {
    if (count + 1) * 4 > buckets.count * 3 { grow() }
    let tag = Self.hash(uuid)
    let mask = buckets.count - 1
    var i = Int(tag) & mask
    let entry = UInt64(tag) << 32 | UInt64(UInt32(index) + 1)
    while true {
      let bucket = buckets[i]
      if bucket == 0 {
        buckets[i] = entry
        count += 1
        return
      }
      if UInt32(truncatingIfNeeded: bucket >> 32) == tag,
        slots[Int(Int32(truncatingIfNeeded: bucket & 0xFFFF_FFFF) - 1)].uuid == uuid
      {
        buckets[i] = entry
        return
      }
      i = (i + 1) & mask
    }
  }

  /// Makes room for `n` identifiers without growing.
  package mutating func reserveCapacity(_ n: Int) {
    while n * 4 > buckets.count * 3 { grow() }
  }

  /// Doubles the buckets, re-placing each entry from its hash bits (in bucket order, so the result is a function
  /// of the inserts alone).
  private mutating func grow() {
    var larger = [UInt64](repeating: 0, count: buckets.count * 2)
    let mask = larger.count - 1
    for bucket in buckets where bucket != 0 {
      var i = Int(bucket >> 32) & mask
      while larger[i] != 0 { i = (i + 1) & mask }
      larger[i] = bucket
    }
    buckets = larger
  }
}
