import Dispatch

/// Runs `work` (which must not need the caller's task-locals: resolve the session first), then hands the result to
/// `completion` on a background queue of its own, as HealthKit calls completion handlers "on an arbitrary background
/// queue". A dedicated serial queue per call keeps a blocking handler from starving other work.
package func deliver<T: Sendable>(
  _ work: @escaping @Sendable () async throws -> T, to completion: @escaping @Sendable (Result<T, any Error>) -> Void
) {
  Task.detached {
    let result: Result<T, any Error>
    do { result = .success(try await work()) } catch { result = .failure(error) }
    DispatchQueue(label: "HealthKitSim.completion").async { completion(result) }
  }
}
