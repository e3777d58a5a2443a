import HealthExport

/// The zip side of the `export` fuzz target: an archive of a few skipped entries and the `export.xml`, each stored or
/// deflated (fixed-Huffman blocks with back-references, or stored blocks), with or without a data descriptor and
/// zip64 sizes — and, when the choices say so, one header field, size, zip64 extra, CRC or compressed byte mutated
/// to an interesting value (0, ±1 off, 2^32, 2^48, 2^63, 2^64−1 …). ``valid`` is false once anything was mutated.
struct ExportFuzzZip {
  var bytes: [UInt8] = []
  var valid = true

  private static func le(_ value: UInt64, _ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
  }

  /// Sizes worth trying, the most hostile first (a choice of 0 picks it).
  private static let interesting: [UInt64] = [
    UInt64.max, 1 << 63, UInt64.max - 1, (1 << 48) + 1, 1 << 48, 1 << 62, 1 << 32, 0xFFFF_FFFF, 0x7FFF_FFFF, 1, 0,
  ]

  /// Whether to mutate here (about 1 in 16 when the byte is random), and which way.
  private mutating func mutation(_ c: inout ExportFuzz.Choices) -> Int? {
    let n = c.byte()
    guard n >= 240 else { return nil }
    valid = false
    return n - 240
  }

  /// Choices each entry has of its own.
  static let entryChoices = 12
  /// Choices the whole archive takes: the number of skipped entries, then up to two of them, the export's name and
  /// the export, then whether to cut the archive short.
  static let choices = 1 + 2 * entryChoices + 1 + entryChoices + 2

  mutating func build(_ xml: [UInt8], _ c: inout ExportFuzz.Choices) {
    // Fixed places in the choices: the count, two skipped entries' (used or not), the name, the export's.
    let skipped = (c.byte() + 1) % 3
    for i in 0..<2 {
      var choices = c.take(Self.entryChoices)
      guard i < skipped else { continue }
      let route = Array("<gpx><trkpt lat=\"1\" lon=\"\(i)\"/></gpx>\n".utf8)
      entry("apple_health_export/workout-routes/route_\(i).gpx", route, &choices)
    }
    let name = c.rare() ? "__MACOSX/export.xml" : "apple_health_export/export.xml"
    var choices = c.take(Self.entryChoices)
    entry(name, xml, &choices)
    if bytes.count > 0, c.rare() {
      // The archive cut short.
      bytes.removeLast(1 + c.below(min(bytes.count, 64)))
      valid = false
    }
    bytes += Self.le(0x0201_4B50, 4) + [UInt8](repeating: 0, count: 42)
  }

  private mutating func entry(_ name: String, _ content: [UInt8], _ c: inout ExportFuzz.Choices) {
    if name.hasPrefix("__MACOSX/") { valid = false }  // ignored: the archive then holds no export.xml
    var method = c.below(3)  // 0 stored; 1 deflated, fixed Huffman; 2 deflated, stored blocks
    let descriptor = method != 0 && c.chance(30)
    let zip64 = c.chance(30)
    var data = method == 0 ? content : deflate(content, fixed: method == 1)
    let crc = UInt64(CRC32.checksum(content))
    var headerCRC = descriptor ? 0 : crc
    var compressed = UInt64(data.count)
    var size = UInt64(content.count)
    var flags: UInt64 = descriptor ? 8 : 0
    var nameBytes = Array(name.utf8)
    var extra: [UInt8] = []
    if let m = mutation(&c) {
      let value = Self.interesting[c.below(Self.interesting.count)]
      switch m % 8 {
      case 0: compressed = m < 8 ? value : compressed &+ 1
      case 1: size = m < 8 ? value : size &- 1
      case 2: headerCRC ^= 1 << UInt64(c.below(32))
      case 3: flags |= [1, 8, 0x40][c.below(3)]
      case 4: method = [12, 14, 99][c.below(3)]
      case 5: nameBytes += [0xFF, 0x2F]
      case 6: extra += Self.le(UInt64(c.byte()), 2) + Self.le(UInt64(c.byte() << 8 | c.byte()), 2)
      default: if !data.isEmpty { data[c.below(data.count)] ^= UInt8(1 << c.below(8)) }
      }
    }
    var size32 = descriptor ? 0 : min(size, 0xFFFF_FFFF)
    var compressed32 = descriptor ? 0 : min(compressed, 0xFFFF_FFFF)
    if zip64 {
      var sizes = Self.le(descriptor ? 0 : size, 8) + Self.le(descriptor ? 0 : compressed, 8)
      if let m = mutation(&c) {
        // A zip64 extra with sizes no file holds, or one cut short.
        let value = Self.interesting[c.below(Self.interesting.count)]
        sizes = m % 2 == 0 ? Self.le(value, 8) + Self.le(value, 8) : Array(sizes.prefix(c.below(16)))
      }
      extra += Self.le(1, 2) + Self.le(UInt64(sizes.count), 2) + sizes
      size32 = 0xFFFF_FFFF
      compressed32 = 0xFFFF_FFFF
    } else if size > 0xFFFF_FFFF || compressed > 0xFFFF_FFFF {
      valid = false
    }
    let methodCode: UInt64 = method == 0 ? 0 : (method <= 2 ? 8 : UInt64(method))
    bytes += Self.le(0x0403_4B50, 4) + Self.le(45, 2) + Self.le(flags, 2) + Self.le(methodCode, 2)
    bytes += Self.le(0, 4) + Self.le(headerCRC, 4) + Self.le(compressed32, 4) + Self.le(size32, 4)
    bytes += Self.le(UInt64(nameBytes.count), 2) + Self.le(UInt64(extra.count), 2) + nameBytes + extra + data
    if descriptor {
      if c.chance(70) { bytes += Self.le(0x0807_4B50, 4) }
      var descriptorCRC = crc
      if mutation(&c) != nil { descriptorCRC ^= 0x10 }
      bytes += Self.le(descriptorCRC, 4)
      bytes += zip64 ? Self.le(compressed, 8) + Self.le(size, 8) : Self.le(compressed, 4) + Self.le(size, 4)
    }
  }

  /// DEFLATE of `content`: fixed-Huffman blocks (literals, and matches found through a hash of three bytes) or
  /// stored blocks, a new block every 64 KiB.
  private func deflate(_ content: [UInt8], fixed: Bool) -> [UInt8] {
    var out = BitWriter()
    var start = 0
    repeat {
      let end = min(content.count, start + 65_535)
      out.bits(end == content.count ? 1 : 0, 1)
      if fixed {
        out.bits(1, 2)
        var table = [Int](repeating: -1, count: 4096)
        var i = start
        while i < end {
          if i + 3 <= end {
            let h = (Int(content[i]) << 4 ^ Int(content[i + 1]) << 2 ^ Int(content[i + 2])) & 4095
            let candidate = table[h]
            table[h] = i
            if candidate >= start, i - candidate <= 32_768 {
              var length = 0
              while length < 258, i + length < end, content[candidate + length] == content[i + length] { length += 1 }
              if length >= 3 {
                out.match(length: length, distance: i - candidate)
                i += length
                continue
              }
            }
          }
          out.symbol(Int(content[i]))
          i += 1
        }
        out.symbol(256)
      } else {
        out.bits(0, 2)
        out.align()
        let n = end - start
        out.bytes += Self.le(UInt64(n), 2) + Self.le(UInt64(~n & 0xFFFF), 2) + content[start..<end]
      }
      start = end
    } while start < content.count
    out.align()
    return out.bytes
  }
}

/// Bits LSB-first, and fixed-Huffman symbols.
private struct BitWriter {
  var bytes: [UInt8] = []
  private var buffer: UInt64 = 0
  private var count = 0

  mutating func bits(_ value: Int, _ n: Int) {
    buffer |= UInt64(value) << UInt64(count)
    count += n
    while count >= 8 {
      bytes.append(UInt8(truncatingIfNeeded: buffer))
      buffer >>= 8
      count -= 8
    }
  }

  mutating func align() { if count > 0 { bits(0, 8 - count) } }

  /// A Huffman code, most significant bit first.
  private mutating func code(_ value: Int, _ length: Int) {
    var reversed = 0
    for i in 0..<length where value & (1 << i) != 0 { reversed |= 1 << (length - 1 - i) }
    bits(reversed, length)
  }

  mutating func symbol(_ s: Int) {
    switch s {
    case 0...143: code(0x30 + s, 8)
    case 144...255: code(0x190 + s - 144, 9)
    case 256...279: code(s - 256, 7)
    default: code(0xC0 + s - 280, 8)
    }
  }

  private static let lengthBase = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
  ]
  private static let lengthExtra = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
  ]
  private static let distanceBase = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
    8193, 12289, 16385, 24577,
  ]
  private static let distanceExtra = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
  ]

  mutating func match(length: Int, distance: Int) {
    let li = Self.lengthBase.lastIndex { $0 <= length }!
    symbol(257 + li)
    bits(length - Self.lengthBase[li], Self.lengthExtra[li])
    let di = Self.distanceBase.lastIndex { $0 <= distance }!
    code(di, 5)
    bits(distance - Self.distanceBase[di], Self.distanceExtra[di])
  }
}
