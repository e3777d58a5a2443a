import Posix

/// Deliberate damage for fault tests (the scenario step `cut <device> journal by <n> records` and the chaos fault
/// "journal loses its last K records"): what a restore from an older copy, or a file system that lost a tail,
/// leaves behind — a shorter journal that ends at a record boundary, which recovery cannot tell from an intact one.
/// Only for journals no daemon has open.
package enum JournalSurgery {
  /// How many intact records the journal at `path` holds.
  /// - Throws: `SystemError` when the file cannot be read, `JournalFormat.HeaderProblem` when it is no journal.
  package static func recordCount(_ path: String) throws -> Int {
    try Posix.readFile(path).withUnsafeBytes { try JournalFormat.scan(file: $0).records.count }
  }

  /// Drops the last `count` intact records of the journal at `path` (all of them when it has fewer), replacing the
  /// file atomically; returns how many were dropped.
  @discardableResult
  package static func dropLastRecords(_ path: String, count: Int) throws -> Int {
    let bytes = try Posix.readFile(path)
    let records = try bytes.withUnsafeBytes { try JournalFormat.scan(file: $0).records }
    let dropped = min(max(0, count), records.count)
    guard dropped > 0 else { return 0 }
    let cut = records[records.count - dropped].offset - JournalFormat.recordHeaderSize
    try Posix.writeFileAtomically(path, Array(bytes[0..<cut]))
    return dropped
  }
}
