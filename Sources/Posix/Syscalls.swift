import CPosix
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The one seam between HealthPair and the operating system: every system call the project makes goes through
/// this namespace.
///
/// Each wrapper retries `EINTR` (except `close`), turns failures into ``SystemError`` with the operation and its
/// subject, and consults ``Posix/faults`` so tests can force an errno on a chosen call.
package enum Posix {
  // MARK: - Fault injection

  /// A forced failure: which call, which errno, for which subjects, how many more times.
  package struct Fault: Sendable {
    /// The errno the call fails with.
    package var errno: Errno
    /// Only calls whose subject (path) contains this string fail; nil matches every call.
    package var subjectContains: String?
    /// How many more calls fail.
    package var remaining: Int
  }

  /// Forced failures for tests, by operation name (`"write"`, `"fsync"`, `"open"`, `"send"`).
  package static let faults = Mutex<[String: Fault]>([:])

  /// Makes the next `count` calls of `operation` whose subject contains `subjectContains` fail with `errno`.
  package static func injectFault(_ operation: String, _ errno: Errno, subjectContains: String? = nil, count: Int = 1) {
    faults.withLock { $0[operation] = Fault(errno: errno, subjectContains: subjectContains, remaining: count) }
  }

  /// Removes every forced failure.
  package static func clearFaults() { faults.withLock { $0.removeAll() } }

  private static func forced(_ operation: String, _ subject: String?) -> Errno? {
    faults.withLock { table -> Errno? in
      guard var fault = table[operation], fault.remaining > 0 else { return nil }
      if let needle = fault.subjectContains, !(subject ?? "").contains(needle) { return nil }
      fault.remaining -= 1
      table[operation] = fault.remaining == 0 ? nil : fault
      return fault.errno
    }
  }

  @inline(__always)
  private static func retrying<T: BinaryInteger>(_ body: () -> T) -> (T, Errno?) {
    while true {
      let result = body()
      if result < 0 {
        let e = Errno.current
        if e == .interrupted { continue }
        return (result, e)
      }
      return (result, nil)
    }
  }

  // MARK: - Files

  /// Opens a file. The corresponding C function is `open`.
  package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(SystemError) -> Int32 {
    if let e = forced("open", path) { throw SystemError("open", path, e) }
    let (fd, e) = retrying { Glibc.open(path, flags | O_CLOEXEC, mode) }
    if let e { throw SystemError("open", path, e) }
    return fd
  }

  /// Opens the regular file at `path`, creating it with `mode` when it does not exist, without ever following a
  /// symbolic link there: for the daemon's own files (journal, log, lock), which must stay inside their `0700`
  /// directory. An existing file is opened with `O_NOFOLLOW`; a missing one is created with `O_CREAT | O_EXCL |
  /// O_NOFOLLOW`, which fails rather than create a link's target. A symbolic link (dangling or not) or anything
  /// other than a regular file is refused with an error naming the path. `flags` must not contain `O_CREAT`.
  /// C: `open`, `fstat`.
  package static func openOwnFile(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(SystemError) -> Int32 {
    let linkNote = "refusing to open a symbolic link (HealthPair opens its own files only directly)"
    var attempts = 0
    while true {
      attempts += 1
      let fd: Int32
      do { fd = try open(path, flags | O_NOFOLLOW, mode: mode) } catch {
        if error.errno == .symbolicLink { throw SystemError("open", path, error.errno, note: linkNote) }
        guard error.errno == .noSuchFile else { throw error }
        do { fd = try open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode) } catch {
          // EEXIST: a file or link appeared between the two calls (or a dangling link is there); look again.
          if error.errno == .fileExists && attempts < 3 { continue }
          if error.errno == .fileExists, let info = fileMode(path), info.isSymbolicLink {
            throw SystemError("open", path, .symbolicLink, note: linkNote)
          }
          throw error
        }
      }
      var st = stat()
      guard Glibc.fstat(fd, &st) == 0 else {
        let e = Errno.current
        close(fd)
        throw SystemError("fstat", path, e)
      }
      guard (st.st_mode & S_IFMT) == S_IFREG else {
        close(fd)
        let note = "refusing to open something other than a regular file"
        throw SystemError("open", path, Errno(rawValue: EINVAL), note: note)
      }
      return fd
    }
  }

  /// Closes a descriptor, ignoring errors (EINTR on close must not be retried). The C function is `close`.
  package static func close(_ fd: Int32) { _ = Glibc.close(fd) }

  /// The outcome of a read on a possibly non-blocking descriptor.
  package enum ReadResult: Equatable, Sendable {
    /// This many bytes were read.
    case bytes(Int)
    /// The peer closed its end.
    case endOfFile
    /// Nothing to read now (non-blocking descriptor).
    case wouldBlock
  }

  /// Reads into `buffer`. The corresponding C function is `read`.
  package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> ReadResult {
    let (n, e) = retrying { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    if let e {
      if e == .wouldBlock { return .wouldBlock }
      throw SystemError("read", "fd \(fd)", e)
    }
    return n == 0 ? .endOfFile : .bytes(n)
  }

  /// Reads at `offset` without moving the file position. The corresponding C function is `pread`.
  package static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(SystemError)
    -> Int
  {
    let (n, e) = retrying { Glibc.pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
    if let e { throw SystemError("pread", "fd \(fd)", e) }
    return n
  }

  /// Writes every byte to a blocking descriptor, looping over short writes. The C function is `write`.
  package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, what: String? = nil) throws(SystemError) {
    if let e = forced("write", what) { throw SystemError("write", what ?? "fd \(fd)", e) }
    var offset = 0
    while offset < bytes.count {
      let (n, e) = retrying { Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
      if let e { throw SystemError("write", what ?? "fd \(fd)", e) }
      offset += n
    }
  }

  /// Writes every byte at `offset` without moving the file position, looping over short writes. The C function is
  /// `pwrite`.
  package static func pwriteAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, what: String? = nil)
    throws(SystemError)
  {
    if let e = forced("write", what) { throw SystemError("pwrite", what ?? "fd \(fd)", e) }
    var done = 0
    while done < bytes.count {
      let (n, e) = retrying { Glibc.pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
      if let e { throw SystemError("pwrite", what ?? "fd \(fd)", e) }
      done += n
    }
  }

  /// Sends every byte on a blocking socket, looping over short sends; a closed peer is an `EPIPE` error, never a
  /// SIGPIPE. The C function is `send` with `MSG_NOSIGNAL`.
  package static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, what: String? = nil) throws(SystemError) {
    if let e = forced("send", what) { throw SystemError("send", what ?? "fd \(fd)", e) }
    var offset = 0
    while offset < bytes.count {
      let (n, e) = retrying { Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
      if let e { throw SystemError("send", what ?? "fd \(fd)", e) }
      offset += n
    }
  }

  /// Sends as many bytes as the socket takes now; nil when it would block. Never raises SIGPIPE. The C function
  /// is `send` with `MSG_NOSIGNAL`.
  package static func sendSome(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
    if let e = forced("send", nil) { throw SystemError("send", "fd \(fd)", e) }
    let (n, e) = retrying { Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    if let e {
      if e == .wouldBlock { return nil }
      throw SystemError("send", "fd \(fd)", e)
    }
    return n
  }

  /// Flushes a file to stable storage. The corresponding C function is `fsync`.
  package static func fsync(_ fd: Int32, what: String? = nil) throws(SystemError) {
    if let e = forced("fsync", what) { throw SystemError("fsync", what ?? "fd \(fd)", e) }
    let (_, e) = retrying { Glibc.fsync(fd) }
    if let e { throw SystemError("fsync", what ?? "fd \(fd)", e) }
  }

  /// Cuts a file to `length` bytes. The corresponding C function is `ftruncate`.
  package static func truncate(_ fd: Int32, to length: Int, what: String? = nil) throws(SystemError) {
    let (_, e) = retrying { Glibc.ftruncate(fd, off_t(length)) }
    if let e { throw SystemError("ftruncate", what ?? "fd \(fd)", e) }
  }

  /// Moves the file position to the end and returns it. The corresponding C function is `lseek`.
  package static func seekToEnd(_ fd: Int32) throws(SystemError) -> Int {
    let (n, e) = retrying { Glibc.lseek(fd, 0, SEEK_END) }
    if let e { throw SystemError("lseek", "fd \(fd)", e) }
    return Int(n)
  }

  /// The size of an open file. The corresponding C function is `fstat`.
  package static func fileSize(_ fd: Int32) throws(SystemError) -> Int {
    var st = stat()
    let (_, e) = retrying { Glibc.fstat(fd, &st) }
    if let e { throw SystemError("fstat", "fd \(fd)", e) }
    return Int(st.st_size)
  }

  /// The permission bits, owner and kind of a path itself (a symbolic link is not followed), or nil when it does
  /// not exist. The C function is `lstat`.
  package static func fileMode(_ path: String) -> (mode: mode_t, uid: uid_t, isSocket: Bool, isSymbolicLink: Bool)? {
    var st = stat()
    guard Glibc.lstat(path, &st) == 0 else { return nil }
    return (st.st_mode & 0o7777, st.st_uid, (st.st_mode & S_IFMT) == S_IFSOCK, (st.st_mode & S_IFMT) == S_IFLNK)
  }

  /// Whether a path exists.
  package static func exists(_ path: String) -> Bool { fileMode(path) != nil }

  /// Reads a whole file. Built on `open`, `read`, `close`.
  package static func readFile(_ path: String, limit: Int = 1 << 30) throws(SystemError) -> [UInt8] {
    let fd = try open(path, O_RDONLY)
    defer { close(fd) }
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let r = try chunk.withUnsafeMutableBytes { buffer in
        catching { () throws(SystemError) in try read(fd, into: buffer) }
      }.get()
      guard case .bytes(let n) = r else { break }
      result.append(contentsOf: chunk[0..<n])
      if result.count > limit { throw SystemError("read", path, Errno(rawValue: EFBIG)) }
    }
    return result
  }

  /// Writes a file through a temporary name and `rename`, so readers see all or nothing.
  package static func writeFileAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws(SystemError) {
    let temporary = path + ".tmp.\(getpid())"
    unlink(temporary)
    let fd = try open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode)
    do throws(SystemError) {
      try bytes.withUnsafeBytes { buffer in
        catching { () throws(SystemError) in try writeAll(fd, buffer, what: temporary) }
      }.get()
      try fsync(fd, what: temporary)
    } catch {
      close(fd)
      unlink(temporary)
      throw error
    }
    close(fd)
    guard Glibc.rename(temporary, path) == 0 else {
      let e = Errno.current
      unlink(temporary)
      throw SystemError("rename", path, e)
    }
  }

  /// Moves a file or directory tree to `destination` (which must not exist): `rename`, or across file systems a
  /// copy of its regular files and directories (sockets and other special files are skipped) and removal.
  package static func moveTree(_ source: String, to destination: String) throws(SystemError) {
    if Glibc.rename(source, destination) == 0 { return }
    let e = Errno.current
    guard e == Errno(rawValue: EXDEV) else { throw SystemError("rename", "\(source) to \(destination)", e) }
    try copyTree(source, to: destination)
    removeTree(source)
  }

  private static func copyTree(_ source: String, to destination: String) throws(SystemError) {
    var st = stat()
    guard Glibc.lstat(source, &st) == 0 else { throw SystemError("lstat", source, .current) }
    switch st.st_mode & S_IFMT {
    case S_IFDIR:
      try makeDirectory(destination, mode: st.st_mode & 0o7777)
      for name in try listDirectory(source) { try copyTree(source + "/" + name, to: destination + "/" + name) }
    case S_IFREG:
      try writeFileAtomically(destination, try readFile(source), mode: st.st_mode & 0o7777)
    default:
      break
    }
  }

  /// Creates a symbolic link at `path` pointing to `target` (tests plant them to check they are refused).
  /// C: `symlink`.
  package static func makeSymbolicLink(_ path: String, to target: String) throws(SystemError) {
    if Glibc.symlink(target, path) != 0 { throw SystemError("symlink", path, .current) }
  }

  /// Renames `from` to `to`, replacing `to` atomically. The corresponding C function is `rename`.
  package static func rename(_ from: String, to: String) throws(SystemError) {
    if let e = forced("rename", to) { throw SystemError("rename", to, e) }
    guard Glibc.rename(from, to) == 0 else { throw SystemError("rename", to, .current) }
  }

  /// Flushes a directory's entries (a rename or create inside it) to stable storage: `open(O_RDONLY)` of the
  /// directory, `fsync`, `close`.
  package static func syncDirectory(_ path: String) throws(SystemError) {
    let fd = try open(path, O_RDONLY | O_DIRECTORY)
    defer { close(fd) }
    try fsync(fd, what: path)
  }

  /// Removes a file, ignoring a missing one. The corresponding C function is `unlink`.
  package static func unlink(_ path: String) { _ = Glibc.unlink(path) }

  /// Creates a directory (and its parents) with `mode`; an existing directory is fine. The C function is `mkdir`.
  package static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(SystemError) {
    if exists(path) { return }
    let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    if !parent.isEmpty && !exists(parent) { try makeDirectory(parent, mode: mode) }
    if Glibc.mkdir(path, mode) != 0 {
      let e = Errno.current
      if e != .fileExists { throw SystemError("mkdir", path, e) }
    }
  }

  /// Sets permission bits. The corresponding C function is `chmod`.
  package static func chmod(_ path: String, _ mode: mode_t) throws(SystemError) {
    if Glibc.chmod(path, mode) != 0 { throw SystemError("chmod", path, .current) }
  }

  /// Where temporary directories go: `$TMPDIR`, else `/tmp`.
  package static var temporaryDirectoryBase: String { getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp" }

  /// Creates a fresh private directory under `/tmp` (or `$TMPDIR`). The corresponding C function is `mkdtemp`.
  package static func makeTemporaryDirectory(prefix: String) throws(SystemError) -> String {
    let base = temporaryDirectoryBase
    var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
    let ok = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
    if !ok { throw SystemError("mkdtemp", base, .current) }
    return string(fromNulTerminated: template)
  }

  /// Removes a directory tree (used for temporary pairs). Built on `opendir`, `unlink`, `rmdir`.
  package static func removeTree(_ path: String) {
    guard let dir = opendir(path) else {
      unlink(path)
      return
    }
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
      }
      if name == "." || name == ".." { continue }
      let child = path + "/" + name
      if let info = fileMode(child), info.mode & 0o170000 == 0, isDirectory(child) {
        removeTree(child)
      } else if isDirectory(child) {
        removeTree(child)
      } else {
        unlink(child)
      }
    }
    closedir(dir)
    _ = rmdir(path)
  }

  private static func isDirectory(_ path: String) -> Bool {
    var st = stat()
    return Glibc.lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
  }

  /// Lists the names in a directory.
  package static func listDirectory(_ path: String) throws(SystemError) -> [String] {
    guard let dir = opendir(path) else { throw SystemError("opendir", path, .current) }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }

  /// Whether a path names a directory.
  package static func directoryExists(_ path: String) -> Bool { isDirectory(path) }

  /// Takes an exclusive, non-blocking lock on a lock file (opened as ``openOwnFile(_:_:mode:)`` does: never
  /// through a symbolic link) and writes our pid into it; the lock lasts as long as the returned descriptor is
  /// open. Throws ``Errno/lockHeld`` when another process holds it. C: `flock`.
  package static func lockFile(_ path: String) throws(SystemError) -> Int32 {
    let fd = try openOwnFile(path, O_RDWR, mode: 0o600)
    if cposix_flock(fd, 1) != 0 {
      let e = Errno.current
      close(fd)
      throw SystemError("flock", path, e)
    }
    _ = Glibc.ftruncate(fd, 0)
    let text = Array("\(getpid())\n".utf8)
    _ = text.withUnsafeBytes { Glibc.pwrite(fd, $0.baseAddress, $0.count, 0) }
    return fd
  }

  /// Whether another open descriptor holds a lock (``lockFile(_:)``) on the file at `path`; false when the file
  /// does not exist. Takes and at once releases the lock when it is free. C: `open`, `flock`.
  package static func isLockHeld(_ path: String) -> Bool {
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 { return false }
    defer { close(fd) }
    if cposix_flock(fd, 1) != 0 { return Errno.current == .lockHeld }
    _ = cposix_flock(fd, 0)
    return false
  }

  // MARK: - Sockets

  private static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T)
    throws(SystemError) -> T
  {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else {
      throw SystemError("socket path", path, Errno(rawValue: ENAMETOOLONG))
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (i, b) in bytes.enumerated() { raw[i] = b }
      raw[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
  }

  /// Creates a non-blocking Unix stream socket listening at `path` with mode `0600`. A stale socket file (nobody
  /// listening) is removed first; a live one is an `EADDRINUSE` error, and so is anything else at `path` (a
  /// symbolic link, a regular file), which is never removed or followed. C: `socket`, `bind`, `listen`.
  package static func listenUnix(_ path: String, backlog: Int32 = 512) throws(SystemError) -> Int32 {
    if let info = fileMode(path) {
      guard info.isSocket else {
        let what = info.isSymbolicLink ? "a symbolic link" : "a file that is not a socket"
        throw SystemError("bind", path, .addressInUse, note: "refusing to replace \(what) with the socket")
      }
      if let probe = try? connectUnix(path) {
        close(probe)
        throw SystemError("bind", path, .addressInUse)
      }
      unlink(path)
    }
    let fd = Glibc.socket(
      AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    if fd < 0 { throw SystemError("socket", path, .current) }
    let previous = umask(0o177)
    let bound = try withAddress(path) { Glibc.bind(fd, $0, $1) }
    umask(previous)
    if bound != 0 {
      let e = Errno.current
      close(fd)
      throw SystemError("bind", path, e)
    }
    if Glibc.listen(fd, backlog) != 0 {
      let e = Errno.current
      close(fd)
      throw SystemError("listen", path, e)
    }
    return fd
  }

  /// Connects a blocking Unix stream socket to `path`. With `sendTimeout`, the connect (which blocks while the
  /// listener's backlog is full) and every later send on the socket give up after that many seconds with `EAGAIN`.
  /// C: `socket`, `setsockopt(SO_SNDTIMEO)`, `connect`.
  package static func connectUnix(_ path: String, sendTimeout: Double? = nil) throws(SystemError) -> Int32 {
    let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    if fd < 0 { throw SystemError("socket", path, .current) }
    if let sendTimeout {
      let whole = max(0, sendTimeout.rounded(.down))
      var tv = timeval(tv_sec: Int(whole), tv_usec: Int(((sendTimeout - whole) * 1e6).rounded()))
      if tv.tv_sec == 0 && tv.tv_usec == 0 { tv.tv_usec = 1 }
      _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
    let (_, e) = try retryingConnect(fd, path)
    if let e {
      close(fd)
      throw SystemError("connect", path, e)
    }
    return fd
  }

  private static func retryingConnect(_ fd: Int32, _ path: String) throws(SystemError) -> (Int32, Errno?) {
    try withAddress(path) { address, length in retrying { Glibc.connect(fd, address, length) } }
  }

  /// Accepts a connection as a non-blocking socket; nil when none is waiting. C: `accept4`.
  package static func accept(_ fd: Int32) throws(SystemError) -> Int32? {
    let (client, e) = retrying { cposix_accept4(fd) }
    if let e {
      if e == .wouldBlock || e.rawValue == ECONNABORTED { return nil }
      throw SystemError("accept4", "fd \(fd)", e)
    }
    return client
  }

  /// Switches a descriptor to non-blocking mode. C: `fcntl`.
  package static func setNonBlocking(_ fd: Int32, _ on: Bool = true) {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK)
  }

  /// The process, user and group at the other end of a Unix socket. C: `getsockopt(SO_PEERCRED)`.
  package static func peerCredentials(_ fd: Int32) throws(SystemError) -> (pid: pid_t, uid: uid_t, gid: gid_t) {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
    if cposix_peercred(fd, &pid, &uid, &gid) != 0 {
      throw SystemError("getsockopt(SO_PEERCRED)", "fd \(fd)", .current)
    }
    return (pid, uid, gid)
  }

  /// Shuts both directions of a socket down (wakes a blocked reader). C: `shutdown`.
  package static func shutdown(_ fd: Int32) { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

  /// Sets a socket's send and receive buffer sizes. C: `setsockopt`.
  package static func setBufferSizes(_ fd: Int32, bytes: Int32) {
    var size = bytes
    _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
  }

  /// Makes blocking reads on a socket give up after `seconds` (they then report `wouldBlock`). C: `setsockopt`
  /// with `SO_RCVTIMEO`.
  package static func setReceiveTimeout(_ fd: Int32, seconds: Int) {
    var tv = timeval(tv_sec: seconds, tv_usec: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
  }

  // MARK: - epoll, eventfd, signals

  /// Readiness bits for ``epollControl(_:_:_:events:token:)``.
  package enum PollEvents {
    /// Readable.
    package static let readable = UInt32(CPOSIX_EPOLLIN)
    /// Writable.
    package static let writable = UInt32(CPOSIX_EPOLLOUT)
    /// Error condition.
    package static let error = UInt32(CPOSIX_EPOLLERR)
    /// Hang-up.
    package static let hangUp = UInt32(CPOSIX_EPOLLHUP)
    /// Peer closed its writing half.
    package static let peerClosed = UInt32(CPOSIX_EPOLLRDHUP)
  }

  /// epoll_ctl operations.
  package enum PollOperation: Int32 {
    /// Start watching a descriptor.
    case add = 1
    /// Stop watching a descriptor.
    case remove = 2
    /// Change the events watched.
    case modify = 3
  }

  /// Creates an epoll instance. C: `epoll_create1`.
  package static func epollCreate() throws(SystemError) -> Int32 {
    let fd = cposix_epoll_create()
    if fd < 0 { throw SystemError("epoll_create1", nil, .current) }
    return fd
  }

  /// Registers, changes or removes interest in a descriptor. C: `epoll_ctl`.
  package static func epollControl(
    _ epoll: Int32, _ operation: PollOperation, _ fd: Int32, events: UInt32, token: UInt64
  ) throws(SystemError) {
    if cposix_epoll_ctl(epoll, operation.rawValue, fd, events, token) != 0 {
      let e = Errno.current
      if operation == .remove && (e.rawValue == ENOENT || e.rawValue == EBADF) { return }
      throw SystemError("epoll_ctl", "fd \(fd)", e)
    }
  }

  /// Waits up to `timeoutMilliseconds` (-1 forever) and fills `tokens`/`events`; returns how many are ready.
  /// C: `epoll_wait`.
  package static func epollWait(
    _ epoll: Int32, tokens: inout [UInt64], events: inout [UInt32], timeoutMilliseconds: Int32
  ) throws(SystemError) -> Int {
    let capacity = Int32(min(tokens.count, events.count))
    let n = tokens.withUnsafeMutableBufferPointer { t in
      events.withUnsafeMutableBufferPointer { e in
        cposix_epoll_wait(epoll, t.baseAddress, e.baseAddress, capacity, timeoutMilliseconds)
      }
    }
    if n < 0 {
      let e = Errno.current
      if e == .interrupted { return 0 }
      throw SystemError("epoll_wait", nil, e)
    }
    return Int(n)
  }

  /// Creates a non-blocking eventfd (a wake-up counter). C: `eventfd`.
  package static func eventCounter() throws(SystemError) -> Int32 {
    let fd = cposix_eventfd()
    if fd < 0 { throw SystemError("eventfd", nil, .current) }
    return fd
  }

  /// Adds one to an eventfd.
  package static func signalEventCounter(_ fd: Int32) {
    var one: UInt64 = 1
    _ = Glibc.write(fd, &one, 8)
  }

  /// Drains an eventfd.
  package static func drainEventCounter(_ fd: Int32) {
    var value: UInt64 = 0
    _ = Glibc.read(fd, &value, 8)
  }

  /// Blocks `signals` for normal delivery and returns a non-blocking signalfd that reports them. C: `signalfd`.
  package static func signalDescriptor(_ signals: [Int32]) throws(SystemError) -> Int32 {
    let fd = signals.withUnsafeBufferPointer { cposix_signalfd($0.baseAddress, Int32($0.count)) }
    if fd < 0 { throw SystemError("signalfd", nil, .current) }
    return fd
  }

  /// Reads one pending signal number from a signalfd, or nil.
  package static func readSignal(_ fd: Int32) -> Int32? {
    let signal = cposix_read_signal(fd)
    return signal > 0 ? signal : nil
  }

  /// Ignores SIGPIPE process-wide, so a write to a closed socket is an `EPIPE` error, not a kill.
  package static func ignoreBrokenPipe() { _ = signal(SIGPIPE, SIG_IGN) }

  // MARK: - Processes

  /// Starts `path` with `arguments` (argv[0] excluded) as a new process. `stdout` and `stderr` are redirected to
  /// the given descriptors when set; `descriptors` maps further child descriptors to ours (a browser's
  /// `--remote-debugging-pipe` reads 3 and writes 4); `extraEnvironment` is added to ours. C: `posix_spawn`.
  package static func spawn(
    _ path: String, _ arguments: [String], stdout: Int32? = nil, stderr: Int32? = nil, stdin: Int32? = nil,
    descriptors: [Int32: Int32] = [:], extraEnvironment: [String: String] = [:], newProcessGroup: Bool = false
  ) throws(SystemError) -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) }
    if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) }
    if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr, 2) }
    for (child, ours) in descriptors.sorted(by: { $0.key < $1.key }) {
      posix_spawn_file_actions_adddup2(&actions, ours, child)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    var flags = Int16(POSIX_SPAWN_SETSIGMASK)
    if newProcessGroup {
      flags |= Int16(POSIX_SPAWN_SETPGROUP)
      posix_spawnattr_setpgroup(&attributes, 0)
    }
    posix_spawnattr_setflags(&attributes, flags)
    var environment: [String] = []
    var index = 0
    while let entry = environ[index] {
      let text = String(cString: entry)
      let key = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
      if extraEnvironment[key] == nil { environment.append(text) }
      index += 1
    }
    environment += extraEnvironment.map { "\($0.key)=\($0.value)" }
    let argv = [path] + arguments
    var cArgs = argv.map { strdup($0) } + [nil]
    var cEnv = environment.map { strdup($0) } + [nil]
    defer {
      cArgs.forEach { free($0) }
      cEnv.forEach { free($0) }
    }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, path, &actions, &attributes, &cArgs, &cEnv)
    if rc != 0 { throw SystemError("posix_spawn", path, Errno(rawValue: rc)) }
    return pid
  }

  /// Sends a signal. C: `kill`.
  package static func kill(_ pid: pid_t, _ signal: Int32) throws(SystemError) {
    if Glibc.kill(pid, signal) != 0 { throw SystemError("kill", "pid \(pid)", .current) }
  }

  /// How a child process ended.
  package enum ExitStatus: Equatable, Sendable, CustomStringConvertible {
    /// It called exit with this code.
    case exited(Int32)
    /// A signal killed it.
    case signaled(Int32)

    /// `exit 0` or `signal 9`.
    package var description: String {
      switch self {
      case .exited(let c): "exit \(c)"
      case .signaled(let s): "signal \(s)"
      }
    }
  }

  /// Reaps a child; nil when `block` is false and it is still running. C: `waitpid`.
  package static func wait(_ pid: pid_t, block: Bool) throws(SystemError) -> ExitStatus? {
    var status: Int32 = 0
    let (n, e) = retrying { Glibc.waitpid(pid, &status, block ? 0 : WNOHANG) }
    if let e { throw SystemError("waitpid", "pid \(pid)", e) }
    if n == 0 { return nil }
    if status & 0x7f == 0 { return .exited((status >> 8) & 0xff) }
    return .signaled(status & 0x7f)
  }

  /// Whether a process exists (signal 0).
  package static func isAlive(_ pid: pid_t) -> Bool { Glibc.kill(pid, 0) == 0 }

  /// This process's id.
  package static var processID: pid_t { getpid() }
  /// This process's user id.
  package static var userID: uid_t { getuid() }

  /// An environment variable.
  package static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

  /// The absolute path of the running executable (`/proc/self/exe`).
  package static func executablePath() -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The current working directory.
  package static func currentDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getcwd(&buffer, buffer.count) != nil else { return "." }
    return string(fromNulTerminated: buffer)
  }

  /// Decodes a NUL-terminated C character array as UTF-8.
  package static func string(fromNulTerminated chars: [CChar]) -> String {
    let bytes = chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Whether a descriptor is a terminal. C: `isatty`.
  package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

  /// Raises this process's soft limit on open descriptors to its hard limit; returns the limit now in force.
  /// C: `getrlimit`/`setrlimit(RLIMIT_NOFILE)`.
  @discardableResult
  package static func raiseOpenFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
    if limit.rlim_cur < limit.rlim_max {
      var raised = limit
      raised.rlim_cur = limit.rlim_max
      if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
    }
    return Int(clamping: limit.rlim_cur)
  }

  /// The number of online processors.
  package static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

  /// The resident set size of a process in bytes, from `/proc/<pid>/statm`.
  package static func residentBytes(of pid: pid_t) -> Int? {
    guard let bytes = try? readFile("/proc/\(pid)/statm") else { return nil }
    let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }

  /// The peak resident set size of a process in bytes (`VmHWM` in `/proc/<pid>/status`).
  package static func peakResidentBytes(of pid: pid_t) -> Int? {
    guard let bytes = try? readFile("/proc/\(pid)/status") else { return nil }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let digits = line.dropFirst(6).filter(\.isNumber)
      return Int(digits).map { $0 * 1024 }
    }
    return nil
  }

  // MARK: - Time

  /// Monotonic nanoseconds. C: `clock_gettime(CLOCK_MONOTONIC)`.
  package static func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }

  /// Wall-clock seconds since 1970. C: `clock_gettime(CLOCK_REALTIME)`.
  package static func wallClockSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }

  /// Fills a buffer with random bytes from the kernel. C: `getrandom`.
  package static func randomBytes(_ count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let n = bytes.withUnsafeMutableBytes { cposix_getrandom($0.baseAddress! + filled, count - filled) }
      if n > 0 { filled += n }
    }
    return bytes
  }

  /// Writes a line to standard error without buffering.
  package static func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { _ = Glibc.write(2, $0.baseAddress, $0.count) }
  }

  /// Writes text to standard output without buffering.
  package static func writeStandardOutput(_ text: String) {
    var text = text
    text.withUTF8 { buffer in
      var offset = 0
      while offset < buffer.count {
        let n = Glibc.write(1, buffer.baseAddress! + offset, buffer.count - offset)
        if n <= 0 { if errno == EINTR { continue } else { break } }
        offset += n
      }
    }
  }

  /// Ends the process at once with `code` (no atexit handlers). C: `_exit`.
  package static func exitImmediately(_ code: Int32) -> Never { _exit(code) }
}

// MARK: - Threads and process exit

/// A boxed closure handed to a new thread.
private final class ThreadBody {
  let body: () -> Void
  init(_ body: @escaping () -> Void) { self.body = body }
}

extension Posix {
  /// Runs blocking `body` on a thread of its own and awaits its result, so the awaiting task's thread — one of
  /// Swift's few cooperative-pool threads — stays free for other tasks meanwhile.
  package static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      startThread { continuation.resume(with: Result { try body() }) }
    }
  }

  /// Starts a detached thread running `body`. The corresponding C function is `pthread_create`.
  package static func startThread(_ body: @escaping @Sendable () -> Void) {
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    let rc = pthread_create(
      &thread, &attributes,
      { raw in
        let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
        body.body()
        return nil
      }, box)
    pthread_attr_destroy(&attributes)
    precondition(rc == 0, "pthread_create failed with \(rc)")
  }

  /// Waits up to `timeoutMilliseconds` for process `pid` to exit (any process, not only children); true when it
  /// exited (or never existed). C: `pidfd_open`, `poll`.
  package static func waitForExit(_ pid: pid_t, timeoutMilliseconds: Int32) -> Bool {
    let fd = cposix_pidfd_open(pid)
    if fd < 0 { return !isAlive(pid) }
    defer { close(fd) }
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
      let n = poll(&pfd, 1, timeoutMilliseconds)
      if n < 0 && errno == EINTR { continue }
      return n > 0
    }
  }

  /// Waits until `fd` is readable or `timeoutMilliseconds` pass; true when readable. C: `poll`.
  package static func waitReadable(_ fd: Int32, timeoutMilliseconds: Int32) -> Bool {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
      let n = poll(&pfd, 1, timeoutMilliseconds)
      if n < 0 && errno == EINTR { continue }
      return n > 0
    }
  }

  /// Creates a pipe; both ends close on exec. C: `pipe2`.
  package static func pipe() throws(SystemError) -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    if cposix_pipe(&fds) != 0 { throw SystemError("pipe2", nil, .current) }
    return (fds[0], fds[1])
  }

  /// Opens `/dev/null` for writing.
  package static func devNull() -> Int32 { Glibc.open("/dev/null", O_RDWR | O_CLOEXEC) }
}

// MARK: - Memory-mapped files

extension Posix {
  /// Maps the first `size` bytes of `fd` read-only (private). Release it with ``unmap(_:)``. C: `mmap`.
  /// - Parameter populate: map every page up front (`MAP_POPULATE`), cheaper than a fault per page when the whole
  ///   file is read.
  package static func mapReadOnly(
    _ fd: Int32, size: Int, what: String, populate: Bool = false
  ) throws(SystemError) -> UnsafeRawBufferPointer {
    if size == 0 { return UnsafeRawBufferPointer(start: nil, count: 0) }
    let flags = MAP_PRIVATE | (populate ? MAP_POPULATE : 0)
    guard let pointer = mmap(nil, size, PROT_READ, flags, fd, 0), pointer != MAP_FAILED else {
      throw SystemError("mmap", what, .current)
    }
    _ = madvise(pointer, size, MADV_SEQUENTIAL)
    return UnsafeRawBufferPointer(start: pointer, count: size)
  }

  /// Unmaps a region from ``mapReadOnly(_:size:what:)``. C: `munmap`.
  package static func unmap(_ region: UnsafeRawBufferPointer) {
    if let base = region.baseAddress { _ = munmap(UnsafeMutableRawPointer(mutating: base), region.count) }
  }
}

extension Posix {
  /// Asks the kernel to send this process SIGTERM when its parent exits; returns false when the parent (by pid)
  /// is already gone. C: `prctl(PR_SET_PDEATHSIG)`.
  package static func exitWithParent(_ parent: pid_t) -> Bool { cposix_exit_with_parent(parent) == 0 }

  /// This process's parent id. C: `getppid`.
  package static var parentProcessID: pid_t { getppid() }

  /// Whether this binary embeds `healthpaird` (it links HealthPairTesting, whose entry point CPosix's start-up hook
  /// calls when the binary is launched with ``embeddedDaemonVariable`` set to `1`).
  package static var embedsDaemon: Bool { cposix_embeds_daemon() != 0 }

  /// The environment variable that launches a binary embedding `healthpaird` as the daemon.
  package static let embeddedDaemonVariable = CPOSIX_EMBEDDED_DAEMON_VARIABLE

  /// The path that names this process's own executable, even if the file was replaced since it started.
  package static let ownExecutable = "/proc/self/exe"
}

extension Posix {
  /// Pins the calling thread (and processes it spawns afterwards) to one CPU. C: `sched_setaffinity`.
  @discardableResult
  package static func pinToCPU(_ cpu: Int) -> Bool { cposix_pin_to_cpu(Int32(cpu)) == 0 }

  /// Lets the calling thread run on every CPU again. C: `sched_setaffinity`.
  package static func unpin() { _ = cposix_unpin() }
}
