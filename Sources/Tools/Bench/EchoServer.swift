import HealthModel
import HealthPairClient
import PairProcesses
import Posix

#if canImport(Glibc)
  import Glibc
#endif

/// One round trip to an ``EchoServer`` on `fd`: sends `message`, then reads `reply.count` bytes back into `reply`.
func echoRoundTrip(_ fd: Int32, sending message: [UInt8], into reply: inout [UInt8]) throws {
  try message.withUnsafeBytes { b in try catching { () throws(SystemError) in try Posix.sendAll(fd, b) }.get() }
  var got = 0
  while got < reply.count {
    let r = try reply.withUnsafeMutableBytes { b in
      try catching { () throws(SystemError) in
        try Posix.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: b[got...]))
      }.get()
    }
    guard case .bytes(let n) = r else {
      throw ClientError.disconnected("the echo server closed or stayed silent for 60 s")
    }
    got += n
  }
}

/// A child process echoing fixed-size messages on a Unix socket (the raw-socket baseline).
final class EchoServer: Sendable {
  let pid: pid_t
  /// Spawns the server on `path`; with `journal`, it serves as a daemon must (``runEchoServer(path:size:journal:)``).
  init(path: String, messageSize: Int, journal: String? = nil) throws {
    guard let exe = Posix.executablePath() else { throw PairError.timeout("the bench executable path") }
    let (readEnd, writeEnd) = try Posix.pipe()
    let extra = journal.map { ["--journal", $0] } ?? []
    pid = try Posix.spawn(exe, ["--echo-server", path, String(messageSize)] + extra, stdout: writeEnd)
    Posix.close(writeEnd)
    defer { Posix.close(readEnd) }
    var line = [UInt8](repeating: 0, count: 16)
    guard Posix.waitReadable(readEnd, timeoutMilliseconds: 10_000) else { throw PairError.timeout("the echo server") }
    _ = try line.withUnsafeMutableBytes { b in
      try catching { () throws(SystemError) in try Posix.read(readEnd, into: b) }.get()
    }
  }
  func stop() {
    try? Posix.kill(pid, SIGKILL)
    _ = try? Posix.wait(pid, block: true)
  }
}

/// The echo server's body (runs in the child): accept one connection, echo `size`-byte messages. With `journal`, it
/// serves the way any daemon with a journal must, and no more: it waits in `epoll_wait` on a non-blocking socket,
/// reads the message, appends it to `journal` (one `write`), then echoes it — the floor under a save's round trip
/// (row 9f).
package func runEchoServer(path: String, size: Int, journal: String? = nil) -> Int32 {
  guard let listening = try? Posix.listenUnix(path) else { return 1 }
  let listener = listening.rawValue
  Posix.setNonBlocking(listener, false)
  Posix.writeStandardOutput("ready\n")
  guard Posix.waitReadable(listener, timeoutMilliseconds: 30_000), let connection = try? Posix.accept(listener) else {
    return 1
  }
  let fd = connection.rawValue
  var reader = MessageReader(fd: fd, size: size)
  guard let journal else {
    Posix.setNonBlocking(fd, false)
    while true {
      guard reader.next(waitingIn: nil) else { return 0 }
      let sent = reader.buffer.withUnsafeBytes { b in catching { () throws(SystemError) in try Posix.sendAll(fd, b) } }
      if case .failure = sent { return 0 }
    }
  }
  guard let file = try? Posix.open(journal, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC),
    let epoll = try? Posix.epollCreate(),
    (try? Posix.epollControl(epoll.rawValue, .add, fd, events: Posix.PollEvents.readable, token: 1)) != nil
  else { return 1 }
  defer { Posix.close(file) }
  Posix.setNonBlocking(fd, true)
  while true {
    guard reader.next(waitingIn: epoll.rawValue) else { return 0 }
    let done = reader.buffer.withUnsafeBytes { b in
      catching { () throws(SystemError) in
        try Posix.writeAll(file, b)
        try Posix.sendAll(fd, b)
      }
    }
    if case .failure = done { return 0 }
  }
}

/// The echo server's reads: fixed-size messages into one buffer, with the `epoll_wait` arrays made once (nothing is
/// allocated per message, so the baseline echo pays only its syscalls).
private struct MessageReader {
  let fd: Int32
  var buffer: [UInt8]
  var tokens = [UInt64](repeating: 0, count: 1)
  var events = [UInt32](repeating: 0, count: 1)

  init(fd: Int32, size: Int) {
    self.fd = fd
    buffer = [UInt8](repeating: 0, count: size)
  }

  /// Reads the next message; with `epoll`, the socket is non-blocking and each wait for more is an `epoll_wait` on
  /// it. False when the connection ended.
  mutating func next(waitingIn epoll: Int32?) -> Bool {
    var got = 0
    while got < buffer.count {
      if let epoll {
        guard (try? Posix.epollWait(epoll, tokens: &tokens, events: &events, timeoutMilliseconds: -1)) != nil else {
          return false
        }
      }
      let r = buffer.withUnsafeMutableBytes { b in
        catching { () throws(SystemError) in
          try Posix.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: b[got...]))
        }
      }
      switch r {
      case .success(.bytes(let n)): got += n
      case .success(.wouldBlock): continue
      default: return false
      }
    }
    return true
  }
}

/// A connection to an echo child of its own, and a round trip over it.
final class EchoLine: Sendable {
  let server: EchoServer
  let socket: FileDescriptor
  let message: [UInt8]

  /// Spawns the child on `root`/echo-`name`.sock (serving as a daemon must with `journaled`: row 9f) and connects.
  init(root: String, name: String, size: Int, journaled: Bool = false) throws {
    let path = root + "/echo-\(name).sock"
    server = try EchoServer(path: path, messageSize: size, journal: journaled ? root + "/echo-\(name).journal" : nil)
    socket = try Posix.connectUnix(path)
    Posix.setReceiveTimeout(socket.rawValue, seconds: 60)
    message = [UInt8](repeating: 7, count: size)
  }

  /// One round trip.
  func once() throws {
    var reply = [UInt8](repeating: 0, count: message.count)
    try echoRoundTrip(socket.rawValue, sending: message, into: &reply)
  }
}

/// Echo round trips of `size` bytes to an echo child, timed from a task on the cooperative pool; with `pinnedCPU`
/// the echo child and the timing thread share that CPU (the timing then runs on the calling thread).
func echoTimes(root: String, size: Int, count: Int, pinnedCPU: Int?) throws -> [Double] {
  if let pinnedCPU { _ = Posix.pinToCPU(pinnedCPU) }
  defer { if pinnedCPU != nil { Posix.unpin() } }
  let line = try EchoLine(root: root, name: pinnedCPU.map(String.init) ?? "free", size: size)
  defer { line.server.stop() }
  if pinnedCPU != nil {
    var counter = 0
    return try timed(count, &counter) { _ in try line.once() }
  }
  return try onPool { try await timedAsync(count) { _ in try line.once() } }
}

/// Row 9f's two series, unpinned from a task: round trips to a plain echo child and to one serving as a daemon must,
/// taking turns call by call (the first of each pair alternating), so the machine's drift falls on both alike.
func floorEchoTimes(root: String, size: Int, count: Int) throws -> (plain: [Double], journaled: [Double]) {
  let plain = try EchoLine(root: root, name: "floor-plain", size: size)
  defer { plain.server.stop() }
  let journaled = try EchoLine(root: root, name: "floor-journaled", size: size, journaled: true)
  defer { journaled.server.stop() }
  return try onPool {
    var times: (plain: [Double], journaled: [Double]) = ([], [])
    let warmUp = max(1, count / 10)
    for turn in -warmUp..<count {
      let pair = try await inTurn(clientFirst: turn % 2 == 0, { try plain.once() }, { try journaled.once() })
      guard turn >= 0 else { continue }
      times.plain.append(pair.client)
      times.journaled.append(pair.sim)
    }
    return times
  }
}
