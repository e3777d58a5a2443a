import Dispatch
import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Posix
import Synchronization
import Wire

/// A connection to one device daemon's client socket.
///
/// Thread-safe. Requests may be issued from any thread or task. Whoever waits reads: a caller blocked for its own
/// answer (``perform(_:timeout:)``, ``PendingOperation/wait(timeout:)``) takes the socket and reads until its
/// answer arrives, handing whatever else it reads (other callers' answers, interim notices, events) to its owner —
/// no thread hand-off on the way back. The connection's reader thread reads only while something needs it and no
/// caller does: event listeners, answers awaited through callbacks or `async` (``Ticket/whenDone(_:)``), or a close to
/// notice. Between calls it is parked, not blocked on the socket, so the next caller can read.
///
/// `@unchecked` only because ``device`` and ``daemonPID`` are written once, in `init`, before the instance can be
/// shared; everything else mutable is behind `shared` (a mutex), `timeoutBits` (an atomic), the socket handle's
/// mutex, or the read role (`Shared.reading`), which one thread holds at a time.
package final class DeviceClient: @unchecked Sendable {
  /// Who reads the socket now.
  enum Reader {
    case nobody, thread, caller
  }

  /// What `shared` guards: everything mutable; writes to the socket are serialised by the socket handle's mutex.
  struct Shared {
    var nextID: UInt32 = 1
    var tickets: [UInt32: Ticket] = [:]
    var closed: ClientError?
    /// Why the daemon refused this connection (an error answering no request, sent before it closes).
    var refusal: HealthError?
    var listeners: [UInt64: @Sendable (DaemonEvent) -> Void] = [:]
    var nextListener: UInt64 = 1
    /// Who holds the read role.
    var reading: Reader = .nobody
    /// Tickets a caller is blocked on (by id, how many callers), who read for themselves.
    var waited: [UInt32: Int] = [:]
    /// Whether ``close()`` asked for the end to be noticed.
    var closing = false
    /// Whether the reader thread is parked (waiting on `threadWake`).
    var threadParked = false
    /// Whether pushed events are also kept for ``takeCollectedEvents()`` (``collectEvents()``).
    var collecting = false
    /// The events kept since the last ``takeCollectedEvents()``.
    var collected: [DaemonEvent] = []

    /// Whether the reader thread has work: listeners, answers nobody blocks on, or a close to notice.
    var threadNeeded: Bool {
      closed == nil && (closing || !listeners.isEmpty || tickets.keys.contains { waited[$0] == nil })
    }
  }

  /// The socket's write side and its one close.
  let socket: SocketHandle
  /// The socket's read side, used by whoever holds the read role.
  let core: ReaderCore
  /// Everything mutable but the read side (``Shared``).
  let shared = Mutex(Shared())
  /// Wakes the parked reader thread.
  let threadWake: DispatchSemaphore
  /// Signalled once the connection's end has been seen.
  let closedGate = DispatchSemaphore(value: 0)
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
  private var weakSelf: WeakClient!

  /// Connects to `socketPath` and says hello.
  /// - Throws: ``ClientError``.
  package init(socketPath: String, clientName: String, timeout: Double = 30) throws(ClientError) {
    self.socketPath = socketPath
    timeoutBits = Atomic(timeout.bitPattern)
    let fd: Int32
    // The deadline also bounds the connect (a full listen backlog) and every write (a daemon that stopped reading).
    // `SocketHandle` owns the descriptor from here (closed once, under its lock, by `close()`).
    do { fd = try Posix.connectUnix(socketPath, sendTimeout: timeout).take() } catch { throw .connect(error) }
    socket = SocketHandle(fd)
    core = ReaderCore(fd: fd)
    let wake = DispatchSemaphore(value: 0)
    threadWake = wake
    let owner = WeakClient(self)
    weakSelf = owner
    let (handle, core) = (socket, core)
    Posix.startThread { DeviceClient.threadLoop(core, handle: handle, owner: owner, wake: wake) }
    let info: HelloInfo
    do { info = try perform(.hello(client: clientName)) } catch {
      // A daemon that refuses the connection (too many clients) says why, then closes: whether the hello went out
      // before that or failed against the closed socket, the refusal is the reason to report.
      if case .disconnected = error, waitUntilClosed(timeout: timeout),
        let refusal = shared.withLock({ $0.refusal })
      {
        throw .rejected(refusal)
      }
      throw error
    }
    device = info.device
    daemonPID = info.pid
  }

  deinit {
    // The reader thread (woken if parked) sees end-of-file or its owner gone, closes the descriptor and exits.
    socket.shutdown()
    threadWake.signal()
  }

  /// Closes the connection; pending tickets fail with `disconnected`.
  package func close() {
    socket.shutdown()
    // Whoever reads sees end-of-file; if nobody does, the reader thread is woken to notice it.
    if shared.withLock({ s -> Bool in
      s.closing = true
      return wakesThread(&s)
    }) {
      threadWake.signal()
    }
  }

  /// Sends a request and returns its ticket. Internal: callers outside this module start a ``DeviceOperation``
  /// (``start(_:)``), so every request they make is one of its definitions.
  func send(_ request: Request) throws(ClientError) -> Ticket {
    try send(request, waited: false)
  }

  /// Sends `operation`'s request for a caller that waits for its final answer next, on its own thread
  /// (``PendingOperation/wait(timeout:)``, ``Ticket/wait(timeout:)``): it counts as waited from the moment it is
  /// sent, so the parked reader thread is not woken for it and the caller reads its own answer. ``start(_:)`` wakes
  /// the reader thread, which then reads the answer and hands it over. A caller that ends up not waiting calls
  /// ``Ticket/releaseClaim()``; `whenDone` and an `async` wait give the place up themselves.
  /// - Throws: ``ClientError`` when the request cannot be sent.
  package func startAwaitedHere<Value>(_ operation: DeviceOperation<Value>) throws(ClientError)
    -> PendingOperation<Value>
  {
    PendingOperation(ticket: try send(operation.request, waited: true, claimed: true), operation: operation)
  }

  /// Sends a request; with `waited`, the caller will block on the ticket (and read for itself), so the reader thread
  /// is not woken for it. With `claimed`, that place is the ticket's until its first wait takes it over.
  private func send(_ request: Request, waited: Bool, claimed: Bool = false) throws(ClientError) -> Ticket {
    let (ticket, wake) = try shared.withLock { s throws(ClientError) -> (Ticket, Bool) in
      if let closed = s.closed { throw closed }
      let id = s.nextID
      s.nextID = s.nextID == UInt32.max ? 1 : s.nextID + 1
      let ticket = Ticket(id: id, name: request.name, connection: weakSelf, claimed: waited && claimed)
      s.tickets[id] = ticket
      if waited { s.waited[id, default: 0] += 1 }
      return (ticket, wakesThread(&s))
    }
    // The request goes out before the reader thread is woken: waking a parked thread is a futex call (and on a VM
    // often an idle vCPU's wake-up), which would delay the daemon's work by as much; woken after the write, the
    // reader starts while the daemon answers. Its answer waits in the socket until someone reads it; a parked reader
    // had nothing to read for (every pending answer had a caller reading for it), so the write waits for nobody.
    let bytes = Frame.request(id: ticket.id, request).framed()
    let written = socket.write(bytes, what: socketPath)
    if wake { threadWake.signal() }
    if case .failure(let error) = written {
      let failure = ClientError.disconnected("write failed: \(error)")
      shared.withLock { s in
        s.tickets.removeValue(forKey: ticket.id)
        if waited { s.waited[ticket.id] = nil }
      }
      // Part of the frame may be out (a write that timed out): the stream is no longer in step, so it ends here.
      // A daemon that closed the connection has ended it already; the reader still reads what it sent first.
      if error.errno != .brokenPipe && error.errno != .connectionReset { close() }
      throw failure
    }
    return ticket
  }

  /// Sends a request and waits for its final answer, reading the socket on this thread when nobody else does.
  /// Internal: callers outside this module ``perform(_:timeout:)`` a ``DeviceOperation``.
  func call(_ request: Request, timeout: Double? = nil) throws(ClientError) -> Reply {
    let ticket = try send(request, waited: true)
    let seconds = timeout ?? self.timeout
    defer { unwait(ticket) }
    guard case .final(let reply) = try awaitRegistered(ticket, timeout: seconds, first: false) else {
      throw .protocolViolation("an interim notice where the final answer was awaited")
    }
    return reply
  }

  /// Sends a request and awaits its final answer, until `timeout` (the client's default when nil).
  /// - Throws: ``ClientError``. Internal: callers outside this module use ``performAsync(_:timeout:)``.
  func callAsync(_ request: Request, timeout: Double? = nil) async throws(ClientError) -> Reply {
    try await send(request).value(timeout: timeout ?? self.timeout)
  }

  /// Registers a listener for pushed events (call ``subscribe(_:)`` to choose which); returns a token for
  /// ``removeListener(_:)``. Listeners run on whichever thread reads the connection: never call the client from
  /// one and wait for the answer there.
  package func addListener(_ listener: @escaping @Sendable (DaemonEvent) -> Void) -> UInt64 {
    let (id, wake) = shared.withLock { s in
      let id = s.nextListener
      s.nextListener += 1
      s.listeners[id] = listener
      return (id, wakesThread(&s))
    }
    if wake { threadWake.signal() }
    return id
  }

  /// Removes a listener.
  package func removeListener(_ token: UInt64) { _ = shared.withLock { $0.listeners.removeValue(forKey: token) } }

  /// Keeps every pushed event from now on for ``takeCollectedEvents()``. Unlike a listener this needs no reader
  /// thread: events are kept by whichever thread reads — a caller reading its own answer — so a caller that makes
  /// a round trip (``ping()``) has every event the daemon pushed before it answered (the scenario runner's trace).
  package func collectEvents() { shared.withLock { $0.collecting = true } }

  /// The events kept since the last call (``collectEvents()``), oldest first.
  package func takeCollectedEvents() -> [DaemonEvent] {
    shared.withLock { s in
      defer { s.collected.removeAll() }
      return s.collected
    }
  }

  /// Whether the connection is closed.
  package var isClosed: Bool { shared.withLock { $0.closed != nil } }

  /// How many requests callers are counted as waiting for (each of those answers is read by a caller, not the reader
  /// thread); zero between calls. For tests of the reading roles.
  var waitedRequests: Int { shared.withLock { $0.waited.count } }

  /// Waits until the connection ends (the daemon went away or ``close()`` was called) or `timeout` seconds pass
  /// (forever when nil); true when it ended.
  package func waitUntilClosed(timeout: Double?) -> Bool {
    if isClosed { return true }
    // Someone must be reading to see the end: a waiter is as good a reason to read as a listener.
    let token = addListener { _ in }
    defer { removeListener(token) }
    let deadline: DispatchTime = timeout.map { .now() + $0 } ?? .distantFuture
    guard closedGate.wait(timeout: deadline) == .success else { return isClosed }
    closedGate.signal()  // for the next waiter
    return true
  }

  /// Makes sure the reader thread serves answers awaited through callbacks (``Ticket/whenDone(_:)``).
  func serveInBackground() {
    if shared.withLock({ wakesThread(&$0) }) { threadWake.signal() }
  }

  /// Whether the parked reader thread must be woken now (it then stops counting as parked).
  func wakesThread(_ s: inout Shared) -> Bool {
    guard s.threadParked, s.reading == .nobody, s.threadNeeded else { return false }
    s.threadParked = false
    return true
  }
}
