import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Wire

/// A minimal blocking client: one request, one response, on the calling thread (no reader thread).
final class DirectClient {
  private let socket: FileDescriptor
  var fd: Int32 { socket.rawValue }
  var decoder = FrameDecoder(maxFrameLength: WireProtocol.maxPeerFrame)
  var buffer = [UInt8](repeating: 0, count: 1 << 18)
  var nextID: UInt32 = 1

  init(_ path: String) throws {
    socket = try Posix.connectUnix(path)
    Posix.setReceiveTimeout(socket.rawValue, seconds: 60)
    _ = try call(.hello(client: "bench"))
  }

  func send(_ frame: [UInt8]) throws {
    try frame.withUnsafeBytes { b in try catching { () throws(SystemError) in try Posix.sendAll(fd, b) }.get() }
  }

  /// The next frame; a daemon silent for a minute is an error (the socket's receive timeout), so a benchmark can
  /// never hang.
  func receive() throws -> Frame {
    while true {
      if let body = try decoder.next() { return try Frame.decode(body) }
      let r = try buffer.withUnsafeMutableBytes { b in
        try catching { () throws(SystemError) in try Posix.read(fd, into: b) }.get()
      }
      if case .wouldBlock = r { throw ClientError.timeout(request: "a bench reply", seconds: 60) }
      guard case .bytes(let n) = r else { throw ClientError.disconnected("bench connection closed") }
      buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }
  }

  /// Performs `operation`: sends its frame and reads until its answer.
  @discardableResult
  func call<Value>(_ operation: DeviceOperation<Value>) throws -> Value {
    let id = nextID
    nextID += 1
    try send(operation.frame(id: id))
    while true {
      if case .response(id, let result) = try receive() { return try operation.value(from: try result.get()) }
    }
  }
}
