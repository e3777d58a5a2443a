import Foundation
import HealthKitSim
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Render
import Wire

/// A freshly launched iPhone + Apple Watch pair: two real `healthpaird` processes in a temporary directory, linked.
///
/// Get one from ``withHealthPair(_:_:)`` (or its async form), which always shuts it down. Each device is a
/// ``HealthDevice`` (``phone``, ``watch``); the peer link is ``link``.
public final class HealthPair: Sendable {
  /// The launched processes and their control connections.
  let pair: Pair
  /// Waits on both devices' events.
  let waiter: EventWaiter
  /// Ends sheets nobody answers within the deadline.
  let watchdog: SheetWatchdog
  /// The options the pair was launched with.
  public let options: HealthPairOptions
  /// The iPhone.
  public let phone: HealthDevice
  /// The Apple Watch (its settings are made from the iPhone's Watch app).
  public let watch: HealthDevice
  /// The peer link between them.
  public let link: HealthLink

  /// Launches a pair and applies `options`.
  /// - Throws: ``HealthPairTestingError/launchFailed(_:)``.
  init(options: HealthPairOptions) throws(HealthPairTestingError) {
    // The pair's own connections carry every event for the harness (the watchdog's and the waits' listeners), and
    // keep that subscription through the pair's own waits and restarts; a prepared pair was subscribed as it linked.
    do { pair = try PreparedPairs.shared.take(subscribedTo: .all) } catch { throw .launchFailed(error.description) }
    self.options = options
    watchdog = SheetWatchdog(pair: pair, timeout: options.timeout)
    waiter = EventWaiter(pair: pair, watchdog: watchdog)
    phone = HealthDevice(.phone, pair: pair, waiter: waiter, watchdog: watchdog, timeout: options.timeout)
    watch = HealthDevice(.watch, pair: pair, waiter: waiter, watchdog: watchdog, timeout: options.timeout)
    link = HealthLink(pair: pair, waiter: waiter, timeout: options.timeout)
    do {
      if let clock = options.clock { try setClock(clock) }
    } catch {
      shutdown()
      throw error
    }
  }

  /// The device of that kind.
  public func device(_ kind: HealthDeviceKind) -> HealthDevice { kind == .phone ? phone : watch }

  /// Sets both devices' time zone: a paired watch follows its iPhone (behavior.md K1).
  /// - Throws: ``HealthPairTestingError``.
  public func setTimeZone(_ identifier: String) throws(HealthPairTestingError) {
    try phone.setTimeZone(identifier)
    try watch.setTimeZone(identifier)
  }

  /// The pair's directory (sockets, journals and logs; removed at shutdown).
  public var directory: String { pair.layout.root }

  /// Why the test cannot pass any more, once the harness knows: a permission sheet nobody answered within
  /// ``HealthPairOptions/timeout`` (``HealthPairTestingError/sheetNotAnswered(device:sheet:seconds:)``). Every wait
  /// of the pair throws it from then on, and so does ``withHealthPair(_:_:)``.
  public var failure: HealthPairTestingError? { watchdog.failure }

  /// Sets both devices' virtual clocks to `date`.
  /// - Throws: ``HealthPairTestingError``.
  public func setClock(_ date: Date) throws(HealthPairTestingError) {
    try phone.setClock(date)
    try watch.setClock(date)
  }

  /// Moves both devices' virtual clocks forward (each starts from the real time if its clock was not set).
  /// - Throws: ``HealthPairTestingError``.
  public func advanceClock(by seconds: TimeInterval) throws(HealthPairTestingError) {
    try phone.advanceClock(by: seconds)
    try watch.advanceClock(by: seconds)
  }

  /// Blocks until each device has applied everything the other logged (samples, deletions, Watch-app settings).
  /// - Throws: ``HealthPairTestingError/timeout(waitingFor:seconds:)`` (for example while the link is down).
  public func waitForSync(timeout: Double? = nil) throws(HealthPairTestingError) {
    let pair = self.pair
    do {
      try waiter.wait(for: "the pair to sync", timeout: timeout ?? options.timeout) { try Self.synced(pair) }
    } catch {
      throw HealthPairTestingError.from(error, device: .phone, operation: "waitForSync")
    }
  }

  /// Awaits until each device has applied everything the other logged, without blocking a thread between checks.
  /// - Throws: ``HealthPairTestingError/timeout(waitingFor:seconds:)`` (for example while the link is down).
  public func waitForSync(timeout: Double? = nil) async throws(HealthPairTestingError) {
    let pair = self.pair
    do {
      try await waiter.wait(for: "the pair to sync", timeout: timeout ?? options.timeout) { try Self.synced(pair) }
    } catch {
      throw HealthPairTestingError.from(error, device: .phone, operation: "waitForSync")
    }
  }

  private static func synced(_ pair: Pair) throws -> Bool? {
    let phone = try pair.phone.dump().link.sync
    let watch = try pair.watch.dump().link.sync
    return phone.isSynced(with: watch) ? true : nil
  }

  /// What a failing test gets to see (``HealthPairOptions/reportFailures``): both devices' state side by side and the
  /// last app calls each daemon logged; with ``HealthPairOptions/keepDirectoryOnFailure`` the directory is kept.
  func reportFailure(_ error: any Error, _ options: HealthPairOptions) {
    if options.keepDirectoryOnFailure { pair.keepDirectory() }
    guard options.reportFailures || options.keepDirectoryOnFailure else { return }
    var report = ""
    if options.reportFailures {
      report += "HealthPair: the test failed: \(error)\n"
      let states = DeviceKind.allCases.map { device in
        (try? pair.client(device).dump().describe()) ?? ["(the \(device) daemon did not answer)"]
      }
      report += sideBySide(left: states[0], right: states[1]) + "\n"
      for device in DeviceKind.allCases {
        let log = (try? Posix.readOwnFile(pair.layout.log(device))).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let calls = log.split(separator: "\n").filter { $0.contains(" call ") || $0.contains("sheet ") }.suffix(15)
        report += "last app calls and sheets on the \(device):\n"
        report += calls.isEmpty ? "  (none)\n" : calls.map { "  \($0)\n" }.joined()
      }
    }
    if options.keepDirectoryOnFailure { report += "HealthPair: the pair's directory is kept: \(pair.layout.root)\n" }
    Posix.writeStandardError(report)
  }

  /// Stops both daemons, removes the directory, and clears a process-wide HealthKitSim target that pointed here.
  func shutdown() {
    if let target = HealthKitSim.configuredTarget, target.socketPath.hasPrefix(directory + "/") {
      HealthKitSim.configure(nil)
    }
    watchdog.stop()
    // Killed and removed at once (prepared pairs, docs/testing-your-app.md); a kept directory stops gracefully.
    PreparedPairs.shared.retire(pair)
    // HealthKitSim's cached connections to these daemons are closed now rather than on their next use.
    Connections.shared.forget(phone.socketPath)
    Connections.shared.forget(watch.socketPath)
    AuthorizationRequestLog.shared.forget(socketPath: phone.socketPath)
    AuthorizationRequestLog.shared.forget(socketPath: watch.socketPath)
  }
}
