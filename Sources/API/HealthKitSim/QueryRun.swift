import Foundation

/// The execution state of one query: idle → running → stopped, and the lock that makes `stop(_:)` final.
final class QueryRun: @unchecked Sendable {
  private enum State { case idle, running, stopped }

  // `lock` guards `state` and `cleanups`, and is held while a handler runs, so `stop()` waits for a handler in
  // progress on another thread. It is recursive so that a handler may stop its own query.
  private let lock = NSRecursiveLock()
  private var state = State.idle
  private var cleanups: [@Sendable () -> Void] = []
  private var boundTarget: HealthKitSim.Target?
  private var madeQueue: DispatchQueue?

  /// The serial queue the query works and calls its handlers on, made when first asked for: a query that is only
  /// fetched in the awaiting task (``HKSampleQueryDescriptor``) never makes one.
  var queue: DispatchQueue {
    lock.lock()
    defer { lock.unlock() }
    if let madeQueue { return madeQueue }
    let queue = DispatchQueue(label: "HealthKitSim.query")
    madeQueue = queue
    return queue
  }

  /// Moves idle → running; false when the query was already executed.
  func begin() -> Bool {
    lock.lock()
    defer { lock.unlock() }
    guard state == .idle else { return false }
    state = .running
    return true
  }

  /// Whether the query is running (executed and not stopped).
  var isRunning: Bool {
    lock.lock()
    defer { lock.unlock() }
    return state == .running
  }

  /// The target the query was executed with: its handlers run with it bound, so HealthKit calls they make (an
  /// observer's handler running an anchored query) go to the same device and app, in parallel tests too.
  var target: HealthKitSim.Target? {
    get {
      lock.lock()
      defer { lock.unlock() }
      return boundTarget
    }
    set {
      lock.lock()
      boundTarget = newValue
      lock.unlock()
    }
  }

  /// Runs `handler` unless the query was stopped, with the query's target bound; holds the lock meanwhile.
  func deliver(_ handler: () -> Void) {
    lock.lock()
    defer { lock.unlock() }
    guard state == .running else { return }
    if let boundTarget { HealthKitSim.withTarget(boundTarget, operation: handler) } else { handler() }
  }

  /// Registers work to do when the query stops (remove an event listener); runs it now if already stopped.
  func onStop(_ cleanup: @escaping @Sendable () -> Void) {
    lock.lock()
    let stopped = state == .stopped
    if !stopped { cleanups.append(cleanup) }
    lock.unlock()
    if stopped { cleanup() }
  }

  /// Stops the query: no handler is called after this returns.
  func stop() {
    lock.lock()
    let wasRunning = state != .stopped
    state = .stopped
    let pending = cleanups
    cleanups = []
    lock.unlock()
    if wasRunning { for cleanup in pending { cleanup() } }
  }
}
