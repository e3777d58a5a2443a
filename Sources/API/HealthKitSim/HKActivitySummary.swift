import Foundation
import HealthModel

/// One day's activity rings (iOS 9.3 / watchOS 2.2; workouts.md §1.9): Move (active energy, or move time in
/// move-time mode), Exercise and Stand, with their goals.
///
/// A mutable class, as Apple's (apps make them for `HKActivityRingView`); the ones a query returns are not changed
/// by HealthKitSim after delivery. `@unchecked Sendable` because Apple passes them to background handlers.
public final class HKActivitySummary: NSObject, NSCopying, @unchecked Sendable {
  /// The day the summary covers (Gregorian); nil for a summary the app made.
  package private(set) var day: LocalDay?
  /// Whether the Move ring counts active energy or move time (iOS 14).
  public var activityMoveMode: HKActivityMoveMode = .activeEnergy
  /// Whether the user paused ring tracking that day (iOS 18 / watchOS 11).
  public var isPaused = false
  /// Active energy burned.
  public var activeEnergyBurned = HKQuantity(unit: .kilocalorie(), doubleValue: 0)
  /// Move time (iOS 14).
  public var appleMoveTime = HKQuantity(unit: .minute(), doubleValue: 0)
  /// Exercise time.
  public var appleExerciseTime = HKQuantity(unit: .minute(), doubleValue: 0)
  /// Stand hours.
  public var appleStandHours = HKQuantity(unit: .count(), doubleValue: 0)
  /// The active energy goal.
  public var activeEnergyBurnedGoal = HKQuantity(unit: .kilocalorie(), doubleValue: 0)
  /// The move time goal (iOS 14).
  public var appleMoveTimeGoal = HKQuantity(unit: .minute(), doubleValue: 0)
  /// The exercise goal (to be deprecated: use ``exerciseTimeGoal``).
  public var appleExerciseTimeGoal = HKQuantity(unit: .minute(), doubleValue: 0)
  /// The exercise goal (iOS 16).
  public var exerciseTimeGoal: HKQuantity?
  /// The stand goal (to be deprecated: use ``standHoursGoal``).
  public var appleStandHoursGoal = HKQuantity(unit: .count(), doubleValue: 0)
  /// The stand goal (iOS 16).
  public var standHoursGoal: HKQuantity?

  /// An empty summary (every quantity 0, no day).
  public override init() { super.init() }

  /// The object for a stored summary.
  package init(_ summary: ActivitySummary) {
    super.init()
    day = summary.day
    activityMoveMode = HKActivityMoveMode(rawValue: summary.moveMode.rawValue) ?? .activeEnergy
    isPaused = summary.isPaused
    activeEnergyBurned = HKQuantity(unit: .kilocalorie(), doubleValue: summary.activeEnergy)
    activeEnergyBurnedGoal = HKQuantity(unit: .kilocalorie(), doubleValue: summary.activeEnergyGoal)
    appleMoveTime = HKQuantity(unit: .minute(), doubleValue: summary.moveTime)
    appleMoveTimeGoal = HKQuantity(unit: .minute(), doubleValue: summary.moveTimeGoal)
    appleExerciseTime = HKQuantity(unit: .minute(), doubleValue: summary.exerciseTime)
    appleExerciseTimeGoal = HKQuantity(unit: .minute(), doubleValue: summary.exerciseTimeGoal)
    exerciseTimeGoal = appleExerciseTimeGoal
    appleStandHours = HKQuantity(unit: .count(), doubleValue: summary.standHours)
    appleStandHoursGoal = HKQuantity(unit: .count(), doubleValue: summary.standHoursGoal)
    standHoursGoal = appleStandHoursGoal
  }

  /// The day as era, year, month and day components in `calendar` (the summary's day is a Gregorian date, taken
  /// at noon UTC so that every calendar names the same day); empty components for a summary the app made.
  public func dateComponents(for calendar: Calendar) -> DateComponents {
    guard let day else { return DateComponents() }
    var gregorian = Calendar(identifier: .gregorian)
    gregorian.timeZone = TimeZone(identifier: "UTC")!
    guard let noon = gregorian.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12))
    else { return DateComponents() }
    var target = calendar
    target.timeZone = TimeZone(identifier: "UTC")!
    var components = target.dateComponents([.era, .year, .month, .day], from: noon)
    components.calendar = calendar
    return components
  }

  /// An independent copy.
  public func copy(with zone: NSZone? = nil) -> Any {
    let copy = HKActivitySummary()
    copy.day = day
    copy.activityMoveMode = activityMoveMode
    copy.isPaused = isPaused
    copy.activeEnergyBurned = activeEnergyBurned
    copy.appleMoveTime = appleMoveTime
    copy.appleExerciseTime = appleExerciseTime
    copy.appleStandHours = appleStandHours
    copy.activeEnergyBurnedGoal = activeEnergyBurnedGoal
    copy.appleMoveTimeGoal = appleMoveTimeGoal
    copy.appleExerciseTimeGoal = appleExerciseTimeGoal
    copy.exerciseTimeGoal = exerciseTimeGoal
    copy.appleStandHoursGoal = appleStandHoursGoal
    copy.standHoursGoal = standHoursGoal
    return copy
  }

  /// `HKActivitySummary 2026-12-02 move 420 kcal / 500 kcal …`.
  public override var description: String {
    "HKActivitySummary \(day?.description ?? "(no day)") move \(activeEnergyBurned) / \(activeEnergyBurnedGoal), "
      + "exercise \(appleExerciseTime) / \(appleExerciseTimeGoal), stand \(appleStandHours) / \(appleStandHoursGoal)"
  }
}

/// The key path of an activity summary's day, for `NSPredicate(format:)` (HealthPair's value: "dateComponents").
public let HKPredicateKeyPathDateComponents = "dateComponents"
