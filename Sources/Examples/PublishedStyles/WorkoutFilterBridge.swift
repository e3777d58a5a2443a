// Written the way cross-platform plugin code is (a Flutter or Capacitor bridge's native half): calls arrive as a
// method name and a dictionary of loosely typed arguments, answers go back as arrays of dictionaries through a
// completion handler. Filters are built by hand with NSPredicate(format:) and the HealthKit key path constants (the
// iOS 16 workout statistics and activity key paths), wrapped in predicateForWorkouts(activityPredicate:) where
// HealthKit wants it, and activity rings are read over a range of days with
// predicate(forActivitySummariesBetweenStart:end:). It imports HealthKit only and knows nothing about HealthPair.

import Foundation
import HealthKit

/// The native half of a plugin's "workouts" channel.
public final class WorkoutFilterBridge: NSObject, @unchecked Sendable {
  /// What the bridge hands back for every call: rows for the other side, or an error code and message.
  public typealias Reply = @Sendable (_ rows: [[String: Any]]?, _ error: (code: String, message: String)?) -> Void

  private let healthStore = HKHealthStore()

  /// Answers `method` with `arguments` as the plugin's other side sends them:
  /// - `"workouts"`: `activityType` (an `HKWorkoutActivityType` raw value, optional), `minKilocalories`,
  ///   `minAverageHeartRate` (beats per minute), `minMinutes` (all optional);
  /// - `"rings"`: `from` and `to` as `"yyyy-MM-dd"` strings.
  public func handle(method: String, arguments: [String: Any], reply: @escaping Reply) {
    switch method {
    case "workouts": workouts(arguments, reply: reply)
    case "rings": rings(arguments, reply: reply)
    default: reply(nil, ("UNKNOWN_METHOD", "no method named \(method)"))
    }
  }

  private func workouts(_ arguments: [String: Any], reply: @escaping Reply) {
    var filters: [NSPredicate] = []
    if let raw = arguments["activityType"] as? Int {
      let activity = NSPredicate(format: "%K == %d", HKPredicateKeyPathWorkoutActivityType, raw)
      filters.append(HKQuery.predicateForWorkouts(activityPredicate: activity))
    }
    if let kcal = arguments["minKilocalories"] as? Double {
      let energy = HKQuantity(unit: .kilocalorie(), doubleValue: kcal)
      filters.append(
        NSPredicate(
          format: "%K.%K >= %@", HKPredicateKeyPathWorkoutSumQuantity,
          HKQuantityTypeIdentifier.activeEnergyBurned.rawValue, energy))
    }
    if let bpm = arguments["minAverageHeartRate"] as? Double {
      let rate = HKQuantity(unit: HKUnit.count().unitDivided(by: .minute()), doubleValue: bpm)
      filters.append(
        NSPredicate(
          format: "%K.%K >= %@", HKPredicateKeyPathWorkoutAverageQuantity,
          HKQuantityTypeIdentifier.heartRate.rawValue, rate))
    }
    if let minutes = arguments["minMinutes"] as? Double {
      filters.append(NSPredicate(format: "%K >= %f", HKPredicateKeyPathWorkoutDuration, minutes * 60))
    }
    let predicate = filters.isEmpty ? nil : NSCompoundPredicate(andPredicateWithSubpredicates: filters)
    let newestFirst = NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)
    let query = HKSampleQuery(
      sampleType: .workoutType(), predicate: predicate, limit: HKObjectQueryNoLimit, sortDescriptors: [newestFirst]
    ) { _, samples, error in
      if let error {
        reply(nil, ("QUERY_FAILED", error.localizedDescription))
        return
      }
      let rows = (samples as? [HKWorkout] ?? []).map { workout -> [String: Any] in
        var row: [String: Any] = [
          "uuid": workout.uuid.uuidString,
          "activityType": Int(workout.workoutActivityType.rawValue),
          "start": workout.startDate.timeIntervalSince1970 * 1000,
          "end": workout.endDate.timeIntervalSince1970 * 1000,
          "minutes": workout.duration / 60,
        ]
        let energy = workout.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()
        if let energy { row["kilocalories"] = energy.doubleValue(for: .kilocalorie()) }
        let heartRate = workout.statistics(for: HKQuantityType(.heartRate))?.averageQuantity()
        if let heartRate { row["averageHeartRate"] = heartRate.doubleValue(for: .count().unitDivided(by: .minute())) }
        return row
      }
      reply(rows, nil)
    }
    healthStore.execute(query)
  }

  private func rings(_ arguments: [String: Any], reply: @escaping Reply) {
    guard let from = day(arguments["from"]), let to = day(arguments["to"]) else {
      reply(nil, ("ARGUMENT_ERROR", "rings takes 'from' and 'to' as yyyy-MM-dd"))
      return
    }
    let predicate = HKQuery.predicate(forActivitySummariesBetweenStart: from, end: to)
    let query = HKActivitySummaryQuery(predicate: predicate) { _, summaries, error in
      if let error {
        reply(nil, ("QUERY_FAILED", error.localizedDescription))
        return
      }
      let calendar = Calendar(identifier: .gregorian)
      let rows = (summaries ?? []).map { summary -> [String: Any] in
        let date = summary.dateComponents(for: calendar)
        return [
          "day": String(format: "%04d-%02d-%02d", date.year ?? 0, date.month ?? 0, date.day ?? 0),
          "move": summary.activeEnergyBurned.doubleValue(for: .kilocalorie()),
          "moveGoal": summary.activeEnergyBurnedGoal.doubleValue(for: .kilocalorie()),
          "exerciseMinutes": summary.appleExerciseTime.doubleValue(for: .minute()),
          "standHours": summary.appleStandHours.doubleValue(for: .count()),
        ]
      }
      reply(rows, nil)
    }
    healthStore.execute(query)
  }

  /// `"2026-01-31"` as the era, year, month and day components HealthKit's summary predicates take.
  private func day(_ argument: Any?) -> DateComponents? {
    guard let text = argument as? String else { return nil }
    let parts = text.split(separator: "-").compactMap { Int($0) }
    guard parts.count == 3 else { return nil }
    var components = DateComponents(year: parts[0], month: parts[1], day: parts[2])
    components.calendar = Calendar(identifier: .gregorian)
    components.era = 1
    return components
  }
}
