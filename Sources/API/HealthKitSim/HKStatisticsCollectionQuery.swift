import Foundation
import HealthEngine
import HealthModel
import Synchronization

/// Computes statistics per time interval (per day, per hour, per month…) aligned to an anchor date; with a
/// ``statisticsUpdateHandler`` it keeps running and recomputes when samples change, until stopped.
///
/// Intervals follow the device's calendar and time zone (behavior.md K3): `intervalComponents` may hold years,
/// quarters, months, weeks, days, hours, minutes, seconds and nanoseconds; days and weeks keep the wall-clock time
/// (a day across a daylight-saving change lasts 23 or 25 hours), months keep the day of the month (clamped to the
/// month's length). Components that do not move time forward make the query fail as a device would terminate the
/// app (``HKSimulatedTermination``).
///
/// `@unchecked Sendable` for the reason ``HKQuery`` gives; handlers set after `init` sit behind a `Mutex`.
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

  /// The engine's interval for `components`: years, quarters and months in months; weeks and days in days;
  /// hours, minutes, seconds and nanoseconds in seconds. Other components (era, weekday, …) are ignored.
  static func interval(of components: DateComponents) -> CalendarInterval {
    func part(_ value: Int?, _ scale: Int) -> Int {
      let (product, overflow) = (value ?? 0).multipliedReportingOverflow(by: scale)
      return overflow ? Int.max / 4 : product
    }
    let months = part(components.year, 12) &+ part(components.quarter, 3) &+ part(components.month, 1)
    let days = part(components.weekOfYear, 7) &+ part(components.weekOfMonth, 7) &+ part(components.day, 1)
    var seconds = Double(components.nanosecond ?? 0) / 1e9
    seconds += Double(components.second ?? 0)
    seconds += Double(components.minute ?? 0) * 60
    seconds += Double(components.hour ?? 0) * 3600
    return CalendarInterval(
      months: max(-1 << 40, min(1 << 40, months)), days: max(-1 << 40, min(1 << 40, days)), seconds: seconds)
  }

  override func start(_ session: Session) {
    let api = "HKStatisticsCollectionQuery"
    let (initial, update) = handlers.withLock { ($0.initial, $0.update) }
    let last = Mutex<HKStatisticsCollection?>(nil)
    let compute = { @Sendable [self] () throws -> HKStatisticsCollection in
      let interval = Self.interval(of: intervalComponents)
      let query = StatisticsQuery(
        type: try quantityType.simulatedType(), range: try filter.get().range, sources: try filter.get().sources,
        options: options.simulated, interval: interval, anchor: anchorDate, filter: try filter.get().extra)
      let (values, zone) = try session.perform(.statisticsCollection(session.bundleID, query), api: api)
      return HKStatisticsCollection(
        values, type: quantityType, anchor: anchorDate, interval: interval,
        calendar: LocalCalendar((try? TimeZoneRule(identifier: zone)) ?? .utc),
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
