import HealthPairClient
import PairProcesses
import Wire

/// The peer link between the phone and the watch: cut it, restore it, hold one side's outbound sync, add latency.
public struct HealthLink: Sendable {
  let pair: Pair
  let waiter: EventWaiter
  let timeout: Double

  private func command(_ command: LinkCommand, on kind: HealthDeviceKind) throws(HealthPairTestingError) {
    do { _ = try pair.client(kind.simulated).link(command) } catch {
      throw .from(error, device: kind, operation: "link \(command)")
    }
  }

  /// Drops the link and keeps it down (both sides refuse it) until ``connect(timeout:)``.
  /// - Throws: ``HealthPairTestingError``.
  public func disconnect() throws(HealthPairTestingError) {
    try command(.disconnect, on: .watch)
    try command(.disconnect, on: .phone)
    let pair = self.pair
    do {
      try waiter.wait(for: "the link to drop", timeout: timeout) {
        try !pair.phone.dump().link.connected && !pair.watch.dump().link.connected ? true : nil
      }
    } catch {
      throw .from(error, device: .phone, operation: "disconnect")
    }
  }

  /// Allows the link again and waits until both sides are connected.
  /// - Throws: ``HealthPairTestingError``.
  public func connect(timeout: Double? = nil) throws(HealthPairTestingError) {
    try command(.connect, on: .phone)
    try command(.connect, on: .watch)
    do { try pair.waitLinked(timeout: timeout ?? self.timeout) } catch {
      throw .timeout(waitingFor: "the link to come up (\(error))", seconds: timeout ?? self.timeout)
    }
  }

  /// Keeps `device`'s outbound sync queued until ``release(_:)``.
  /// - Throws: ``HealthPairTestingError``.
  public func hold(_ device: HealthDeviceKind) throws(HealthPairTestingError) {
    try command(.hold, on: device)
  }

  /// Delivers what ``hold(_:)`` queued and stops holding.
  /// - Throws: ``HealthPairTestingError``.
  public func release(_ device: HealthDeviceKind) throws(HealthPairTestingError) {
    try command(.release, on: device)
  }

  /// Delays every outbound sync message of `device` (both when nil) by `seconds`.
  /// - Throws: ``HealthPairTestingError``.
  public func setLatency(_ seconds: Double, on device: HealthDeviceKind? = nil) throws(HealthPairTestingError) {
    for kind in device.map({ [$0] }) ?? HealthDeviceKind.allCases { try command(.latency(seconds), on: kind) }
  }

  /// Whether both sides report the link up.
  /// - Throws: ``HealthPairTestingError``.
  public func isConnected() throws(HealthPairTestingError) -> Bool {
    do { return try pair.phone.dump().link.connected && pair.watch.dump().link.connected } catch {
      throw .from(error, device: .phone, operation: "isConnected")
    }
  }
}
