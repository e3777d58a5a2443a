import Foundation
import HealthEngine
import HealthModel

/// A workout: an activity type over an interval, with events, activities, statistics and metadata (`HKWorkout.h`;
/// workouts.md §1.1). All workouts share one type, ``HKObjectType/workoutType()``.
///
/// Save one made by the deprecated initializers with ``HKHealthStore/save(_:)-(HKObject)``, or build one with an
/// ``HKWorkoutBuilder`` (the API Apple recommends since iOS 17). ``duration`` is derived from the start and end
/// minus the paused periods the events describe, unless a legacy initializer gave one. The statistics are fixed
/// when the workout is saved; samples associated later with `add(_:to:)` change neither them nor the duration.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKWorkout: HKSample, @unchecked Sendable {
  /// The kind of workout.
  public let workoutActivityType: HKWorkoutActivityType
  /// The events, date-ascending (nil when the workout has none, as HealthKit returns it).
  public let workoutEvents: [HKWorkoutEvent]?
  /// The activities, date-ascending (iOS 16 / watchOS 9); a saved workout always has at least one.
  public let workoutActivities: [HKWorkoutActivity]
  /// The length of time the workout recorded: the duration a legacy initializer gave, else start to end minus
  /// the pauses of ``workoutEvents``.
  public let duration: TimeInterval
  /// Statistics by type, in canonical units (legacy totals become the sums of their types).
  let statisticValues: [WorkoutStatistic]
  /// The duration a legacy initializer gave (non-zero), sent with the workout; nil derives it.
  let givenDuration: Double?
  /// The totals a legacy initializer gave, as given, by type name (what the deprecated total getters return).
  private let givenTotals: [String: HKQuantity]

  // MARK: - Legacy initializers (deprecated iOS 17 / watchOS 10: "Use HKWorkoutBuilder")

  /// A workout with no events, totals or metadata.
  @available(*, deprecated, message: "Use HKWorkoutBuilder")
  public convenience init(
    activityType workoutActivityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date
  ) {
    self.init(
      legacy: workoutActivityType, start: startDate, end: endDate, events: nil, duration: nil, totals: [:],
      device: nil, metadata: nil)
  }

  /// A workout with events, energy and distance totals and metadata; the duration is derived from the events.
  @available(*, deprecated, message: "Use HKWorkoutBuilder")
  public convenience init(
    activityType workoutActivityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
    workoutEvents: [HKWorkoutEvent]?, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
    metadata: [String: Any]?
  ) {
    self.init(
      legacy: workoutActivityType, start: startDate, end: endDate, events: workoutEvents, duration: nil,
      totals: Self.totals(workoutActivityType, energy: totalEnergyBurned, distance: totalDistance), device: nil,
      metadata: metadata)
  }

  /// As `init(activityType:start:end:workoutEvents:totalEnergyBurned:totalDistance:metadata:)`, recorded by
  /// `device` (iOS 9).
  @available(*, deprecated, message: "Use HKWorkoutBuilder")
  public convenience init(
    activityType workoutActivityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
    workoutEvents: [HKWorkoutEvent]?, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?, device: HKDevice?,
    metadata: [String: Any]?
  ) {
    self.init(
      legacy: workoutActivityType, start: startDate, end: endDate, events: workoutEvents, duration: nil,
      totals: Self.totals(workoutActivityType, energy: totalEnergyBurned, distance: totalDistance), device: device,
      metadata: metadata)
  }

  /// A workout with an explicit duration ("If 0, the difference between startDate and endDate is used"), energy
  /// and distance totals and metadata.
  @available(*, deprecated, message: "Use HKWorkoutBuilder")
  public convenience init(
    activityType workoutActivityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
    duration: TimeInterval, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?, metadata: [String: Any]?
  ) {
    self.init(
      legacy: workoutActivityType, start: startDate, end: endDate, events: nil, duration: duration,
      totals: Self.totals(workoutActivityType, energy: totalEnergyBurned, distance: totalDistance), device: nil,
      metadata: metadata)
  }

  /// As `init(activityType:start:end:duration:totalEnergyBurned:totalDistance:metadata:)`, recorded by `device`
  /// (iOS 9).
  @available(*, deprecated, message: "Use HKWorkoutBuilder")
  public convenience init(
    activityType workoutActivityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
    duration: TimeInterval, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?, device: HKDevice?,
    metadata: [String: Any]?
  ) {
    self.init(
      legacy: workoutActivityType, start: startDate, end: endDate, events: nil, duration: duration,
      totals: Self.totals(workoutActivityType, energy: totalEnergyBurned, distance: totalDistance), device: device,
      metadata: metadata)
  }

  /// A workout with a swimming stroke count total (iOS 10).
  @available(*, deprecated, message: "Use HKWorkoutBuilder")
  public convenience init(
    activityType workoutActivityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
    workoutEvents: [HKWorkoutEvent]?, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
    totalSwimmingStrokeCount: HKQuantity?, device: HKDevice?, metadata: [String: Any]?
  ) {
    var totals = Self.totals(workoutActivityType, energy: totalEnergyBurned, distance: totalDistance)
    totals["swimmingStrokeCount"] = totalSwimmingStrokeCount
    self.init(
      legacy: workoutActivityType, start: startDate, end: endDate, events: workoutEvents, duration: nil,
      totals: totals, device: device, metadata: metadata)
  }

  /// A workout with a flights climbed total (iOS 11).
  @available(*, deprecated, message: "Use HKWorkoutBuilder")
  public convenience init(
    activityType workoutActivityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
    workoutEvents: [HKWorkoutEvent]?, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
    totalFlightsClimbed: HKQuantity?, device: HKDevice?, metadata: [String: Any]?
  ) {
    var totals = Self.totals(workoutActivityType, energy: totalEnergyBurned, distance: totalDistance)
    totals["flightsClimbed"] = totalFlightsClimbed
    self.init(
      legacy: workoutActivityType, start: startDate, end: endDate, events: workoutEvents, duration: nil,
      totals: totals, device: device, metadata: metadata)
  }

  private init(
    legacy activityType: HKWorkoutActivityType, start: Date, end: Date, events: [HKWorkoutEvent]?,
    duration: TimeInterval?, totals: [String: HKQuantity], device: HKDevice?, metadata: [String: Any]?
  ) {
    let given = duration.flatMap { $0 == 0 ? nil : $0 }
    self.workoutActivityType = activityType
    self.workoutEvents = events.flatMap {
      $0.isEmpty ? nil : $0.sorted { $0.dateInterval.start < $1.dateInterval.start }
    }
    self.workoutActivities = []
    self.givenDuration = given
    self.givenTotals = totals
    self.statisticValues = totals.keys.sorted().compactMap { name in
      guard let type = SampleType.lookup(name: name),
        let unit = HKQuantityType(HKQuantityTypeIdentifier(type.identifier)).canonicalUnit,
        let quantity = totals[name], quantity.is(compatibleWith: unit)
      else { return nil }
      return WorkoutStatistic(type: type, start: start, end: end, sum: quantity.doubleValue(for: unit))
    }
    self.duration = given ?? Workout.derivedDuration(start: start, end: end, events: (events ?? []).map(\.modelValue))
    super.init(
      uuid: .fresh(), start: start, end: end, metadata: MetadataPayload(metadata).adding(device),
      origin: HKSample.unsavedOrigin(HKObjectType.workoutType()))
  }

  /// A workout a builder finishes: its events, activities and statistics as the builder collected them.
  init(
    uuid: UUID, activityType: HKWorkoutActivityType, start: Date, end: Date, events: [HKWorkoutEvent],
    activities: [HKWorkoutActivity], statistics: [WorkoutStatistic], metadata: MetadataPayload
  ) {
    self.workoutActivityType = activityType
    self.workoutEvents = events.isEmpty ? nil : events
    self.workoutActivities = activities
    self.givenDuration = nil
    self.givenTotals = [:]
    self.statisticValues = statistics
    self.duration = Workout.derivedDuration(start: start, end: end, events: events.map(\.modelValue))
    super.init(
      uuid: uuid, start: start, end: end, metadata: metadata, origin: HKSample.unsavedOrigin(HKObjectType.workoutType())
    )
  }

  /// The object for a stored workout.
  package init(_ workout: Workout) {
    self.workoutActivityType = HKWorkoutActivityType(workout.activityType)
    self.workoutEvents = workout.events.isEmpty ? nil : workout.events.map(HKWorkoutEvent.init)
    self.workoutActivities = workout.activities.map { HKWorkoutActivity($0, events: workout.events) }
    self.givenDuration = nil
    self.givenTotals = [:]
    self.statisticValues = workout.statistics
    self.duration = workout.duration
    super.init(
      uuid: workout.uuid, start: workout.start, end: workout.end, metadata: .valid(workout.metadata),
      origin: SampleOrigin(type: HKObjectType.workoutType(), unit: nil, source: HKSourceRevision(workout.source)))
  }

  // MARK: - Statistics

  /// The statistics of each quantity type whose samples were added to the workout (iOS 16 / watchOS 9).
  public var allStatistics: [HKQuantityType: HKStatistics] { Self.statisticsByType(statisticValues) }

  /// The statistics of `quantityType`'s samples added to the workout, or nil when none were (iOS 16 / watchOS 9).
  public func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
    statisticValues.first { $0.type.identifier == quantityType.identifier }.map(Self.statistics)
  }

  /// The active energy burned (deprecated iOS 18 / watchOS 11: use `statistics(for:)` with activeEnergyBurned).
  @available(*, deprecated, message: "Use statistics(for:) passing the HKQuantityType for activeEnergyBurned")
  public var totalEnergyBurned: HKQuantity? { total("activeEnergyBurned") }

  /// The distance travelled (to be deprecated: use `statistics(for:)` with the distance type): the total a legacy
  /// initializer gave, else the sum of the first distance type with statistics (walking/running, cycling,
  /// swimming, wheelchair, downhill snow sports).
  public var totalDistance: HKQuantity? {
    if let given = givenTotals.first(where: { Self.distanceTypes.contains($0.key) })?.value { return given }
    return Self.distanceTypes.lazy.compactMap { self.total($0) }.first
  }

  /// The swimming strokes (deprecated iOS 18 / watchOS 11: use `statistics(for:)` with swimmingStrokeCount).
  @available(*, deprecated, message: "Use statistics(for:) passing the HKQuantityType for swimmingStrokeCount")
  public var totalSwimmingStrokeCount: HKQuantity? { total("swimmingStrokeCount") }

  /// The flights climbed (deprecated iOS 18 / watchOS 11: use `statistics(for:)` with flightsClimbed).
  @available(*, deprecated, message: "Use statistics(for:) passing the HKQuantityType for flightsClimbed")
  public var totalFlightsClimbed: HKQuantity? { total("flightsClimbed") }

  /// The total of `name`'s type: as a legacy initializer gave it, else the stored sum in the canonical unit.
  private func total(_ name: String) -> HKQuantity? {
    if let given = givenTotals[name] { return given }
    guard let type = SampleType.lookup(name: name),
      let statistic = statisticValues.first(where: { $0.type == type }), let sum = statistic.sum
    else { return nil }
    return HKQuantity(
      unit: HKQuantityType(HKQuantityTypeIdentifier(type.identifier)).canonicalUnit ?? .count(), doubleValue: sum)
  }

  /// The distance types a workout's `totalDistance` reads, in the order it tries them.
  static let distanceTypes = [
    "distanceWalkingRunning", "distanceCycling", "distanceSwimming", "distanceWheelchair", "distanceDownhillSnowSports",
  ]

  /// The distance type a legacy `totalDistance` is recorded as, by activity type (HealthPair model: Apple does not
  /// say; cycling and hand cycling → distanceCycling, swimming → distanceSwimming, the wheelchair paces →
  /// distanceWheelchair, downhill skiing and snowboarding → distanceDownhillSnowSports, else
  /// distanceWalkingRunning).
  static func distanceType(for activityType: HKWorkoutActivityType) -> String {
    switch activityType {
    case .cycling, .handCycling: "distanceCycling"
    case .swimming: "distanceSwimming"
    case .wheelchairWalkPace, .wheelchairRunPace: "distanceWheelchair"
    case .downhillSkiing, .snowboarding: "distanceDownhillSnowSports"
    default: "distanceWalkingRunning"
    }
  }

  private static func totals(_ type: HKWorkoutActivityType, energy: HKQuantity?, distance: HKQuantity?)
    -> [String: HKQuantity]
  {
    var totals: [String: HKQuantity] = [:]
    totals["activeEnergyBurned"] = energy
    totals[distanceType(for: type)] = distance
    return totals
  }

  /// An `HKStatistics` for one stored statistic.
  static func statistics(_ statistic: WorkoutStatistic) -> HKStatistics {
    var values = Statistics(start: statistic.start, end: statistic.end)
    values.sampleCount = 1
    values.sum = statistic.sum
    values.minimum = statistic.minimum
    values.maximum = statistic.maximum
    values.average = statistic.average
    values.mostRecent = statistic.mostRecent
    return HKStatistics(
      values, type: HKQuantityType(HKQuantityTypeIdentifier(statistic.type.identifier)), separateBySource: false)
  }

  /// The statistics by type.
  static func statisticsByType(_ statistics: [WorkoutStatistic]) -> [HKQuantityType: HKStatistics] {
    var result: [HKQuantityType: HKStatistics] = [:]
    for statistic in statistics {
      result[HKQuantityType(HKQuantityTypeIdentifier(statistic.type.identifier))] = Self.statistics(statistic)
    }
    return result
  }

  override var valueDescription: String? { "\(workoutActivityType.name) \(formatNumber(duration)) s" }

  /// The workout as the engine's predicates see it (an unsaved workout gets the activity HealthKit would add);
  /// nil when its metadata or totals are invalid.
  var engineWorkout: Workout? {
    guard let input = try? workoutInput(api: "HKWorkout") else { return nil }
    let device: DeviceKind = sourceRevision.productType == "Watch" ? .watch : .phone
    let activities =
      input.activities.isEmpty
      ? [
        WorkoutActivity(
          uuid: uuid, configuration: WorkoutConfiguration(activityType: input.activityType), start: startDate,
          end: endDate)
      ]
      : input.activities
    return Workout(
      uuid: uuid, activityType: input.activityType, start: startDate, end: endDate, duration: duration,
      events: input.events, activities: activities, statistics: input.statistics, metadata: input.metadata,
      source: SampleSource(bundleID: sourceRevision.source.bundleIdentifier, device: device))
  }

  // MARK: - Saving

  /// The workout as the daemon's save takes it. Invalid legacy totals (a unit of the wrong dimension) make it fail.
  /// - Throws: ``HKSimulatedTermination`` for metadata HealthKit refuses or a total in an incompatible unit.
  package func workoutInput(api: String) throws -> WorkoutInput {
    for (name, quantity) in givenTotals.sorted(by: { $0.key < $1.key }) {
      guard let type = SampleType.lookup(name: name),
        let unit = HKQuantityType(HKQuantityTypeIdentifier(type.identifier)).canonicalUnit,
        quantity.is(compatibleWith: unit)
      else {
        throw HKSimulatedTermination.invalidArgument(
          "HKWorkout: the total \(quantity) is not compatible with \(name)'s unit", api: api)
      }
    }
    return WorkoutInput(
      uuid: uuid, activityType: workoutActivityType.simulated, start: startDate, end: endDate, duration: givenDuration,
      events: try (workoutEvents ?? []).map { try $0.model(api: api) },
      activities: try workoutActivities.map { try $0.model(api: api) }, statistics: statisticValues,
      metadata: try metadataPayload.checked(api: api))
  }
}

/// Sorts workouts by duration, in `NSSortDescriptor(key:ascending:)` (Apple's value).
public let HKWorkoutSortIdentifierDuration = "HKWorkoutSortIdentifierDuration"
/// Sorts workouts by their total distance (Apple's value).
public let HKWorkoutSortIdentifierTotalDistance = "HKWorkoutSortIdentifierTotalDistance"
/// Sorts workouts by their total active energy (Apple's value).
public let HKWorkoutSortIdentifierTotalEnergyBurned = "HKWorkoutSortIdentifierTotalEnergyBurned"
/// Sorts workouts by their total swimming strokes (iOS 10; value by the pattern of the others).
public let HKWorkoutSortIdentifierTotalSwimmingStrokeCount = "HKWorkoutSortIdentifierTotalSwimmingStrokeCount"
/// Sorts workouts by their total flights climbed (iOS 11; value by the pattern of the others).
public let HKWorkoutSortIdentifierTotalFlightsClimbed = "HKWorkoutSortIdentifierTotalFlightsClimbed"

/// The key path of a workout's duration in `NSPredicate(format:)` (seconds).
public let HKPredicateKeyPathWorkoutDuration = "duration"
/// The key path of a workout's activity type (its raw value).
public let HKPredicateKeyPathWorkoutType = "workoutType"
/// The key path of a workout's total distance (to be deprecated).
public let HKPredicateKeyPathWorkoutTotalDistance = "totalDistance"
/// The key path of a workout's total active energy (deprecated iOS 18).
public let HKPredicateKeyPathWorkoutTotalEnergyBurned = "totalEnergyBurned"
/// The key path of a workout's total swimming strokes (deprecated iOS 18; value by the pattern of the others).
public let HKPredicateKeyPathWorkoutTotalSwimmingStrokeCount = "totalSwimmingStrokeCount"
/// The key path of a workout's total flights climbed (deprecated iOS 18; value by the pattern of the others).
public let HKPredicateKeyPathWorkoutTotalFlightsClimbed = "totalFlightsClimbed"
/// The key path of a workout's sum statistic (iOS 16).
public let HKPredicateKeyPathWorkoutSumQuantity = "sumQuantity"
/// The key path of a workout's minimum statistic (iOS 16).
public let HKPredicateKeyPathWorkoutMinimumQuantity = "minimumQuantity"
/// The key path of a workout's maximum statistic (iOS 16).
public let HKPredicateKeyPathWorkoutMaximumQuantity = "maximumQuantity"
/// The key path of a workout's average statistic (iOS 16).
public let HKPredicateKeyPathWorkoutAverageQuantity = "averageQuantity"
/// The key path of a workout's activities (iOS 16), for `SUBQUERY`-style activity predicates.
public let HKPredicateKeyPathWorkoutActivity = "workoutActivity"
/// The key path of an activity's type (iOS 16).
public let HKPredicateKeyPathWorkoutActivityType = "activityType"
/// The key path of an activity's duration (iOS 16).
public let HKPredicateKeyPathWorkoutActivityDuration = "activityDuration"
/// The key path of an activity's start date (iOS 16).
public let HKPredicateKeyPathWorkoutActivityStartDate = "activityStartDate"
/// The key path of an activity's end date (iOS 16).
public let HKPredicateKeyPathWorkoutActivityEndDate = "activityEndDate"
/// The key path of an activity's sum statistic (iOS 16).
public let HKPredicateKeyPathWorkoutActivitySumQuantity = "activitySumQuantity"
/// The key path of an activity's minimum statistic (iOS 16).
public let HKPredicateKeyPathWorkoutActivityMinimumQuantity = "activityMinimumQuantity"
/// The key path of an activity's maximum statistic (iOS 16).
public let HKPredicateKeyPathWorkoutActivityMaximumQuantity = "activityMaximumQuantity"
/// The key path of an activity's average statistic (iOS 16).
public let HKPredicateKeyPathWorkoutActivityAverageQuantity = "activityAverageQuantity"
