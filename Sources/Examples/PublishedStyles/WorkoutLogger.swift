// Written the way published workout code is: an NSObject manager with completion handlers that records a run with
// HKWorkoutBuilder and its route builder, keeps a legacy path (HKWorkout's deprecated initializer, save, then
// add(_:to:)) for older OS versions, and reads workouts back with a sample query, the route with
// HKWorkoutRouteQuery in batches, and totals with statistics(for:). It imports HealthKit and CoreLocation — on
// Linux the HealthPair modules — and knows nothing about HealthPair.

import CoreLocation
import Foundation
import HealthKit

/// Records runs and reads them back.
public final class WorkoutLogger: NSObject, @unchecked Sendable {
  /// A run as the app shows it.
  public struct RunSummary: Sendable, Equatable {
    /// The workout's identifier.
    public var id: UUID
    /// Start of the run.
    public var start: Date
    /// Duration in seconds (pauses excluded).
    public var duration: TimeInterval
    /// Distance in metres, if recorded.
    public var meters: Double?
    /// Active energy in kilocalories, if recorded.
    public var kilocalories: Double?

    /// A summary.
    public init(id: UUID, start: Date, duration: TimeInterval, meters: Double?, kilocalories: Double?) {
      self.id = id
      self.start = start
      self.duration = duration
      self.meters = meters
      self.kilocalories = kilocalories
    }
  }

  private let store = HKHealthStore()
  private let distanceType = HKQuantityType(.distanceWalkingRunning)
  private let energyType = HKQuantityType(.activeEnergyBurned)
  private let heartRateType = HKQuantityType(.heartRate)

  /// Asks to write and read workouts, routes, distance, energy and heart rate.
  public func requestAuthorization(completion: @escaping @Sendable (Bool, Error?) -> Void) {
    let types: Set<HKSampleType> = [
      HKObjectType.workoutType(), HKSeriesType.workoutRoute(), distanceType, energyType, heartRateType,
    ]
    store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }), completion: completion)
  }

  /// Records a finished outdoor run with a builder: its distance and energy samples, a pause, and the route.
  public func saveRun(
    start: Date, end: Date, pausedFrom pauseStart: Date, to pauseEnd: Date, meters: Double, kilocalories: Double,
    route: [CLLocation], completion: @escaping @Sendable (HKWorkout?, Error?) -> Void
  ) {
    let configuration = HKWorkoutConfiguration()
    configuration.activityType = .running
    configuration.locationType = .outdoor
    let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: .local())
    let routeBuilder = builder.seriesBuilder(for: .workoutRoute()) as? HKWorkoutRouteBuilder
    let samples: [HKSample] = [
      HKQuantitySample(
        type: distanceType, quantity: HKQuantity(unit: .meter(), doubleValue: meters), start: start, end: end),
      HKQuantitySample(
        type: energyType, quantity: HKQuantity(unit: .kilocalorie(), doubleValue: kilocalories), start: start,
        end: end),
    ]
    let events = [
      HKWorkoutEvent(type: .pause, dateInterval: DateInterval(start: pauseStart, duration: 0), metadata: nil),
      HKWorkoutEvent(type: .resume, dateInterval: DateInterval(start: pauseEnd, duration: 0), metadata: nil),
    ]
    builder.beginCollection(withStart: start) { started, error in
      guard started else { return completion(nil, error) }
      builder.add(samples) { added, error in
        guard added else { return completion(nil, error) }
        builder.addWorkoutEvents(events) { _, _ in
          routeBuilder?.insertRouteData(route) { _, _ in
            builder.addMetadata([HKMetadataKeyIndoorWorkout: false]) { _, _ in
              builder.endCollection(withEnd: end) { ended, error in
                guard ended else { return completion(nil, error) }
                builder.finishWorkout { workout, error in completion(workout, error) }
              }
            }
          }
        }
      }
    }
  }

  /// Records a walk the pre-iOS 17 way: the workout with its totals, then its samples added to it.
  @available(*, deprecated, message: "The legacy path of older OS versions")
  public func saveLegacyWalk(
    start: Date, end: Date, meters: Double, completion: @escaping @Sendable (Bool, Error?) -> Void
  ) {
    let distance = HKQuantity(unit: .meter(), doubleValue: meters)
    let workout = HKWorkout(
      activityType: .walking, start: start, end: end, workoutEvents: nil, totalEnergyBurned: nil,
      totalDistance: distance, metadata: [HKMetadataKeyIndoorWorkout: false])
    store.save(workout) { [store, distanceType] saved, error in
      guard saved else { return completion(false, error) }
      let sample = HKQuantitySample(type: distanceType, quantity: distance, start: start, end: end)
      store.add([sample], to: workout, completion: completion)
    }
  }

  /// The runs since `date`, newest first.
  public func runs(since date: Date, completion: @escaping @Sendable ([RunSummary]?, Error?) -> Void) {
    let predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
      HKQuery.predicateForWorkouts(with: .running),
      HKQuery.predicateForSamples(withStart: date, end: nil, options: .strictStartDate),
    ])
    let sort = NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)
    let query = HKSampleQuery(
      sampleType: .workoutType(), predicate: predicate, limit: HKObjectQueryNoLimit, sortDescriptors: [sort]
    ) { [distanceType, energyType] _, samples, error in
      guard let workouts = samples as? [HKWorkout] else { return completion(nil, error) }
      completion(
        workouts.map { workout in
          RunSummary(
            id: workout.uuid, start: workout.startDate, duration: workout.duration,
            meters: workout.statistics(for: distanceType)?.sumQuantity()?.doubleValue(for: .meter()),
            kilocalories: workout.statistics(for: energyType)?.sumQuantity()?.doubleValue(for: .kilocalorie()))
        }, nil)
    }
    store.execute(query)
  }

  /// Every location of `workout`'s route, read in batches.
  public func route(of workout: HKWorkout, completion: @escaping @Sendable ([CLLocation]?, Error?) -> Void) {
    let routeQuery = HKSampleQuery(
      sampleType: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: workout),
      limit: HKObjectQueryNoLimit, sortDescriptors: nil
    ) { [store] _, samples, error in
      guard let route = (samples as? [HKWorkoutRoute])?.first else {
        return completion(samples == nil ? nil : [], error)
      }
      let collected = LocationBuffer()
      let locations = HKWorkoutRouteQuery(route: route) { _, batch, done, error in
        if let error { return completion(nil, error) }
        collected.append(batch ?? [])
        if done { completion(collected.all, nil) }
      }
      store.execute(locations)
    }
    store.execute(routeQuery)
  }

  /// The samples of `type` saved with `workout`.
  public func samples(
    of type: HKQuantityType, in workout: HKWorkout,
    completion: @escaping @Sendable ([HKQuantitySample]?, Error?) -> Void
  ) {
    let query = HKSampleQuery(
      sampleType: type, predicate: HKQuery.predicateForObjects(from: workout), limit: HKObjectQueryNoLimit,
      sortDescriptors: nil
    ) { _, samples, error in completion(samples as? [HKQuantitySample], error) }
    store.execute(query)
  }
}

/// The locations a route query has handed so far (its handler runs on one queue at a time).
private final class LocationBuffer: @unchecked Sendable {
  private let lock = NSLock()
  private var locations: [CLLocation] = []

  func append(_ batch: [CLLocation]) {
    lock.lock()
    locations += batch
    lock.unlock()
  }

  var all: [CLLocation] {
    lock.lock()
    defer { lock.unlock() }
    return locations
  }
}
