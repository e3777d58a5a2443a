import Dispatch
import Synchronization
import Wire

/// One request in flight on a ``DeviceClient``: its interim answers (a permission sheet shown), its final answer,
/// and whoever waits for it — a caller blocked on ``signal``, callbacks, or a task suspended in `value(timeout:)`,
/// resumed exactly once by the reader or by ``Deadlines`` with a timeout.
package final class Ticket: Sendable {
  // Guarded by `state`.
  private struct State {
    var interims: [Reply] = []
    var result: Result<Reply, ClientError>?
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
    state.withLock { $0.interims.append(reply) }
    signal.signal()
  }

  func deliver(_ result: Result<Reply, ClientError>) {
    let callbacks = state.withLock { s -> [@Sendable (Result<Reply, ClientError>) -> Void] in
      guard s.result == nil else { return [] }
      s.result = result
      defer { s.callbacks = [] }
      return s.callbacks
    }
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
