import Foundation
import HealthEngine
import Synchronization

/// What each predicate made from a format string means: `NSPredicate(format:)` is a convenience initializer of
/// Foundation's class, so the condition cannot live in a subclass (as ``HealthKitSimPredicate``'s does); queries find
/// it here by the predicate's identity. Entries hold their predicate weakly and are dropped once it is gone.
final class FormatPredicates: Sendable {
  /// The process's registry.
  static let shared = FormatPredicates()

  /// `@unchecked Sendable`: the predicate is only compared by identity, never called, and an `NSPredicate` is
  /// immutable.
  private struct Entry: @unchecked Sendable {
    weak var predicate: NSPredicate?
    let condition: Result<SampleFilter, HealthKitSimError>
  }

  private struct State {
    var entries: [ObjectIdentifier: Entry] = [:]
    /// When to sweep out entries whose predicate is gone next.
    var sweepAt = 256
  }

  private let state = Mutex(State())

  /// Records what `predicate` means.
  func register(_ predicate: NSPredicate, _ condition: Result<SampleFilter, HealthKitSimError>) {
    let entry = Entry(predicate: predicate, condition: condition)
    let id = ObjectIdentifier(predicate)
    state.withLock { s in
      s.entries[id] = entry
      guard s.entries.count >= s.sweepAt else { return }
      s.entries = s.entries.filter { $0.value.predicate != nil }
      s.sweepAt = max(256, s.entries.count * 2)
    }
  }

  /// What `predicate` means, if it was made from a format string.
  func condition(of predicate: NSPredicate) -> Result<SampleFilter, HealthKitSimError>? {
    let id = ObjectIdentifier(predicate)
    guard let entry = state.withLock({ $0.entries[id] }), entry.predicate === predicate else { return nil }
    return entry.condition
  }
}
