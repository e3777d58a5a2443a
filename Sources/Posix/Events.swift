// Readiness and wake-ups: epoll, eventfd, signalfd, poll.
import CPosix

#if canImport(Glibc)
  import Glibc
#endif

extension Posix {
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

  /// Creates an epoll instance the caller owns. C: `epoll_create1`.
  package static func epollCreate() throws(SystemError) -> FileDescriptor {
    let fd = cposix_epoll_create()
    if fd < 0 { throw SystemError("epoll_create1", nil, .current) }
    return FileDescriptor(fd)
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
  package static func eventCounter() throws(SystemError) -> FileDescriptor {
    let fd = cposix_eventfd()
    if fd < 0 { throw SystemError("eventfd", nil, .current) }
    return FileDescriptor(fd)
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
  package static func signalDescriptor(_ signals: [Int32]) throws(SystemError) -> FileDescriptor {
    let fd = signals.withUnsafeBufferPointer { cposix_signalfd($0.baseAddress, Int32($0.count)) }
    if fd < 0 { throw SystemError("signalfd", nil, .current) }
    return FileDescriptor(fd)
  }

  /// Reads one pending signal number from a signalfd, or nil.
  package static func readSignal(_ fd: Int32) -> Int32? {
    let signal = cposix_read_signal(fd)
    return signal > 0 ? signal : nil
  }

  /// Ignores SIGPIPE process-wide, so a write to a closed socket is an `EPIPE` error, not a kill.
  package static func ignoreBrokenPipe() { _ = signal(SIGPIPE, SIG_IGN) }
  /// Waits until `fd` is readable or `timeoutMilliseconds` pass; true when readable. C: `poll`.
  package static func waitReadable(_ fd: Int32, timeoutMilliseconds: Int32) -> Bool {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
      let n = poll(&pfd, 1, timeoutMilliseconds)
      if n < 0 && errno == EINTR { continue }
      return n > 0
    }
  }
}
