import Foundation
import HealthEngine
import HealthModel
import HealthPairClient
import Wire

/// How long-running queries learn about changes: a listener on the device's event connection, and anchored
/// queries that tell whether a change is visible to the app and matches the query.
///
/// A query opens the feed first (the only step that can fail), enqueues its initial work on its serial queue, then
/// calls ``listen(type:run:onChange:)``: every change check therefore runs after the initial result.
struct ChangeFeed {
  private let events: DeviceClient

  /// Opens the device's event connection.
  /// - Throws: ``HealthKitSimError/unreachable(socketPath:reason:)``.
  init(_ session: Session) throws(HealthKitSimError) {
    events = try session.events()
  }

  /// Registers `onChange` to run on the query's queue each time samples of `type` are added or deleted on the
  /// device (saved locally or synced from the other device), until the query stops; and `onUnlock` (else
  /// `onChange`) each time the device unlocks, so work deferred while it was locked runs then (behavior.md L4). In
  /// place when this returns.
  func listen(
    type: SampleType, run: QueryRun, onChange: @escaping @Sendable () -> Void,
    onUnlock: (@Sendable () -> Void)? = nil
  ) {
    let events = self.events
    let token = events.addListener { event in
      // Runs on the connection's reader thread: never call the daemon from here, only hop to the query's queue.
      switch event {
      case .samplesChanged(let types, _, _, _) where types.contains(type):
        run.queue.async { if run.isRunning { onChange() } }
      case .protectedDataChanged(available: true):
        let action = onUnlock ?? onChange
        run.queue.async { if run.isRunning { action() } }
      default:
        return
      }
    }
    run.onStop { events.removeListener(token) }
  }

  /// Whether `error` says the device is locked (`errorDatabaseInaccessible`): a long-running query's update then
  /// waits for the unlock instead of reporting it, as healthd defers observer deliveries to the unlock
  /// (behavior.md L4).
  static func isDeviceLocked(_ error: any Error) -> Bool {
    (error as? HKError)?.code == .errorDatabaseInaccessible
  }

  /// Registers `onEvent` to run on the query's queue for each pushed event `accepts` (called on the connection's
  /// reader thread: it must only look at the event), until the query stops. In place when this returns.
  func listen(
    run: QueryRun, accepts: @escaping @Sendable (DaemonEvent) -> Bool,
    onEvent: @escaping @Sendable (DaemonEvent) -> Void
  ) {
    let events = self.events
    let token = events.addListener { event in
      guard accepts(event) else { return }
      run.queue.async { if run.isRunning { onEvent(event) } }
    }
    run.onStop { events.removeListener(token) }
  }

  /// The app's background delivery registration for `type`, if any.
  static func registration(_ session: Session, type: SampleType, api: String) throws -> BackgroundDeliveryStatus? {
    let list = try session.perform(.backgroundDeliveries(session.bundleID), api: api).registrations
    return list.first { $0.key.type == type }
  }

  /// The changes the app may see of `type` since `anchor` (0: every current sample), within `filter`: the daemon
  /// filters (sources and the rest of the predicate, `predicateForObjects(from: workout)` included; a deletion
  /// passes the conditions it cannot be checked against) before it applies `limit`, so a limited query returns the
  /// first matching changes and its anchor stops after them.
  /// - Throws: the query's error, translated.
  static func changes(
    _ session: Session, type: SampleType, since anchor: UInt64, filter: QueryFilter, limit: Int, api: String
  ) throws -> AnchoredResult {
    // Sources first: the daemon checks them on the slot, before it reads the sample for the rest.
    let parts = [filter.sources.map { SampleFilter.sources($0) }, filter.extra].compactMap { $0 }
    let condition: SampleFilter? = parts.count > 1 ? .and(parts) : parts.first
    return try session.perform(
      .anchoredQuery(
        session.bundleID, type: type, anchor: anchor, range: filter.range, limit: limit, filter: condition),
      api: api)
  }
}
