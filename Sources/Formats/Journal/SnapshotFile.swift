import HealthCodec
import HealthEngine
import HealthModel
import Posix

#if canImport(Glibc)
  import Glibc
#endif

/// Why a snapshot could not be written, or cannot be used. Never fatal: an unusable snapshot means the journal is
/// replayed from its start; a failed write leaves the previous snapshot (or none) in place.
package enum SnapshotError: Error, Sendable, CustomStringConvertible {
  /// A system call failed.
  case io(SystemError)
  /// The journal could not be brought up to date first (see ``DurableDevice/writeSnapshot()``).
  case journal(JournalError)
  /// The file is not a usable snapshot for this device: `offset` is where the problem was found.
  case invalid(path: String, offset: Int, message: String)

  /// `path: offset N: message`, or the system error.
  package var description: String {
    switch self {
    case .io(let e): "\(e)"
    case .journal(let e): "\(e)"
    case .invalid(let path, let offset, let message): "\(path): offset \(offset): \(message)"
    }
  }
}

/// A snapshot file: a device's durable state at a journal position, so that opening replays only the records
/// after it (docs/journal.md#snapshots).
///
/// ```
/// file     := header body trailer
/// header   := "HPSNAPSH" | version u32 LE (= 2) | device u8 | 3 zero bytes                         (16 bytes)
/// body     := position state            (the state encoding: HealthCodec/StateCoding.swift)
/// position := journal-header [u8] | end u64 | records u64 | last-record? (offset u64, record-header [u8]) |
///             tail-length u64 | tail-crc u32
/// trailer  := chunk-crc u32 × n | n u32 | covered u64 | trailer-crc u32 | "HPSNAPOK"
///             covered = bytes of header + body; chunk i = covered bytes [i·1 MiB, (i+1)·1 MiB);
///             chunk-crc = CRC-32C of the chunk; trailer-crc = CRC-32C of the trailer bytes before it
/// ```
package enum SnapshotFile {
  /// The eight magic bytes a snapshot starts with.
  package static let magic: [UInt8] = Array("HPSNAPSH".utf8)
  /// The eight magic bytes a complete snapshot ends with.
  package static let endMagic: [UInt8] = Array("HPSNAPOK".utf8)
  /// The format version this build writes and reads. Version 2 added the workout section of the state; a version-1
  /// snapshot (written before workouts) is refused like any other version, so the journal is replayed in full —
  /// a snapshot is only a cache of its journal, which replays under every build.
  package static let version: UInt32 = 2
  /// Bytes in the file header.
  package static let headerSize = 16
  /// Bytes each chunk checksum covers.
  package static let chunkSize = 1 << 20
  /// Bytes of the trailer after the chunk checksums.
  static let trailerTail = 24

  /// A snapshot read back: the state, the journal position it covers, and the file's size.
  package struct Loaded: Sendable {
    /// The device's durable state at ``position``.
    package var state: DeviceState
    /// The end of the journal records the state includes.
    package var position: JournalPosition
    /// The snapshot file's size in bytes.
    package var bytes: Int
  }

  /// The snapshot's 16-byte header for a device.
  package static func header(device: DeviceKind) -> [UInt8] {
    var bytes = magic
    withUnsafeBytes(of: version.littleEndian) { bytes.append(contentsOf: $0) }
    bytes.append(device.rawValue)
    bytes.append(contentsOf: [0, 0, 0])
    return bytes
  }

  /// The snapshot path that goes with a journal: `<dir>/phone.journal` → `<dir>/phone.snapshot`.
  package static func path(forJournal journal: String) -> String {
    (journal.hasSuffix(".journal") ? String(journal.dropLast(".journal".count)) : journal) + ".snapshot"
  }

  /// Writes `state`, which must be the state the journal's records up to `position` rebuild, to `path`
  /// atomically: into `<path>.tmp` — created exclusively in the checked directory, never through a link
  /// (``Posix/openOwnFile(_:_:mode:creating:)``) — streamed in 1 MiB chunks, `fsync`, renamed over `path`, and the
  /// directory synced. A failure (or a crash) at any point leaves the previous snapshot as it was. Returns the
  /// bytes written.
  /// - Throws: ``SnapshotError/io(_:)``; the temporary file is removed (anything already at `<path>.tmp` — a
  ///   planted link or FIFO — is refused, named and left alone).
  package static func write(_ state: DeviceState, position: JournalPosition, to path: String) throws(SnapshotError)
    -> Int
  {
    let temporary = path + ".tmp"
    let file: FileDescriptor  // closed on every way out
    do { file = FileDescriptor(try Posix.openOwnFile(temporary, O_WRONLY, mode: 0o600, creating: .exclusive)) } catch {
      throw .io(error)
    }
    var renamed = false
    defer { if !renamed { Posix.unlink(temporary) } }
    var sink = ChunkSink(fd: file.rawValue, path: temporary)
    do throws(SystemError) {
      try sink.append(header(device: state.device))
      var writer = BinaryWriter(capacity: 2 << 20)
      writer.position(position)
      try writer.deviceState(state) { w throws(SystemError) in
        try sink.append(w.bytes)
        w.bytes.removeAll(keepingCapacity: true)
      }
      try sink.finish()
      try Posix.fsync(file.rawValue, what: temporary)
      try Posix.rename(temporary, to: path)
      renamed = true
      let slash = path.lastIndex(of: "/")
      try Posix.syncDirectory(slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? ".")
    } catch { throw .io(error) }
    return sink.written
  }

  /// A whole snapshot file in memory: `header` and `body` followed by their trailer (tests and fuzzing; the
  /// daemon streams with ``write(_:position:to:)``, which produces the same bytes).
  package static func file(header: [UInt8], body: [UInt8]) -> [UInt8] {
    let covered = header + body
    var checksums: [UInt32] = []
    covered.withUnsafeBytes { buffer in
      for start in stride(from: 0, to: buffer.count, by: chunkSize) {
        let chunk = UnsafeRawBufferPointer(rebasing: buffer[start..<min(start + chunkSize, buffer.count)])
        checksums.append(CRC32C.checksum(chunk))
      }
    }
    return covered + trailer(checksums: checksums, covered: covered.count)
  }

  /// The trailer for `covered` bytes whose chunks have `checksums`.
  static func trailer(checksums: [UInt32], covered: Int) -> [UInt8] {
    var trailer: [UInt8] = []
    for crc in checksums { withUnsafeBytes(of: crc.littleEndian) { trailer.append(contentsOf: $0) } }
    withUnsafeBytes(of: UInt32(checksums.count).littleEndian) { trailer.append(contentsOf: $0) }
    withUnsafeBytes(of: UInt64(covered).littleEndian) { trailer.append(contentsOf: $0) }
    withUnsafeBytes(of: CRC32C.checksum(trailer).littleEndian) { trailer.append(contentsOf: $0) }
    return trailer + endMagic
  }

  /// Reads and verifies the snapshot at `path`; nil when there is none. Opened as HealthPair's own file: a link,
  /// FIFO or another user's file there is refused (``SnapshotError/io(_:)``), never followed or waited on.
  /// - Throws: ``SnapshotError``: unreadable, torn, corrupt, another format version, or another device's.
  package static func read(path: String, device: DeviceKind) throws(SnapshotError) -> Loaded? {
    let file: FileDescriptor  // the mapping outlives it
    do { file = FileDescriptor(try Posix.openOwnFile(path, O_RDONLY, creating: .never)) } catch {
      if error.errno == .noSuchFile { return nil }
      throw .io(error)
    }
    let size: Int
    let buffer: UnsafeRawBufferPointer
    do {
      size = try Posix.fileSize(file.rawValue)
      buffer = try Posix.mapReadOnly(file.rawValue, size: size, what: path, populate: true)
    } catch { throw .io(error) }
    defer { Posix.unmap(buffer) }
    let (state, position) = try decode(buffer, device: device, path: path)
    return Loaded(state: state, position: position, bytes: size)
  }

  /// Verifies and decodes a whole snapshot file's bytes (no I/O).
  /// - Throws: ``SnapshotError/invalid(path:offset:message:)``.
  package static func decode(_ bytes: UnsafeRawBufferPointer, device: DeviceKind, path: String) throws(SnapshotError)
    -> (DeviceState, JournalPosition)
  {
    func invalid(_ offset: Int, _ message: String) -> SnapshotError {
      .invalid(path: path, offset: offset, message: message)
    }
    let covered = try verify(bytes, path: path)
    guard Array(bytes[0..<8]) == magic else { throw invalid(0, "not a HealthPair snapshot (bad magic bytes)") }
    let found = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    guard found == version else {
      throw invalid(8, "snapshot format version \(found) is not supported (this build reads version \(version))")
    }
    guard bytes[12] == device.rawValue else {
      throw invalid(12, "snapshot belongs to device \(bytes[12]), not the \(device)")
    }
    let body = UnsafeRawBufferPointer(rebasing: bytes[headerSize..<covered])
    var reader = BinaryReader(body, reportBase: headerSize)
    do throws(DecodeError) {
      let position = try reader.journalPosition()
      let state = try reader.deviceState()
      try reader.expectEnd("snapshot")
      guard state.device == device else { throw reader.error("snapshot state is the \(state.device)'s") }
      return (state, position)
    } catch { throw invalid(error.offset, error.message) }
  }

  /// Checks the trailer and every chunk checksum; returns how many bytes the header and body take.
  private static func verify(_ bytes: UnsafeRawBufferPointer, path: String) throws(SnapshotError) -> Int {
    let size = bytes.count
    guard size >= headerSize + trailerTail else {
      throw .invalid(path: path, offset: 0, message: "file of \(size) bytes is too short to be a snapshot")
    }
    guard bytes[(size - 8)...].elementsEqual(endMagic) else {
      throw .invalid(path: path, offset: size - 8, message: "no end marker: the snapshot is incomplete")
    }
    let n = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: size - 24, as: UInt32.self)))
    let covered64 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: size - 20, as: UInt64.self))
    let storedTrailer = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: size - 12, as: UInt32.self))
    guard covered64 >= UInt64(headerSize), covered64 <= UInt64(size),
      Int(covered64) + 4 * n + trailerTail == size, n == (Int(covered64) + chunkSize - 1) / chunkSize
    else {
      throw .invalid(path: path, offset: size - 24, message: "the trailer's sizes do not match the file's")
    }
    let covered = Int(covered64)
    let trailer = UnsafeRawBufferPointer(rebasing: bytes[covered..<(size - 12)])
    guard CRC32C.checksum(trailer) == storedTrailer else {
      throw .invalid(path: path, offset: covered, message: "trailer checksum mismatch")
    }
    for chunk in 0..<n {
      let start = chunk * chunkSize
      let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: covered + 4 * chunk, as: UInt32.self))
      let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + chunkSize, covered)]))
      guard computed == stored else {
        throw .invalid(path: path, offset: start, message: "checksum mismatch in the chunk at offset \(start)")
      }
    }
    return covered
  }
}

/// Writes a stream of bytes to a file in whole chunks, recording each chunk's checksum, then the trailer.
private struct ChunkSink {
  /// The file, owned by ``SnapshotFile/write(_:position:to:)``.
  let fd: Int32
  let path: String
  var pending: [UInt8] = []
  var checksums: [UInt32] = []
  var written = 0

  init(fd: Int32, path: String) {
    self.fd = fd
    self.path = path
    pending.reserveCapacity(4 * SnapshotFile.chunkSize)
  }

  mutating func append(_ bytes: [UInt8]) throws(SystemError) {
    pending.append(contentsOf: bytes)
    let whole = pending.count / SnapshotFile.chunkSize * SnapshotFile.chunkSize
    if whole > 0 { try emit(whole) }
  }

  /// Writes the first `count` pending bytes (whole chunks, or the final partial one) and their checksums.
  private mutating func emit(_ count: Int) throws(SystemError) {
    let (fd, path) = (self.fd, self.path)
    let sums = try pending.withUnsafeBytes { buffer in
      catching { () throws(SystemError) -> [UInt32] in
        var sums: [UInt32] = []
        var start = 0
        while start < count {
          let end = min(start + SnapshotFile.chunkSize, count)
          sums.append(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[start..<end])))
          start = end
        }
        try Posix.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<count]), what: path)
        return sums
      }
    }.get()
    checksums += sums
    written += count
    pending.removeFirst(count)
  }

  /// Writes the last partial chunk and the trailer.
  mutating func finish() throws(SystemError) {
    if !pending.isEmpty { try emit(pending.count) }
    let trailer = SnapshotFile.trailer(checksums: checksums, covered: written)
    let (fd, path) = (self.fd, self.path)
    try trailer.withUnsafeBytes { buffer in
      catching { () throws(SystemError) in try Posix.writeAll(fd, buffer, what: path) }
    }.get()
    written += trailer.count
  }
}

extension BinaryWriter {
  /// Encodes a journal position: journal header bytes, end u64, records u64, optional last record (offset u64,
  /// record header bytes), tail length u64, tail checksum u32.
  package mutating func position(_ p: JournalPosition) {
    array(p.header) { $0.u8($1) }
    u64(UInt64(p.end))
    u64(UInt64(p.records))
    optional(p.lastRecord) { w, last in
      w.u64(UInt64(last.offset))
      w.array(last.head) { $0.u8($1) }
    }
    u64(UInt64(p.tailLength))
    u32(p.tailChecksum)
  }
}

extension BinaryReader {
  /// Decodes a journal position.
  package mutating func journalPosition() throws(DecodeError) -> JournalPosition {
    let header = try array { r throws(DecodeError) in try r.u8() }
    guard header.count <= 4096 else { throw error("journal header of \(header.count) bytes") }
    let end = try count64()
    let records = try count64()
    let last = try optional { r throws(DecodeError) in
      let offset = try r.count64()
      let head = try r.array { r throws(DecodeError) in try r.u8() }
      return JournalPosition.LastRecord(offset: offset, head: head)
    }
    let tailLength = try count64()
    return JournalPosition(
      header: header, end: end, records: records, lastRecord: last, tailLength: tailLength, tailChecksum: try u32())
  }
}
