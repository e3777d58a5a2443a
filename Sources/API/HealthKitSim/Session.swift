import Foundation
import HealthModel
import HealthPairClient
import Posix
import Synchronization
import Wire

/// A resolved target and its connection: what each store call works with, captured on the calling thread before
/// any hop to a background queue.
package struct Session: Sendable {
  /// The device and app.
  package let target: HealthKitSim.Target
  /// The connection to the device's daemon.
  package let client: DeviceClient

  /// The app's bundle identifier.
  package var bundleID: String { target.bundleIdentifier }

  /// The session of the current target, connecting on this thread if the process has no connection to its daemon
  /// yet (a connect and a `hello` round trip; later calls find the connection cached). For synchronous callers:
  /// async code resolves its session with ``connected(api:)``.
  /// - Throws: `HKError(.errorHealthDataUnavailable)` when nothing is configured;
  ///   ``HealthKitSimError/unreachable(socketPath:reason:)`` when the daemon cannot be reached.
  package static func current(api: String) throws -> Session {
    let target = try configuredTarget(api: api)
    return Session(target: target, client: try Connections.shared.client(target.socketPath))
  }

  /// The session of the current target, for async code: the cached connection. The first call to a socket in the
  /// process connects on the calling thread (a local connect and one `hello` round trip, as ``current(api:)``):
  /// connecting on a thread of its own would make the task wait for a cooperative thread a second time before its
  /// request is even sent, which a test process whose pool is busy with blocking test bodies turns into seconds.
  /// - Throws: as ``current(api:)``.
  package static func connected(api: String) async throws -> Session {
    try current(api: api)
  }

  /// The current target.
  /// - Throws: `HKError(.errorHealthDataUnavailable)` when nothing is configured.
  private static func configuredTarget(api: String) throws -> HealthKitSim.Target {
    guard let target = HealthKitSim.currentTarget else {
      throw HKError(
        .errorHealthDataUnavailable,
        message: "Health data is unavailable: no HealthKitSim target is configured for \(api) (use "
          + "HealthKitSim.configure(socketPath:bundleIdentifier:), HealthKitSim.withTarget(_:operation:) or "
          + "\(HealthKitSim.socketEnvironmentVariable) and \(HealthKitSim.bundleIdentifierEnvironmentVariable))")
    }
    return target
  }

  /// Performs `operation` and waits for its final answer (a local socket round trip), blocking this thread: for
  /// the APIs that are synchronous in HealthKit too, and for handler queries on their own queue. Async code uses
  /// ``performAsync(_:api:)``.
  /// - Throws: the request's error, translated (``HKError``, ``HKSimulatedTermination``, ``HealthKitSimError``).
  package func perform<Value>(_ operation: DeviceOperation<Value>, api: String) throws -> Value {
    // Sent as waited on this thread: the connection's reader thread is not woken, and this thread reads its answer.
    let (pending, client) = try startReturningClient(operation, api: api, awaitedHere: true)
    do { return try pending.wait(timeout: client.timeout) } catch { throw translate(error, api: api) }
  }

  /// Sends `operation` now and returns it pending, so requests keep the caller's order; await it with
  /// ``value(of:api:waitsForUser:)``.
  /// - Throws: the send's error, translated.
  package func start<Value>(_ operation: DeviceOperation<Value>, api: String) throws -> PendingOperation<Value> {
    try startReturningClient(operation, api: api).pending
  }

  /// Sends on the cached connection; when the write fails because the daemon went away (restarted) before the
  /// connection noticed, the request was never delivered, so it is sent once more on a fresh connection.
  /// With `awaitedHere`, the caller waits for the answer next, on its own thread
  /// (``DeviceClient/startAwaitedHere(_:)``).
  private func startReturningClient<Value>(
    _ operation: DeviceOperation<Value>, api: String, awaitedHere: Bool = false
  ) throws -> (pending: PendingOperation<Value>, client: DeviceClient) {
    func send(on client: DeviceClient) throws(ClientError) -> PendingOperation<Value> {
      awaitedHere ? try client.startAwaitedHere(operation) : try client.start(operation)
    }
    do {
      return (try send(on: client), client)
    } catch .disconnected {
      do {
        let fresh = try Connections.shared.replace(client, at: target.socketPath)
        return (try send(on: fresh), fresh)
      } catch {
        throw translate(error, api: api)
      }
    } catch {
      throw translate(error, api: api)
    }
  }

  /// ``startReturningClient(_:api:awaitedHere:)`` for async code: the fresh connection after a failed write is made
  /// on a thread of its own while the task is suspended.
  private func startSuspending<Value>(_ operation: DeviceOperation<Value>, api: String) async throws
    -> (pending: PendingOperation<Value>, client: DeviceClient)
  {
    do {
      return (try client.start(operation), client)
    } catch .disconnected {
      let (stale, path) = (client, target.socketPath)
      do {
        let fresh = try await Posix.onOwnThread { () throws -> DeviceClient in
          try Connections.shared.replace(stale, at: path)
        }
        return (try fresh.start(operation), fresh)
      } catch {
        throw translate(error, api: api)
      }
    } catch {
      throw translate(error, api: api)
    }
  }

  /// Awaits the final answer of an operation sent with ``start(_:api:)``, and returns its value. The task is
  /// suspended, never blocking a thread: the connection's reader thread resumes it with the answer, or the
  /// connection's deadline (``Deadlines``) with a timeout. A request the daemon answers at once was sent, so it
  /// reports its real outcome even when the task is cancelled. A request that `waitsForUser` (a permission sheet)
  /// waits with no deadline until the user answers, as on a device.
  ///
  /// Cancelling a task that awaits a sheet stops the wait with `CancellationError` (the request itself stays pending
  /// on the device, as a sheet stays up): a test that fails while an app awaits a sheet ends instead of hanging. In a
  /// HealthPairTesting pair, a sheet nobody answers is ended by the harness at its deadline.
  /// - Throws: the request's error, translated; `CancellationError`;
  ///   ``HealthKitSimError/unreachable(socketPath:reason:)`` at the deadline.
  package func value<Value>(
    of pending: PendingOperation<Value>, api: String, waitsForUser: Bool = false
  ) async throws -> Value {
    let reply = try await reply(to: pending.ticket, api: api, waitsForUser: waitsForUser)
    do { return try pending.operation.value(from: reply) } catch { throw translate(error, api: api) }
  }

  /// The final answer to `ticket`, awaited as ``value(of:api:waitsForUser:)`` describes.
  private func reply(to ticket: Ticket, api: String, waitsForUser: Bool) async throws -> Reply {
    // The request was sent by ``start(_:api:)``: the device performs it whether or not the task is cancelled, so
    // its answer is awaited and reported, never replaced by `CancellationError`.
    if !waitsForUser {
      do { return try await ticket.value(timeout: client.timeout) } catch { throw translate(error, api: api) }
    }
    let outcome = Outcome()
    do {
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          outcome.wait(with: continuation)
          ticket.whenDone { result in outcome.resolve(result.mapError { $0 as any Error }) }
        }
      } onCancel: {
        outcome.resolve(.failure(CancellationError()))
      }
    } catch {
      throw translate(error, api: api)
    }
  }

  /// A continuation resumed once, by whichever comes first: the answer or cancellation.
  private final class Outcome: Sendable {
    private struct State {
      var continuation: CheckedContinuation<Reply, any Error>?
      var early: Result<Reply, any Error>?
    }
    private let state = Mutex(State())

    func wait(with continuation: CheckedContinuation<Reply, any Error>) {
      let early = state.withLock { s -> Result<Reply, any Error>? in
        if s.early == nil { s.continuation = continuation }
        return s.early
      }
      if let early { continuation.resume(with: early) }
    }

    func resolve(_ result: Result<Reply, any Error>) {
      let waiting = state.withLock { s -> CheckedContinuation<Reply, any Error>? in
        guard s.early == nil else { return nil }
        s.early = result
        defer { s.continuation = nil }
        return s.continuation
      }
      waiting?.resume(with: result)
    }
  }

  /// Performs `operation` and awaits its final answer, suspended as ``value(of:api:waitsForUser:)`` describes. A
  /// task cancelled before the request is sent gets `CancellationError` and nothing is sent; once sent, the answer
  /// is awaited and reported (docs/healthkit-api.md, "Cancellation"): a saved sample is saved, so an app that
  /// retries on `CancellationError` does not save it twice.
  /// - Throws: `CancellationError` (nothing happened); the request's error, translated.
  package func performAsync<Value>(_ operation: DeviceOperation<Value>, api: String) async throws -> Value {
    if Task.isCancelled { throw CancellationError() }
    let (pending, client) = try await startSuspending(operation, api: api)
    let reply: Reply
    do { reply = try await pending.ticket.value(timeout: client.timeout) } catch { throw translate(error, api: api) }
    do { return try pending.operation.value(from: reply) } catch { throw translate(error, api: api) }
  }

  /// The device's event connection (subscribed to sample changes).
  /// - Throws: ``HealthKitSimError/unreachable(socketPath:reason:)``.
  package func events() throws(HealthKitSimError) -> DeviceClient {
    try Connections.shared.events(target.socketPath)
  }

  /// Maps a client error to what the public API throws: an `HKError` for HealthKit errors, an
  /// ``HKSimulatedTermination`` where a device would terminate the app, a ``HealthKitSimError`` otherwise.
  package func translate(_ error: any Error, api: String) -> any Error {
    guard let error = error as? ClientError else { return error }
    if case .rejected(let rejection) = error { return Session.translate(rejection, api: api) }
    return HealthKitSimError.unreachable(socketPath: target.socketPath, reason: error.description)
  }

  /// Maps an engine error to what the public API throws.
  package static func translate(_ error: HealthError, api: String) -> any Error {
    switch error.kind {
    case .healthKit: HKError(HKError.Code(rawValue: error.code.rawValue) ?? .unknownError, message: error.message)
    case .wouldTerminate:
      HKSimulatedTermination(
        exceptionName: error.exception ?? "NSInvalidArgumentException", reason: error.message, api: api)
    case .simulator: HealthKitSimError.misuse(error.message)
    }
  }

  /// The error for an answer HealthKitSim cannot use (`what` describes it).
  package func unexpected(_ what: String, api: String) -> HealthKitSimError {
    .unreachable(socketPath: target.socketPath, reason: "unexpected answer to \(api): \(what)")
  }
}
