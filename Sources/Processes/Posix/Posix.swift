// The Posix namespace and the EINTR loop every wrapper shares. The wrappers are split by aspect: Files, Sockets,
// Events (epoll, eventfd, signalfd, poll), Processes (spawning, signals, threads, limits), Clocks (time, randomness),
// Faults (forced failures for tests), FileDescriptor (an owned descriptor) and OwnFiles (the rule for HealthPair's
// own paths: ours, private, never a link or a FIFO).
#if canImport(Glibc)
  import Glibc
#endif

/// The one seam between HealthPair and the operating system: every system call the project makes goes through
/// this namespace.
///
/// Each wrapper retries `EINTR` (except `close`), turns failures into ``SystemError`` with the operation and its
/// subject, and consults ``Posix/faults`` so tests can force an errno on a chosen call.
package enum Posix {
  /// Runs `body` again while it fails with `EINTR`; returns its result and the errno of a failure (a negative
  /// result). Every wrapper that may be interrupted goes through it.
  @inline(__always)
  static func retrying<T: BinaryInteger>(_ body: () -> T) -> (T, Errno?) {
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

  /// Ends the process at once with `code` (no atexit handlers). C: `_exit`.
  package static func exitImmediately(_ code: Int32) -> Never { _exit(code) }
}
