// Published-style workout code: a run recorded with HKWorkoutBuilder and its route builder, read back with a
// workout query and HKWorkoutRouteQuery. It imports HealthKit and CoreLocation, as it would on an iPhone.

import CoreLocation
import HealthKit

/// Records outdoor runs with their route, and reads them back.
public final class RunRecorder: @unchecked Sendable {
  private let store = HKHealthStore()

  /// Creates a recorder.
  public init() {}

  /// The types the recorder writes and reads.
  public static let types: Set<HKSampleType> = [
    HKObjectType.workoutType(), HKSeriesType.workoutRoute(), HKQuantityType(.distanceWalkingRunning),
  ]

  /// Asks for access to workouts, routes and distance.
  public func requestAccess() async throws {
    try await store.requestAuthorization(toShare: Self.types, read: Set(Self.types.map { $0 as HKObjectType }))
  }

  /// Saves a run from `start` to `end` covering `meters` along `route`.
  public func saveRun(start: Date, end: Date, meters: Double, route: [CLLocation]) async throws -> HKWorkout? {
    let configuration = HKWorkoutConfiguration()
    configuration.activityType = .running
    configuration.locationType = .outdoor
    let builder = HKWorkoutBuilder(healthStore: store, configuration: configuration, device: .local())
    try await builder.beginCollection(at: start)
    let distance = HKQuantitySample(
      type: HKQuantityType(.distanceWalkingRunning), quantity: HKQuantity(unit: .meter(), doubleValue: meters),
      start: start, end: end)
    try await builder.addSamples([distance])
    if let routeBuilder = builder.seriesBuilder(for: .workoutRoute()) as? HKWorkoutRouteBuilder {
      try await routeBuilder.insertRouteData(route)
    }
    try await builder.endCollection(at: end)
    return try await builder.finishWorkout()
  }

  /// The runs, newest first, with their distance in metres and the number of route locations.
  public func runs() async throws -> [(distance: Double, locations: Int)] {
    let workouts = try await HKSampleQueryDescriptor(
      predicates: [.workout(HKQuery.predicateForWorkouts(with: .running))],
      sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)]
    ).result(for: store)
    var result: [(distance: Double, locations: Int)] = []
    for workout in workouts {
      let meters =
        workout.statistics(for: HKQuantityType(.distanceWalkingRunning))?.sumQuantity()?.doubleValue(for: .meter()) ?? 0
      result.append((meters, try await locations(of: workout).count))
    }
    return result
  }

  /// Every location of `workout`'s route.
  public func locations(of workout: HKWorkout) async throws -> [CLLocation] {
    let routes = try await HKSampleQueryDescriptor(
      predicates: [.sample(type: HKSeriesType.workoutRoute(), predicate: HKQuery.predicateForObjects(from: workout))],
      sortDescriptors: []
    ).result(for: store)
    guard let route = routes.first as? HKWorkoutRoute else { return [] }
    return try await withCheckedThrowingContinuation { continuation in
      let collected = Collected()
      let query = HKWorkoutRouteQuery(route: route) { _, batch, done, error in
        if let error { return continuation.resume(throwing: error) }
        collected.add(batch ?? [])
        if done { continuation.resume(returning: collected.locations) }
      }
      store.execute(query)
    }
  }
}

/// Locations handed so far by a route query (its handler runs on one queue).
private final class Collected: @unchecked Sendable {
  var locations: [CLLocation] = []
  func add(_ batch: [CLLocation]) { locations += batch }
}
