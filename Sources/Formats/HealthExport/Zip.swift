/// Byte-level reading over a ``ByteInput`` with exact reads, skips and a push-back (what a decoder read past the
/// end of its stream goes back in front).
package final class BufferedInput: ByteInput {
  private var source: any ByteInput
  private var buffer: [UInt8] = []
  private var position = 0
  /// Bytes handed out so far (the offset of the next byte).
  package private(set) var offset = 0

  /// Wraps `source`.
  package init(_ source: any ByteInput) { self.source = source }

  /// Reads up to `target.count` bytes: buffered ones first, then straight from the source.
  package func read(into target: UnsafeMutableRawBufferPointer) throws(ExportError) -> Int {
    guard target.count > 0 else { return 0 }
    if position < buffer.count {
      let n = min(target.count, buffer.count - position)
      buffer.withUnsafeBytes { target.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
      position += n
      offset += n
      if position == buffer.count {
        buffer.removeAll(keepingCapacity: true)
        position = 0
      }
      return n
    }
    let n = try source.read(into: target)
    offset += n
    return n
  }

  /// Reads exactly `count` bytes, or fewer only at the end of the input (none for a count below 1).
  package func read(_ count: Int) throws(ExportError) -> [UInt8] {
    guard count > 0 else { return [] }
    var result = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let n = try fill(&result, from: done, limit: count - done, with: self)
      if n == 0 { break }
      done += n
    }
    return done == count ? result : Array(result[0..<done])
  }

  /// Skips `count` bytes; returns how many were there (none for a count below 1).
  package func skip(_ count: Int) throws(ExportError) -> Int {
    guard count > 0 else { return 0 }
    var left = count
    var scratch = [UInt8](repeating: 0, count: min(count, 1 << 16))
    while left > 0 {
      let n = try fill(&scratch, from: 0, limit: left, with: self)
      if n == 0 { break }
      left -= n
    }
    return count - left
  }

  /// Puts `bytes` back in front of what is still unread (their offsets are handed out again).
  package func pushBack(_ bytes: [UInt8]) {
    guard !bytes.isEmpty else { return }
    buffer = bytes + buffer[position...]
    position = 0
    offset -= bytes.count
  }
}

/// At most `limit` bytes of another input (a zip entry of known size).
package final class LimitedInput: ByteInput {
  private let source: BufferedInput
  private var left: Int

  /// Reads at most `limit` bytes of `source`.
  package init(_ source: BufferedInput, limit: Int) {
    self.source = source
    left = limit
  }

  /// Reads up to the limit.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(ExportError) -> Int {
    guard left > 0 else { return 0 }
    let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(buffer.count, left)]))
    left -= n
    return n
  }
}

/// The `export.xml` inside an `export.zip`, read as a stream: local file headers are walked from the front (the
/// central directory at the end is not needed), other entries are skipped, and the entry whose last path component
/// is `export.xml` (Apple's is `apple_health_export/export.xml`; macOS `__MACOSX/` copies are ignored) is handed out
/// — inflated when it is deflated (method 8), as is when stored (method 0) — and checked against its CRC-32 and
/// size at its end. Zip64 sizes and data descriptors are understood; encrypted entries, other compression methods
/// and a stored entry of unknown size are refused.
package final class ZipExportInput: ByteInput {
  private let archive: BufferedInput
  private let file: String
  private var entry: (any ByteInput)?
  private var inflater: Inflater?
  private var crc = CRC32()
  private var produced = 0
  private var expected: (crc: UInt32, size: Int)?
  private var descriptorFollows = false
  private var zip64 = false
  private var done = false
  /// The entry's name in the archive, once found.
  package private(set) var entryName: String?

  /// Reads the archive `source`; `file` names it in errors.
  package init(_ source: any ByteInput, file: String) {
    archive = BufferedInput(source)
    self.file = file
  }

  /// Finds the `export.xml` entry (done by the first read otherwise), so ``entryName`` is known.
  package func open() throws(ExportError) {
    if entry == nil && !done { try findEntry() }
  }

  /// Hands out the bytes of `export.xml`.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(ExportError) -> Int {
    if done { return 0 }
    if entry == nil { try findEntry() }
    let n = try entry!.read(into: buffer)
    if n > 0 {
      crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
      produced += n
      return n
    }
    try finishEntry()
    done = true
    return 0
  }

  private func error(_ message: String, at offset: Int? = nil) -> ExportError {
    ExportError(.zip, at: ExportLocation(file: file, line: 0, column: 0, offset: offset ?? archive.offset), message)
  }

  private static func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
  private static func u32(_ b: [UInt8], _ at: Int) -> Int { u16(b, at) | u16(b, at + 2) << 16 }
  private static func u64(_ b: [UInt8], _ at: Int) -> UInt64 {
    UInt64(UInt32(u32(b, at))) | UInt64(UInt32(u32(b, at + 4))) << 32
  }

  /// A 64-bit size read from the archive as a byte count: one beyond ``maxEntrySize`` cannot be real (no file
  /// holds it) and is refused before it sizes anything.
  private func size(_ raw: UInt64, _ what: String, at offset: Int) throws(ExportError) -> Int {
    guard raw <= UInt64(Self.maxEntrySize) else {
      throw error("\(what) is \(raw) bytes, more than the \(Self.maxEntrySize) an entry may hold", at: offset)
    }
    return Int(raw)
  }

  /// The largest entry size accepted from a header or a data descriptor: 2^48 bytes (256 TiB).
  package static let maxEntrySize = 1 << 48

  private func findEntry() throws(ExportError) {
    while true {
      let headerOffset = archive.offset
      let signature = try archive.read(4)
      guard signature.count == 4 else {
        throw error(
          headerOffset == 0 ? "the file is empty, not a zip archive" : "the archive ends without an export.xml",
          at: headerOffset)
      }
      let tag = Self.u32(signature, 0)
      if tag == 0x0201_4B50 || tag == 0x0605_4B50 || tag == 0x0606_4B50 {
        throw error("the archive holds no export.xml (Apple's is apple_health_export/export.xml)", at: headerOffset)
      }
      guard tag == 0x0403_4B50 else {
        throw error(
          headerOffset == 0
            ? "not a zip archive (it does not start with a local file header)"
            : "expected a local file header at offset \(headerOffset)", at: headerOffset)
      }
      let header = try archive.read(26)
      guard header.count == 26 else { throw error("the archive ends inside a local file header", at: headerOffset) }
      let flags = Self.u16(header, 2)
      let method = Self.u16(header, 4)
      let headerCRC = UInt32(Self.u32(header, 10))
      var compressedSize = Self.u32(header, 14)
      var size = Self.u32(header, 18)
      let nameLength = Self.u16(header, 22)
      let extraLength = Self.u16(header, 24)
      let nameBytes = try archive.read(nameLength)
      let extra = try archive.read(extraLength)
      guard nameBytes.count == nameLength, extra.count == extraLength else {
        throw error("the archive ends inside a local file header", at: headerOffset)
      }
      let name = String(decoding: nameBytes, as: UTF8.self)
      // Zip64: the extra field 0x0001 holds the 64-bit sizes whose 32-bit fields are 0xFFFFFFFF.
      var entryZip64 = false
      var e = 0
      while e + 4 <= extra.count {
        let id = Self.u16(extra, e)
        let length = Self.u16(extra, e + 2)
        if id == 0x0001 {
          entryZip64 = true
          var at = e + 4
          if size == 0xFFFF_FFFF, at + 8 <= e + 4 + length, at + 8 <= extra.count {
            size = try self.size(Self.u64(extra, at), "entry '\(name)''s zip64 size", at: headerOffset)
            at += 8
          }
          if compressedSize == 0xFFFF_FFFF, at + 8 <= e + 4 + length, at + 8 <= extra.count {
            compressedSize = try self.size(
              Self.u64(extra, at), "entry '\(name)''s zip64 compressed size", at: headerOffset)
          }
        }
        e += 4 + length
      }
      guard flags & 1 == 0 else { throw error("entry '\(name)' is encrypted", at: headerOffset) }
      let hasDescriptor = flags & 8 != 0
      let last = name.split(separator: "/").last.map(String.init) ?? name
      let wanted = last == "export.xml" && !name.hasPrefix("__MACOSX/")
      guard method == 0 || method == 8 else {
        throw error(
          "entry '\(name)' uses compression method \(method); only stored (0) and deflated (8) are supported",
          at: headerOffset)
      }
      if method == 0 && hasDescriptor {
        throw error(
          "entry '\(name)' is stored with its size after the data; it cannot be read as a stream", at: headerOffset)
      }
      if wanted {
        entryName = name
        descriptorFollows = hasDescriptor
        zip64 = entryZip64
        if !hasDescriptor { expected = (headerCRC, size) }
        if method == 0 {
          entry = LimitedInput(archive, limit: compressedSize)
        } else {
          let compressed: any ByteInput = hasDescriptor ? archive : LimitedInput(archive, limit: compressedSize)
          let inflater = Inflater(compressed, file: file, baseOffset: archive.offset)
          self.inflater = inflater
          entry = inflater
        }
        return
      }
      // Another entry: skip it (inflating it to find its end when only a data descriptor gives its size).
      if hasDescriptor {
        let skipper = Inflater(archive, file: file, baseOffset: archive.offset)
        var scratch = [UInt8](repeating: 0, count: 1 << 16)
        while try fill(&scratch, from: 0, limit: scratch.count, with: skipper) > 0 {}
        archive.pushBack(skipper.unusedInput)
        _ = try readDescriptor(zip64: entryZip64)
      } else {
        guard try archive.skip(compressedSize) == compressedSize else {
          throw error("the archive ends inside entry '\(name)'")
        }
      }
    }
  }

  /// Reads a data descriptor (its signature is optional): CRC-32, then the compressed and uncompressed sizes.
  private func readDescriptor(zip64: Bool) throws(ExportError) -> (crc: UInt32, size: Int) {
    var bytes = try archive.read(4)
    guard bytes.count == 4 else { throw error("the archive ends before a data descriptor") }
    if Self.u32(bytes, 0) == 0x0807_4B50 {
      bytes = try archive.read(4)
      guard bytes.count == 4 else { throw error("the archive ends inside a data descriptor") }
    }
    let crc = UInt32(Self.u32(bytes, 0))
    let at = archive.offset
    let sizes = try archive.read(zip64 ? 16 : 8)
    guard sizes.count == (zip64 ? 16 : 8) else { throw error("the archive ends inside a data descriptor") }
    let size = zip64 ? try self.size(Self.u64(sizes, 8), "a data descriptor's size", at: at) : Self.u32(sizes, 4)
    return (crc, size)
  }

  private func finishEntry() throws(ExportError) {
    if let inflater {
      guard inflater.finished else { throw error("the compressed export.xml ends early") }
      if descriptorFollows { archive.pushBack(inflater.unusedInput) }
    }
    if descriptorFollows { expected = try readDescriptor(zip64: zip64) }
    guard let expected else { return }
    guard produced == expected.size else {
      throw error("export.xml holds \(produced) bytes; the archive says \(expected.size) (the archive is damaged)")
    }
    guard crc.value == expected.crc else {
      throw error(
        "export.xml's CRC-32 is \(String(crc.value, radix: 16)); the archive says "
          + "\(String(expected.crc, radix: 16)) (the archive is damaged)")
    }
  }
}

/// Writes a zip archive of stored (uncompressed) entries as a stream: each entry's local header is written with
/// placeholders, its bytes follow, and ``finishEntry()`` returns the header bytes to patch in place (CRC-32 and
/// sizes) — so the writer needs a seekable file but never holds an entry in memory. Sizes are always written as
/// Zip64, so an entry may exceed 4 GiB.
package struct ZipWriter {
  private struct Entry {
    var name: [UInt8]
    var headerOffset: Int
    var crc: UInt32
    var size: Int
  }

  private var entries: [Entry] = []
  private var current: Entry?
  private var crc = CRC32()
  /// Bytes written so far (the offset of the next byte).
  package private(set) var offset = 0
  private let dosTime: UInt16
  private let dosDate: UInt16

  /// A writer whose entries carry the (UTC) date `civil` (year 1980 or later).
  package init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
    dosTime = UInt16(hour << 11 | minute << 5 | second / 2)
    dosDate = UInt16(max(0, min(127, year - 1980)) << 9 | month << 5 | day)
  }

  private static func le(_ value: Int, _ bytes: Int) -> [UInt8] {
    (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }

  /// Starts an entry: returns its local header (written at the current offset).
  package mutating func beginEntry(_ name: String) -> [UInt8] {
    let nameBytes = Array(name.utf8)
    current = Entry(name: nameBytes, headerOffset: offset, crc: 0, size: 0)
    crc = CRC32()
    var h: [UInt8] = Self.le(0x0403_4B50, 4) + Self.le(45, 2) + Self.le(0x0800, 2) + Self.le(0, 2)
    h += Self.le(Int(dosTime), 2) + Self.le(Int(dosDate), 2)
    h += Self.le(0, 4) + Self.le(0xFFFF_FFFF, 4) + Self.le(0xFFFF_FFFF, 4)
    h += Self.le(nameBytes.count, 2) + Self.le(20, 2) + nameBytes
    h += Self.le(0x0001, 2) + Self.le(16, 2) + Self.le(0, 8) + Self.le(0, 8)
    offset += h.count
    return h
  }

  /// Accounts for entry bytes written after the header.
  package mutating func add(_ bytes: UnsafeRawBufferPointer) {
    crc.update(bytes)
    current?.size += bytes.count
    offset += bytes.count
  }

  /// Ends the entry: returns where its CRC-32 and sizes go in its local header and the bytes to write there
  /// (two patches: the CRC at header + 14, the Zip64 sizes in its extra field).
  package mutating func finishEntry() -> [(offset: Int, bytes: [UInt8])] {
    guard var entry = current else { return [] }
    entry.crc = crc.value
    entries.append(entry)
    current = nil
    return [
      (entry.headerOffset + 14, Self.le(Int(entry.crc), 4)),
      (entry.headerOffset + 30 + entry.name.count + 4, Self.le(entry.size, 8) + Self.le(entry.size, 8)),
    ]
  }

  /// The central directory and end records, written at the current offset to close the archive.
  package mutating func finish() -> [UInt8] {
    let start = offset
    var out: [UInt8] = []
    for e in entries {
      out += Self.le(0x0201_4B50, 4) + Self.le(3 << 8 | 45, 2) + Self.le(45, 2) + Self.le(0x0800, 2) + Self.le(0, 2)
      out += Self.le(Int(dosTime), 2) + Self.le(Int(dosDate), 2) + Self.le(Int(e.crc), 4)
      out += Self.le(0xFFFF_FFFF, 4) + Self.le(0xFFFF_FFFF, 4)
      out += Self.le(e.name.count, 2) + Self.le(28, 2) + Self.le(0, 2) + Self.le(0, 2) + Self.le(0, 2)
      out += Self.le(0o100644 << 16, 4) + Self.le(0xFFFF_FFFF, 4) + e.name
      out += Self.le(0x0001, 2) + Self.le(24, 2) + Self.le(e.size, 8) + Self.le(e.size, 8) + Self.le(e.headerOffset, 8)
    }
    let directorySize = out.count
    let zip64End = start + directorySize
    out += Self.le(0x0606_4B50, 4) + Self.le(44, 8) + Self.le(3 << 8 | 45, 2) + Self.le(45, 2) + Self.le(0, 4)
    out += Self.le(0, 4) + Self.le(entries.count, 8) + Self.le(entries.count, 8) + Self.le(directorySize, 8)
    out += Self.le(start, 8)
    out += Self.le(0x0706_4B50, 4) + Self.le(0, 4) + Self.le(zip64End, 8) + Self.le(1, 4)
    out += Self.le(0x0605_4B50, 4) + Self.le(0, 2) + Self.le(0, 2) + Self.le(0xFFFF, 2) + Self.le(0xFFFF, 2)
    out += Self.le(0xFFFF_FFFF, 4) + Self.le(0xFFFF_FFFF, 4) + Self.le(0, 2)
    offset += out.count
    return out
  }
}

/// Reads from `input` into `array[from..<from+limit]` (clipped to the array); returns how many bytes.
func fill(_ array: inout [UInt8], from: Int, limit: Int, with input: some ByteInput) throws(ExportError) -> Int {
  var input = input
  let result: Result<Int, ExportError> = array.withUnsafeMutableBytes { bytes in
    let end = min(bytes.count, from + max(0, limit))
    do throws(ExportError) {
      return .success(try input.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[from..<end])))
    } catch { return .failure(error) }
  }
  return try result.get()
}
