// Unix stream sockets: listening, connecting, accepting, sending, socket options.
import CPosix

#if canImport(Glibc)
  import Glibc
#endif

extension Posix {
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
  /// symbolic link, a regular file), which is never removed or followed; another user's socket is refused
  /// (``ownPathRefusal(_:_:expected:)``). C: `socket`, `bind`, `listen`.
  package static func listenUnix(_ path: String, backlog: Int32 = 512) throws(SystemError) -> FileDescriptor {
    if let info = fileMode(path) {
      guard info.isSocket else {
        let what = info.isSymbolicLink ? "a symbolic link" : "a file that is not a socket"
        throw SystemError("bind", path, .addressInUse, note: "refusing to replace \(what) with the socket")
      }
      if let status = status(ofPath: path), let refusal = ownPathRefusal(status, path, expected: .socket) {
        throw refusal  // another user's socket: never connected to, never removed
      }
      if (try? connectUnix(path)) != nil {  // someone answered (the probe closes here)
        throw SystemError("bind", path, .addressInUse)
      }
      unlink(path)
    }
    let raw = Glibc.socket(
      AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    if raw < 0 { throw SystemError("socket", path, .current) }
    let socket = FileDescriptor(raw)  // closed on every error path below
    let previous = umask(0o177)
    let bound = try withAddress(path) { Glibc.bind(raw, $0, $1) }
    umask(previous)
    if bound != 0 { throw SystemError("bind", path, .current) }
    if Glibc.listen(raw, backlog) != 0 { throw SystemError("listen", path, .current) }
    return socket
  }

  /// Connects a blocking Unix stream socket to `path`. With `sendTimeout`, the connect (which blocks while the
  /// listener's backlog is full) and every later send on the socket give up after that many seconds with `EAGAIN`.
  /// C: `socket`, `setsockopt(SO_SNDTIMEO)`, `connect`.
  package static func connectUnix(_ path: String, sendTimeout: Double? = nil) throws(SystemError) -> FileDescriptor {
    let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    if fd < 0 { throw SystemError("socket", path, .current) }
    let socket = FileDescriptor(fd)  // closed on every error path below
    if let sendTimeout {
      let whole = max(0, sendTimeout.rounded(.down))
      var tv = timeval(tv_sec: Int(whole), tv_usec: Int(((sendTimeout - whole) * 1e6).rounded()))
      if tv.tv_sec == 0 && tv.tv_usec == 0 { tv.tv_usec = 1 }
      _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
    let (_, e) = try retryingConnect(fd, path)
    if let e { throw SystemError("connect", path, e) }
    return socket
  }

  private static func retryingConnect(_ fd: Int32, _ path: String) throws(SystemError) -> (Int32, Errno?) {
    try withAddress(path) { address, length in retrying { Glibc.connect(fd, address, length) } }
  }

  /// Accepts a connection as a non-blocking socket the caller owns; nil when none is waiting. `what` (the
  /// listener's path) names it in errors and forced failures. C: `accept4`.
  package static func accept(_ fd: Int32, what: String? = nil) throws(SystemError) -> FileDescriptor? {
    if let e = forced("accept", what) { throw SystemError("accept4", what ?? "fd \(fd)", e) }
    let (client, e) = retrying { cposix_accept4(fd) }
    if let e {
      if e == .wouldBlock || e.rawValue == ECONNABORTED { return nil }
      throw SystemError("accept4", what ?? "fd \(fd)", e)
    }
    return FileDescriptor(client)
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
}
