import Dispatch
import Posix
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Runs every daemon spawn on one thread that lives as long as the process, in the order they were asked for.
///
/// A daemon started with `--exit-with-parent` is signalled when the *thread* that spawned it exits (that is how
/// `PR_SET_PDEATHSIG` works): spawned from this thread, it is never stopped early by a short-lived worker or pool
/// thread ending. Pairs' daemons stop with the process through the ``Lifeline`` instead.
final class Spawner: Sendable {
  static let shared = Spawner()
  private let jobs = Mutex<[@Sendable () -> Void]>([])
  private let wake = DispatchSemaphore(value: 0)

  private init() {
    Posix.startThread { [self] in
      while true {
        wake.wait()
        let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        job?()
      }
    }
  }

  /// Runs `body` on the spawner thread and returns its result; gives up with `ETIMEDOUT` after `timeout` seconds
  /// (a spawn takes milliseconds: only a wedged system gets there).
  func run<T: Sendable>(timeout: Double = 30, _ body: @escaping @Sendable () throws(SystemError) -> T)
    throws(SystemError) -> T
  {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<T, SystemError>?>(nil)
    jobs.withLock {
      $0.append {
        let outcome: Result<T, SystemError> = catching(body)
        result.withLock { $0 = outcome }
        done.signal()
      }
    }
    wake.signal()
    guard done.wait(timeout: .now() + timeout) == .success, let outcome = result.withLock({ $0 }) else {
      throw SystemError("spawn (on the spawner thread)", "no result within \(timeout) s", Errno(rawValue: ETIMEDOUT))
    }
    return try outcome.get()
  }
}
