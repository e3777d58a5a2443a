import HealthPairClient
import Synchronization
import Wire

/// One connection per daemon socket, shared by every store of the process, plus one per socket for pushed events
/// (observer and long-running queries). A connection the daemon closed is replaced on next use.
package final class Connections: Sendable {
  /// The process-wide cache.
  package static let shared = Connections()

  private let clients = Mutex<[String: DeviceClient]>([:])
  private let eventClients = Mutex<[String: DeviceClient]>([:])
  /// The request connection used last and its path: a test calls one device many times in a row, and comparing the
  /// path with the one it came from (usually the same string storage) costs less than hashing it for the table.
  private let lastClient = Mutex<(path: String, client: DeviceClient)?>(nil)

  /// The request connection to `socketPath`, connecting if needed.
  /// - Throws: ``HealthKitSimError/unreachable(socketPath:reason:)``.
  package func client(_ socketPath: String) throws(HealthKitSimError) -> DeviceClient {
    if let last = lastClient.withLock({ $0 }), last.path == socketPath, !last.client.isClosed { return last.client }
    let client = try cached(clients, socketPath, name: "HealthKitSim", subscribe: nil)
    lastClient.withLock { $0 = (socketPath, client) }
    return client
  }

  /// The connection to `socketPath` that receives pushed events (sample changes, background deliveries, workout
  /// sessions' callbacks), connecting and subscribing if needed.
  /// - Throws: ``HealthKitSimError/unreachable(socketPath:reason:)``.
  package func events(_ socketPath: String) throws(HealthKitSimError) -> DeviceClient {
    try cached(eventClients, socketPath, name: "HealthKitSim-events", subscribe: [.samples, .background, .sessions])
  }

  /// Replaces a connection found dead, and returns the new one.
  /// - Throws: ``HealthKitSimError/unreachable(socketPath:reason:)``.
  package func replace(_ stale: DeviceClient, at socketPath: String) throws(HealthKitSimError) -> DeviceClient {
    stale.close()
    clients.withLock { t in if t[socketPath] === stale { t[socketPath] = nil } }
    forgetLast(socketPath)
    return try client(socketPath)
  }

  /// Drops the connections to `socketPath` (its daemon was stopped); the next call reconnects.
  package func forget(_ socketPath: String) {
    forgetLast(socketPath)
    let dropped = clients.withLock { $0.removeValue(forKey: socketPath) }
    let droppedEvents = eventClients.withLock { $0.removeValue(forKey: socketPath) }
    dropped?.close()
    droppedEvents?.close()
  }

  /// Clears the last-used connection when it is the one to `socketPath`.
  private func forgetLast(_ socketPath: String) {
    lastClient.withLock { if $0?.path == socketPath { $0 = nil } }
  }

  private func cached(
    _ table: borrowing Mutex<[String: DeviceClient]>, _ socketPath: String, name: String, subscribe mask: EventMask?
  ) throws(HealthKitSimError) -> DeviceClient {
    // The hit is a dictionary lookup (every store call comes here); connections whose daemon went away (a pair that
    // was shut down or restarted) are dropped on a miss, so the table stays as small as the live pairs.
    if let live = table.withLock({ t -> DeviceClient? in
      if let hit = t[socketPath], !hit.isClosed { return hit }
      t = t.filter { !$0.value.isClosed }
      return nil
    }) {
      return live
    }
    let fresh: DeviceClient
    do {
      fresh = try DeviceClient(socketPath: socketPath, clientName: name)
      if let mask { try fresh.subscribe(mask) }
    } catch {
      throw .unreachable(socketPath: socketPath, reason: error.description)
    }
    return table.withLock { t in
      if let raced = t[socketPath], !raced.isClosed {
        fresh.close()
        return raced
      }
      t[socketPath] = fresh
      return fresh
    }
  }
}
