import Dispatch
import Posix
import Synchronization

/// Per-call deadlines for awaited requests, served by one thread of their own.
///
/// Every awaited call needs a deadline that is almost never reached. Scheduling one is a lock and an append (calls
/// share one timeout, so deadlines arrive in order and the thread is woken only when one is earlier than every
/// other), cancelling removes the entry, and no timer source is made per call.
package final class Deadlines: Sendable {
  /// The process's deadlines.
  package static let shared = Deadlines()

  /// A scheduled deadline; ``cancel()`` it once the answer came.
  package struct Token: Sendable {
    fileprivate let id: UInt64
    fileprivate let owner: Deadlines

    /// Forgets the deadline; its action will not run (unless it already started).
    package func cancel() { owner.cancel(id) }
  }

  private struct State {
    var nextID: UInt64 = 1
    /// Live deadlines by id.
    var actions: [UInt64: @Sendable () -> Void] = [:]
    /// (deadline, id) in deadline order; ids no longer in `actions` were cancelled.
    var order: [(at: UInt64, id: UInt64)] = []
    var head = 0
    var started = false
  }
  private let state = Mutex(State())
  private let wake = DispatchSemaphore(value: 0)

  private init() {}

  /// Runs `action` on the deadline thread after `seconds`, unless cancelled first. The action must be quick.
  package func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> Token {
    let at = Posix.monotonicNanoseconds() &+ UInt64(max(0, min(seconds, 1e9)) * 1e9)
    let (id, earliest, start) = state.withLock { s -> (UInt64, Bool, Bool) in
      let id = s.nextID
      s.nextID += 1
      s.actions[id] = action
      var index = s.order.count
      while index > s.head && s.order[index - 1].at > at { index -= 1 }
      s.order.insert((at, id), at: index)
      // Cancelled entries are dropped from the front as the thread passes; compact when they pile up behind.
      if s.order.count - s.head > 2 * s.actions.count + 1024 {
        s.order = s.order[s.head...].filter { s.actions[$0.id] != nil }
        s.head = 0
        index = s.order.firstIndex { $0.id == id } ?? s.head
      }
      defer { s.started = true }
      return (id, index == s.head, !s.started)
    }
    if start { Posix.startThread { [self] in run() } }
    if earliest { wake.signal() }
    return Token(id: id, owner: self)
  }

  private func cancel(_ id: UInt64) {
    _ = state.withLock { $0.actions.removeValue(forKey: id) }
  }

  private func run() {
    while true {
      enum Next {
        case fire(@Sendable () -> Void)
        case sleep(UInt64?)
      }
      let next = state.withLock { s -> Next in
        while s.head < s.order.count, s.actions[s.order[s.head].id] == nil { s.head += 1 }
        if s.head == s.order.count {
          s.order.removeAll(keepingCapacity: true)
          s.head = 0
          return .sleep(nil)
        }
        let first = s.order[s.head]
        guard first.at <= Posix.monotonicNanoseconds() else { return .sleep(first.at) }
        s.head += 1
        return .fire(s.actions.removeValue(forKey: first.id)!)
      }
      switch next {
      case .fire(let action): action()
      case .sleep(nil): wake.wait()
      case .sleep(let at?):
        // The deadline may pass between the check above and this clock read: then wait not at all.
        let now = Posix.monotonicNanoseconds()
        let wait = at > now ? at - now : 0
        _ = wake.wait(timeout: .now() + .nanoseconds(Int(min(wait, UInt64(Int.max)))))
      }
    }
  }
}
