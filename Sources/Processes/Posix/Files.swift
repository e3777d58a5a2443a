// Files and directories, standard streams, pipes and memory maps.
import CPosix

#if canImport(Glibc)
  import Glibc
#endif

extension Posix {
  /// Opens a file. The corresponding C function is `open`.
  package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(SystemError) -> Int32 {
    if let e = forced("open", path) { throw SystemError("open", path, e) }
    let (fd, e) = retrying { Glibc.open(path, flags | O_CLOEXEC, mode) }
    if let e { throw SystemError("open", path, e) }
    return fd
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
    let file = FileDescriptor(try open(path, O_RDONLY))
    return try readAll(file.rawValue, path: path, limit: limit)
  }

  /// Reads from `fd` to its end (`path` names it in errors). Built on `read`.
  /// - Throws: `EFBIG` past `limit` bytes.
  static func readAll(_ fd: Int32, path: String, limit: Int) throws(SystemError) -> [UInt8] {
    var result: [UInt8] = []
    // Never zeroed (`read` writes what it returns), and no larger than the limit needs: a 64-byte file is read
    // into a 65-byte buffer.
    let size = min(1 << 16, max(limit, 0) + 1)
    var chunk = [UInt8](unsafeUninitializedCapacity: size) { _, count in count = size }
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

  /// Creates a FIFO (named pipe) at `path` (tests plant them to check they are refused, never waited on).
  /// C: `mkfifo`.
  package static func makeFIFO(_ path: String, mode: mode_t = 0o600) throws(SystemError) {
    if Glibc.mkfifo(path, mode) != 0 { throw SystemError("mkfifo", path, .current) }
  }

  /// Gives `path` itself (a symbolic link is not followed) to user `uid` and group `gid` (root's tests hand a
  /// directory to another user to check it is refused). C: `lchown`.
  package static func changeOwner(_ path: String, uid: uid_t, gid: gid_t) throws(SystemError) {
    if Glibc.lchown(path, uid, gid) != 0 { throw SystemError("lchown", path, .current) }
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

  /// Whether this process may create files in directory `path`. C: `access(W_OK | X_OK)`.
  package static func isWritableDirectory(_ path: String) -> Bool {
    isDirectory(path) && access(path, W_OK | X_OK) == 0
  }

  /// The bytes an unprivileged process may still write on the file system holding `path`. C: `statvfs`.
  package static func availableBytes(onFileSystemOf path: String) -> UInt64? {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return nil }
    return UInt64(info.f_bavail) * UInt64(info.f_frsize)
  }

  /// Creates a fresh private directory under `base` (default `/tmp` or `$TMPDIR`). The corresponding C function is
  /// `mkdtemp`.
  package static func makeTemporaryDirectory(prefix: String, in base: String = temporaryDirectoryBase)
    throws(SystemError) -> String
  {
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
    // One `unlink` per file (a pair's directory is a dozen of them); a directory refuses it and is emptied first.
    // Never follows a symbolic link: `unlink` removes the link itself.
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
      }
      if name == "." || name == ".." { continue }
      let child = path + "/" + name
      if entry.pointee.d_type == UInt8(DT_DIR) {
        removeTree(child)
      } else if Glibc.unlink(child) != 0, errno == EISDIR || errno == EPERM, isDirectory(child) {
        removeTree(child)
      }
    }
    closedir(dir)
    _ = rmdir(path)
  }

  private static func isDirectory(_ path: String) -> Bool {
    var st = stat()
    return Glibc.lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
  }

  /// The names in a directory that start with `prefix` (`.` and `..` excepted), in no particular order: cheaper than
  /// ``listDirectory(_:)`` in a crowded directory such as `/tmp`, as nothing else is copied or sorted.
  package static func listDirectory(_ path: String, prefix: String) throws(SystemError) -> [String] {
    guard let dir = opendir(path) else { throw SystemError("opendir", path, .current) }
    defer { closedir(dir) }
    let wanted = Array(prefix.utf8)
    var names: [String] = []
    while let entry = readdir(dir) {
      let matches = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        wanted.count < raw.count && wanted.indices.allSatisfy { raw[$0] == wanted[$0] }
      }
      guard matches else { continue }
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
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

  /// Takes an exclusive, non-blocking lock on a lock file (opened with ``openOwnFile(_:_:mode:creating:)``: never
  /// through a symbolic link) and writes our pid into it; the lock lasts as long as the returned descriptor is
  /// open. Throws ``Errno/lockHeld`` when another process holds it. C: `flock`.
  package static func lockFile(_ path: String) throws(SystemError) -> FileDescriptor {
    let file = FileDescriptor(try openOwnFile(path, O_RDWR, mode: 0o600))
    let fd = file.rawValue
    if cposix_flock(fd, 1) != 0 { throw SystemError("flock", path, .current) }
    _ = Glibc.ftruncate(fd, 0)
    let text = Array("\(getpid())\n".utf8)
    _ = text.withUnsafeBytes { Glibc.pwrite(fd, $0.baseAddress, $0.count, 0) }
    return file
  }

  /// Whether another open descriptor holds a lock (``lockFile(_:)``) on the file at `path`; false when the file
  /// does not exist. Takes and at once releases the lock when it is free; never follows a link or waits on a FIFO
  /// there. C: `open`, `flock`.
  package static func isLockHeld(_ path: String) -> Bool {
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    if fd < 0 { return false }
    defer { close(fd) }
    if cposix_flock(fd, 1) != 0 { return Errno.current == .lockHeld }
    _ = cposix_flock(fd, 0)
    return false
  }

  // MARK: - Standard streams and pipes

  /// Whether a descriptor is a terminal. C: `isatty`.
  package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
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
