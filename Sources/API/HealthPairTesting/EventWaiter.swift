import Dispatch
import Foundation
import HealthKitSim
import HealthModel
import HealthPairClient
import PairProcesses
import Synchronization
import Wire

/// Waits for conditions on a pair's devices without sleeping: the condition is re-checked whenever either daemon
/// pushes an event (sheet shown or closed, samples changed, sync progress, link up or down) or refuses a
/// HealthKitSim authorization request (``AuthorizationRequestLog``), until a deadline.
///
/// It listens on the pair's own connections, which ``HealthPair`` keeps subscribed to every event (after a restart
/// too: the new connection is the pair's current one); it opens none of its own.
final class EventWaiter: Sendable {
  private let pair: Pair
  /// Ends every wait early once it has recorded a failure (a sheet nobody answered).
  private let watchdog: SheetWatchdog

  init(pair: Pair, watchdog: SheetWatchdog) {
    self.pair = pair
    self.watchdog = watchdog
  }

  /// The live connections (a device that is down is skipped: its condition cannot change anyway).
  private func liveClients() -> [DeviceClient] {
    DeviceKind.allCases.compactMap { device in
      pair.clientIfRunning(device).flatMap { $0.isClosed ? nil : $0 }
    }
  }

  /// Blocks until `check` returns a value, re-checking on every event; throws a timeout after `timeout` seconds,
  /// or the watchdog's failure as soon as there is one.
  @discardableResult
  func wait<T>(for what: String, timeout: Double, _ check: () throws -> T?) throws -> T {
    let gate = DispatchSemaphore(value: 0)
    let listeners = liveClients().map { client in (client, client.addListener { _ in gate.signal() }) }
    let refusals = AuthorizationRequestLog.shared.addListener { gate.signal() }
    defer {
      AuthorizationRequestLog.shared.removeListener(refusals)
      for (client, token) in listeners { client.removeListener(token) }
    }
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
    let refusals = AuthorizationRequestLog.shared.addListener { continuation.yield() }
    let deadline = DispatchWorkItem { continuation.finish() }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
    defer {
      deadline.cancel()
      continuation.finish()
      AuthorizationRequestLog.shared.removeListener(refusals)
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
}
