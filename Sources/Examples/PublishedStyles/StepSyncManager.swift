// Written the way many shipping HealthKit layers are: an NSObject manager with completion handlers, an observer
// query registered at launch with background delivery, and an anchored query whose anchor is archived into
// UserDefaults with NSKeyedArchiver. It imports HealthKit — on Linux the HealthPair `HealthKit` module — and
// names the module explicitly in one signature, as published code does. Nothing here knows about HealthPair.

import Foundation
import HealthKit

/// Syncs step counts to a (pretend) server: counts new samples, and remembers where it stopped.
public final class StepSyncManager: NSObject, @unchecked Sendable {
  /// What the manager reports after each sync.
  public struct SyncReport: Sendable, Equatable {
    /// Samples added since the stored anchor.
    public var added: Int
    /// Samples deleted since the stored anchor.
    public var deleted: Int

    /// A report.
    public init(added: Int, deleted: Int) {
      self.added = added
      self.deleted = deleted
    }
  }

  private let store = HKHealthStore()
  private let defaults: UserDefaults
  private let anchorKey = "StepSyncManager.anchor"
  private let lock = NSLock()
  private var observer: HKObserverQuery?
  private var stepType: HKQuantityType { HKQuantityType(.stepCount) }

  /// Called after every background sync (tests watch it).
  public var onSync: (@Sendable (SyncReport) -> Void)?

  /// Creates a manager that keeps its anchor in `defaults`.
  public init(defaults: UserDefaults = .standard) {
    self.defaults = defaults
    super.init()
  }

  /// Asks to read steps and to write workouts (a common pairing).
  public func requestAuthorization(completion: @escaping @Sendable (Bool, Error?) -> Void) {
    let read: Set<HKObjectType> = [stepType, HKObjectType.workoutType(), HKObjectType.activitySummaryType()]
    store.requestAuthorization(toShare: [HKObjectType.workoutType()], read: read, completion: completion)
  }

  /// Registers for background delivery and starts the observer query, as an app delegate does at launch.
  public func startObserving(completion: @escaping @Sendable (Bool, Error?) -> Void) {
    let query = HKObserverQuery(sampleType: stepType, predicate: nil) { [weak self] _, done, error in
      guard let self, error == nil else {
        done()
        return
      }
      self.syncNewSamples(finished: done)
    }
    lock.lock()
    observer = query
    lock.unlock()
    store.execute(query)
    store.enableBackgroundDelivery(for: stepType, frequency: .immediate, withCompletion: completion)
  }

  /// Stops observing and unregisters every background delivery.
  public func stopObserving(completion: @escaping @Sendable (Bool, Error?) -> Void) {
    lock.lock()
    let query = observer
    observer = nil
    lock.unlock()
    if let query { store.stop(query) }
    store.disableAllBackgroundDelivery(completion: completion)
  }

  /// Runs an anchored query from the archived anchor, archives the new one, then calls `finished`.
  public func syncNewSamples(finished: @escaping HealthKit.HKObserverQueryCompletionHandler) {
    let query = HKAnchoredObjectQuery(
      type: stepType, predicate: nil, anchor: storedAnchor(), limit: HKObjectQueryNoLimit
    ) { [weak self] _, added, deleted, newAnchor, error in
      defer { finished() }
      guard let self, error == nil else { return }
      if let newAnchor { self.store(anchor: newAnchor) }
      self.onSync?(SyncReport(added: added?.count ?? 0, deleted: deleted?.count ?? 0))
    }
    store.execute(query)
  }

  /// The archived anchor, or nil (the first sync, or an archive that does not decode).
  public func storedAnchor() -> HKQueryAnchor? {
    guard let data = defaults.data(forKey: anchorKey) else { return nil }
    return try? NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: data)
  }

  private func store(anchor: HKQueryAnchor) {
    guard let data = try? NSKeyedArchiver.archivedData(withRootObject: anchor, requiringSecureCoding: true) else {
      return
    }
    defaults.set(data, forKey: anchorKey)
  }

  /// Today's steps, leaving out what the user typed in by hand — a very common statistics predicate, written as
  /// a format string the way most published code writes it.
  public func fetchSteps(
    from start: Date, to end: Date, completion: @escaping @Sendable (Double?, Error?) -> Void
  ) {
    let dates = HKQuery.predicateForSamples(withStart: start, end: end, options: .strictStartDate)
    let notTyped = NSPredicate(format: "metadata.%K != YES", HKMetadataKeyWasUserEntered)
    let predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [dates, notTyped])
    let query = HKStatisticsQuery(
      quantityType: stepType, quantitySamplePredicate: predicate, options: .cumulativeSum,
      completionHandler: { _, statistics, error in
        completion(statistics?.sumQuantity()?.doubleValue(for: .count()), error)
      })
    store.execute(query)
  }
}
