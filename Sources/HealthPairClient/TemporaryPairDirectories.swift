import HealthModel
import Posix
import Synchronization

/// The temporary directories of pairs launched without a directory (every HealthPairTesting pair).
///
/// Each is `$TMPDIR/healthpair-<pid>-XXXXXX`, named after the launching process. Three layers remove it:
/// the pair's shutdown; its daemons, when the launcher dies without stopping them (`--remove-when-orphaned`: each
/// removes its device's directory, the last one the rest); and, for what a crash at a worse moment leaves (the
/// launcher killed before its daemons started, or the daemons killed with it), the first pair a later process
/// launches sweeps directories whose launcher is no longer running.
package enum TemporaryPairDirectories {
  /// The name prefix, before the launcher's pid.
  package static let prefix = "healthpair-"

  /// Creates a fresh directory named after this process.
  /// - Throws: `SystemError` from `mkdtemp`.
  package static func make() throws(SystemError) -> String {
    try Posix.makeTemporaryDirectory(prefix: "\(prefix)\(Posix.processID)")
  }

  private static let swept = Mutex(false)

  /// Sweeps once per process (see ``sweep(in:)``).
  package static func sweepOnce() {
    let first = swept.withLock { done in
      defer { done = true }
      return !done
    }
    if first { sweep() }
  }

  /// Removes the directories under `base` that this user's earlier, no longer running processes left; returns
  /// their paths. A directory whose launcher runs (or whose pid was reused), or where a daemon still holds its
  /// lock, is left alone.
  @discardableResult
  package static func sweep(in base: String = Posix.temporaryDirectoryBase) -> [String] {
    guard let names = try? Posix.listDirectory(base) else { return [] }
    var removed: [String] = []
    for name in names {
      guard let pid = launcher(of: name), pid != Posix.processID, !Posix.isAlive(pid) else { continue }
      let path = "\(base)/\(name)"
      guard let info = Posix.fileMode(path), info.uid == Posix.userID, Posix.directoryExists(path) else { continue }
      // A daemon still holding its lock is in use (by a process this one cannot see, in another pid namespace).
      let layout = PairLayout(root: path)
      guard !DeviceKind.allCases.contains(where: { Posix.isLockHeld(layout.lock($0)) }) else { continue }
      Posix.removeTree(path)
      removed.append(path)
    }
    return removed
  }

  /// The launcher's pid in a name of the form `healthpair-<pid>-XXXXXX`, else nil.
  package static func launcher(of name: String) -> Int32? {
    guard name.hasPrefix(prefix) else { return nil }
    let parts = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[1].count == 6, let pid = Int32(parts[0]), pid > 0 else { return nil }
    return pid
  }
}
