import Posix
import Synchronization
import Wire

/// The socket's read side: the frame decoder and buffer, used only by the thread holding the read role.
///
/// `@unchecked` because its state is mutable without a lock: the read role (``DeviceClient``'s `Shared.reading`,
/// taken and given up under the client's mutex) makes one thread at a time its user, and the mutex orders them.
final class ReaderCore: @unchecked Sendable {
  let fd: Int32
  private var decoder = FrameDecoder(maxFrameLength: WireProtocol.maxReplyFrame)
  /// 256 KiB: a reply of a few thousand samples arrives in one or two reads, not four or more. Left uninitialized:
  /// `read` writes what it returns, so only the pages it touches are faulted in and a new connection zeroes nothing.
  private var buffer = [UInt8](unsafeUninitializedCapacity: 1 << 18) { _, count in count = 1 << 18 }

  init(fd: Int32) { self.fd = fd }

  enum Outcome {
    case frames([Frame])
    case nothing
    case ended(String, [Frame])
  }

  /// One `read` (blocking until something is there) and the whole frames it completes.
  func readOnce() -> Outcome {
    let result = buffer.withUnsafeMutableBytes { raw in
      catching { () throws(SystemError) in try Posix.read(fd, into: raw) }
    }
    switch result {
    case .success(.bytes(let n)):
      buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
      var frames: [Frame] = []
      do {
        while let body = try decoder.next() { frames.append(try Frame.decode(body)) }
      } catch {
        return .ended("undecodable frame from the daemon: \(error)", frames)
      }
      return frames.isEmpty ? .nothing : .frames(frames)
    case .success(.endOfFile): return .ended("connection closed", [])
    case .success(.wouldBlock): return .nothing
    case .failure(let error): return .ended("\(error)", [])
    }
  }
}

/// A weak reference to a client, held by its reader thread and its tickets so the client can be released.
///
/// `@unchecked` because a weak reference is a `var`: it is written only by `init` and read (atomically, by the
/// runtime's weak-reference load) from the reader thread and waiting callers.
final class WeakClient: @unchecked Sendable {
  weak var client: DeviceClient?
  init(_ client: DeviceClient) { self.client = client }
}

/// A client socket whose descriptor is closed exactly once, by the reader thread, under the same lock that
/// guards `shutdown` and writes, so no call can reach a descriptor number the kernel has reused.
final class SocketHandle: Sendable {
  private let fd: Mutex<Int32?>

  init(_ fd: Int32) { self.fd = Mutex(fd) }

  /// Wakes the reader (which then closes the descriptor); harmless after close.
  func shutdown() { fd.withLock { if let fd = $0 { Posix.shutdown(fd) } } }

  /// Writes all bytes, holding the lock so the descriptor cannot be closed meanwhile.
  func write(_ bytes: [UInt8], what: String) -> Result<Void, SystemError> {
    fd.withLock { fd in
      guard let fd else { return .failure(SystemError("write", what, .brokenPipe)) }
      return bytes.withUnsafeBytes { buffer in
        catching { () throws(SystemError) in try Posix.sendAll(fd, buffer, what: what) }
      }
    }
  }

  /// Closes the descriptor; only the reader thread calls this, once.
  func closeFromReader() {
    fd.withLock { fd in
      if let open = fd { Posix.close(open) }
      fd = nil
    }
  }
}
