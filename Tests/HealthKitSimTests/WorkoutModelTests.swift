import Foundation
import HealthKitSim
import HealthModel
import Testing

@Suite("The workout object model: raw values, legacy initializers, events, activities, summaries")
struct WorkoutModelTests {
  @Test func activityAndEventTypesCarryApplesRawValues() {
    #expect(HKWorkoutActivityType.americanFootball.rawValue == 1)
    #expect(HKWorkoutActivityType.running.rawValue == 37)
    #expect(HKWorkoutActivityType.yoga.rawValue == 57)
    #expect(HKWorkoutActivityType.cooldown.rawValue == 80)
    #expect(HKWorkoutActivityType(rawValue: 81) == nil)
    #expect(HKWorkoutActivityType.swimBikeRun.rawValue == 82)
    #expect(HKWorkoutActivityType.underwaterDiving.rawValue == 84)
    #expect(HKWorkoutActivityType.other.rawValue == 3000)
    #expect(HKWorkoutActivityType.running.name == "running")
    // Every raw value the model knows is a case, with the same name.
    for (raw, name) in WorkoutActivityType.all {
      #expect(HKWorkoutActivityType(rawValue: raw)?.name == name)
    }
    #expect(HKWorkoutEventType.pause.rawValue == 1 && HKWorkoutEventType.pauseOrResumeRequest.rawValue == 8)
    #expect(HKWorkoutSessionLocationType.outdoor.rawValue == 3 && HKWorkoutSwimmingLocationType.openWater.rawValue == 2)
    #expect(HKWeatherCondition.tornado.rawValue == 27 && HKSwimmingStrokeStyle.kickboard.rawValue == 6)
  }

  @available(*, deprecated)
  @Test func legacyInitializersDeriveTheDurationFromPausesAndKeepTheTotals() {
    let start = t0
    let end = t0 + 3_600
    let events = [
      HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: start + 1_200, duration: 0), metadata: nil),
      HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: start + 600, duration: 0), metadata: nil),
    ]
    let energy = HKQuantity(unit: .kilocalorie(), doubleValue: 420)
    let distance = HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: 10)
    let run = HKWorkout(
      activityType: .running, start: start, end: end, workoutEvents: events, totalEnergyBurned: energy,
      totalDistance: distance, metadata: [HKMetadataKeyIndoorWorkout: false])
    #expect(run.duration == 3_000)
    #expect(run.workoutEvents?.map(\.type) == [.pause, .resume])
    #expect(run.totalEnergyBurned == energy)
    #expect(run.totalDistance == distance)
    #expect(
      run.statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity()?.doubleValue(for: .kilocalorie()) == 420)
    #expect(
      run.statistics(for: HKQuantityType(.distanceWalkingRunning))?.sumQuantity()?.doubleValue(for: .meter()) == 10_000)
    #expect(run.statistics(for: HKQuantityType(.heartRate)) == nil)
    #expect(run.allStatistics.count == 2)
    #expect(run.metadata?[HKMetadataKeyIndoorWorkout] as? Bool == false)
    #expect(run.sampleType == HKObjectType.workoutType())

    let ride = HKWorkout(
      activityType: .cycling, start: start, end: end, duration: 0, totalEnergyBurned: nil,
      totalDistance: HKQuantity(unit: .meter(), doubleValue: 30_000), metadata: nil)
    #expect(ride.duration == 3_600)
    #expect(ride.statistics(for: HKQuantityType(.distanceCycling)) != nil)
    let given = HKWorkout(
      activityType: .yoga, start: start, end: end, duration: 1_800, totalEnergyBurned: nil, totalDistance: nil,
      device: .local(), metadata: nil)
    #expect(given.duration == 1_800)
    #expect(given.device != nil)
    let swim = HKWorkout(
      activityType: .swimming, start: start, end: end, workoutEvents: nil, totalEnergyBurned: nil,
      totalDistance: nil, totalSwimmingStrokeCount: HKQuantity(unit: .count(), doubleValue: 900), device: nil,
      metadata: nil)
    #expect(swim.totalSwimmingStrokeCount?.doubleValue(for: .count()) == 900)
    #expect(swim.workoutEvents == nil)
    let stairs = HKWorkout(
      activityType: .stairClimbing, start: start, end: end, workoutEvents: nil, totalEnergyBurned: nil,
      totalDistance: nil, totalFlightsClimbed: HKQuantity(unit: .count(), doubleValue: 40), device: nil, metadata: nil)
    #expect(stairs.totalFlightsClimbed?.doubleValue(for: .count()) == 40)
    #expect(HKWorkout(activityType: .walking, start: start, end: end).duration == 3_600)
  }

  @available(*, deprecated)
  @Test func deprecatedEventInitializersMakeZeroLengthIntervals() {
    let event = HKWorkoutEvent(type: .marker, date: t0)
    #expect(event.dateInterval == DateInterval(start: t0, duration: 0))
    #expect(event.date == t0)
    let lap = HKWorkoutEvent(type: .lap, date: t0, metadata: [HKMetadataKeySwimmingStrokeStyle: 2])
    #expect(lap.metadata?[HKMetadataKeySwimmingStrokeStyle] as? Int == 2)
  }

  @Test func aConfigurationCopyIsIndependent() {
    let configuration = HKWorkoutConfiguration()
    configuration.activityType = .swimming
    configuration.swimmingLocationType = .pool
    configuration.lapLength = HKQuantity(unit: .meter(), doubleValue: 25)
    let copy = configuration.copy() as! HKWorkoutConfiguration
    #expect(copy == configuration)
    configuration.activityType = .running
    #expect(copy.activityType == .swimming)
    let activity = HKWorkoutActivity(workoutConfiguration: copy, start: t0, end: t0 + 600, metadata: nil)
    copy.lapLength = nil
    #expect(activity.workoutConfiguration.lapLength?.doubleValue(for: .meter()) == 25)
    #expect(activity.duration == 600)
    #expect(HKWorkoutActivity(workoutConfiguration: copy, start: t0, end: nil, metadata: nil).duration == 0)
  }

  @available(*, deprecated)
  @Test func workoutPredicatesEvaluateOnWorkoutObjects() {
    let run = HKWorkout(
      activityType: .running, start: t0, end: t0 + 1_800, workoutEvents: nil,
      totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 300), totalDistance: nil, metadata: nil)
    #expect(HKQuery.predicateForWorkouts(with: .running).evaluate(with: run))
    #expect(!HKQuery.predicateForWorkouts(with: .cycling).evaluate(with: run))
    #expect(HKQuery.predicateForWorkouts(with: .greaterThan, duration: 1_000).evaluate(with: run))
    #expect(!HKQuery.predicateForWorkouts(with: .lessThan, duration: 1_000).evaluate(with: run))
    let energy = HKQuantity(unit: .largeCalorie(), doubleValue: 250)
    #expect(HKQuery.predicateForWorkouts(with: .greaterThan, totalEnergyBurned: energy).evaluate(with: run))
    #expect(
      HKQuery.predicateForWorkouts(
        operatorType: .greaterThan, quantityType: HKQuantityType(.activeEnergyBurned), sumQuantity: energy
      ).evaluate(with: run))
    // Every workout has an activity of its own type once saved; an unsaved one is read as if it had it.
    let inner = HKQuery.predicateForWorkoutActivities(workoutActivityType: .running)
    #expect(HKQuery.predicateForWorkouts(activityPredicate: inner).evaluate(with: run))
    let format = NSPredicate(
      format: "%K == %d AND %K > %f", HKPredicateKeyPathWorkoutType, 37,
      HKPredicateKeyPathWorkoutDuration, 1_000.0)
    #expect(format.evaluate(with: run))
  }

  @Test func anActivitySummaryNamesItsDayInAnyCalendar() {
    let empty = HKActivitySummary()
    #expect(empty.activeEnergyBurned.doubleValue(for: .kilocalorie()) == 0)
    #expect(empty.dateComponents(for: Calendar(identifier: .gregorian)).day == nil)
    empty.activityMoveMode = .appleMoveTime
    empty.isPaused = true
    let copy = empty.copy() as! HKActivitySummary
    #expect(copy.activityMoveMode == .appleMoveTime && copy.isPaused)
    let one = HKQuery.predicateForActivitySummary(with: DateComponents(year: 2026, month: 12, day: 2))
    #expect(one.predicateFormat.contains("2026-12-02"))
    let none = HKQuery.predicateForActivitySummary(with: DateComponents(year: 2026, month: 2, day: 30))
    #expect(none.predicateFormat == "FALSEPREDICATE")
  }
}
