/// An input that can be read at any offset (a file opened for `pread`): what ``ZipDirectory`` reads an archive's
/// central directory and entries through.
package protocol RandomAccessInput: AnyObject {
  /// The input's size in bytes.
  var size: Int { get }
  /// Reads up to `buffer.count` bytes at `offset`; returns how many (fewer only at the end).
  func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportError) -> Int
}

/// The entries of a zip archive under some folders (Apple's `apple_health_export/workout-routes/` and
/// `electrocardiograms/`), found through the central directory at the archive's end, so a route file is opened
/// where it lies without reading what comes before it: the files beside `export.xml` in `export.zip`. Only names
/// under those folders are kept (at most ``maxEntries``), so memory is bounded by the routes and recordings the
/// export holds, not by the archive.
package final class ZipDirectory: ExportFiles {
  /// An entry's place in the archive.
  struct Entry {
    var method: Int
    var crc: UInt32
    var compressedSize: Int
    var size: Int
    var headerOffset: Int
  }

  private let input: any RandomAccessInput
  private let file: String
  /// The folder (`apple_health_export/`) paths are relative to.
  package let root: String
  private var entries: [String: Entry] = [:]

  /// The most entries kept.
  package static let maxEntries = 1 << 20
  /// The largest central directory read (an archive claiming more is refused).
  package static let maxDirectorySize = 1 << 28

  /// Reads the central directory of the archive `input` (named `file` in errors), keeping the entries whose names
  /// start with `root` + one of `under` (`apple_health_export/` + `workout-routes/`).
  /// - Throws: ``ExportError`` (`zip`) for an archive whose end records or directory are damaged.
  package init(_ input: any RandomAccessInput, file: String, root: String, under: String...) throws(ExportError) {
    self.input = input
    self.file = file
    self.root = root
    let (offset, size) = try Self.directoryPlace(input, error: { Self.error(file, $0, $1) })
    guard size <= Self.maxDirectorySize, offset >= 0, offset + size <= input.size else {
      throw Self.error(file, "the central directory (\(size) bytes at \(offset)) is not inside the archive", offset)
    }
    let directory = try Self.bytes(input, at: offset, count: size, file: file)
    let prefixes = under.map { root + $0 }
    var at = 0
    while at + 46 <= directory.count, Self.u32(directory, at) == 0x0201_4B50 {
      let nameLength = Self.u16(directory, at + 28)
      let extraLength = Self.u16(directory, at + 30)
      let commentLength = Self.u16(directory, at + 32)
      let end = at + 46 + nameLength + extraLength + commentLength
      guard end <= directory.count else {
        throw Self.error(file, "a central directory entry is cut short", offset + at)
      }
      let name = String(decoding: directory[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
      if let prefix = prefixes.first(where: { name.hasPrefix($0) }) {
        var entry = Entry(
          method: Self.u16(directory, at + 10), crc: UInt32(Self.u32(directory, at + 16)),
          compressedSize: Self.u32(directory, at + 20), size: Self.u32(directory, at + 24),
          headerOffset: Self.u32(directory, at + 42))
        // Zip64: the extra field 0x0001 holds, in order, the 64-bit fields whose 32-bit ones are 0xFFFFFFFF.
        var e = at + 46 + nameLength
        let extraEnd = e + extraLength
        while e + 4 <= extraEnd {
          let id = Self.u16(directory, e)
          let length = Self.u16(directory, e + 2)
          if id == 0x0001 {
            var field = e + 4
            for path in [\Entry.size, \Entry.compressedSize, \Entry.headerOffset]
            where entry[keyPath: path] == 0xFFFF_FFFF {
              guard field + 8 <= min(extraEnd, e + 4 + length) else { break }
              let value = Self.u64(directory, field)
              guard value <= UInt64(ZipExportInput.maxEntrySize) else {
                throw Self.error(file, "entry '\(name)' claims \(value) bytes", offset + at)
              }
              entry[keyPath: path] = Int(value)
              field += 8
            }
          }
          e += 4 + length
        }
        guard entries.count < Self.maxEntries else {
          throw Self.error(file, "more than \(Self.maxEntries) files under \(prefix)", offset + at)
        }
        entries[String(name.dropFirst(root.count))] = entry
      }
      at = end
    }
  }

  /// The entry at `path` (relative to ``root``), inflated when deflated and checked against its CRC-32 and size at
  /// its end; nil when the archive holds none.
  package func open(_ path: String) throws(ExportError) -> (any ByteInput)? {
    guard let entry = entries[path] else { return nil }
    let name = root + path
    guard entry.method == 0 || entry.method == 8 else {
      throw Self.error(file, "entry '\(name)' uses compression method \(entry.method)", entry.headerOffset)
    }
    let header = try Self.bytes(input, at: entry.headerOffset, count: 30, file: file)
    guard Self.u32(header, 0) == 0x0403_4B50 else {
      throw Self.error(file, "no local file header for '\(name)' where the directory says", entry.headerOffset)
    }
    guard Self.u16(header, 6) & 1 == 0 else {
      throw Self.error(file, "entry '\(name)' is encrypted", entry.headerOffset)
    }
    let start = entry.headerOffset + 30 + Self.u16(header, 26) + Self.u16(header, 28)
    guard start + entry.compressedSize <= input.size else {
      throw Self.error(file, "entry '\(name)' runs past the end of the archive", entry.headerOffset)
    }
    let raw = RangeInput(input, start: start, count: entry.compressedSize, file: file)
    let content: any ByteInput = entry.method == 8 ? Inflater(raw, file: file, baseOffset: start) : raw
    return CheckedEntry(content, expected: (entry.crc, entry.size), name: displayName(of: path))
  }

  /// `export.zip/apple_health_export/workout-routes/…`.
  package func displayName(of path: String) -> String { file + "/" + root + path }

  /// The kept entries directly in `folder` (relative to ``root``), sorted; folders' own entries (names ending in
  /// `/`) are not files and are left out.
  package func paths(in folder: String) throws(ExportError) -> [String] {
    entries.keys.filter { path in
      path.hasPrefix(folder) && path.count > folder.count && !path.dropFirst(folder.count).contains("/")
    }.sorted()
  }

  private static func error(_ file: String, _ message: String, _ offset: Int) -> ExportError {
    ExportError(.zip, at: ExportLocation(file: file, line: 0, column: 0, offset: offset), message)
  }

  private static func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
  private static func u32(_ b: [UInt8], _ at: Int) -> Int { u16(b, at) | u16(b, at + 2) << 16 }
  private static func u64(_ b: [UInt8], _ at: Int) -> UInt64 {
    UInt64(UInt32(u32(b, at))) | UInt64(UInt32(u32(b, at + 4))) << 32
  }

  private static func bytes(_ input: any RandomAccessInput, at offset: Int, count: Int, file: String)
    throws(ExportError) -> [UInt8]
  {
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, count), alignment: 1)
    defer { storage.deallocate() }
    var done = 0
    while done < count {
      let n = try input.read(at: offset + done, into: UnsafeMutableRawBufferPointer(rebasing: storage[done..<count]))
      guard n > 0 else { throw error(file, "the archive ends early", offset + done) }
      done += n
    }
    return Array(storage[0..<count])
  }

  /// Where the central directory is: from the end of central directory record (the last 64 KiB hold it), or its
  /// zip64 form.
  private static func directoryPlace(
    _ input: any RandomAccessInput, error: (String, Int) -> ExportError
  ) throws(ExportError) -> (offset: Int, size: Int) {
    let tailSize = min(input.size, 65_557)
    guard tailSize >= 22 else { throw error("too short for a zip archive", 0) }
    let tailStart = input.size - tailSize
    let tail = try bytes(input, at: tailStart, count: tailSize, file: "")
    var at = tailSize - 22
    while at >= 0, u32(tail, at) != 0x0605_4B50 { at -= 1 }
    guard at >= 0 else { throw error("no end of central directory record", input.size) }
    var size = u32(tail, at + 12)
    var offset = u32(tail, at + 16)
    if size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF, at >= 20, u32(tail, at - 20) == 0x0706_4B50 {
      let recordOffset = u64(tail, at - 12)
      guard input.size >= 56, recordOffset <= UInt64(input.size - 56) else {
        throw error("a zip64 locator outside the archive", 0)
      }
      let record = try bytes(input, at: Int(recordOffset), count: 56, file: "")
      guard u32(record, 0) == 0x0606_4B50 else { throw error("no zip64 end of central directory record", 0) }
      let size64 = u64(record, 40)
      let offset64 = u64(record, 48)
      guard size64 <= UInt64(maxDirectorySize), offset64 <= UInt64(input.size) else {
        throw error("a zip64 central directory outside the archive", Int(recordOffset))
      }
      size = Int(size64)
      offset = Int(offset64)
    }
    return (offset, size)
  }
}

/// `count` bytes of a random-access input from `start`, read front to back.
final class RangeInput: ByteInput {
  private let input: any RandomAccessInput
  private var position: Int
  private let end: Int
  private let file: String

  init(_ input: any RandomAccessInput, start: Int, count: Int, file: String) {
    self.input = input
    position = start
    end = start + count
    self.file = file
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(ExportError) -> Int {
    let want = min(buffer.count, end - position)
    guard want > 0 else { return 0 }
    let n = try input.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
    guard n > 0 else {
      throw ExportError(
        .zip, at: ExportLocation(file: file, line: 0, column: 0, offset: position), "the archive ends inside an entry")
    }
    position += n
    return n
  }
}

/// An entry's bytes, checked against the directory's CRC-32 and size when they end.
final class CheckedEntry: ByteInput {
  private let content: any ByteInput
  private let expected: (crc: UInt32, size: Int)
  private let name: String
  private var crc = CRC32()
  private var produced = 0

  init(_ content: any ByteInput, expected: (crc: UInt32, size: Int), name: String) {
    self.content = content
    self.expected = expected
    self.name = name
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(ExportError) -> Int {
    var content = self.content
    let n = try content.read(into: buffer)
    if n > 0 {
      crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
      produced += n
      guard produced <= expected.size else { throw damaged("holds more than the \(expected.size) bytes it claims") }
      return n
    }
    guard produced == expected.size else { throw damaged("holds \(produced) bytes, not \(expected.size)") }
    guard crc.value == expected.crc else { throw damaged("fails its CRC-32 check") }
    return 0
  }

  private func damaged(_ what: String) -> ExportError {
    ExportError(.zip, at: ExportLocation(file: name, line: 0, column: 0, offset: produced), "the entry \(what)")
  }
}
