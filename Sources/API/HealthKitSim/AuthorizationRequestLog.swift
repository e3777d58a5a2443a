import Synchronization

/// The latest `requestAuthorization` call each app made on each device in this process, and — once the daemon
/// answered — whether it refused it outright (a misuse of the simulator such as an app that is not installed, or a
/// request a device would terminate the app for). A harness waiting for the permission sheet of such a request
/// reads it to fail at once with the daemon's reason instead of waiting in vain for a sheet that cannot come.
package final class AuthorizationRequestLog: Sendable {
  /// The process's log.
  package static let shared = AuthorizationRequestLog()

  /// A refused request: the app, the API it called and the daemon's reason.
  package struct Refusal: Hashable, Sendable {
    /// The app's bundle identifier.
    package var bundleID: String
    /// The HealthKit API the app called.
    package var api: String
    /// Why it was refused, as the daemon said.
    package var reason: String
  }

  private struct Entry {
    var sequence: UInt64
    var refusal: Refusal?
  }

  private struct State {
    var next: UInt64 = 0
    /// By socket path, then bundle identifier: each app's latest request on that device.
    var latest: [String: [String: Entry]] = [:]
    var listeners: [UInt64: @Sendable () -> Void] = [:]
  }

  private let state = Mutex(State())

  /// Notes that `bundleID` sent a request to the daemon at `socketPath`; returns its number for
  /// ``refused(_:socketPath:refusal:)``.
  package func started(socketPath: String, bundleID: String) -> UInt64 {
    state.withLock { s in
      s.next += 1
      s.latest[socketPath, default: [:]][bundleID] = Entry(sequence: s.next, refusal: nil)
      return s.next
    }
  }

  /// Records that the daemon refused request `sequence` (ignored once the app made a later request), then wakes
  /// every listener.
  package func refused(_ sequence: UInt64, socketPath: String, refusal: Refusal) {
    let listeners = state.withLock { s -> [@Sendable () -> Void] in
      guard s.latest[socketPath]?[refusal.bundleID]?.sequence == sequence else { return [] }
      s.latest[socketPath]?[refusal.bundleID]?.refusal = refusal
      return Array(s.listeners.values)
    }
    for listener in listeners { listener() }
  }

  /// The refusal of the latest request on the device at `socketPath` — of `bundleID`, or of any app when nil —
  /// when that request was refused (nil while it is pending or once it was answered otherwise). Each refusal is
  /// returned once, so a later wait does not fail on a refusal an earlier one already reported.
  package func takeRefusal(socketPath: String, bundleID: String?) -> Refusal? {
    state.withLock { s in
      guard let apps = s.latest[socketPath] else { return nil }
      let app = bundleID ?? apps.max { $0.value.sequence < $1.value.sequence }?.key
      guard let app, let refusal = apps[app]?.refusal else { return nil }
      s.latest[socketPath]?[app]?.refusal = nil
      return refusal
    }
  }

  /// Forgets `bundleID`'s requests on the device at `socketPath` (the app was installed or uninstalled there: what
  /// the daemon said before no longer holds).
  package func forget(socketPath: String, bundleID: String) {
    _ = state.withLock { $0.latest[socketPath]?.removeValue(forKey: bundleID) }
  }

  /// Calls `listener` after each refusal is recorded, until ``removeListener(_:)``.
  package func addListener(_ listener: @escaping @Sendable () -> Void) -> UInt64 {
    state.withLock { s in
      s.next += 1
      s.listeners[s.next] = listener
      return s.next
    }
  }

  /// Stops calling a listener.
  package func removeListener(_ token: UInt64) {
    _ = state.withLock { $0.listeners.removeValue(forKey: token) }
  }

  /// Forgets the requests made on the device at `socketPath` (its pair is gone).
  package func forget(socketPath: String) {
    _ = state.withLock { $0.latest.removeValue(forKey: socketPath) }
  }
}
