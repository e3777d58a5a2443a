#if canImport(Glibc)
  import Glibc
#endif

/// A POSIX error number, with `strerror`'s text.
package struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The raw `errno` value.
  package let rawValue: Int32
  /// Wraps a raw value.
  package init(rawValue: Int32) { self.rawValue = rawValue }

  /// The current thread's `errno`.
  package static var current: Errno { Errno(rawValue: errno) }

  /// `strerror` text and the number.
  package var description: String { "\(String(cString: strerror(rawValue))) (errno \(rawValue))" }

  /// `EINTR`.
  package static let interrupted = Errno(rawValue: EINTR)
  /// `EAGAIN` / `EWOULDBLOCK`.
  package static let wouldBlock = Errno(rawValue: EAGAIN)
  /// `ENOENT`.
  package static let noSuchFile = Errno(rawValue: ENOENT)
  /// `EEXIST`.
  package static let fileExists = Errno(rawValue: EEXIST)
  /// `ECONNREFUSED`.
  package static let connectionRefused = Errno(rawValue: ECONNREFUSED)
  /// `EPIPE`.
  package static let brokenPipe = Errno(rawValue: EPIPE)
  /// `ECONNRESET`.
  package static let connectionReset = Errno(rawValue: ECONNRESET)
  /// `ENOSPC`.
  package static let noSpace = Errno(rawValue: ENOSPC)
  /// `EINPROGRESS`.
  package static let inProgress = Errno(rawValue: EINPROGRESS)
  /// `EADDRINUSE`.
  package static let addressInUse = Errno(rawValue: EADDRINUSE)
  /// `ECHILD`.
  package static let noChild = Errno(rawValue: ECHILD)
  /// `ESRCH`.
  package static let noSuchProcess = Errno(rawValue: ESRCH)
  /// `EMFILE`.
  package static let tooManyOpenFiles = Errno(rawValue: EMFILE)
  /// `ENFILE`: the system-wide table of open files is full.
  package static let systemOpenFileLimit = Errno(rawValue: ENFILE)
  /// `EWOULDBLOCK` from `flock` (another process holds the lock).
  package static let lockHeld = Errno(rawValue: EWOULDBLOCK)
  /// `ELOOP`: what `open` with `O_NOFOLLOW` reports for a symbolic link.
  package static let symbolicLink = Errno(rawValue: ELOOP)

  /// Lets `catch Errno.interrupted` match.
  package static func ~= (lhs: Errno, rhs: any Error) -> Bool { (rhs as? Errno) == lhs }
}

/// A failed system call with its context: `connect(/tmp/x/phone.sock): Connection refused (errno 111)`.
package struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The call that failed.
  package var operation: String
  /// The path or descriptor involved, if any.
  package var subject: String?
  /// The error number.
  package var errno: Errno
  /// Why HealthPair refused, when the refusal is its own rather than the kernel's (read before the errno text).
  package var note: String?

  /// Creates an error.
  package init(_ operation: String, _ subject: String? = nil, _ errno: Errno, note: String? = nil) {
    self.operation = operation
    self.subject = subject
    self.errno = errno
    self.note = note
  }

  /// `operation(subject): strerror (errno N)`, or `operation(subject): note (strerror, errno N)` with a note.
  package var description: String {
    let call = "\(operation)\(subject.map { "(\($0))" } ?? "")"
    guard let note else { return "\(call): \(errno)" }
    return "\(call): \(note) (\(errno))"
  }
}

/// Runs a typed-throwing body and captures its outcome, so typed errors survive `rethrows` closures such as
/// `Array.withUnsafeBytes`: `try bytes.withUnsafeBytes { b in catching { () throws(E) in … } }.get()`. Inlinable, so
/// each caller in another module gets it specialized (no generic metadata looked up per syscall).
@inlinable @inline(__always)
package func catching<T, E: Error>(_ body: () throws(E) -> T) -> Result<T, E> {
  do { return .success(try body()) } catch { return .failure(error) }
}
