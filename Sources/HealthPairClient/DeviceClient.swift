import Dispatch
import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Posix
import Synchronization
import Wire

/// Why a call to a daemon did not produce an answer, or produced an error.
package enum ClientError: Error, Sendable, CustomStringConvertible {
  /// The socket could not be reached.
  case connect(SystemError)
  /// The daemon closed the connection or went away.
  case disconnected(String)
  /// No answer came before the deadline.
  case timeout(request: String, seconds: Double)
  /// The daemon answered with something this client cannot use.
  case protocolViolation(String)
  /// The daemon answered with an error (a HealthKit error, a termination, or a simulator error).
  case rejected(HealthError)

  /// The HealthKit-side error, when the daemon rejected the request.
  package var healthError: HealthError? {
    if case .rejected(let e) = self { return e }
    return nil
  }

  /// A one-line description.
  package var description: String {
    switch self {
    case .connect(let e):
      e.errno == .noSuchFile || e.errno == .connectionRefused
        ? "cannot reach the daemon: \(e). No daemon is listening there: start the pair with 'healthpair up' "
          + "(or 'healthpair restart <phone|watch>' if one of its daemons stopped)"
        : "cannot reach the daemon: \(e)"
    case .disconnected(let why): "the daemon went away: \(why)"
    case .timeout(let request, let seconds): "no answer to \(request) within \(seconds) s"
    case .protocolViolation(let why): "protocol violation: \(why)"
    case .rejected(let e): "\(e)"
    }
  }
}

/// One request in flight: its interim notices (a sheet was presented) and its final answer.
package final class Ticket: Sendable {
  // Guarded by `state`.
  private struct State {
    var interims: [Reply] = []
    var result: Result<Reply, ClientError>?
    var firstContinuation: CheckedContinuation<Reply, any Error>?
    var callbacks: [@Sendable (Result<Reply, ClientError>) -> Void] = []
  }
  private let state = Mutex(State())
  private let signal = DispatchSemaphore(value: 0)
  /// The request id.
  package let id: UInt32
  /// The request's name (for messages).
  package let name: String

  init(id: UInt32, name: String) {
    self.id = id
    self.name = name
  }

  func deliverInterim(_ reply: Reply) {
    let first = state.withLock { s -> CheckedContinuation<Reply, any Error>? in
      s.interims.append(reply)
      defer { s.firstContinuation = nil }
      return s.firstContinuation
    }
    first?.resume(returning: reply)
    signal.signal()
  }

  func deliver(_ result: Result<Reply, ClientError>) {
    let (first, callbacks) = state.withLock {
      s -> (CheckedContinuation<Reply, any Error>?, [@Sendable (Result<Reply, ClientError>) -> Void]) in
      guard s.result == nil else { return (nil, []) }
      s.result = result
      defer {
        s.firstContinuation = nil
        s.callbacks = []
      }
      return (s.firstContinuation, s.callbacks)
    }
    first?.resume(with: result.mapError { $0 as any Error })
    for callback in callbacks { callback(result) }
    signal.signal()
    signal.signal()
  }

  /// What arrived first: an interim notice or the final answer.
  package enum First: Sendable {
    /// A sheet was presented; the final answer comes later.
    case interim(Reply)
    /// The final answer.
    case final(Reply)
  }

  /// Waits for the first thing to arrive: an interim notice or the final answer.
  package func waitFirst(timeout: Double) throws(ClientError) -> First {
    let deadline = DispatchTime.now() + timeout
    while true {
      let snapshot = state.withLock { ($0.interims.first, $0.result) }
      if let result = snapshot.1 { return .final(try result.get()) }
      if let interim = snapshot.0 { return .interim(interim) }
      if signal.wait(timeout: deadline) == .timedOut {
        let late = state.withLock { ($0.interims.first, $0.result) }
        if let result = late.1 { return .final(try result.get()) }
        if let interim = late.0 { return .interim(interim) }
        throw .timeout(request: name, seconds: timeout)
      }
    }
  }

  /// Waits for the final answer.
  package func wait(timeout: Double) throws(ClientError) -> Reply {
    let deadline = DispatchTime.now() + timeout
    while true {
      if let result = state.withLock({ $0.result }) { return try result.get() }
      if signal.wait(timeout: deadline) == .timedOut {
        if let result = state.withLock({ $0.result }) { return try result.get() }
        throw .timeout(request: name, seconds: timeout)
      }
    }
  }

  /// The final answer, if it has arrived.
  package var result: Result<Reply, ClientError>? { state.withLock { $0.result } }

  /// Calls `body` with the final answer: at once if it has arrived, else on the connection's reader thread when it
  /// does. Needs no thread or task of its own, so it works while every thread of Swift's cooperative pool is busy.
  package func whenDone(_ body: @escaping @Sendable (Result<Reply, ClientError>) -> Void) {
    let ready = state.withLock { s -> Result<Reply, ClientError>? in
      if let r = s.result { return r }
      s.callbacks.append(body)
      return nil
    }
    if let ready { body(ready) }
  }

  /// Interim notices received so far.
  package var interims: [Reply] { state.withLock { $0.interims } }

  /// Awaits the final answer, without blocking a thread, until `timeout` seconds have passed.
  /// - Throws: ``ClientError``, `.timeout` at the deadline.
  package func value(timeout: Double) async throws(ClientError) -> Reply {
    let once = ResumeOnce()
    let name = self.name
    let deadline = DispatchWorkItem { once.resolve(.failure(.timeout(request: name, seconds: timeout))) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
    defer { deadline.cancel() }
    typealias Waiting = CheckedContinuation<Result<Reply, ClientError>, Never>
    let result = await withCheckedContinuation { (continuation: Waiting) in
      once.wait(with: continuation)
      whenDone { result in once.resolve(result) }
    }
    return try result.get()
  }

  /// A continuation resumed once, by whichever comes first: the answer or the deadline.
  private final class ResumeOnce: Sendable {
    private struct State {
      var continuation: CheckedContinuation<Result<Reply, ClientError>, Never>?
      var early: Result<Reply, ClientError>?
    }
    private let state = Mutex(State())

    func wait(with continuation: CheckedContinuation<Result<Reply, ClientError>, Never>) {
      let early = state.withLock { s -> Result<Reply, ClientError>? in
        if s.early == nil { s.continuation = continuation }
        return s.early
      }
      if let early { continuation.resume(returning: early) }
    }

    func resolve(_ result: Result<Reply, ClientError>) {
      let waiting = state.withLock { s -> CheckedContinuation<Result<Reply, ClientError>, Never>? in
        guard s.early == nil else { return nil }
        s.early = result
        defer { s.continuation = nil }
        return s.continuation
      }
      waiting?.resume(returning: result)
    }
  }
}

/// A connection to one device daemon's client socket.
///
/// Thread-safe. Requests may be issued from any thread or task; a background thread reads responses, interim
/// notices and events, and hands them to the matching ``Ticket`` or to the event listeners.
///
/// `@unchecked` only because ``device`` and ``daemonPID`` are written once, in `init`, before the instance can be
/// shared; everything else mutable is behind `shared` (a mutex), `timeoutBits` (an atomic) or the socket handle's
/// mutex.
package final class DeviceClient: @unchecked Sendable {
  // `shared` guards everything mutable; writes to the socket are serialised by the socket handle's mutex.
  private struct Shared {
    var nextID: UInt32 = 1
    var tickets: [UInt32: Ticket] = [:]
    var closed: ClientError?
    /// Why the daemon refused this connection (an error answering no request, sent before it closes).
    var refusal: HealthError?
    var listeners: [UInt64: @Sendable (DaemonEvent) -> Void] = [:]
    var nextListener: UInt64 = 1
  }

  private let socket: SocketHandle
  private let shared = Mutex(Shared())
  /// Signalled once the reader thread has seen the connection end.
  private let closedGate = DispatchSemaphore(value: 0)
  /// The socket path.
  package let socketPath: String
  /// Which device answered `hello`.
  package private(set) var device: DeviceKind = .phone
  /// The daemon's process id.
  package private(set) var daemonPID: Int32 = 0
  /// The default deadline for calls, seconds (safe to change while other threads call).
  package var timeout: Double {
    get { Double(bitPattern: timeoutBits.load(ordering: .relaxed)) }
    set { timeoutBits.store(newValue.bitPattern, ordering: .relaxed) }
  }
  private let timeoutBits: Atomic<UInt64>

  /// Connects to `socketPath` and says hello.
  /// - Throws: ``ClientError``.
  package init(socketPath: String, clientName: String, timeout: Double = 30) throws(ClientError) {
    self.socketPath = socketPath
    timeoutBits = Atomic(timeout.bitPattern)
    let fd: Int32
    // The deadline also bounds the connect (a full listen backlog) and every write (a daemon that stopped reading).
    do { fd = try Posix.connectUnix(socketPath, sendTimeout: timeout) } catch { throw .connect(error) }
    socket = SocketHandle(fd)
    let owner = WeakClient(self)
    let handle = socket
    Posix.startThread { DeviceClient.readLoop(fd, handle: handle, owner: owner) }
    let reply: Reply
    do { reply = try call(.hello(version: WireProtocol.version, client: clientName)) } catch {
      // A daemon that refuses the connection (too many clients) says why, then closes: whether the hello went out
      // before that or failed against the closed socket, the refusal is the reason to report.
      if case .disconnected = error, waitUntilClosed(timeout: timeout),
        let refusal = shared.withLock({ $0.refusal })
      {
        throw .rejected(refusal)
      }
      throw error
    }
    guard case .hello(let info) = reply else { throw .protocolViolation("unexpected answer to hello: \(reply)") }
    device = info.device
    daemonPID = info.pid
  }

  deinit {
    // The reader thread sees end-of-file, closes the descriptor and exits.
    socket.shutdown()
  }

  /// Closes the connection; pending tickets fail with `disconnected`.
  package func close() {
    socket.shutdown()
  }

  /// Sends a request and returns its ticket.
  package func send(_ request: Request) throws(ClientError) -> Ticket {
    let ticket = try shared.withLock { s throws(ClientError) -> Ticket in
      if let closed = s.closed { throw closed }
      let id = s.nextID
      s.nextID = s.nextID == UInt32.max ? 1 : s.nextID + 1
      let ticket = Ticket(id: id, name: request.name)
      s.tickets[id] = ticket
      return ticket
    }
    let bytes = Frame.request(id: ticket.id, request).framed()
    let written = socket.write(bytes, what: socketPath)
    if case .failure(let error) = written {
      let failure = ClientError.disconnected("write failed: \(error)")
      _ = shared.withLock { $0.tickets.removeValue(forKey: ticket.id) }
      // Part of the frame may be out (a write that timed out): the stream is no longer in step, so it ends here.
      // A daemon that closed the connection has ended it already; the reader still reads what it sent first.
      if error.errno != .brokenPipe && error.errno != .connectionReset { socket.shutdown() }
      throw failure
    }
    return ticket
  }

  /// Sends a request and waits for its final answer.
  package func call(_ request: Request, timeout: Double? = nil) throws(ClientError) -> Reply {
    try send(request).wait(timeout: timeout ?? self.timeout)
  }

  /// Sends a request and awaits its final answer, until `timeout` (the client's default when nil).
  /// - Throws: ``ClientError``.
  package func callAsync(_ request: Request, timeout: Double? = nil) async throws(ClientError) -> Reply {
    try await send(request).value(timeout: timeout ?? self.timeout)
  }

  /// Registers a listener for pushed events (call ``subscribe(_:)`` to choose which); returns a token for
  /// ``removeListener(_:)``. Listeners run on the reader thread.
  package func addListener(_ listener: @escaping @Sendable (DaemonEvent) -> Void) -> UInt64 {
    shared.withLock { s in
      let id = s.nextListener
      s.nextListener += 1
      s.listeners[id] = listener
      return id
    }
  }

  /// Removes a listener.
  package func removeListener(_ token: UInt64) { _ = shared.withLock { $0.listeners.removeValue(forKey: token) } }

  /// Whether the connection is closed.
  package var isClosed: Bool { shared.withLock { $0.closed != nil } }

  /// Waits until the connection ends (the daemon went away or ``close()`` was called) or `timeout` seconds pass
  /// (forever when nil); true when it ended.
  package func waitUntilClosed(timeout: Double?) -> Bool {
    if isClosed { return true }
    let deadline: DispatchTime = timeout.map { .now() + $0 } ?? .distantFuture
    guard closedGate.wait(timeout: deadline) == .success else { return isClosed }
    closedGate.signal()  // for the next waiter
    return true
  }

  private static func readLoop(_ fd: Int32, handle: SocketHandle, owner: WeakClient) {
    var decoder = FrameDecoder(maxFrameLength: WireProtocol.maxReplyFrame)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var reason = "connection closed"
    reading: while true {
      let result = buffer.withUnsafeMutableBytes { raw in
        catching { () throws(SystemError) in try Posix.read(fd, into: raw) }
      }
      switch result {
      case .success(.bytes(let n)):
        buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        do {
          while let body = try decoder.next() {
            guard let client = owner.client else { break reading }
            client.dispatch(try Frame.decode(body))
          }
        } catch {
          reason = "undecodable frame from the daemon: \(error)"
          break reading
        }
      case .success(.endOfFile): break reading
      case .success(.wouldBlock): continue
      case .failure(let error):
        reason = "\(error)"
        break reading
      }
    }
    handle.closeFromReader()
    guard let client = owner.client else { return }
    // A refusal the daemon sent before closing is why the connection ended.
    let (failure, tickets) = client.shared.withLock { s -> (ClientError, [Ticket]) in
      let failure = s.refusal.map { ClientError.rejected($0) } ?? .disconnected(reason)
      s.closed = failure
      defer { s.tickets.removeAll() }
      return (failure, Array(s.tickets.values))
    }
    for ticket in tickets { ticket.deliver(.failure(failure)) }
    client.closedGate.signal()
  }

  private func dispatch(_ frame: Frame) {
    switch frame {
    case .response(let id, let result):
      let ticket = shared.withLock { $0.tickets.removeValue(forKey: id) }
      if let ticket {
        ticket.deliver(result.mapError { ClientError.rejected($0) })
      } else if case .failure(let error) = result {
        // An answer to no request: the daemon refused the connection (for example, too many clients).
        let failure = ClientError.rejected(error)
        let all = shared.withLock { s -> [Ticket] in
          s.refusal = error
          defer { s.tickets.removeAll() }
          return Array(s.tickets.values)
        }
        for t in all { t.deliver(.failure(failure)) }
      }
    case .interim(let id, let reply):
      shared.withLock { $0.tickets[id] }?.deliverInterim(reply)
    case .event(let event):
      let listeners = shared.withLock { Array($0.listeners.values) }
      for listener in listeners { listener(event) }
    case .request:
      break
    }
  }
}

/// A weak reference to a client, held by its reader thread so the client can be released.
///
/// `@unchecked` because a weak reference is a `var`: it is written only by `init` and read (atomically, by the
/// runtime's weak-reference load) from the reader thread.
private final class WeakClient: @unchecked Sendable {
  weak var client: DeviceClient?
  init(_ client: DeviceClient) { self.client = client }
}

/// A client socket whose descriptor is closed exactly once, by the reader thread, under the same lock that
/// guards `shutdown` and writes, so no call can reach a descriptor number the kernel has reused.
private final class SocketHandle: Sendable {
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
