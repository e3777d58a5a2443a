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
  /// Signalled when something arrives, and by a caller giving up the socket (see ``DeviceClient``'s reading).
  let signal = DispatchSemaphore(value: 0)
  /// The request id.
  package let id: UInt32
  /// The request's name (for messages).
  package let name: String
  /// The connection, so a caller waiting for this ticket can read the socket itself.
  private let connection: WeakClient?
  /// Whether the sender counted itself as this ticket's waiter when it sent the request
  /// (``DeviceClient/startAwaitedHere(_:)``); the first wait takes that place over instead of adding one.
  private let claim: Atomic<Bool>

  init(id: UInt32, name: String, connection: WeakClient? = nil, claimed: Bool = false) {
    self.id = id
    self.name = name
    self.connection = connection
    self.claim = Atomic(claimed)
  }

  /// Takes the sender's place as waiter, once; false when there is none (or it was taken).
  func takeClaim() -> Bool { claim.exchange(false, ordering: .acquiringAndReleasing) }

  /// Gives up the place the sender took as waiter (``DeviceClient/startAwaitedHere(_:)``) without waiting, so the
  /// connection's reader thread serves the answer; nothing when there is none. A caller that started an operation
  /// to wait for it here and then does not wait (its task was cancelled) calls this.
  package func releaseClaim() {
    guard takeClaim() else { return }
    connection?.client?.unwait(self)
  }

  /// Wakes a caller waiting for this ticket without an answer, so it re-checks who reads the socket.
  func nudge() { signal.signal() }

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
    if let client = connection?.client {
      return try client.waitForTicket(self, timeout: timeout, first: true)
    }
    return try waitFirstOnSignal(timeout: timeout)
  }

  /// Waits for the first thing to arrive, delivered by whoever reads the socket.
  func waitFirstOnSignal(timeout: Double) throws(ClientError) -> First {
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
    if let client = connection?.client {
      guard case .final(let reply) = try client.waitForTicket(self, timeout: timeout, first: false) else {
        throw .protocolViolation("an interim notice where the final answer was awaited")
      }
      return reply
    }
    return try waitOnSignal(timeout: timeout)
  }

  /// Waits for the final answer, delivered by whoever reads the socket.
  func waitOnSignal(timeout: Double) throws(ClientError) -> Reply {
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

  /// Calls `body` with the final answer: at once if it has arrived, else on whichever thread reads the connection
  /// when it does (its reader thread, or a caller reading for its own answer). Needs no thread or task of its own, so
  /// it works while every thread of Swift's cooperative pool is busy.
  package func whenDone(_ body: @escaping @Sendable (Result<Reply, ClientError>) -> Void) {
    releaseClaim()
    let ready = state.withLock { s -> Result<Reply, ClientError>? in
      if let r = s.result { return r }
      s.callbacks.append(body)
      return nil
    }
    if let ready { body(ready) } else { connection?.client?.serveInBackground() }
  }

  /// Interim notices received so far.
  package var interims: [Reply] { state.withLock { $0.interims } }

  /// Awaits the final answer, without blocking a thread, until `timeout` seconds have passed.
  /// - Throws: ``ClientError``, `.timeout` at the deadline.
  package func value(timeout: Double) async throws(ClientError) -> Reply {
    releaseClaim()
    if let done = result { return try done.get() }
    let once = ResumeOnce()
    let name = self.name
    let deadline = Deadlines.shared.schedule(after: timeout) {
      once.resolve(.failure(.timeout(request: name, seconds: timeout)))
    }
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
  private enum Reader {
    case nobody, thread, caller
  }

  // `shared` guards everything mutable; writes to the socket are serialised by the socket handle's mutex.
  private struct Shared {
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

  private let socket: SocketHandle
  private let core: ReaderCore
  private let shared = Mutex(Shared())
  /// Wakes the parked reader thread.
  private let threadWake: DispatchSemaphore
  /// Signalled once the connection's end has been seen.
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
  /// the reader thread, which then usually reads the answer first and hands it over (two thread wake-ups per call;
  /// docs/history/performance.md, "HealthKitSim calls"). A caller that ends up not waiting calls
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
    if wake { threadWake.signal() }
    let bytes = Frame.request(id: ticket.id, request).framed()
    let written = socket.write(bytes, what: socketPath)
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
  private func wakesThread(_ s: inout Shared) -> Bool {
    guard s.threadParked, s.reading == .nobody, s.threadNeeded else { return false }
    s.threadParked = false
    return true
  }

  /// Waits for `ticket` as a caller (``Ticket/wait(timeout:)`` and ``Ticket/waitFirst(timeout:)`` come here).
  func waitForTicket(_ ticket: Ticket, timeout: Double, first: Bool) throws(ClientError) -> Ticket.First {
    let known = shared.withLock { s -> Bool in
      // A ticket sent for this wait (``startAwaitedHere(_:)``) is counted as waited already.
      let claimed = ticket.takeClaim()
      guard s.tickets[ticket.id] === ticket else {
        if claimed { Self.uncount(ticket.id, in: &s) }
        return false
      }
      if !claimed { s.waited[ticket.id, default: 0] += 1 }
      return true
    }
    // An answered (or failed) ticket: what it got is there already.
    guard known else {
      return first ? try ticket.waitFirstOnSignal(timeout: timeout) : .final(try ticket.waitOnSignal(timeout: timeout))
    }
    defer { unwait(ticket) }
    return try awaitRegistered(ticket, timeout: timeout, first: first)
  }

  /// Stops counting `ticket` as waited by this caller; wakes the reader thread if it now has work.
  fileprivate func unwait(_ ticket: Ticket) {
    let wake = shared.withLock { s -> Bool in
      Self.uncount(ticket.id, in: &s)
      return wakesThread(&s)
    }
    if wake { threadWake.signal() }
  }

  /// One waiter fewer for request `id`.
  private static func uncount(_ id: UInt32, in s: inout Shared) {
    if let n = s.waited[id] { s.waited[id] = n > 1 ? n - 1 : nil }
  }

  private func arrived(_ ticket: Ticket, first: Bool) throws(ClientError) -> Ticket.First? {
    if let result = ticket.result { return .final(try result.get()) }
    if first, let interim = ticket.interims.first { return .interim(interim) }
    return nil
  }

  /// The caller's loop: take the socket when nobody reads it and read until the answer is there; otherwise wait to
  /// be handed the answer (or nudged when the socket is free again).
  private func awaitRegistered(_ ticket: Ticket, timeout: Double, first: Bool) throws(ClientError) -> Ticket.First {
    let deadline = Posix.monotonicNanoseconds() &+ UInt64(max(0, timeout) * 1e9)
    while true {
      if let done = try arrived(ticket, first: first) { return done }
      let now = Posix.monotonicNanoseconds()
      guard now < deadline else { throw .timeout(request: ticket.name, seconds: timeout) }
      let mine = shared.withLock { s -> Bool in
        guard s.reading == .nobody, s.closed == nil else { return false }
        s.reading = .caller
        return true
      }
      if mine {
        defer { releaseRead() }
        while try arrived(ticket, first: first) == nil {
          let now = Posix.monotonicNanoseconds()
          guard now < deadline else { throw .timeout(request: ticket.name, seconds: timeout) }
          let waitMs = Int32(min(UInt64(Int32.max - 1), (deadline - now) / 1_000_000 + 1))
          guard Posix.waitReadable(core.fd, timeoutMilliseconds: waitMs) else { continue }
          if !readOnce() { break }
        }
      } else {
        let remaining = Double(deadline - now) / 1e9
        _ = ticket.signal.wait(timeout: .now() + remaining)
      }
    }
  }

  /// Gives up the read role: nudges another blocked caller (it may take the socket) and wakes the reader thread
  /// if it has work.
  private func releaseRead() {
    let (next, wake) = shared.withLock { s -> (Ticket?, Bool) in
      s.reading = .nobody
      var other: Ticket?
      for id in s.waited.keys where other == nil { other = s.tickets[id] }
      return (other, wakesThread(&s))
    }
    next?.nudge()
    if wake { threadWake.signal() }
  }

  /// Reads what is there once (the caller holds the read role) and dispatches every whole frame; false when the
  /// connection ended (everything pending has then failed).
  private func readOnce() -> Bool {
    switch core.readOnce() {
    case .frames(let frames):
      for frame in frames { dispatch(frame) }
      return true
    case .nothing:
      return true
    case .ended(let reason, let frames):
      for frame in frames { dispatch(frame) }
      finish(reason)
      return false
    }
  }

  /// The connection ended: close the descriptor, fail what is pending, let the reader thread exit.
  private func finish(_ reason: String) {
    socket.closeFromReader()
    // A refusal the daemon sent before closing is why the connection ended.
    let (failure, tickets, first) = shared.withLock { s -> (ClientError, [Ticket], Bool) in
      let failure = s.closed ?? s.refusal.map { ClientError.rejected($0) } ?? .disconnected(reason)
      let first = s.closed == nil
      s.closed = failure
      defer { s.tickets.removeAll() }
      return (failure, Array(s.tickets.values), first)
    }
    for ticket in tickets { ticket.deliver(.failure(failure)) }
    if first { closedGate.signal() }
    threadWake.signal()
  }

  /// The reader thread: parked until it has work and the socket is free, then reads one batch at a time.
  private static func threadLoop(_ core: ReaderCore, handle: SocketHandle, owner: WeakClient, wake: DispatchSemaphore) {
    while true {
      enum Step {
        case read, park, exit
      }
      let step: Step
      if let client = owner.client {
        step = client.shared.withLock { s -> Step in
          if s.closed != nil { return .exit }
          guard s.reading == .nobody, s.threadNeeded else {
            s.threadParked = true
            return .park
          }
          s.reading = .thread
          s.threadParked = false
          return .read
        }
      } else {
        step = .exit
      }
      switch step {
      case .exit:
        if owner.client == nil { handle.closeFromReader() }
        return
      case .park:
        wake.wait()
      case .read:
        // Blocks until the daemon sends something or the connection ends; holds no reference to the client.
        let outcome = core.readOnce()
        guard let client = owner.client else {
          handle.closeFromReader()
          return
        }
        switch outcome {
        case .frames(let frames):
          for frame in frames { client.dispatch(frame) }
          client.releaseRead()
        case .nothing:
          client.releaseRead()
        case .ended(let reason, let frames):
          for frame in frames { client.dispatch(frame) }
          client.finish(reason)
          client.shared.withLock { $0.reading = .nobody }
          return
        }
      }
    }
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
      let listeners = shared.withLock { s in
        if s.collecting { s.collected.append(event) }
        return Array(s.listeners.values)
      }
      for listener in listeners { listener(event) }
    case .request:
      break
    }
  }
}

/// The socket's read side: the frame decoder and buffer, used only by the thread holding the read role.
///
/// `@unchecked` because its state is mutable without a lock: the read role (``DeviceClient``'s `Shared.reading`,
/// taken and given up under the client's mutex) makes one thread at a time its user, and the mutex orders them.
private final class ReaderCore: @unchecked Sendable {
  let fd: Int32
  private var decoder = FrameDecoder(maxFrameLength: WireProtocol.maxReplyFrame)
  /// 256 KiB: a reply of a few thousand samples arrives in one or two reads, not four or more. Left uninitialized:
  /// `read` writes what it returns, and only the pages it touches are ever faulted in (zeroing it cost every new
  /// connection a 256 KiB memset and 64 page faults — four connections per scenario in the runner).
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
