import Foundation
import HealthEngine
import HealthModel
import Synchronization
import Wire

/// The block an observer query's update handler calls when it has processed an update: for a background delivery,
/// it tells HealthKit the app received it (not called within the response window, the delivery is retried, and
/// after three misses in a row delivery stops); otherwise it does nothing.
public typealias HKObserverQueryCompletionHandler = @Sendable () -> Void

/// A long-running query whose handler is called when samples of its type that the app may see, and that match its
/// predicate, are added or deleted on the device — saved locally, arriving by sync from the other device, or pruned
/// by the watch's retention window. It carries no data: run a sample or anchored query to learn what changed.
///
/// HealthKitSim calls the handler once right after `execute(_:)` (as devices are observed to), then once per batch
/// of changes, until ``HKHealthStore/stop(_:)``. When the app enabled background delivery of the type
/// (``HKHealthStore/enableBackgroundDelivery(for:frequency:)``), the handler is called for each delivery instead —
/// at the registered frequency — and its completion handler must be called (behavior.md section B). While the device
/// is locked nothing is delivered: a query started then, or changes made then, are delivered once when the device
/// unlocks (healthd's deliver-on-unlock; docs/behavior.md L4).
///
/// `@unchecked Sendable` for the reason ``HKQuery`` gives; handlers set after `init` sit behind a `Mutex`.
public final class HKObserverQuery: HKQuery, @unchecked Sendable {
  /// What the handler receives: the query, a completion block, or an error.
  public typealias Handler =
    @Sendable (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, (any Error)?) -> Void

  private let updateHandler: Handler

  /// Creates a query.
  public init(sampleType: HKSampleType, predicate: NSPredicate?, updateHandler: @escaping Handler) {
    self.updateHandler = updateHandler
    super.init(objectType: sampleType, predicate: predicate)
  }

  /// Creates a query of the first descriptor's type and predicate (HealthKitSim observes one type per query:
  /// execute one query per descriptor to observe several).
  public convenience init(
    queryDescriptors: [HKQueryDescriptor],
    updateHandler:
      @escaping @Sendable (
        HKObserverQuery, Set<HKSampleType>?, @escaping HKObserverQueryCompletionHandler, (any Error)?
      ) -> Void
  ) {
    let first = queryDescriptors.first
    let type = first?.sampleType ?? HKSampleType(identifier: "")
    self.init(sampleType: type, predicate: first?.predicate) { query, completion, error in
      updateHandler(query, error == nil ? [type] : nil, completion, error)
    }
  }

  override func start(_ session: Session) {
    let api = "HKObserverQuery"
    let anchor = Mutex<UInt64>(0)
    let type: SampleType
    let filter: QueryFilter
    let feed: ChangeFeed
    do {
      type = try objectType!.simulatedType()
      filter = try self.filter.get()
      feed = try ChangeFeed(session)
    } catch {
      run.queue.async { [self] in fail(error) }
      return
    }
    let bundleID = session.bundleID
    let family = WorkoutFetch.anchorsApart(objectType!)
    // What changed since `since`: the new anchor and whether anything was added or deleted (workouts, routes and
    // heartbeat series are read from the workout store).
    @Sendable func changes(since: UInt64) throws -> (newAnchor: UInt64, changed: Bool) {
      if family {
        let found = try WorkoutFetch.changes(session, type: type, since: since, filter: filter, limit: 0, api: api)
        return (found.newAnchor, !found.added.isEmpty || !found.deleted.isEmpty)
      }
      let found = try ChangeFeed.changes(session, type: type, since: since, filter: filter, limit: 0, api: api)
      return (found.newAnchor, !found.added.isEmpty || !found.deleted.isEmpty)
    }
    // Set when a delivery had to wait for the device to unlock (only touched on the query's queue).
    let deferred = Mutex(false)
    run.queue.async { [self] in
      let result = Result { () throws -> HKObserverQueryCompletionHandler in
        let initial = try changes(since: 0)
        anchor.withLock { $0 = initial.newAnchor }
        // A delivery made before the query ran is the one a device launches the app for: the handler's first
        // call carries its completion handler.
        guard let waiting = try ChangeFeed.registration(session, type: type, api: api)?.waiting else {
          return Self.noCompletion
        }
        return Self.completion(session, delivery: waiting)
      }
      if case .failure(let error) = result, ChangeFeed.isDeviceLocked(error) {
        deferred.withLock { $0 = true }
        return
      }
      call(result)
    }
    feed.listen(
      run: run,
      accepts: { event in
        switch event {
        case .samplesChanged(let types, _, _, _): types.contains(type)
        case .samplesPruned(let pruned, let apps): pruned == type && apps.contains(bundleID)
        case .backgroundDelivery(let e): e.kind == .woken && e.bundleID == bundleID && e.type == type
        case .protectedDataChanged(let available): available
        default: false
        }
      }
    ) { [self] event in
      let result = Result { () throws -> HKObserverQueryCompletionHandler? in
        switch event {
        case .backgroundDelivery(let delivery):
          return Self.completion(session, delivery: delivery.id)
        case .samplesPruned:
          break
        default:
          let found = try changes(since: anchor.withLock { $0 })
          anchor.withLock { $0 = found.newAnchor }
          let changed = found.changed
          var unlocked = false
          if case .protectedDataChanged = event { unlocked = true }
          // A delivery owed since the lock happens at the unlock, or with the next change, whichever comes first.
          let due = deferred.withLock { owed in
            let due = changed || (unlocked && owed)
            if due { owed = false }
            return due
          }
          guard due else { return nil }
        }
        // With background delivery enabled for the type, deliveries call the handler (at their frequency).
        if try ChangeFeed.registration(session, type: type, api: api) != nil { return nil }
        return Self.noCompletion
      }
      switch result {
      case .success(nil): return
      case .success(let completion?): call(.success(completion))
      case .failure(let error) where ChangeFeed.isDeviceLocked(error): deferred.withLock { $0 = true }
      case .failure(let error): call(.failure(error))
      }
    }
  }

  override func fail(_ error: any Error) {
    run.deliver { updateHandler(self, Self.noCompletion, error) }
  }

  private func call(_ result: Result<HKObserverQueryCompletionHandler, any Error>) {
    switch result {
    case .success(let completion): run.deliver { updateHandler(self, completion, nil) }
    case .failure(let error): run.deliver { updateHandler(self, Self.noCompletion, error) }
    }
  }

  /// The completion handler of an update that is not a background delivery: calling it does nothing.
  private static let noCompletion: HKObserverQueryCompletionHandler = {}

  /// A completion handler for delivery `id`: the first call tells the daemon (a round trip, so once it returns the
  /// daemon knows); later calls do nothing.
  private static func completion(_ session: Session, delivery id: UInt64) -> HKObserverQueryCompletionHandler {
    let called = Mutex(false)
    return {
      guard
        !called.withLock({ (was: inout Bool) in
          defer { was = true }
          return was
        })
      else { return }
      do {
        try session.perform(
          .completeBackgroundDelivery(session.bundleID, delivery: id), api: "HKObserverQueryCompletionHandler")
      } catch let error as HealthKitSimError {
        HealthKitSim.reportIssue(error)
      } catch {
        HealthKitSim.reportIssue(.misuse("HKObserverQueryCompletionHandler failed: \(error)"))
      }
    }
  }
}
