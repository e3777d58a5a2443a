import Foundation
import HealthEngine
import HealthModel
import Synchronization
import Wire

/// Computes statistics per time interval (per day, per hour…) aligned to an anchor date; with a
/// ``statisticsUpdateHandler`` it keeps running and recomputes when samples change, until stopped.
///
/// `intervalComponents` is turned into a fixed length: seconds, minutes, hours, days and weeks add up; months,
/// quarters and years have no fixed length and make the query fail with `HKError(.errorInvalidArgument)`. The
/// simulated calendar is UTC.
public final class HKStatisticsCollectionQuery: HKQuery, @unchecked Sendable {
  /// What the initial results handler receives.
  public typealias InitialResultsHandler =
    @Sendable (HKStatisticsCollectionQuery, HKStatisticsCollection?, (any Error)?) -> Void
  /// What the update handler receives: the query, the statistics of the last interval that changed, the whole
  /// recomputed collection, or an error.
  public typealias UpdateHandler =
    @Sendable (HKStatisticsCollectionQuery, HKStatistics?, HKStatisticsCollection?, (any Error)?) -> Void

  /// The statistics asked for.
  public let options: HKStatisticsOptions
  /// The date intervals are aligned to (they extend from it in both directions).
  public let anchorDate: Date
  /// The length of each interval.
  public let intervalComponents: DateComponents
  private struct Handlers {
    var initial: InitialResultsHandler?
    var update: UpdateHandler?
  }
  private let handlers = Mutex(Handlers())

  /// Creates a query; set ``initialResultsHandler`` (and optionally ``statisticsUpdateHandler``) before executing.
  public init(
    quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions = [],
    anchorDate: Date, intervalComponents: DateComponents
  ) {
    self.options = options
    self.anchorDate = anchorDate
    self.intervalComponents = intervalComponents
    super.init(objectType: quantityType, predicate: quantitySamplePredicate)
  }

  /// The quantity type.
  public var quantityType: HKQuantityType { objectType as! HKQuantityType }

  /// Called once with the collection.
  public var initialResultsHandler: InitialResultsHandler? {
    get { handlers.withLock { $0.initial } }
    set { handlers.withLock { $0.initial = newValue } }
  }

  /// Set before executing to keep the query running: called after each change of the samples the query sees.
  public var statisticsUpdateHandler: UpdateHandler? {
    get { handlers.withLock { $0.update } }
    set { handlers.withLock { $0.update = newValue } }
  }

  /// The interval length in seconds for `components`.
  /// - Throws: `HKError(.errorInvalidArgument)` for months, quarters or years, or a length that is not positive.
  static func seconds(of components: DateComponents) throws(HKError) -> Double {
    for (value, name) in [(components.month, "months"), (components.quarter, "quarters"), (components.year, "years")]
    where (value ?? 0) != 0 {
      throw HKError(
        .errorInvalidArgument,
        message: "HealthKitSim needs intervals of fixed length: \(name) are not supported (use days or weeks)")
    }
    var total = Double(components.nanosecond ?? 0) / 1e9
    total += Double(components.second ?? 0)
    total += Double(components.minute ?? 0) * 60
    total += Double(components.hour ?? 0) * 3600
    total += Double(components.day ?? 0) * 86400
    total += (Double(components.weekOfYear ?? 0) + Double(components.weekOfMonth ?? 0)) * 604_800
    guard total > 0 else {
      throw HKError(.errorInvalidArgument, message: "intervalComponents must describe a positive length of time")
    }
    return total
  }

  override func start(_ session: Session) {
    let api = "HKStatisticsCollectionQuery"
    let (initial, update) = handlers.withLock { ($0.initial, $0.update) }
    let last = Mutex<HKStatisticsCollection?>(nil)
    let compute = { @Sendable [self] () throws -> HKStatisticsCollection in
      let interval = try Self.seconds(of: intervalComponents)
      let query = StatisticsQuery(
        type: try quantityType.simulatedType(), range: try filter.get().range, sources: try filter.get().sources,
        options: options.simulated, interval: interval, anchor: anchorDate, filter: try filter.get().extra)
      let reply = try session.call(.statisticsCollection(bundleID: session.bundleID, query: query), api: api)
      guard case .collection(let values) = reply else { throw session.unexpected(reply, api: api) }
      return HKStatisticsCollection(
        values, type: quantityType, anchor: anchorDate, interval: interval,
        separateBySource: options.contains(.separateBySource))
    }
    let feed: ChangeFeed?
    let type: SampleType
    do {
      type = try quantityType.simulatedType()
      feed = update == nil ? nil : try ChangeFeed(session)
    } catch {
      run.queue.async { [self] in fail(error) }
      return
    }
    run.queue.async { [self] in
      let result = Result { try compute() }
      if case .success(let collection) = result { last.withLock { $0 = collection } }
      run.deliver {
        switch result {
        case .success(let collection): initial?(self, collection, nil)
        case .failure(let error): initial?(self, nil, error)
        }
      }
    }
    guard let feed, let update else { return }
    feed.listen(type: type, run: run) { [self] in
      do {
        let fresh = try compute()
        let before = last.withLock { previous in
          defer { previous = fresh }
          return previous?.simulatedValues ?? []
        }
        let after = fresh.simulatedValues
        guard after != before else { return }
        let changed = after.lastIndex { !before.contains($0) }
        let statistics = changed.map { index in fresh.statistics().first { $0.startDate == after[index].start } }
        run.deliver { update(self, statistics ?? nil, fresh, nil) }
      } catch  where ChangeFeed.isDeviceLocked(error) {
        // Recomputed when the device unlocks (the feed calls this again then; behavior.md L4).
      } catch {
        run.deliver { update(self, nil, nil, error) }
      }
    }
  }

  override func fail(_ error: any Error) {
    let initial = initialResultsHandler
    run.deliver { initial?(self, nil, error) }
  }
}
