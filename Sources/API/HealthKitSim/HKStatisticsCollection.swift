import Foundation
import HealthEngine
import HealthModel

/// The statistics of a run of time intervals aligned to an anchor date in the device's calendar, as a statistics
/// collection query returns them.
public final class HKStatisticsCollection: Sendable {
  private let intervals: [HKStatistics]
  private let anchor: Date
  private let interval: CalendarInterval
  private let calendar: LocalCalendar
  private let quantityType: HKQuantityType
  private let separateBySource: Bool

  init(
    _ values: [Statistics], type: HKQuantityType, anchor: Date, interval: CalendarInterval, calendar: LocalCalendar,
    separateBySource: Bool
  ) {
    self.intervals = values.map { HKStatistics($0, type: type, separateBySource: separateBySource) }
    self.anchor = anchor
    self.interval = interval
    self.calendar = calendar
    self.quantityType = type
    self.separateBySource = separateBySource
  }

  /// The engine's values of every computed interval, to tell whether the collection changed.
  var simulatedValues: [Statistics] { intervals.map(\.simulatedValues) }

  /// The statistics of the interval containing `date`, or nil when no sample contributed to it.
  public func statistics(for date: Date) -> HKStatistics? {
    guard let found = computed(at: index(of: date)), !found.isEmpty else { return nil }
    return found
  }

  /// The statistics of every interval some sample contributed to, in time order.
  public func statistics() -> [HKStatistics] { intervals.filter { !$0.isEmpty } }

  /// Calls `block` with the statistics of every interval from the one containing `startDate` to the one containing
  /// `endDate` (Apple: "The final statistics come from the time interval that contains the end date" — so days up to
  /// today's midnight include today), empty intervals included (their quantities are nil); setting the flag to true
  /// stops early.
  public func enumerateStatistics(
    from startDate: Date, to endDate: Date, with block: (HKStatistics, UnsafeMutablePointer<ObjCBool>) -> Void
  ) {
    var stop = ObjCBool(false)
    var index = index(of: startDate)
    var emitted = 0
    while true {
      let start = self.start(of: index)
      guard start <= endDate, emitted < 1_000_000 else { return }
      let statistics =
        computed(at: index)
        ?? HKStatistics(
          Statistics(start: start, end: self.start(of: index + 1)), type: quantityType,
          separateBySource: separateBySource)
      block(statistics, &stop)
      if stop.boolValue { return }
      index += 1
      emitted += 1
    }
  }

  /// The sources that contributed to any interval (needs `separateBySource`).
  public func sources() -> Set<HKSource> { Set(intervals.flatMap { $0.sources ?? [] }) }

  private func start(of index: Int) -> Date { calendar.adding(interval, times: index, to: anchor) }

  private func index(of date: Date) -> Int {
    // Any date an app passes (distantFuture, a NaN) must give an index, not trap.
    guard interval.isValid, date.timeIntervalSince1970.isFinite else { return -1_000_000_000 }
    return calendar.index(of: date, anchor: anchor, interval: interval)
  }

  private func computed(at index: Int) -> HKStatistics? {
    guard let first = intervals.first else { return nil }
    let offset = index - self.index(of: first.startDate)
    return intervals.indices.contains(offset) ? intervals[offset] : nil
  }
}
