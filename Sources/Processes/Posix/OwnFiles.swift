// HealthPair's own files and directories: what is ours is used, anything else is refused, never followed or waited on.
import CPosix

#if canImport(Glibc)
  import Glibc
#endif

extension Posix {
  /// What a path (or an open descriptor) is, as `lstat`/`fstat` report it.
  package struct FileStatus: Sendable, Equatable {
    /// The kind of file.
    package enum Kind: Sendable, Equatable, CustomStringConvertible {
      case regular, directory, symbolicLink, fifo, socket, characterDevice, blockDevice, other
      /// `a regular file`, `a symbolic link`, `a FIFO (named pipe)`…
      package var description: String {
        switch self {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .symbolicLink: "a symbolic link"
        case .fifo: "a FIFO (named pipe)"
        case .socket: "a socket"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .other: "a special file"
        }
      }
    }
    /// The kind of file.
    package var kind: Kind
    /// The permission bits (`0o7777`).
    package var permissions: mode_t
    /// The owner's user id.
    package var owner: uid_t

    init(_ st: stat) {
      switch st.st_mode & S_IFMT {
      case S_IFREG: kind = .regular
      case S_IFDIR: kind = .directory
      case S_IFLNK: kind = .symbolicLink
      case S_IFIFO: kind = .fifo
      case S_IFSOCK: kind = .socket
      case S_IFCHR: kind = .characterDevice
      case S_IFBLK: kind = .blockDevice
      default: kind = .other
      }
      permissions = st.st_mode & 0o7777
      owner = st.st_uid
    }
  }

  /// The effective user id: the owner of every file this process creates. C: `geteuid`.
  package static var effectiveUserID: uid_t { geteuid() }

  /// What `path` itself is (a symbolic link is not followed), or nil when nothing is there. C: `lstat`.
  package static func status(ofPath path: String) -> FileStatus? {
    var st = stat()
    guard Glibc.lstat(path, &st) == 0 else { return nil }
    return FileStatus(st)
  }

  /// What an open descriptor is. C: `fstat`.
  package static func status(of fd: Int32, what: String) throws(SystemError) -> FileStatus {
    var st = stat()
    let (_, e) = retrying { Glibc.fstat(fd, &st) }
    if let e { throw SystemError("fstat", what, e) }
    return FileStatus(st)
  }

  /// The one rule for HealthPair's own paths (a pair or device directory, key, journal, snapshot, log, lock,
  /// socket): the path must be `expected` (a symbolic link, a FIFO or a device never is), owned by this process's
  /// effective user, and writable by nobody else (no group or other write bit). Nil when `status` passes; else the
  /// refusal, naming `path` and what is wrong. Root is held to it too: it must not adopt another user's files.
  package static func ownPathRefusal(_ status: FileStatus, _ path: String, expected: FileStatus.Kind) -> SystemError? {
    if status.kind != expected {
      let errno: Errno = status.kind == .symbolicLink ? .symbolicLink : Errno(rawValue: EINVAL)
      let note =
        "refusing \(status.kind) where HealthPair keeps \(expected) of its own (it never follows or waits on one)"
      return SystemError("open", path, errno, note: note)
    }
    let me = effectiveUserID
    if status.owner != me {
      let note = "refusing a path owned by uid \(status.owner), not by this user (uid \(me)): HealthPair uses its own"
      return SystemError("open", path, Errno(rawValue: EPERM), note: note)
    }
    if status.permissions & 0o022 != 0 {
      let mode = "0" + String(status.permissions, radix: 8)
      let note = "refusing a path its group or other users may write (mode \(mode)); make it private (chmod go-w)"
      return SystemError("open", path, Errno(rawValue: EPERM), note: note)
    }
    return nil
  }

  /// Checks that the directory at `path` is one of HealthPair's own (``ownPathRefusal(_:_:expected:)``): a real
  /// directory (not a link to one), of this user, that nobody else may write. Its parents are not checked: a sticky,
  /// world-writable parent such as `/tmp` is fine. C: `lstat`.
  /// - Throws: the refusal, naming the path; `ENOENT` when nothing is there.
  package static func checkOwnDirectory(_ path: String) throws(SystemError) {
    guard let status = status(ofPath: path) else { throw SystemError("lstat", path, .current) }
    if let refusal = ownPathRefusal(status, path, expected: .directory) { throw refusal }
  }

  /// Checks that whatever is at `path`, if anything, passes ``ownPathRefusal(_:_:expected:)`` as `expected`:
  /// a daemon calls it for each of its paths before it opens any, so a planted FIFO, link or foreign file stops it
  /// at once with the path named. C: `lstat`.
  package static func checkOwnPathIfPresent(_ path: String, expected: FileStatus.Kind = .regular) throws(SystemError) {
    guard let status = status(ofPath: path) else { return }
    if let refusal = ownPathRefusal(status, path, expected: expected) { throw refusal }
  }

  /// Opens the directory at `path` (not through a symbolic link) and checks it is our own
  /// (``checkOwnDirectory(_:)``, on the open descriptor, so what was checked is what files are opened in).
  /// C: `open(O_DIRECTORY | O_NOFOLLOW)`, `fstat`.
  package static func openOwnDirectory(_ path: String) throws(SystemError) -> FileDescriptor {
    let fd: Int32
    do { fd = try open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) } catch {
      // ELOOP: a link; ENOTDIR: something else. Name what is there.
      if let status = status(ofPath: path), let refusal = ownPathRefusal(status, path, expected: .directory) {
        throw refusal
      }
      throw error
    }
    let directory = FileDescriptor(fd)
    if let refusal = ownPathRefusal(try status(of: fd, what: path), path, expected: .directory) { throw refusal }
    return directory
  }

  /// Opens the regular file at `path` — HealthPair's own (journal, log, lock, key, snapshot, the launcher's
  /// `<device>.stderr`) — never following a symbolic link and never blocking on a FIFO. Its directory must pass
  /// ``openOwnDirectory(_:)``; the file is opened relative to that descriptor (`openat`) with `O_NOFOLLOW |
  /// O_NONBLOCK | O_NOCTTY`, and created with `O_CREAT | O_EXCL` and `mode` as `creation` says. The open file
  /// must pass ``ownPathRefusal(_:_:expected:)``: a link (dangling or not), FIFO, socket, device, directory, a file
  /// of another user or one others may write is refused with an error naming the path. `O_TRUNC` in `flags` is
  /// applied only once the file passed (another user's file is never cut); `O_NONBLOCK` stays set only when
  /// `flags` has it. `flags` must not contain `O_CREAT`. C: `openat`, `fstat`, `ftruncate`, `fcntl`.
  package static func openOwnFile(
    _ path: String, _ flags: Int32, mode: mode_t = 0o600, creating creation: Creation = .ifMissing
  ) throws(SystemError) -> Int32 {
    if let e = forced("open", path) { throw SystemError("open", path, e) }
    let (parent, name) = splitPath(path)
    let directory = try openOwnDirectory(parent)
    let opening = (flags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC
    /// What is at `name` now, refused; nil when it would pass (or is gone).
    func refusalOfEntry() -> SystemError? {
      var st = stat()
      guard fstatat(directory.rawValue, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
      return ownPathRefusal(FileStatus(st), path, expected: .regular)
    }
    var attempts = 0
    while true {
      attempts += 1
      let first = opening | (creation == .exclusive ? O_CREAT | O_EXCL : 0)
      var (fd, e) = retrying { openat(directory.rawValue, name, first, mode) }
      if let failed = e {
        // ELOOP: a link. ENXIO: a FIFO without a reader opened for writing, or a socket. EEXIST (exclusive).
        let suspect = failed == .symbolicLink || failed.rawValue == ENXIO || failed == .fileExists
        if suspect, let refusal = refusalOfEntry() { throw refusal }
        guard creation == .ifMissing, failed == .noSuchFile else { throw SystemError("open", path, failed) }
        (fd, e) = retrying { openat(directory.rawValue, name, opening | O_CREAT | O_EXCL, mode) }
        if let failed = e {
          // EEXIST: a file or link appeared between the two calls; look again, then name what is there.
          if failed == .fileExists && attempts < 3 { continue }
          if failed == .fileExists, let refusal = refusalOfEntry() { throw refusal }
          throw SystemError("open", path, failed)
        }
      }
      let file = FileDescriptor(fd)
      if let refusal = ownPathRefusal(try status(of: fd, what: path), path, expected: .regular) { throw refusal }
      if flags & O_NONBLOCK == 0 { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
      if flags & O_TRUNC != 0 { try truncate(fd, to: 0, what: path) }
      return file.take()
    }
  }

  /// Whether ``openOwnFile(_:_:mode:creating:)`` creates the file.
  package enum Creation: Sendable, Equatable {
    /// Never: a missing file is an `ENOENT` error.
    case never
    /// When it is missing (`O_CREAT | O_EXCL`, so a link appearing meanwhile is refused, not followed).
    case ifMissing
    /// Always: anything already there is an error (`EEXIST`, or the refusal naming what it is).
    case exclusive
  }

  /// Reads the whole of HealthPair's own file at `path` (``openOwnFile(_:_:mode:creating:)`` without creating it):
  /// a link, FIFO or another user's file is refused, never read.
  /// - Throws: `ENOENT` when it does not exist; `EFBIG` past `limit` bytes.
  package static func readOwnFile(_ path: String, limit: Int = 1 << 30) throws(SystemError) -> [UInt8] {
    let file = FileDescriptor(try openOwnFile(path, O_RDONLY, creating: .never))
    return try readAll(file.rawValue, path: path, limit: limit)
  }

  /// Creates a new file beside `path` with an unpredictable name (`<path>.tmp-` and 12 random characters), with
  /// `O_CREAT | O_EXCL | O_NOFOLLOW`: nothing planted there in advance — a link in a shared sticky directory — can
  /// be written through. Returns its descriptor and name (rename it over `path` when done). C: `open`.
  package static func createTemporaryFile(beside path: String, mode: mode_t) throws(SystemError)
    -> (fd: Int32, path: String)
  {
    let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
    var attempts = 0
    while true {
      attempts += 1
      let suffix = String(decoding: randomBytes(12).map { letters[Int($0) % letters.count] }, as: UTF8.self)
      let temporary = path + ".tmp-" + suffix
      do { return (try open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode), temporary) } catch {
        if error.errno == .fileExists && attempts < 16 { continue }
        throw error
      }
    }
  }

  /// `path`'s directory (`.` when it has none, `/` at the top) and last component.
  static func splitPath(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let directory = slash == path.startIndex ? "/" : String(path[..<slash])
    return (directory, String(path[path.index(after: slash)...]))
  }
}
