/// A source of bytes read front to back: a file, a zip entry being inflated, bytes in memory. The module does no
/// I/O itself; the command line and the harness hand it a file reader.
package protocol ByteInput {
  /// Reads up to `buffer.count` bytes into `buffer`; returns how many, 0 only at the end of the input.
  /// - Throws: ``ExportError`` for a read that failed or input that is not what it claims to be (a damaged zip).
  mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ExportError) -> Int
}

/// Bytes held in memory, read front to back (tests, fixtures, small exports).
package struct MemoryInput: ByteInput {
  private let bytes: [UInt8]
  private var position = 0
  /// At most this many bytes per read (tests use 1 to exercise every refill path).
  private let chunk: Int

  /// Reads `bytes`, at most `chunk` bytes per read.
  package init(_ bytes: [UInt8], chunk: Int = .max) {
    self.bytes = bytes
    self.chunk = max(1, chunk)
  }

  /// Copies the next bytes.
  package mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ExportError) -> Int {
    let n = min(buffer.count, bytes.count - position, chunk)
    if n <= 0 { return 0 }
    bytes.withUnsafeBytes { source in
      buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: n)
    }
    position += n
    return n
  }
}

/// Where something is in an export: the file, its line and column (columns count bytes, from 1), and the byte
/// offset from the start of `export.xml` (0-based; inside a zip, the offset in the inflated entry).
package struct ExportLocation: Hashable, Sendable, CustomStringConvertible {
  /// The file as the user named it (`export.zip`, `apple_health_export/export.xml`).
  package var file: String
  /// The line, from 1 (0 when the location is not in the XML, such as a zip header).
  package var line: Int
  /// The column in bytes, from 1.
  package var column: Int
  /// The byte offset.
  package var offset: Int

  /// Creates a location.
  package init(file: String, line: Int, column: Int, offset: Int) {
    self.file = file
    self.line = line
    self.column = column
    self.offset = offset
  }

  /// `file:line:col` (or `file: offset N` outside the XML).
  package var description: String { line > 0 ? "\(file):\(line):\(column)" : "\(file): offset \(offset)" }
}

/// Why an export could not be read: malformed XML, a damaged zip, an unknown unit, a bad date or value — always with
/// where it is.
package struct ExportError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong.
  package enum Kind: String, Hashable, Sendable {
    /// The XML is not well-formed.
    case malformedXML
    /// The document is XML but not an Apple Health export (wrong root, a required attribute missing).
    case notAnExport
    /// A unit string HealthKit does not parse, or one the record's type cannot use.
    case unit
    /// A date that is not `YYYY-MM-DD HH:MM:SS ±HHMM`.
    case date
    /// A value that is not a number, or not one of the type's category values.
    case value
    /// A record HealthKit would refuse (dates out of order, a missing required metadata key …).
    case invalidRecord
    /// The zip archive is damaged or uses a feature this reader does not support.
    case zip
    /// Reading the file failed.
    case io
  }

  /// What went wrong.
  package var kind: Kind
  /// Where.
  package var location: ExportLocation
  /// A lowercase message.
  package var message: String

  /// Creates an error.
  package init(_ kind: Kind, at location: ExportLocation, _ message: String) {
    self.kind = kind
    self.location = location
    self.message = message
  }

  /// `file:line:col: error: message (byte offset N)`.
  package var description: String {
    location.line > 0
      ? "\(location): error: \(message) (byte offset \(location.offset))"
      : "\(location): error: \(message)"
  }
}
