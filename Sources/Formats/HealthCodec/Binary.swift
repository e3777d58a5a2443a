import FoundationEssentials

/// Why bytes could not be decoded: what was expected and the byte offset where decoding stopped.
package struct DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Byte offset (from the start of the decoded buffer) of the problem.
  package var offset: Int
  /// What was wrong, lowercase, no trailing period.
  package var message: String

  /// Creates an error.
  package init(offset: Int, _ message: String) {
    self.offset = offset
    self.message = message
  }

  /// `message at offset N`.
  package var description: String { "\(message) at offset \(offset)" }
}

/// Appends little-endian primitives to a byte buffer: the one encoder behind the wire format and the journal.
///
/// Layout rules (docs/protocol.md): integers little-endian; `f64` IEEE-754 bits; `bool` one byte 0/1; `string` a
/// `u32` byte count then UTF-8; `uuid` 16 raw bytes; `date` an `f64` of seconds since 2001-01-01T00:00:00Z;
/// `optional` a `u8` presence flag then the value; `array` a `u32` count then the elements.
package struct BinaryWriter: Sendable {
  /// The bytes written so far.
  package var bytes: [UInt8]

  /// Creates a writer, reserving `capacity` bytes.
  package init(capacity: Int = 256) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  /// Writes one byte.
  @inline(__always) package mutating func u8(_ v: UInt8) { bytes.append(v) }
  // The integers are appended a byte at a time: an `append` of one byte is inlined to a capacity check and a
  // store, where `append(contentsOf:)` of a few bytes is a generic call per field.
  /// Writes a `u16`.
  @inline(__always) package mutating func u16(_ v: UInt16) {
    bytes.append(UInt8(truncatingIfNeeded: v))
    bytes.append(UInt8(truncatingIfNeeded: v &>> 8))
  }
  /// Writes a `u32`.
  @inline(__always) package mutating func u32(_ v: UInt32) {
    bytes.append(UInt8(truncatingIfNeeded: v))
    bytes.append(UInt8(truncatingIfNeeded: v &>> 8))
    bytes.append(UInt8(truncatingIfNeeded: v &>> 16))
    bytes.append(UInt8(truncatingIfNeeded: v &>> 24))
  }
  /// Writes a `u64`.
  @inline(__always) package mutating func u64(_ v: UInt64) {
    u32(UInt32(truncatingIfNeeded: v))
    u32(UInt32(truncatingIfNeeded: v &>> 32))
  }
  /// Writes an `i64`.
  @inline(__always) package mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
  /// Writes an `f64`.
  @inline(__always) package mutating func f64(_ v: Double) { u64(v.bitPattern) }
  /// Writes a Boolean as one byte.
  @inline(__always) package mutating func bool(_ v: Bool) { bytes.append(v ? 1 : 0) }
  /// Writes a date as seconds since the reference date.
  @inline(__always) package mutating func date(_ v: Date) { f64(v.timeIntervalSinceReferenceDate) }
  /// Writes a length-prefixed UTF-8 string.
  package mutating func string(_ v: String) {
    var v = v
    v.withUTF8 { utf8 in
      u32(UInt32(utf8.count))
      bytes.append(contentsOf: utf8)
    }
  }
  /// Writes 16 raw bytes.
  package mutating func uuid(_ v: UUID) {
    withUnsafeBytes(of: v.uuid) { bytes.append(contentsOf: $0.bindMemory(to: UInt8.self)) }
  }
  /// Writes an array of identifiers: the count, then 16 raw bytes each, in one block (the bytes `array` of
  /// ``uuid(_:)`` writes).
  package mutating func uuids(_ ids: [UUID]) {
    u32(UInt32(ids.count))
    raw(ids.count * 16) { p in
      for (i, id) in ids.enumerated() {
        withUnsafeBytes(of: id.uuid) { bytes in
          UnsafeMutableRawBufferPointer(rebasing: p[i * 16..<i * 16 + 16]).copyMemory(from: bytes)
        }
      }
    }
  }
  /// Writes an optional: presence byte, then the value.
  @inlinable package mutating func optional<T>(_ v: T?, _ write: (inout BinaryWriter, T) -> Void) {
    if let v {
      u8(1)
      write(&self, v)
    } else {
      u8(0)
    }
  }
  /// Writes an array: count, then each element.
  @inlinable package mutating func array<C: Collection>(_ items: C, _ write: (inout BinaryWriter, C.Element) -> Void) {
    u32(UInt32(items.count))
    for item in items { write(&self, item) }
  }
  /// Appends `count` bytes that `fill` writes in place: bulk arrays of fixed-layout records, written without a
  /// call per field.
  package mutating func raw(_ count: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Void) {
    let start = bytes.count
    bytes.append(contentsOf: repeatElement(0, count: count))
    bytes.withUnsafeMutableBytes { fill(UnsafeMutableRawBufferPointer(rebasing: $0[start..<start + count])) }
  }
  /// Overwrites a `u32` at `offset` (used to patch length prefixes).
  package mutating func patchU32(_ v: UInt32, at offset: Int) {
    withUnsafeBytes(of: v.littleEndian) { raw in
      for i in 0..<4 { bytes[offset + i] = raw[i] }
    }
  }
}

/// Reads what ``BinaryWriter`` wrote, checking every bound: malformed input is a ``DecodeError`` with its offset,
/// never a crash, and counts are checked against the bytes left so hostile input cannot force huge allocations.
package struct BinaryReader {
  private let base: UnsafeRawBufferPointer
  /// The current offset.
  package private(set) var offset: Int
  /// Offset added to reported positions (the buffer's position in a larger input).
  package let reportBase: Int
  private var lastString: (start: Int, count: Int, value: String)?

  /// Reads from `buffer`, which must stay valid while the reader is used.
  package init(_ buffer: UnsafeRawBufferPointer, reportBase: Int = 0) {
    self.base = buffer
    self.offset = 0
    self.reportBase = reportBase
  }

  /// Bytes left.
  package var remaining: Int { base.count - offset }
  /// Whether every byte was consumed.
  package var isAtEnd: Bool { offset == base.count }

  /// An error at the current offset.
  package func error(_ message: String) -> DecodeError { DecodeError(offset: reportBase + offset, message) }

  @inline(__always) private mutating func need(_ count: Int, _ what: StaticString) throws(DecodeError) {
    if count > base.count - offset {
      throw DecodeError(
        offset: reportBase + offset, "truncated \(what): need \(count) bytes, \(base.count - offset) left")
    }
  }

  /// Reads one byte.
  @inline(__always) package mutating func u8() throws(DecodeError) -> UInt8 {
    try need(1, "u8")
    defer { offset += 1 }
    return base[offset]
  }
  /// Reads a `u16`.
  @inline(__always) package mutating func u16() throws(DecodeError) -> UInt16 {
    try need(2, "u16")
    defer { offset += 2 }
    return UInt16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
  }
  /// Reads a `u32`.
  @inline(__always) package mutating func u32() throws(DecodeError) -> UInt32 {
    try need(4, "u32")
    defer { offset += 4 }
    return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }
  /// Reads a `u64`.
  @inline(__always) package mutating func u64() throws(DecodeError) -> UInt64 {
    try need(8, "u64")
    defer { offset += 8 }
    return UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
  }
  /// Reads a `u64` count; a value beyond `Int.max` is an error rather than a trap.
  package mutating func count64() throws(DecodeError) -> Int {
    let v = try u64()
    guard let n = Int(exactly: v) else { throw DecodeError(offset: reportBase + offset - 8, "count \(v) out of range") }
    return n
  }
  /// Reads an `i64`.
  @inline(__always) package mutating func i64() throws(DecodeError) -> Int64 { Int64(bitPattern: try u64()) }
  /// Reads an `f64`.
  @inline(__always) package mutating func f64() throws(DecodeError) -> Double { Double(bitPattern: try u64()) }
  /// Reads a Boolean; any byte other than 0 or 1 is an error.
  package mutating func bool() throws(DecodeError) -> Bool {
    let b = try u8()
    guard b <= 1 else { throw DecodeError(offset: reportBase + offset - 1, "invalid bool byte \(b)") }
    return b == 1
  }
  /// Reads a date.
  @inline(__always) package mutating func date() throws(DecodeError) -> Date {
    Date(timeIntervalSinceReferenceDate: try f64())
  }
  /// Reads a length-prefixed UTF-8 string of at most `maxLength` bytes.
  package mutating func string(maxLength: Int = 1 << 20) throws(DecodeError) -> String {
    let start = offset
    let count = Int(try u32())
    guard count <= maxLength else {
      throw DecodeError(offset: reportBase + start, "string of \(count) bytes exceeds \(maxLength)")
    }
    try need(count, "string")
    let bytes = UnsafeRawBufferPointer(rebasing: base[offset..<offset + count])
    defer { offset += count }
    if let last = lastString, last.count == count,
      memcmp(base.baseAddress! + last.start, bytes.baseAddress!, count) == 0
    {
      return last.value
    }
    let utf8 = bytes.bindMemory(to: UInt8.self)
    let value: String
    if Self.isASCII(bytes) {
      // ASCII (bundle identifiers, names, units) is valid UTF-8: decoded without the generic validation.
      value = String(decoding: utf8, as: UTF8.self)
    } else {
      guard let valid = String(validating: utf8, as: UTF8.self) else {
        throw DecodeError(offset: reportBase + offset, "string is not valid UTF-8")
      }
      value = valid
    }
    if count > 15 { lastString = (offset, count, value) }
    return value
  }
  /// Whether every byte is below 0x80, checked eight bytes at a time.
  private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset + 8 <= bytes.count {
      if bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
      offset += 8
    }
    while offset < bytes.count {
      if bytes[offset] >= 0x80 { return false }
      offset += 1
    }
    return true
  }
  /// Reads 16 raw bytes as a UUID.
  package mutating func uuid() throws(DecodeError) -> UUID {
    try need(16, "uuid")
    defer { offset += 16 }
    let t = base.loadUnaligned(fromByteOffset: offset, as: uuid_t.self)
    return UUID(uuid: t)
  }
  /// Reads `count` raw bytes: a view into the input (valid while the input is), for bulk fixed-layout records.
  package mutating func raw(_ count: Int, _ what: StaticString) throws(DecodeError) -> UnsafeRawBufferPointer {
    guard count >= 0 else { throw error("negative length \(count) of \(what)") }
    try need(count, what)
    defer { offset += count }
    return UnsafeRawBufferPointer(rebasing: base[offset..<offset + count])
  }
  /// Reads an optional.
  package mutating func optional<T>(_ read: (inout BinaryReader) throws(DecodeError) -> T) throws(DecodeError) -> T? {
    switch try u8() {
    case 0: return nil
    case 1: return try read(&self)
    case let b: throw DecodeError(offset: reportBase + offset - 1, "invalid optional flag \(b)")
    }
  }
  /// Reads an array whose elements each take at least `minElementSize` bytes. Inlinable, so callers in other
  /// modules get it specialized for their element type (no generic metadata looked up per call).
  @inlinable package mutating func array<T>(
    minElementSize: Int = 1, _ read: (inout BinaryReader) throws(DecodeError) -> T
  ) throws(DecodeError) -> [T] {
    let start = offset
    let count = Int(try u32())
    guard count <= remaining / max(1, minElementSize) else {
      throw DecodeError(offset: reportBase + start, "array count \(count) exceeds the \(remaining) bytes left")
    }
    var items: [T] = []
    items.reserveCapacity(count)
    for _ in 0..<count { items.append(try read(&self)) }
    return items
  }
  /// Fails unless every byte was consumed.
  package func expectEnd(_ what: String) throws(DecodeError) {
    if !isAtEnd {
      throw DecodeError(offset: reportBase + offset, "\(remaining) unexpected trailing bytes after \(what)")
    }
  }
}

#if canImport(Glibc)
  import Glibc
#endif
