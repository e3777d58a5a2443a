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

  /// Routes `signals` (at most 8) to a self-pipe: a handler writes each arrival's number as one byte, which
  /// ``readSignalByte(_:)`` returns. Unlike a signalfd it needs no signal blocked in every thread, so it works in a
  /// process whose threads already run (a test runner), and as PID 1 (which has no default actions). With
  /// `onlyIfDefault`, a signal someone else handles or ignores is left alone. Returns the read end (kept for the
  /// process's life, shared by every call) and the signals now routed to it. C: `sigaction`, `pipe2`.
  package static func signalPipe(_ signals: [Int32], onlyIfDefault: Bool) throws(SystemError)
    -> (fd: Int32, routed: [Int32])
  {
    var installed: Int32 = 0
    let fd = signals.withUnsafeBufferPointer {
      cposix_signal_pipe($0.baseAddress, Int32($0.count), onlyIfDefault ? 1 : 0, &installed)
    }
    if fd < 0 { throw SystemError("sigaction", "signals \(signals)", .current) }
    return (fd, signals.enumerated().filter { installed & (1 << $0.offset) != 0 }.map(\.element))
  }

  /// Blocks until the self-pipe of ``signalPipe(_:onlyIfDefault:)`` delivers a signal number; nil when it fails.
  package static func readSignalByte(_ fd: Int32) -> Int32? {
    var byte: UInt8 = 0
    let (n, _) = retrying { Glibc.read(fd, &byte, 1) }
    return n == 1 ? Int32(byte) : nil
  }

  /// Restores `signal`'s default action and raises it: the process ends as that signal ends it (which, for PID 1,
  /// is not at all: the caller exits itself next). C: `sigaction`, `raise`.
  package static func raiseWithDefaultAction(_ signal: Int32) { cposix_raise_default(signal) }

  /// A non-blocking descriptor that turns readable when an entry is created in (or moved into) `directory`: wait
  /// on it (``waitReadable(_:timeoutMilliseconds:)``), ``drainDirectoryWatch(_:)``, then look. C: `inotify_init1`,
  /// `inotify_add_watch`.
  package static func watchDirectory(_ directory: String) throws(SystemError) -> FileDescriptor {
    let fd = cposix_watch_directory(directory)
    if fd < 0 { throw SystemError("inotify_add_watch", directory, .current) }
    return FileDescriptor(fd)
  }

  /// Reads and drops every pending event of a ``watchDirectory(_:)`` descriptor.
  package static func drainDirectoryWatch(_ fd: Int32) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while Glibc.read(fd, &buffer, buffer.count) > 0 {}
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
