import HealthModel
import Posix
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The temporary directories of pairs launched without a directory (every HealthPairTesting pair).
///
/// Each is `<base>/healthpair-<pid>-XXXXXX`, named after the launching process, where the base is (``base``):
/// `$HEALTHPAIR_TMPDIR` when set; else `/dev/shm` when it is a writable memory file system with at least 512 MiB
/// free; else `$TMPDIR`, else `/tmp`. A pair's files live only as long as its test, so memory is the right place:
/// creating and removing them on a disk file system costs a journaled inode each. Three layers remove it:
/// the pair's shutdown; its daemons, when the launcher dies without stopping them (`--remove-when-orphaned`: each
/// removes its device's directory, the last one the rest); and, for what a crash at a worse moment leaves (the
/// launcher killed before its daemons started, or the daemons killed with it), the first pair a later process
/// launches sweeps directories whose launcher is no longer running.
package enum TemporaryPairDirectories {
  /// The name prefix, before the launcher's pid.
  package static let prefix = "healthpair-"

  /// Creates a fresh directory named after this process, under ``base``.
  /// - Throws: `SystemError` from `mkdtemp`; `EINTR` once the process was interrupted (``Interruption``).
  package static func make() throws(SystemError) -> String {
    if Interruption.isInterrupted { throw SystemError("mkdtemp", "interrupted", Errno(rawValue: EINTR)) }
    return try Posix.makeTemporaryDirectory(prefix: "\(prefix)\(Posix.processID)", in: base)
  }

  /// Removes every directory this process made under ``base`` where no daemon holds a lock — after an
  /// interruption stopped its pairs, what a pair caught between creating its directory and registering left.
  package static func removeOwn() {
    guard let names = try? Posix.listDirectory(base, prefix: "\(prefix)\(Posix.processID)-") else { return }
    for name in names where launcher(of: name) == Posix.processID {
      let layout = PairLayout(root: "\(base)/\(name)")
      guard !DeviceKind.allCases.contains(where: { Posix.isLockHeld(layout.lock($0)) }) else { continue }
      Posix.removeTree(layout.root)
    }
  }

  /// The environment variable that names where pair directories go, overriding the choice of ``base``.
  package static let baseVariable = "HEALTHPAIR_TMPDIR"

  /// Where this process's pair directories go (chosen once; see the type's description).
  package static let base = chooseBase(
    explicit: Posix.environment(baseVariable), memory: memoryBase, fallback: Posix.temporaryDirectoryBase,
    available: { Posix.isWritableDirectory($0) ? Posix.availableBytes(onFileSystemOf: $0) : nil })

  /// The memory file system tried first.
  package static let memoryBase = "/dev/shm"

  /// The free space the memory file system needs to be used (a container's default `/dev/shm` is 64 MiB: too
  /// small for a suite's stores, so such a machine uses the disk).
  package static let memoryMinimumBytes: UInt64 = 512 << 20

  /// The base for pair directories: `explicit` when set (and not empty), else `memory` when `available` says it is
  /// usable with ``memoryMinimumBytes`` free, else `fallback`.
  package static func chooseBase(
    explicit: String?, memory: String, fallback: String, available: (String) -> UInt64?
  ) -> String {
    if let explicit, !explicit.isEmpty { return explicit }
    if let free = available(memory), free >= memoryMinimumBytes { return memory }
    return fallback
  }

  private static let swept = Mutex(false)

  /// Sweeps once per process (see ``sweep(in:)``).
  package static func sweepOnce() {
    let first = swept.withLock { done in
      defer { done = true }
      return !done
    }
    guard first else { return }
    sweep()
    // Directories an earlier process left where pairs went before (the disk, when memory was not used or full).
    if base != Posix.temporaryDirectoryBase { sweep(in: Posix.temporaryDirectoryBase) }
  }

  /// Removes the directories under `base` that this user's earlier, no longer running processes left; returns
  /// their paths. A directory whose launcher runs (or whose pid was reused), or where a daemon still holds its
  /// lock, is left alone.
  @discardableResult
  package static func sweep(in base: String = TemporaryPairDirectories.base) -> [String] {
    guard let names = try? Posix.listDirectory(base, prefix: prefix).sorted() else { return [] }
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
