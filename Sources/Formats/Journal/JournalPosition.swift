/// A point in a journal that a snapshot covers up to: the end of a record, with what identifies the journal, the
/// record that ends there and the bytes before it, so a snapshot is never applied to another journal, nor to one
/// that was cut back (a torn tail, `--repair`) or rewritten before that point.
package struct JournalPosition: Sendable, Equatable {
  /// The last covered record: where it starts and its record header bytes (length and both checksums).
  package struct LastRecord: Sendable, Equatable {
    /// Offset of the record's first byte.
    package var offset: Int
    /// The record's header bytes, as in the file.
    package var head: [UInt8]

    /// Creates a last-record reference.
    package init(offset: Int, head: [UInt8]) {
      self.offset = offset
      self.head = head
    }
  }

  /// The journal's whole file header, as in the file.
  package var header: [UInt8]
  /// The offset just past the last covered record (the header's size when no record is covered).
  package var end: Int
  /// How many records are covered.
  package var records: Int
  /// The last covered record, nil when none is.
  package var lastRecord: LastRecord?
  /// How many bytes before ``end`` ``tailChecksum`` covers (at most ``tailWindow``; none of the header).
  package var tailLength: Int
  /// The CRC-32C of the `tailLength` journal bytes before ``end``.
  package var tailChecksum: UInt32

  /// The most journal bytes before a position that its checksum covers.
  package static let tailWindow = 64 << 10

  /// Creates a position.
  package init(
    header: [UInt8], end: Int, records: Int, lastRecord: LastRecord?, tailLength: Int, tailChecksum: UInt32
  ) {
    self.header = header
    self.end = end
    self.records = records
    self.lastRecord = lastRecord
    self.tailLength = tailLength
    self.tailChecksum = tailChecksum
  }

  /// Why this position does not belong to the journal whose bytes are `bytes`, or nil when it does: the file
  /// header must be the same, the journal must reach `end`, the record ending at `end` must be the recorded one
  /// byte for byte (its header carries its length and its checksums), and so must the bytes before it.
  package func mismatch(in bytes: UnsafeRawBufferPointer) -> String? {
    guard bytes.count >= header.count, bytes.prefix(header.count).elementsEqual(header) else {
      return "the journal's header is not the one the snapshot was taken of"
    }
    guard end <= bytes.count else {
      return "the snapshot covers \(end) bytes of journal but the journal has \(bytes.count)"
    }
    guard tailLength >= 0, tailLength <= end - header.count else {
      return "the snapshot's journal position is inconsistent"
    }
    let tail = UnsafeRawBufferPointer(rebasing: bytes[(end - tailLength)..<end])
    guard CRC32C.checksum(tail) == tailChecksum else {
      return "the \(tailLength) journal bytes before offset \(end) are not the ones the snapshot was taken after"
    }
    guard let last = lastRecord else {
      return records == 0 && end == header.count ? nil : "the snapshot's journal position is inconsistent"
    }
    let headSize = JournalFormat.recordHeaderSize
    guard records > 0, last.head.count == headSize, last.offset >= header.count, last.offset <= end - headSize else {
      return "the snapshot's journal position is inconsistent"
    }
    let length = Int(last.head[0]) | Int(last.head[1]) << 8 | Int(last.head[2]) << 16 | Int(last.head[3]) << 24
    guard last.offset + headSize + length == end else { return "the snapshot's journal position is inconsistent" }
    guard bytes[last.offset..<last.offset + headSize].elementsEqual(last.head) else {
      return "the journal record at offset \(last.offset) is not the one the snapshot ends with"
    }
    return nil
  }
}

extension JournalFormat {
  /// How many whole records the framed bytes `framed` (built with ``appendRecord(_:to:)``) hold, and where the
  /// last one starts.
  static func recordStarts(in framed: UnsafeRawBufferPointer) -> (count: Int, lastStart: Int?) {
    var offset = 0
    var count = 0
    var last: Int?
    while offset + recordHeaderSize <= framed.count {
      last = offset
      count += 1
      let length = UInt32(littleEndian: framed.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
      offset += recordHeaderSize + Int(length)
    }
    return (count, last)
  }
}
