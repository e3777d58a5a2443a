import Foundation

extension HKHealthStore {
  /// Runs `query` in the background; its handlers are called on a serial queue of the query's own.
  ///
  /// The target is captured now. Long-running queries (observer queries, anchored and statistics collection queries
  /// with an update handler) are listening for changes when this returns. Executing a query twice is reported to
  /// ``HealthKitSim/terminationHandler`` and ignored. With no target configured the query's handler receives
  /// `HKError(.errorHealthDataUnavailable)`.
  public func execute(_ query: HKQuery) {
    guard query.run.begin() else {
      HealthKitSim.reportTermination(
        .invalidArgument(
          "\(type(of: query)) has already been executed; each HKQuery instance may only be executed once",
          api: "HKHealthStore.execute(_:)"))
      return
    }
    do {
      let session = try Session.current(api: "HKHealthStore.execute(_:)")
      query.run.target = session.target
      query.start(session)
    } catch {
      query.run.queue.async { query.fail(error) }
    }
  }

  /// Stops `query`: no handler of it is called after this returns. Stopping a stopped query does nothing.
  public func stop(_ query: HKQuery) {
    query.run.stop()
  }
}
