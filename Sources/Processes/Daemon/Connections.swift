import Posix
import Wire

/// Bytes waiting to be written to a non-blocking socket, bounded.
struct Outbox {
  private var bytes: [UInt8] = []
  private var start = 0

  /// Bytes not yet written.
  var count: Int { bytes.count - start }
  var isEmpty: Bool { count == 0 }

  mutating func append(_ more: [UInt8]) {
    if start == bytes.count {
      // Empty (the usual case: a reply to a client waiting for it): take the frame as it is, not a copy of it.
      bytes = more
      start = 0
      return
    }
    bytes.append(contentsOf: more)
  }

  /// Writes as much as the socket takes. Returns false when the peer is gone.
  mutating func drain(to fd: Int32) -> Bool {
    while start < bytes.count {
      let result = bytes.withUnsafeBytes { buffer in
        catching { () throws(SystemError) in
          try Posix.sendSome(fd, UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
      }
      switch result {
      case .success(let n?): start += n
      case .success(nil): return true
      case .failure: return false
      }
    }
    bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
    start = 0
    return true
  }
}

/// One client connection's transport: its socket, decoder and outbox (its session is the core's).
final class ClientConnection {
  let id: UInt64
  /// The connection's socket, closed when the daemon lets go of this object.
  private let socket: FileDescriptor
  /// The socket's descriptor, for the calls that take one.
  var fd: Int32 { socket.rawValue }
  let pid: Int32
  /// Small until `hello` (``WireProtocol/maxHandshakeFrame``), then ``WireProtocol/maxClientFrame``.
  var decoder = FrameDecoder(maxFrameLength: WireProtocol.maxHandshakeFrame)
  var outbox = Outbox()
  var closeAfterFlush = false
  var watchingWrites = false
  /// Complete frames are still buffered because this turn's quota was used (or the outbox is over its limit):
  /// the daemon serves them on later turns and reads nothing more from the socket meanwhile.
  var framesPending = false

  init(id: UInt64, socket: consuming FileDescriptor, pid: Int32) {
    self.id = id
    self.socket = socket
    self.pid = pid
  }

  /// Ends the conversation now (both directions; the client reads end of file) even if something still holds
  /// this object; the descriptor itself closes with the object.
  func hangUp() { Posix.shutdown(fd) }

  func send(_ frame: Frame) { outbox.append(frame.framed()) }
}

/// The peer link's transport: decoder, outbox, and the latency queue.
final class PeerConnection {
  /// The link's socket, closed when the daemon lets go of this object.
  private let socket: FileDescriptor
  /// The socket's descriptor, for the calls that take one.
  var fd: Int32 { socket.rawValue }
  /// The connecting process (accepted connections only), for logs.
  let pid: Int32?
  /// Small until the pairing handshake completed (``WireProtocol/maxHandshakeFrame``), then
  /// ``WireProtocol/maxPeerFrame``.
  var decoder = FrameDecoder(maxFrameLength: WireProtocol.maxHandshakeFrame)
  /// Whether the pairing handshake completed on this connection.
  var authenticated = false
  var outbox = Outbox()
  var delayed: [(due: UInt64, bytes: [UInt8])] = []
  var watchingWrites = false

  init(socket: consuming FileDescriptor, pid: Int32?) {
    self.socket = socket
    self.pid = pid
  }

  /// Ends the link now (the peer reads end of file); the descriptor itself closes with the object.
  func hangUp() { Posix.shutdown(fd) }
}

/// A connection just accepted from a process of the daemon's own user: its socket (owned) and the process id.
struct Accepted: ~Copyable {
  /// The accepted socket; closes when this value goes unless handed on with ``take()``.
  let socket: FileDescriptor
  /// The connecting process.
  let pid: Int32

  /// Hands the socket on to its connection.
  consuming func take() -> FileDescriptor { socket }
}
