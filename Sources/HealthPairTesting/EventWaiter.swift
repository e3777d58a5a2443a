import Dispatch
import Foundation
import HealthPairClient
import Synchronization
import Wire

/// Waits for conditions on a pair's devices without sleeping: the condition is re-checked whenever either daemon
/// pushes an event (sheet shown or closed, samples changed, sync progress, link up or down), until a deadline.
///
/// It keeps one event connection per device (subscribed to everything), reopened after a daemon restart.
final class EventWaiter: Sendable {
  private let sockets: [String]
  private let clients = Mutex<[String: DeviceClient]>([:])
  /// Ends every wait early once it has recorded a failure (a sheet nobody answered).
  private let watchdog: SheetWatchdog

  init(sockets: [String], watchdog: SheetWatchdog) {
    self.sockets = sockets
    self.watchdog = watchdog
  }

  /// The live event connections (a device that is down is skipped: its condition cannot change anyway).
  private func liveClients() -> [DeviceClient] {
    sockets.compactMap { socket in
      if let live = clients.withLock({ $0[socket] }), !live.isClosed { return live }
      guard let fresh = try? DeviceClient(socketPath: socket, clientName: "HealthPairTesting-events") else {
        return nil
      }
      guard (try? fresh.subscribe(.all)) != nil else {
        fresh.close()
        return nil
      }
      return clients.withLock { c in
        if let raced = c[socket], !raced.isClosed {
          fresh.close()
          return raced
        }
        c[socket] = fresh
        return fresh
      }
    }
  }

  /// Blocks until `check` returns a value, re-checking on every event; throws a timeout after `timeout` seconds,
  /// or the watchdog's failure as soon as there is one.
  @discardableResult
  func wait<T>(for what: String, timeout: Double, _ check: () throws -> T?) throws -> T {
    let gate = DispatchSemaphore(value: 0)
    let listeners = liveClients().map { client in (client, client.addListener { _ in gate.signal() }) }
    defer { for (client, token) in listeners { client.removeListener(token) } }
    let deadline = DispatchTime.now() + timeout
    while true {
      if let failure = watchdog.failure { throw failure }
      if let value = try check() { return value }
      if gate.wait(timeout: deadline) == .timedOut {
        if let value = try check() { return value }
        throw HealthPairTestingError.timeout(waitingFor: what, seconds: timeout)
      }
    }
  }

  /// Awaits until `check` returns a value, re-checking on every event, without blocking a thread between checks;
  /// throws a timeout after `timeout` seconds, or the watchdog's failure as soon as there is one.
  @discardableResult
  func wait<T: Sendable>(for what: String, timeout: Double, _ check: @Sendable () throws -> T?) async throws -> T {
    let (events, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let listeners = liveClients().map { client in (client, client.addListener { _ in continuation.yield() }) }
    let deadline = DispatchWorkItem { continuation.finish() }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
    defer {
      deadline.cancel()
      continuation.finish()
      for (client, token) in listeners { client.removeListener(token) }
    }
    if let failure = watchdog.failure { throw failure }
    if let value = try check() { return value }
    for await _ in events {
      if let failure = watchdog.failure { throw failure }
      if let value = try check() { return value }
    }
    if let failure = watchdog.failure { throw failure }
    if let value = try check() { return value }
    throw HealthPairTestingError.timeout(waitingFor: what, seconds: timeout)
  }

  /// Drops the event connection to `socket` (its daemon was stopped); the next wait reconnects.
  func forget(_ socket: String) {
    clients.withLock { $0.removeValue(forKey: socket) }?.close()
  }

  /// Closes the event connections.
  func close() {
    let all = clients.withLock { c in
      defer { c.removeAll() }
      return Array(c.values)
    }
    for client in all { client.close() }
  }
}
