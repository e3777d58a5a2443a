import Posix

#if canImport(Glibc)
  import Glibc
#endif

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
  /// The change mark beside the journal (``ChangeMarkFile``) is damaged: the highest change number handed out is
  /// unknown, so opening could reuse one an app's anchor covers.
  case damagedChangeMark(path: String, ChangeMarkProblem)

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
    case .damagedChangeMark(let path, let problem):
      "\(path): \(problem): the change mark is damaged, so the highest change number handed out is unknown. "
        + "Nothing was changed. Restart with --repair to number changes from \(DurableDevice.repairedMarkGap) past "
        + "the journal's last one"
    }
  }
}

/// What opening a journal found.
package struct JournalRecovery: Sendable, Equatable {
  /// Records in the journal (those a snapshot covered included).
  package var records: Int
  /// Records a snapshot covered, which were not replayed (0 when the open replayed from the start).
  package var resumedRecords = 0
  /// Why the snapshot position offered to the open was not used (the journal was replayed from the start).
  package var resumeProblem: String?
  /// Bytes of intact journal.
  package var validBytes: Int
  /// The torn tail (or, with repair, the damaged record) that was cut off, and how many bytes were dropped.
  package var truncated: (damage: JournalFormat.Damage, droppedBytes: Int)?
  /// Whether the file was created by this open.
  package var created: Bool

  /// Creates a recovery report.
  package init(
    records: Int, validBytes: Int, truncated: (damage: JournalFormat.Damage, droppedBytes: Int)?, created: Bool
  ) {
    self.records = records
    self.validBytes = validBytes
    self.truncated = truncated
    self.created = created
  }

  /// Equality over the fields.
  package static func == (a: JournalRecovery, b: JournalRecovery) -> Bool {
    a.records == b.records && a.validBytes == b.validBytes && a.truncated?.damage == b.truncated?.damage
      && a.truncated?.droppedBytes == b.truncated?.droppedBytes && a.created == b.created
      && a.resumedRecords == b.resumedRecords && a.resumeProblem == b.resumeProblem
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
  /// The open journal, closed when the file object goes.
  private let file: FileDescriptor
  private var fd: Int32 { file.rawValue }
  /// The current length in bytes.
  package private(set) var size: Int
  /// The file header, as in the file.
  package let header: [UInt8]
  /// How many records the file holds.
  package private(set) var records: Int
  /// The newest record: where it starts and its record header.
  private var lastRecord: JournalPosition.LastRecord?

  private init(
    path: String, file: consuming FileDescriptor, size: Int, framing: JournalFormat.Framing, syncEachCommit: Bool,
    header: [UInt8],
    records: Int, lastRecord: JournalPosition.LastRecord?
  ) {
    self.path = path
    self.file = file
    self.size = size
    self.framing = framing
    self.syncEachCommit = syncEachCommit
    self.header = header
    self.records = records
    self.lastRecord = lastRecord
  }

  /// The current end of the journal, as a snapshot taken now records it (reads the bytes before it back).
  /// - Throws: ``JournalError/io(_:)``.
  package func position() throws(JournalError) -> JournalPosition {
    let tailLength = min(JournalPosition.tailWindow, size - header.count)
    var tail = [UInt8](repeating: 0, count: tailLength)
    var done = 0
    while done < tailLength {
      let n: Int
      do {
        n = try tail.withUnsafeMutableBytes { buffer in
          catching { () throws(SystemError) in
            let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[done...])
            return try Posix.pread(fd, into: rest, at: size - tailLength + done)
          }
        }.get()
      } catch { throw .io(error) }
      guard n > 0 else { throw .io(SystemError("pread", path, Errno(rawValue: EIO))) }
      done += n
    }
    return JournalPosition(
      header: header, end: size, records: records, lastRecord: lastRecord, tailLength: tailLength,
      tailChecksum: CRC32C.checksum(tail))
  }

  /// Opens (or creates) the journal at `path` for `device`, hands every intact record's payload to `replay` in
  /// order, cuts a torn tail, and returns the file positioned for appends. A symbolic link at `path` (dangling or
  /// not) is refused, never followed or created through (``Posix/openOwnFile(_:_:mode:creating:)``).
  ///
  /// A new journal is version 2, with a salt from the kernel's random source. An existing one keeps its version:
  /// a version-1 journal is replayed and appended to as version 1 (docs/journal.md, "Versions").
  ///
  /// - Parameters:
  ///   - repair: also cut at damage inside the journal (dropping what follows) instead of refusing to open.
  ///   - resume: where a snapshot of the state ends; when it fits this journal (``JournalPosition/mismatch(in:)``)
  ///     only the records after it are scanned and replayed. Records it covers are not read at all.
  ///   - starting: called once before any replay, with whether the open resumes from `resume` (else every record
  ///     is replayed onto an empty state).
  ///   - replay: receives each payload and its file offset; a thrown error aborts the open.
  /// - Throws: ``JournalError``.
  package static func open(
    path: String, device: UInt8, syncEachCommit: Bool = false, repair: Bool = false,
    resume: JournalPosition? = nil, starting: (_ resumed: Bool) -> Void = { _ in },
    replay: (UnsafeRawBufferPointer, Int) throws(JournalError) -> Void
  ) throws(JournalError) -> (JournalFile, JournalRecovery) {
    // Owned: every way out of this function but the two returns of a JournalFile closes it.
    let file: FileDescriptor
    do { file = FileDescriptor(try Posix.openOwnFile(path, O_RDWR, mode: 0o600)) } catch { throw .io(error) }
    let fd = file.rawValue
    let size: Int
    do { size = try Posix.fileSize(fd) } catch { throw .io(error) }
    if size == 0 {
      var recovery = JournalRecovery(records: 0, validBytes: 0, truncated: nil, created: true)
      if resume != nil { recovery.resumeProblem = "the journal is empty" }
      starting(false)
      let salt = Posix.randomBytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      let framing = JournalFormat.Framing.version2(device: device, salt: salt)
      let header = framing.fileHeader
      recovery.validBytes = header.count
      do throws(SystemError) {
        try header.withUnsafeBytes { buffer in
          catching { () throws(SystemError) in try Posix.writeAll(fd, buffer, what: path) }
        }.get()
        // Durable before ready only with `syncEachCommit`: without it no append is, and this `fsync` was most of a
        // fresh daemon's start (docs/journal.md, "Durability").
        if syncEachCommit { try Posix.fsync(fd, what: path) }
      } catch { throw .io(error) }
      let journal = JournalFile(
        path: path, file: file, size: header.count, framing: framing, syncEachCommit: syncEachCommit, header: header,
        records: 0, lastRecord: nil)
      return (journal, recovery)
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
    var recovery = JournalRecovery(records: 0, validBytes: framing.headerSize, truncated: nil, created: false)
    var resumed: JournalPosition?
    if let resume {
      recovery.resumeProblem = resume.mismatch(in: buffer)
      if recovery.resumeProblem == nil { resumed = resume }
    }
    let scan = JournalFormat.scan(buffer, framing: framing, from: resumed?.end ?? framing.headerSize)
    if let damage = scan.damage, !damage.isTail, !repair {
      throw .corrupt(path: path, damage: damage, bytesAfter: buffer.count - damage.offset)
    }
    starting(resumed != nil)
    for record in scan.records {
      try replay(UnsafeRawBufferPointer(rebasing: buffer[record.offset..<record.offset + record.length]), record.offset)
    }
    recovery.resumedRecords = resumed?.records ?? 0
    recovery.records = recovery.resumedRecords + scan.records.count
    recovery.validBytes = scan.validEnd
    var lastRecord = resumed?.lastRecord
    if let last = scan.records.last {
      let start = last.offset - JournalFormat.recordHeaderSize
      lastRecord = JournalPosition.LastRecord(offset: start, head: Array(buffer[start..<last.offset]))
    }
    let header = Array(buffer[0..<framing.headerSize])
    if let damage = scan.damage { recovery.truncated = (damage, buffer.count - scan.validEnd) }
    let validEnd = scan.validEnd
    do throws(SystemError) {
      if validEnd < size {
        try Posix.truncate(fd, to: validEnd, what: path)
        try Posix.fsync(fd, what: path)
      }
      _ = try Posix.seekToEnd(fd)
    } catch { throw .io(error) }
    let journal = JournalFile(
      path: path, file: file, size: validEnd, framing: framing, syncEachCommit: syncEachCommit, header: header,
      records: recovery.records, lastRecord: lastRecord)
    return (journal, recovery)
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
      let (count, lastStart) = framed.withUnsafeBytes { JournalFormat.recordStarts(in: $0) }
      if let lastStart {
        let head = Array(framed[lastStart..<lastStart + JournalFormat.recordHeaderSize])
        lastRecord = JournalPosition.LastRecord(offset: size + lastStart, head: head)
      }
      records += count
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
