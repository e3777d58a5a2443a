// Forced failures: tests make a chosen system call fail with a chosen errno.
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

extension Posix {
  /// A forced failure: which call, which errno, for which subjects, how many more times.
  package struct Fault: Sendable {
    /// The errno the call fails with.
    package var errno: Errno
    /// Only calls whose subject (path) contains this string fail; nil matches every call.
    package var subjectContains: String?
    /// How many more calls fail.
    package var remaining: Int
  }

  /// Forced failures for tests, by operation name (`"write"`, `"fsync"`, `"open"`, `"send"`).
  package static let faults = Mutex<[String: Fault]>([:])

  /// Makes the next `count` calls of `operation` whose subject contains `subjectContains` fail with `errno`.
  package static func injectFault(_ operation: String, _ errno: Errno, subjectContains: String? = nil, count: Int = 1) {
    faults.withLock { $0[operation] = Fault(errno: errno, subjectContains: subjectContains, remaining: count) }
  }

  /// Removes every forced failure.
  package static func clearFaults() { faults.withLock { $0.removeAll() } }

  /// The errno a forced failure of `operation` on `subject` gives, consuming one of its remaining calls.
  static func forced(_ operation: String, _ subject: String?) -> Errno? {
    faults.withLock { table -> Errno? in
      guard var fault = table[operation], fault.remaining > 0 else { return nil }
      if let needle = fault.subjectContains, !(subject ?? "").contains(needle) { return nil }
      fault.remaining -= 1
      table[operation] = fault.remaining == 0 ? nil : fault
      return fault.errno
    }
  }
}
