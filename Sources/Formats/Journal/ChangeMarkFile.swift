import Posix

#if canImport(Glibc)
  import Glibc
#endif

/// `<dir>/<device>.changes`: the highest change number the device ever handed out, kept beside its journal so that
/// a journal that loses records cannot lower it (docs/journal.md, "Change numbers").
///
/// ```
/// file := magic "HPCHANGE" | highest u64 | crc u32      (20 bytes, little-endian; crc = CRC-32C of the 16 before)
/// ```
///
/// ``DurableDevice`` raises it, with one 20-byte `pwrite` in place, after every journal append that handed out new
/// numbers and before the operation is acknowledged; opening moves the replayed counter up to it.
package final class ChangeMarkFile {
  /// The file's size in bytes.
  package static let size = 20
  /// The file's first 8 bytes.
  package static let magic = Array("HPCHANGE".utf8)

  /// Where the file is.
  package let path: String
  /// The highest change number recorded (0 for a new file).
  package private(set) var highest: UInt64
  /// Whether ``raise(to:)`` flushes the file to stable storage (`--fsync`).
  private let syncEachWrite: Bool
  private let descriptor: FileDescriptor

  /// The mark file beside the journal at `journal`: `<dir>/<device>.changes`.
  package static func path(forJournal journal: String) -> String {
    (journal.hasSuffix(".journal") ? String(journal.dropLast(".journal".count)) : journal) + ".changes"
  }

  /// Opens the mark at `path`, creating an empty one (mark 0) when there is none; an empty file (a crash between its
  /// creation and its first write) is mark 0 too.
  /// - Throws: ``JournalError/io(_:)`` when it cannot be opened or read; ``JournalError/damagedChangeMark(path:_:)``
  ///   when its bytes are not a mark (nothing is changed).
  package init(path: String, syncEachWrite: Bool) throws(JournalError) {
    self.path = path
    self.syncEachWrite = syncEachWrite
    do { descriptor = FileDescriptor(try Posix.openOwnFile(path, O_RDWR, mode: 0o600)) } catch { throw .io(error) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.size + 1, alignment: 8)
    defer { buffer.deallocate() }
    var count = 0
    do throws(SystemError) {
      while count < buffer.count {
        let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[count...])
        let n = try Posix.pread(descriptor.rawValue, into: rest, at: count)
        if n == 0 { break }
        count += n
      }
    } catch { throw .io(error) }
    let bytes = Array(buffer[0..<count])
    if count == 0 {
      highest = 0
      return
    }
    switch Self.decode(bytes) {
    case .success(let value): highest = value
    case .failure(let problem): throw .damagedChangeMark(path: path, problem)
    }
  }

  /// Records `value` as the highest change number handed out, when it is higher than ``highest``.
  /// - Throws: ``JournalError/io(_:)``; the mark in memory stays as it was.
  package func raise(to value: UInt64) throws(JournalError) {
    guard value > highest else { return }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.size, alignment: 8)
    defer { buffer.deallocate() }
    buffer.copyBytes(from: Self.encode(value))
    do throws(SystemError) {
      try Posix.pwriteAll(descriptor.rawValue, UnsafeRawBufferPointer(buffer), at: 0, what: path)
      if syncEachWrite { try Posix.fsync(descriptor.rawValue, what: path) }
    } catch { throw .io(error) }
    highest = value
  }

  /// The file's bytes for mark `value`.
  package static func encode(_ value: UInt64) -> [UInt8] {
    var bytes = magic
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    let crc = bytes.withUnsafeBytes { CRC32C.checksum($0) }
    withUnsafeBytes(of: crc.littleEndian) { bytes.append(contentsOf: $0) }
    return bytes
  }

  /// The mark `bytes` hold, or what is wrong with them (with its offset).
  package static func decode(_ bytes: [UInt8]) -> Result<UInt64, ChangeMarkProblem> {
    guard bytes.count == size else {
      return .failure(ChangeMarkProblem(offset: min(bytes.count, size), "\(bytes.count) bytes, not \(size)"))
    }
    guard Array(bytes[0..<8]) == magic else { return .failure(ChangeMarkProblem(offset: 0, "not a change mark")) }
    let stored = bytes[16..<20].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    let computed = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<16])) }
    guard stored == computed else {
      let hex = (String(stored, radix: 16), String(computed, radix: 16))
      let message = "checksum mismatch (stored 0x\(hex.0), computed 0x\(hex.1))"
      return .failure(ChangeMarkProblem(offset: 16, message))
    }
    let value = bytes[8..<16].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    return .success(value)
  }
}

/// Why a change mark file's bytes are not a mark: where, and what.
package struct ChangeMarkProblem: Error, Sendable, Equatable, CustomStringConvertible {
  /// The byte offset of the problem.
  package var offset: Int
  /// What is wrong.
  package var message: String

  /// A problem at `offset`.
  package init(offset: Int, _ message: String) {
    self.offset = offset
    self.message = message
  }

  /// `offset N: message`.
  package var description: String { "offset \(offset): \(message)" }
}
