#if canImport(Glibc)
  import Glibc
#endif
import Posix

/// Why a journal could not be opened or written.
package enum JournalError: Error, Sendable, CustomStringConvertible {
  /// A system call failed.
  case io(SystemError)
  /// The file header is not a supported HealthPair journal header.
  case header(path: String, JournalFormat.HeaderProblem)
  /// The journal belongs to the other device.
  case wrongDevice(path: String, expected: UInt8, found: UInt8)
  /// A damaged record sits inside the journal with intact bytes after it; opening would lose them.
  case corrupt(path: String, damage: JournalFormat.Damage, bytesAfter: Int)
  /// A record passed its checksum but could not be decoded (a newer or broken writer).
  case undecodable(path: String, offset: Int, message: String)

  /// `path: offset N: message`, with what to do next.
  package var description: String {
    switch self {
    case .io(let e): "\(e)"
    case .header(let path, let problem): "\(path): offset 0: \(problem)"
    case .wrongDevice(let path, let expected, let found):
      "\(path): offset 12: journal belongs to the \(found == 0 ? "phone" : "watch"), not the \(expected == 0 ? "phone" : "watch")"
    case .corrupt(let path, let damage, let after):
      "\(path): \(damage); \(after) bytes follow it, so it is not a torn tail. Nothing was changed. "
        + "Restart with --repair to cut the journal at offset \(damage.offset) (those \(after) bytes are dropped)"
    case .undecodable(let path, let offset, let message):
      "\(path): offset \(offset): record cannot be decoded: \(message). Nothing was changed"
    }
  }
}

/// What opening a journal found.
package struct JournalRecovery: Sendable, Equatable {
  /// Records replayed.
  package var records: Int
  /// Bytes of intact journal.
  package var validBytes: Int
  /// The torn tail (or, with repair, the damaged record) that was cut off, and how many bytes were dropped.
  package var truncated: (damage: JournalFormat.Damage, droppedBytes: Int)?
  /// Whether the file was created by this open.
  package var created: Bool

  /// Equality over the fields.
  package static func == (a: JournalRecovery, b: JournalRecovery) -> Bool {
    a.records == b.records && a.validBytes == b.validBytes && a.truncated?.damage == b.truncated?.damage
      && a.truncated?.droppedBytes == b.truncated?.droppedBytes && a.created == b.created
  }
}

/// An open journal file: replayed once at open, then appended to.
///
/// A write is acknowledged (``append(_:)`` returns) once the bytes are in the OS page cache, which survives the
/// process being killed at any point; with `syncEachCommit` it also survives power loss (`fsync` per append).
/// If an append fails part-way the file is cut back to its previous length, so a later open never sees a torn
/// record from a failure we reported.
package final class JournalFile {
  /// The file's path.
  package let path: String
  /// Whether every append is followed by `fsync`.
  package let syncEachCommit: Bool
  /// How this file frames records: its version (a version-1 journal stays version 1) and salt.
  package let framing: JournalFormat.Framing
  private let fd: Int32
  /// The current length in bytes.
  package private(set) var size: Int

  private init(path: String, fd: Int32, size: Int, framing: JournalFormat.Framing, syncEachCommit: Bool) {
    self.path = path
    self.fd = fd
    self.size = size
    self.framing = framing
    self.syncEachCommit = syncEachCommit
  }

  deinit { Posix.close(fd) }

  /// Opens (or creates) the journal at `path` for `device`, hands every intact record's payload to `replay` in
  /// order, cuts a torn tail, and returns the file positioned for appends. A symbolic link at `path` (dangling or
  /// not) is refused, never followed or created through (``Posix/openOwnFile(_:_:mode:)``).
  ///
  /// A new journal is version 2, with a salt from the kernel's random source. An existing one keeps its version:
  /// a version-1 journal is replayed and appended to as version 1 (docs/journal.md, "Versions").
  ///
  /// - Parameters:
  ///   - repair: also cut at damage inside the journal (dropping what follows) instead of refusing to open.
  ///   - replay: receives each payload and its file offset; a thrown error aborts the open.
  /// - Throws: ``JournalError``.
  package static func open(
    path: String, device: UInt8, syncEachCommit: Bool = false, repair: Bool = false,
    replay: (UnsafeRawBufferPointer, Int) throws(JournalError) -> Void
  ) throws(JournalError) -> (JournalFile, JournalRecovery) {
    let fd: Int32
    do { fd = try Posix.openOwnFile(path, O_RDWR, mode: 0o600) } catch { throw .io(error) }
    var keep = false
    defer { if !keep { Posix.close(fd) } }
    let size: Int
    do { size = try Posix.fileSize(fd) } catch { throw .io(error) }
    if size == 0 {
      let salt = Posix.randomBytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      let framing = JournalFormat.Framing.version2(device: device, salt: salt)
      let header = framing.fileHeader
      do throws(SystemError) {
        try header.withUnsafeBytes { buffer in
          catching { () throws(SystemError) in try Posix.writeAll(fd, buffer, what: path) }
        }.get()
        try Posix.fsync(fd, what: path)
      } catch { throw .io(error) }
      keep = true
      let recovery = JournalRecovery(records: 0, validBytes: header.count, truncated: nil, created: true)
      let file = JournalFile(path: path, fd: fd, size: header.count, framing: framing, syncEachCommit: syncEachCommit)
      return (file, recovery)
    }
    // Mapped, not copied: the pages are file-backed and go away with the mapping after replay.
    let buffer: UnsafeRawBufferPointer
    do { buffer = try Posix.mapReadOnly(fd, size: size, what: path) } catch { throw .io(error) }
    defer { Posix.unmap(buffer) }
    let framing: JournalFormat.Framing
    do throws(JournalFormat.HeaderProblem) { framing = try JournalFormat.parseHeader(buffer) } catch {
      throw .header(path: path, error)
    }
    guard framing.device == device else { throw .wrongDevice(path: path, expected: device, found: framing.device) }
    let scan = JournalFormat.scan(buffer, framing: framing)
    if let damage = scan.damage, !damage.isTail, !repair {
      throw .corrupt(path: path, damage: damage, bytesAfter: buffer.count - damage.offset)
    }
    for record in scan.records {
      try replay(UnsafeRawBufferPointer(rebasing: buffer[record.offset..<record.offset + record.length]), record.offset)
    }
    var recovery = JournalRecovery(
      records: scan.records.count, validBytes: scan.validEnd, truncated: nil, created: false)
    if let damage = scan.damage { recovery.truncated = (damage, buffer.count - scan.validEnd) }
    let validEnd = scan.validEnd
    do throws(SystemError) {
      if validEnd < size {
        try Posix.truncate(fd, to: validEnd, what: path)
        try Posix.fsync(fd, what: path)
      }
      _ = try Posix.seekToEnd(fd)
    } catch { throw .io(error) }
    keep = true
    let file = JournalFile(path: path, fd: fd, size: validEnd, framing: framing, syncEachCommit: syncEachCommit)
    return (file, recovery)
  }

  /// Appends records framed with this file's ``framing`` (``JournalFormat/Framing/appendRecord(_:to:)``) in one
  /// write.
  /// - Throws: ``JournalError/io(_:)``; the file is cut back to its previous length first.
  package func append(_ framed: [UInt8]) throws(JournalError) {
    if framed.isEmpty { return }
    do throws(SystemError) {
      try framed.withUnsafeBytes { buffer in
        catching { () throws(SystemError) in try Posix.writeAll(fd, buffer, what: path) }
      }.get()
      if syncEachCommit { try Posix.fsync(fd, what: path) }
      size += framed.count
    } catch {
      try? Posix.truncate(fd, to: size, what: path)
      _ = try? Posix.seekToEnd(fd)
      throw .io(error)
    }
  }

  /// Flushes to stable storage.
  package func sync() throws(JournalError) {
    do { try Posix.fsync(fd, what: path) } catch { throw .io(error) }
  }
}
