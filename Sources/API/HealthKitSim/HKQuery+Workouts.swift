import Foundation
import HealthEngine
import HealthModel

// The workout predicates of HKQuery.h (workouts.md §1.8): activity type, duration, the deprecated totals and the
// iOS 16 statistics forms, the activity predicates and their wrapper, and the samples of a workout. Each makes a
// `SampleFilter` workout condition the daemon evaluates against stored workouts (HealthEngine
// SampleFilter+Workouts.swift); on a sample query of another type they match nothing.

extension HKQuery {
  /// Workouts of `workoutActivityType`.
  public static func predicateForWorkouts(with workoutActivityType: HKWorkoutActivityType) -> NSPredicate {
    HealthKitSimPredicate(.workoutActivityType([workoutActivityType.rawValue]))
  }

  /// Workouts whose ``HKWorkout/duration`` (seconds) compares with `duration` by `operatorType`.
  public static func predicateForWorkouts(with operatorType: HKComparisonOperator, duration: TimeInterval)
    -> NSPredicate
  {
    guard let op = ComparisonOperator(appleRawValue: operatorType.rawValue) else {
      return HealthKitSimPredicate(.constant(false))
    }
    return HealthKitSimPredicate(.workoutDuration(op, duration))
  }

  /// Workouts whose active energy total compares with `totalEnergyBurned` (deprecated iOS 18: use
  /// `predicateForWorkouts(operatorType:quantityType:sumQuantity:)` with activeEnergyBurned).
  @available(*, deprecated, message: "Use predicateForWorkouts(operatorType:quantityType:sumQuantity:)")
  public static func predicateForWorkouts(with operatorType: HKComparisonOperator, totalEnergyBurned: HKQuantity)
    -> NSPredicate
  {
    statistic(["activeEnergyBurned"], .sum, operatorType, totalEnergyBurned)
  }

  /// Workouts whose distance total compares with `totalDistance` (to be deprecated). HealthPair model: the
  /// workout's sum of any distance type (walking/running, cycling, swimming, wheelchair, downhill snow sports)
  /// that compares so.
  public static func predicateForWorkouts(with operatorType: HKComparisonOperator, totalDistance: HKQuantity)
    -> NSPredicate
  {
    statistic(HKWorkout.distanceTypes, .sum, operatorType, totalDistance)
  }

  /// Workouts whose swimming stroke total compares with `totalSwimmingStrokeCount` (deprecated iOS 18).
  @available(*, deprecated, message: "Use predicateForWorkouts(operatorType:quantityType:sumQuantity:)")
  public static func predicateForWorkouts(
    with operatorType: HKComparisonOperator, totalSwimmingStrokeCount: HKQuantity
  ) -> NSPredicate {
    statistic(["swimmingStrokeCount"], .sum, operatorType, totalSwimmingStrokeCount)
  }

  /// Workouts whose flights climbed total compares with `totalFlightsClimbed` (deprecated iOS 18).
  @available(*, deprecated, message: "Use predicateForWorkouts(operatorType:quantityType:sumQuantity:)")
  public static func predicateForWorkouts(with operatorType: HKComparisonOperator, totalFlightsClimbed: HKQuantity)
    -> NSPredicate
  {
    statistic(["flightsClimbed"], .sum, operatorType, totalFlightsClimbed)
  }

  /// Workouts whose sum of `quantityType` compares with `sumQuantity` (iOS 16; cumulative types).
  public static func predicateForWorkouts(
    operatorType: HKComparisonOperator, quantityType: HKQuantityType, sumQuantity: HKQuantity
  ) -> NSPredicate {
    statistic([quantityType.identifier], .sum, operatorType, sumQuantity)
  }

  /// Workouts whose minimum of `quantityType` compares with `minimumQuantity` (iOS 16; discrete types).
  public static func predicateForWorkouts(
    operatorType: HKComparisonOperator, quantityType: HKQuantityType, minimumQuantity: HKQuantity
  ) -> NSPredicate {
    statistic([quantityType.identifier], .minimum, operatorType, minimumQuantity)
  }

  /// Workouts whose maximum of `quantityType` compares with `maximumQuantity` (iOS 16; discrete types).
  public static func predicateForWorkouts(
    operatorType: HKComparisonOperator, quantityType: HKQuantityType, maximumQuantity: HKQuantity
  ) -> NSPredicate {
    statistic([quantityType.identifier], .maximum, operatorType, maximumQuantity)
  }

  /// Workouts whose average of `quantityType` compares with `averageQuantity` (iOS 16; discrete types).
  public static func predicateForWorkouts(
    operatorType: HKComparisonOperator, quantityType: HKQuantityType, averageQuantity: HKQuantity
  ) -> NSPredicate {
    statistic([quantityType.identifier], .average, operatorType, averageQuantity)
  }

  /// Workouts with at least one activity matching `activityPredicate` (iOS 16): a predicate made by a
  /// `predicateForWorkoutActivities` method, or several combined with `NSCompoundPredicate`.
  public static func predicateForWorkouts(activityPredicate: NSPredicate) -> NSPredicate {
    guard let inner = try? QueryFilter.node(of: activityPredicate) else {
      return HealthKitSimPredicate(.constant(false))
    }
    return HealthKitSimPredicate(.workoutActivity(inner))
  }

  // MARK: - Activities (iOS 16 / watchOS 9): wrap them in predicateForWorkouts(activityPredicate:)

  /// Activities whose configuration's activity type is `workoutActivityType`. Every workout has at least one
  /// activity, so this also matches plain workouts of the type (workouts.md §1.4).
  public static func predicateForWorkoutActivities(workoutActivityType: HKWorkoutActivityType) -> NSPredicate {
    HealthKitSimPredicate(.workoutActivityType([workoutActivityType.rawValue]))
  }

  /// Activities whose duration compares with `duration` by `operatorType`.
  public static func predicateForWorkoutActivities(operatorType: HKComparisonOperator, duration: TimeInterval)
    -> NSPredicate
  {
    predicateForWorkouts(with: operatorType, duration: duration)
  }

  /// Activities whose interval matches `startDate`…`endDate`, as `predicateForSamples(withStart:end:options:)`.
  public static func predicateForWorkoutActivities(
    start startDate: Date?, end endDate: Date?, options: HKQueryOptions = []
  )
    -> NSPredicate
  {
    predicateForSamples(withStart: startDate, end: endDate, options: options)
  }

  /// Activities whose sum of `quantityType` compares with `sumQuantity`.
  public static func predicateForWorkoutActivities(
    operatorType: HKComparisonOperator, quantityType: HKQuantityType, sumQuantity: HKQuantity
  ) -> NSPredicate {
    predicateForWorkouts(operatorType: operatorType, quantityType: quantityType, sumQuantity: sumQuantity)
  }

  /// Activities whose minimum of `quantityType` compares with `minimumQuantity`.
  public static func predicateForWorkoutActivities(
    operatorType: HKComparisonOperator, quantityType: HKQuantityType, minimumQuantity: HKQuantity
  ) -> NSPredicate {
    predicateForWorkouts(operatorType: operatorType, quantityType: quantityType, minimumQuantity: minimumQuantity)
  }

  /// Activities whose maximum of `quantityType` compares with `maximumQuantity`.
  public static func predicateForWorkoutActivities(
    operatorType: HKComparisonOperator, quantityType: HKQuantityType, maximumQuantity: HKQuantity
  ) -> NSPredicate {
    predicateForWorkouts(operatorType: operatorType, quantityType: quantityType, maximumQuantity: maximumQuantity)
  }

  /// Activities whose average of `quantityType` compares with `averageQuantity`.
  public static func predicateForWorkoutActivities(
    operatorType: HKComparisonOperator, quantityType: HKQuantityType, averageQuantity: HKQuantity
  ) -> NSPredicate {
    predicateForWorkouts(operatorType: operatorType, quantityType: quantityType, averageQuantity: averageQuantity)
  }

  // MARK: - Samples of a workout

  /// The samples associated with `workout` (by a builder's `add(_:)` or `add(_:to:)`), and its route for a query
  /// of ``HKSeriesType/workoutRoute()``: one query per sample type (workouts.md §1.7).
  public static func predicateForObjects(from workout: HKWorkout) -> NSPredicate {
    HealthKitSimPredicate(.associatedWith(workout.uuid))
  }

  // MARK: - Activity summaries

  /// The activity summary of the day `dateComponents` names (era, year, month and day in the Gregorian calendar,
  /// workouts.md §1.8). Components that do not name a day match no summary (HealthPair model).
  public static func predicateForActivitySummary(with dateComponents: DateComponents) -> NSPredicate {
    guard let day = LocalDay(gregorian: dateComponents) else { return ActivitySummaryPredicate(nil) }
    return ActivitySummaryPredicate(day...day)
  }

  /// The activity summaries of the days from `startDateComponents` to `endDateComponents`, both included (Apple's
  /// `predicateForActivitySummariesBetweenStartDateComponents:endDateComponents:`, iOS 9.3). Components that do not
  /// name a day, or an end before the start, match no summary (HealthPair model).
  public static func predicate(
    forActivitySummariesBetweenStart startDateComponents: DateComponents, end endDateComponents: DateComponents
  ) -> NSPredicate {
    guard let from = LocalDay(gregorian: startDateComponents), let to = LocalDay(gregorian: endDateComponents),
      from <= to
    else { return ActivitySummaryPredicate(nil) }
    return ActivitySummaryPredicate(from...to)
  }

  /// Workouts with a statistic of any of `types` (names or identifiers) whose `kind` compares with `quantity`,
  /// converted to the type's canonical unit; a quantity of another dimension matches nothing.
  private static func statistic(
    _ types: [String], _ kind: WorkoutStatisticKind, _ operatorType: HKComparisonOperator, _ quantity: HKQuantity
  ) -> NSPredicate {
    guard let op = ComparisonOperator(appleRawValue: operatorType.rawValue) else {
      return HealthKitSimPredicate(.constant(false))
    }
    let parts = types.compactMap { name -> SampleFilter? in
      guard let type = SampleType.lookup(name: name),
        let unit = HKQuantityType(HKQuantityTypeIdentifier(type.identifier)).canonicalUnit,
        quantity.is(compatibleWith: unit)
      else { return nil }
      return .workoutStatistic(type, kind, op, quantity.doubleValue(for: unit))
    }
    return HealthKitSimPredicate(parts.count == 1 ? parts[0] : .or(parts))
  }
}

/// The predicate of `predicateForActivitySummary(with:)` and `predicate(forActivitySummariesBetweenStart:end:)`:
/// a range of days (nil: no day, matches nothing). Only ``HKActivitySummaryQuery`` reads it.
final class ActivitySummaryPredicate: NSPredicate {
  /// The days, both ends included.
  let days: ClosedRange<LocalDay>?

  init(_ days: ClosedRange<LocalDay>?) {
    self.days = days
    super.init(value: days != nil)
  }

  required init?(coder: NSCoder) { nil }

  /// Whether an `HKActivitySummary` of a day in the range.
  override func evaluate(with object: Any?) -> Bool {
    guard let days, let day = (object as? HKActivitySummary)?.day else { return false }
    return days.contains(day)
  }

  /// `dateComponents BETWEEN {2026-12-01, 2026-12-02}`.
  override var predicateFormat: String {
    guard let days else { return "FALSEPREDICATE" }
    return "dateComponents BETWEEN {\(days.lowerBound), \(days.upperBound)}"
  }

  /// The predicate format.
  override var description: String { predicateFormat }
}

extension LocalDay {
  /// The Gregorian day that `components` names: year, month and day, read in their calendar when it is set and
  /// not Gregorian (converted through noon UTC); nil when one is missing or the date does not exist.
  init?(gregorian components: DateComponents) {
    guard let year = components.year, let month = components.month, let day = components.day else { return nil }
    var gregorian = Calendar(identifier: .gregorian)
    gregorian.timeZone = TimeZone(identifier: "UTC")!
    var source = components.calendar ?? gregorian
    source.timeZone = gregorian.timeZone
    var request = DateComponents(year: year, month: month, day: day, hour: 12)
    request.era = components.era
    guard let noon = source.date(from: request) else { return nil }
    let parts = gregorian.dateComponents([.year, .month, .day], from: noon)
    guard let y = parts.year, let m = parts.month, let d = parts.day else { return nil }
    // A day that does not exist (February 30) rolls over: refuse it.
    if components.calendar == nil || components.calendar?.identifier == .gregorian, (y, m, d) != (year, month, day) {
      return nil
    }
    self.init(year: y, month: m, day: d)
  }
}
