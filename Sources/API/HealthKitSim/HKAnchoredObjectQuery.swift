import Foundation
import HealthEngine
import HealthModel
import Synchronization

/// Returns the samples added and deleted since an anchor, and the anchor to continue from; with an
/// ``updateHandler`` it keeps running and reports each later change (local saves and sync) until stopped. Queries
/// of `workoutType()`, `workoutRoute()` and `heartbeat()` return ``HKWorkout``, ``HKWorkoutRoute`` and
/// ``HKHeartbeatSeriesSample`` objects; `predicateForObjects(from: workout)` on a route query catches a workout's
/// late or replaced route (workouts.md §1.6).
///
/// `@unchecked Sendable` for the reason ``HKQuery`` gives; handlers set after `init` sit behind a `Mutex`.
public final class HKAnchoredObjectQuery: HKQuery, @unchecked Sendable {
  /// What both handlers receive: the query, added samples, deleted objects, the new anchor, or an error.
  public typealias Handler =
    @Sendable (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, (any Error)?) -> Void

  /// The anchor the query starts from (nil: from the beginning).
  public let anchor: HKQueryAnchor?
  /// The maximum number of changes in the first result; ``HKObjectQueryNoLimit`` (0) for all.
  public let limit: Int
  private let resultsHandler: Handler
  private let update = Mutex<Handler?>(nil)

  /// Creates a query; `resultsHandler` receives the first result.
  public init(
    type: HKSampleType, predicate: NSPredicate?, anchor: HKQueryAnchor?, limit: Int,
    resultsHandler handler: @escaping Handler
  ) {
    self.anchor = anchor
    self.limit = limit
    self.resultsHandler = handler
    super.init(objectType: type, predicate: predicate)
  }

  /// Creates a query of the first descriptor's type and predicate (HealthKitSim reads one type per query).
  public convenience init(
    queryDescriptors: [HKQueryDescriptor], anchor: HKQueryAnchor?, limit: Int, resultsHandler handler: @escaping Handler
  ) {
    let first = queryDescriptors.first
    self.init(
      type: first?.sampleType ?? HKSampleType(identifier: ""), predicate: first?.predicate, anchor: anchor,
      limit: limit, resultsHandler: handler)
  }

  /// Set before executing to keep the query running: called with each later batch of changes (changes made while
  /// the device is locked arrive when it unlocks).
  public var updateHandler: Handler? {
    get { update.withLock { $0 } }
    set { update.withLock { $0 = newValue } }
  }

  override func start(_ session: Session) {
    let api = "HKAnchoredObjectQuery"
    let updates = updateHandler
    let current = Mutex<UInt64>(anchor?.value ?? 0)
    let type: SampleType
    let filter: QueryFilter
    let feed: ChangeFeed?
    do {
      type = try objectType!.simulatedType()
      filter = try self.filter.get()
      feed = updates == nil ? nil : try ChangeFeed(session)
    } catch {
      run.queue.async { [self] in fail(error) }
      return
    }
    let family = WorkoutFetch.anchorsApart(objectType!)
    // The changes since the current anchor: samples from the sample store, or the workout family's objects.
    @Sendable func changes(limit: Int) throws -> Changes {
      let since = current.withLock { $0 }
      if family {
        return try WorkoutFetch.changes(session, type: type, since: since, filter: filter, limit: limit, api: api)
      }
      let found = try ChangeFeed.changes(session, type: type, since: since, filter: filter, limit: limit, api: api)
      return Changes(
        added: HKSample.make(found.added), deleted: found.deleted.map(HKDeletedObject.init), newAnchor: found.newAnchor)
    }
    run.queue.async { [self] in
      let result = Result { try changes(limit: limit) }
      if case .success(let changes) = result { current.withLock { $0 = changes.newAnchor } }
      run.deliver { Self.call(resultsHandler, self, result) }
    }
    guard let feed, let updates else { return }
    feed.listen(type: type, run: run) { [self] in
      let result = Result { try changes(limit: 0) }
      switch result {
      case .success(let changes):
        current.withLock { $0 = changes.newAnchor }
        if changes.added.isEmpty && changes.deleted.isEmpty { return }
      case .failure(let error) where ChangeFeed.isDeviceLocked(error):
        // The changes are reported when the device unlocks (the feed calls this again then; behavior.md L4).
        return
      case .failure: break
      }
      run.deliver { Self.call(updates, self, result) }
    }
  }

  override func fail(_ error: any Error) {
    run.deliver { resultsHandler(self, nil, nil, nil, error) }
  }

  /// One result: the objects added (samples, or workouts, routes, heartbeat series), the deletions, the anchor.
  struct Changes {
    var added: [HKSample]
    var deleted: [HKDeletedObject]
    var newAnchor: UInt64
  }

  private static func call(_ handler: Handler, _ query: HKAnchoredObjectQuery, _ result: Result<Changes, any Error>) {
    switch result {
    case .success(let changes):
      handler(query, changes.added, changes.deleted, HKQueryAnchor(changes.newAnchor), nil)
    case .failure(let error):
      handler(query, nil, nil, nil, error)
    }
  }
}
