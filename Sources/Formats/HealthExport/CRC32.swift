/// CRC-32 as zip archives use it (IEEE 802.3, reflected polynomial 0xEDB88320), table-driven eight bytes at a time.
package struct CRC32: Sendable {
  /// The checksum of everything added so far.
  package var value: UInt32 { ~state }
  private var state: UInt32 = 0xFFFF_FFFF

  /// Starts an empty checksum.
  package init() {}

  /// The eight tables of slicing-by-8.
  private static let tables: [UInt32] = {
    var t = [UInt32](repeating: 0, count: 8 * 256)
    for i in 0..<256 {
      var c = UInt32(i)
      for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
      t[i] = c
    }
    for i in 0..<256 {
      for k in 1..<8 { t[k * 256 + i] = (t[(k - 1) * 256 + i] >> 8) ^ t[Int(t[(k - 1) * 256 + i] & 0xFF)] }
    }
    return t
  }()

  /// Adds bytes.
  package mutating func update(_ bytes: UnsafeRawBufferPointer) {
    guard var p = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
    var n = bytes.count
    var c = state
    Self.tables.withUnsafeBufferPointer { t in
      while n >= 8 {
        let lo = c ^ (UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24)
        let hi = UInt32(p[4]) | UInt32(p[5]) << 8 | UInt32(p[6]) << 16 | UInt32(p[7]) << 24
        c =
          t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)] ^ t[5 * 256 + Int((lo >> 16) & 0xFF)]
          ^ t[4 * 256 + Int(lo >> 24)] ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
          ^ t[256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
        p += 8
        n -= 8
      }
      while n > 0 {
        c = t[Int((c ^ UInt32(p[0])) & 0xFF)] ^ (c >> 8)
        p += 1
        n -= 1
      }
    }
    state = c
  }

  /// Adds bytes.
  package mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

  /// The checksum of `bytes`.
  package static func checksum(_ bytes: [UInt8]) -> UInt32 {
    var crc = CRC32()
    crc.update(bytes)
    return crc.value
  }
}
