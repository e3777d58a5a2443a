import Foundation
import HealthEngine
import HealthModel
import Synchronization

/// The block an observer query's handler calls when it has processed an update (needed for background delivery on
/// a device; HealthKitSim accepts and ignores it).
public typealias HKObserverQueryCompletionHandler = @Sendable () -> Void

/// A long-running query whose handler is called when samples of its type that the app may see, and that match its
/// predicate, are added or deleted on the device — saved locally or arriving by sync from the other device. It
/// carries no data: run a sample or anchored query to learn what changed.
///
/// HealthKitSim calls the handler once right after `execute(_:)` (as devices are observed to), then once per batch
/// of changes, until ``HKHealthStore/stop(_:)``. While the device is locked nothing is delivered: a query started
/// then, or changes made then, are delivered once when the device unlocks (healthd's deliver-on-unlock;
/// docs/behavior.md L4).
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
    // Set when a delivery had to wait for the device to unlock (only touched on the query's queue).
    let deferred = Mutex(false)
    run.queue.async { [self] in
      do {
        let initial = try ChangeFeed.changes(session, type: type, since: 0, filter: filter, limit: 0, api: api)
        anchor.withLock { $0 = initial.newAnchor }
        run.deliver { updateHandler(self, {}, nil) }
      } catch  where ChangeFeed.isDeviceLocked(error) {
        deferred.withLock { $0 = true }
      } catch {
        run.deliver { updateHandler(self, {}, error) }
      }
    }
    let check = { @Sendable [self] (always: Bool) in
      do {
        let changes = try ChangeFeed.changes(
          session, type: type, since: anchor.withLock { $0 }, filter: filter, limit: 0, api: api)
        anchor.withLock { $0 = changes.newAnchor }
        let changed = !changes.added.isEmpty || !changes.deleted.isEmpty
        // A delivery owed since the lock happens at the unlock, or with the next change, whichever comes first.
        let due = deferred.withLock { owed in
          let due = changed || (always && owed)
          if due { owed = false }
          return due
        }
        guard due else { return }
        run.deliver { updateHandler(self, {}, nil) }
      } catch  where ChangeFeed.isDeviceLocked(error) {
        deferred.withLock { $0 = true }
      } catch {
        run.deliver { updateHandler(self, {}, error) }
      }
    }
    feed.listen(type: type, run: run, onChange: { check(false) }, onUnlock: { check(true) })
  }

  override func fail(_ error: any Error) {
    run.deliver { updateHandler(self, {}, error) }
  }
}
