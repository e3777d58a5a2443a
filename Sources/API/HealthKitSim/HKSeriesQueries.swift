import CoreLocation
import Foundation
import HealthEngine
import HealthModel

/// Reads a workout route's locations in batches (iOS 11 / watchOS 4): the handler is called with each batch, in
/// timestamp order, until `done` is true (workouts.md §1.6).
///
/// HealthPair model: batches of ``batchSize`` (100) locations; an empty route (or interval), a route no longer
/// stored, or one the app may not read gives one call with no locations and `done` (denied reads look like no
/// data).
///
/// `@unchecked Sendable` for the reason ``HKQuery`` gives.
public final class HKWorkoutRouteQuery: HKQuery, @unchecked Sendable {
  /// Locations per call of the handler (HealthPair model).
  public static let batchSize = 100
  private let route: HKWorkoutRoute
  private let interval: DateInterval?
  private let dataHandler: @Sendable (HKWorkoutRouteQuery, [CLLocation]?, Bool, (any Error)?) -> Void

  /// A query of every location of `route`.
  public init(
    route workoutRoute: HKWorkoutRoute,
    dataHandler handler: @escaping @Sendable (HKWorkoutRouteQuery, [CLLocation]?, Bool, (any Error)?) -> Void
  ) {
    self.route = workoutRoute
    self.interval = nil
    self.dataHandler = handler
    super.init(objectType: HKSeriesType.workoutRoute(), predicate: nil)
  }

  /// A query of the locations of `route` whose timestamps lie in `dateInterval` (iOS 15.4).
  public init(
    route workoutRoute: HKWorkoutRoute, dateInterval: DateInterval,
    dataHandler handler: @escaping @Sendable (HKWorkoutRouteQuery, [CLLocation]?, Bool, (any Error)?) -> Void
  ) {
    self.route = workoutRoute
    self.interval = dateInterval
    self.dataHandler = handler
    super.init(objectType: HKSeriesType.workoutRoute(), predicate: nil)
  }

  override func start(_ session: Session) {
    run.queue.async { [self] in
      let result = Result { () throws -> [RouteLocation] in try Self.locations(of: route, session) }
      switch result {
      case .failure(let error): run.deliver { dataHandler(self, nil, true, error) }
      case .success(var fixes):
        if let interval { fixes.removeAll { !interval.contains($0.timestamp) } }
        if fixes.isEmpty {
          run.deliver { dataHandler(self, [], true, nil) }
          return
        }
        var index = 0
        while index < fixes.count {
          let end = min(index + Self.batchSize, fixes.count)
          let batch = fixes[index..<end].map(CLLocation.init)
          let done = end == fixes.count
          run.deliver { dataHandler(self, batch, done, nil) }
          index = end
        }
      }
    }
  }

  override func fail(_ error: any Error) {
    run.deliver { dataHandler(self, nil, true, error) }
  }

  /// The route's locations: those the object carries, else the stored route's, read again.
  static func locations(of route: HKWorkoutRoute, _ session: Session) throws -> [RouteLocation] {
    if !route.locations.isEmpty || route.count == 0 { return route.locations }
    let query = SampleQuery(
      type: try HKSeriesType.workoutRoute().simulatedType(), range: nil, sources: nil, limit: 0, sort: [],
      filter: .uuids([route.uuid]))
    let found = try session.perform(.routeQuery(session.bundleID, workout: nil, query), api: "HKWorkoutRouteQuery")
    return found.first?.locations ?? []
  }
}

/// Reads a heartbeat series beat by beat (iOS 13 / watchOS 6): the handler is called once per beat, the last call
/// with `done`; a series with no beats gives one call with `done` and time 0.
///
/// `@unchecked Sendable` for the reason ``HKQuery`` gives.
public final class HKHeartbeatSeriesQuery: HKQuery, @unchecked Sendable {
  private let series: HKHeartbeatSeriesSample
  private let dataHandler: @Sendable (HKHeartbeatSeriesQuery, TimeInterval, Bool, Bool, (any Error)?) -> Void

  /// A query of `heartbeatSeries`'s beats; the handler receives the time since the series' start, whether beats
  /// were missed before it, and whether it is the last.
  public init(
    heartbeatSeries: HKHeartbeatSeriesSample,
    dataHandler: @escaping @Sendable (HKHeartbeatSeriesQuery, TimeInterval, Bool, Bool, (any Error)?) -> Void
  ) {
    self.series = heartbeatSeries
    self.dataHandler = dataHandler
    super.init(objectType: HKSeriesType.heartbeat(), predicate: nil)
  }

  override func start(_ session: Session) {
    run.queue.async { [self] in
      let beats = series.beats
      if beats.isEmpty {
        run.deliver { dataHandler(self, 0, false, true, nil) }
        return
      }
      for (index, beat) in beats.enumerated() {
        let done = index == beats.count - 1
        run.deliver { dataHandler(self, beat.offset, beat.precededByGap, done, nil) }
      }
    }
  }

  override func fail(_ error: any Error) {
    run.deliver { dataHandler(self, 0, false, true, error) }
  }
}

/// Reads the quantities of quantity samples one by one (iOS 13 / watchOS 6): the handler is called for each
/// sample's quantity with its interval and the sample, then once more with `done` and no quantity.
///
/// HealthPair stores no condensed series (every sample holds one quantity, `count` 1; workouts.md §1.7 describes
/// the condensing it does not simulate), so each call hands one sample's own quantity.
///
/// `@unchecked Sendable` for the reason ``HKQuery`` gives.
public final class HKQuantitySeriesSampleQuery: HKQuery, @unchecked Sendable {
  private let handler:
    @Sendable (HKQuantitySeriesSampleQuery, HKQuantity?, DateInterval?, HKQuantitySample?, Bool, (any Error)?) -> Void
  /// Whether the legacy handler form was used (it gets no sample and the quantity's start date only).
  private let sampleOnly: HKQuantitySample?

  /// A query of the quantities of the samples of `quantityType` matching `predicate`, in start-date order (iOS 15).
  public init(
    quantityType: HKQuantityType, predicate: NSPredicate?,
    quantityHandler:
      @escaping @Sendable (
        HKQuantitySeriesSampleQuery, HKQuantity?, DateInterval?, HKQuantitySample?, Bool, (any Error)?
      ) -> Void
  ) {
    self.handler = quantityHandler
    self.sampleOnly = nil
    super.init(objectType: quantityType, predicate: predicate)
  }

  /// A query of one sample's quantities (deprecated iOS 13: use `init(quantityType:predicate:quantityHandler:)`).
  @available(*, deprecated, message: "Use init(quantityType:predicate:quantityHandler:)")
  public init(
    sample quantitySample: HKQuantitySample,
    quantityHandler: @escaping @Sendable (HKQuantitySeriesSampleQuery, HKQuantity?, Date?, Bool, (any Error)?) -> Void
  ) {
    self.handler = { query, quantity, interval, _, done, error in
      quantityHandler(query, quantity, interval?.start, done, error)
    }
    self.sampleOnly = quantitySample
    super.init(objectType: quantitySample.quantityType, predicate: nil)
  }

  override func start(_ session: Session) {
    run.queue.async { [self] in
      let result = Result { () throws -> [HKQuantitySample] in
        if let sampleOnly { return [sampleOnly] }
        let query = try filter.get().sampleQuery(
          of: objectType!, limit: HKObjectQueryNoLimit, sort: [SampleSort(.startDate, ascending: true)])
        return try HKSampleQuery.objects(session, query).compactMap { $0 as? HKQuantitySample }
      }
      switch result {
      case .failure(let error): run.deliver { handler(self, nil, nil, nil, true, error) }
      case .success(let samples):
        for sample in samples {
          let interval = DateInterval(start: sample.startDate, end: max(sample.startDate, sample.endDate))
          run.deliver { handler(self, sample.quantity, interval, sample, false, nil) }
        }
        run.deliver { handler(self, nil, nil, nil, true, nil) }
      }
    }
  }

  override func fail(_ error: any Error) {
    run.deliver { handler(self, nil, nil, nil, true, error) }
  }
}

/// A route query as a value (iOS 15.4): `for try await location in descriptor.results(for: store)`.
public struct HKWorkoutRouteQueryDescriptor: Sendable {
  /// The route.
  public let workoutRoute: HKWorkoutRoute
  /// The interval whose locations are read (nil: every location).
  public let dateInterval: DateInterval?

  /// A descriptor of every location of `workoutRoute`.
  public init(_ workoutRoute: HKWorkoutRoute) {
    self.workoutRoute = workoutRoute
    self.dateInterval = nil
  }

  /// A descriptor of the locations of `workoutRoute` in `dateInterval`.
  public init(_ workoutRoute: HKWorkoutRoute, dateInterval: DateInterval) {
    self.workoutRoute = workoutRoute
    self.dateInterval = dateInterval
  }

  /// The locations in timestamp order, then the end of the stream (or its error).
  public func results(for healthStore: HKHealthStore) -> AsyncThrowingStream<CLLocation, any Error> {
    let (route, interval) = (workoutRoute, dateInterval)
    let target = HealthKitSim.currentTarget
    return AsyncThrowingStream { continuation in
      deliver({ () throws -> [RouteLocation] in
        let session: Session
        if let target {
          session = try HealthKitSim.withTarget(target) { try Session.current(api: "HKWorkoutRouteQueryDescriptor") }
        } else {
          session = try Session.current(api: "HKWorkoutRouteQueryDescriptor")
        }
        let fixes = try HKWorkoutRouteQuery.locations(of: route, session)
        return interval.map { interval in fixes.filter { interval.contains($0.timestamp) } } ?? fixes
      }) { result in
        switch result {
        case .success(let fixes):
          for fix in fixes { continuation.yield(CLLocation(fix)) }
          continuation.finish()
        case .failure(let error): continuation.finish(throwing: error)
        }
      }
    }
  }
}
