import Synchronization

/// A value behind a mutex, as a class so escaping closures (threads) can share it.
package final class Locked<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>

  /// Creates the box.
  package init(_ value: Value) { mutex = Mutex(value) }

  /// Runs `body` with exclusive access to the value.
  package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R { try mutex.withLock { try body(&$0) } }

  /// A copy of the value.
  package var value: Value { mutex.withLock { $0 } }
}
