// Published-style HealthKit code that imports nothing but HealthKit, as many published files do: Apple's HealthKit
// module brings Foundation with it (Date, Calendar, DispatchQueue, NSPredicate), and so does HealthPair's.

import HealthKit

/// Daily step totals for the last `days` days, on a queue of its own, with a completion handler.
public final class DailySteps: @unchecked Sendable {
  private let store = HKHealthStore()
  private let queue = DispatchQueue(label: "com.example.steps.daily")

  /// Creates a reader.
  public init() {}

  /// The step total of each of the `days` days ending with the one holding `end`, oldest first, in `calendar`.
  public func totals(
    days: Int, endingAt end: Date, calendar: Calendar, completion: @escaping @Sendable ([Double]) -> Void
  ) {
    let today = calendar.startOfDay(for: end)
    guard let start = calendar.date(byAdding: .day, value: 1 - days, to: today),
      let stop = calendar.date(byAdding: .day, value: 1, to: today)
    else { return completion([]) }
    let query = HKStatisticsCollectionQuery(
      quantityType: HKQuantityType(.stepCount), quantitySamplePredicate: HKQuery.predicateForSamples(
        withStart: start, end: stop, options: .strictStartDate),
      options: .cumulativeSum, anchorDate: today, intervalComponents: DateComponents(day: 1))
    query.initialResultsHandler = { [queue] _, results, _ in
      var totals: [Double] = []
      results?.enumerateStatistics(from: start, to: today) { statistics, _ in
        totals.append(statistics.sumQuantity()?.doubleValue(for: .count()) ?? 0)
      }
      let computed = totals
      queue.async { completion(computed) }
    }
    store.execute(query)
  }
}
