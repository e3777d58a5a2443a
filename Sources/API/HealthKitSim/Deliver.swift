import Dispatch
import Posix
import Synchronization

/// Runs `work` (which must not need the caller's task-locals: resolve the session first), then hands the result to
/// `completion` on a background queue of its own, as HealthKit calls completion handlers "on an arbitrary background
/// queue". A dedicated serial queue per call keeps a blocking handler from starving other work.
///
/// The work runs on ``CompletionExecutor``, not on Swift's cooperative pool: completion-handler APIs are what
/// synchronous code (XCTest, semaphores) calls, and that code often blocks a pool thread while it waits. On a
/// two-core CI machine the pool has two threads; work queued behind blocked threads would never run.
///
/// The completion runs with the caller's target bound, so HealthKit calls it makes go to the same device and app.
package func deliver<T: Sendable>(
  _ work: @escaping @Sendable () async throws -> T, to completion: @escaping @Sendable (Result<T, any Error>) -> Void
) {
  let target = HealthKitSim.currentTarget
  Task.detached(executorPreference: CompletionExecutor.shared) {
    let result: Result<T, any Error>
    do { result = .success(try await work()) } catch { result = .failure(error) }
    DispatchQueue(label: "HealthKitSim.completion").async {
      if let target { HealthKitSim.withTarget(target) { completion(result) } } else { completion(result) }
    }
  }
}

/// A task executor with one thread of its own, for HealthKitSim's completion-handler work (see ``deliver(_:to:)``).
/// Jobs only await socket replies, so one thread serves every call.
package final class CompletionExecutor: TaskExecutor {
  /// The process's executor.
  package static let shared = CompletionExecutor()

  private let jobs = Mutex<[UnownedJob]>([])
  private let ready = DispatchSemaphore(value: 0)

  private init() {
    Posix.startThread { [self] in
      while true {
        ready.wait()
        guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
        job.runSynchronously(on: asUnownedTaskExecutor())
      }
    }
  }

  /// Queues a job for the executor's thread.
  package func enqueue(_ job: consuming ExecutorJob) {
    let unowned = UnownedJob(job)
    jobs.withLock { $0.append(unowned) }
    ready.signal()
  }
}

/// As ``deliver(_:to:)``, with `work` running under the caller's target: for completion-handler APIs whose work
/// resolves its session itself (the builders' calls, which may or may not reach the daemon).
package func deliverWithTarget<T: Sendable>(
  _ work: @escaping @Sendable () async throws -> T, to completion: @escaping @Sendable (Result<T, any Error>) -> Void
) {
  guard let target = HealthKitSim.currentTarget else { return deliver(work, to: completion) }
  deliver({ try await HealthKitSim.withTarget(target) { try await work() } }, to: completion)
}
