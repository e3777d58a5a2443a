// An owned file descriptor: closed exactly once, by whoever holds it last.

#if canImport(Glibc)
  import Glibc
#endif

/// An open file descriptor this value owns. It cannot be copied, so exactly one owner closes it: when the value
/// is destroyed (it goes out of scope, an error unwinds past it, the object holding it is freed), unless it was
/// handed on first with ``take()``. It replaces `defer { close(fd) }` pairs and "keep it open on success" flags.
///
/// ```swift
/// let file = FileDescriptor(try Posix.open(path, O_RDONLY))   // closed on every path out of this scope
/// let size = try Posix.fileSize(file.rawValue)
/// ```
package struct FileDescriptor: ~Copyable, Sendable {
  /// The descriptor, for the calls that take one. Valid while this value lives; never close it yourself.
  package let rawValue: Int32

  /// Takes ownership of `rawValue`, an open descriptor nobody else will close.
  package init(_ rawValue: Int32) { self.rawValue = rawValue }

  /// Hands the descriptor over to the caller, who must close it: this value no longer will.
  package consuming func take() -> Int32 {
    let raw = rawValue
    discard self
    return raw
  }

  /// Closes the descriptor now (ending this value), where that reads better than letting it go out of scope.
  package consuming func close() {}

  deinit { Posix.close(rawValue) }
}

extension Posix {
  /// Opens a file as an owned descriptor (``open(_:_:mode:)``).
  package static func openOwned(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(SystemError)
    -> FileDescriptor
  {
    FileDescriptor(try open(path, flags, mode: mode))
  }
}
