import CoreLocation
import Foundation
import HealthModel

/// A sample holding a series of values read with a series query: a workout route or a heartbeat series
/// (iOS 11 / watchOS 4).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public class HKSeriesSample: HKSample, @unchecked Sendable {
  /// The number of values in the series.
  public let count: Int

  init(uuid: UUID, start: Date, end: Date, count: Int, metadata: MetadataPayload, origin: SampleOrigin) {
    self.count = count
    super.init(uuid: uuid, start: start, end: end, metadata: metadata, origin: origin)
  }
}

/// The route of a workout: a series of `CLLocation`s (iOS 11 / watchOS 4; workouts.md §1.6), read with
/// ``HKWorkoutRouteQuery`` and made with ``HKWorkoutRouteBuilder`` or a workout builder's
/// `seriesBuilder(for: .workoutRoute())`. A route belongs to one workout for ever.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKWorkoutRoute: HKSeriesSample, @unchecked Sendable {
  /// The workout the route belongs to.
  package let workoutUUID: UUID
  /// The fixes, in timestamp order, when the reply that made the route carried them.
  package let locations: [RouteLocation]

  /// The object for a stored route.
  package convenience init(_ route: WorkoutRoute) {
    self.init(
      route, origin: SampleOrigin(type: HKSeriesType.workoutRoute(), unit: nil, source: HKSourceRevision(route.source)))
  }

  /// The object for a route, with `origin` (a builder's route has the unsaved origin).
  init(_ route: WorkoutRoute, origin: SampleOrigin) {
    self.workoutUUID = route.workout
    self.locations = route.locations
    super.init(
      uuid: route.uuid, start: route.start, end: route.end, count: route.locations.count,
      metadata: .valid(route.metadata), origin: origin)
  }

  override var valueDescription: String? { "\(count) locations" }
}

/// A series of heartbeats, each a time since the series' start and whether beats were missed before it
/// (iOS 13 / watchOS 6), read with ``HKHeartbeatSeriesQuery``.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKHeartbeatSeriesSample: HKSeriesSample, @unchecked Sendable {
  /// The beats, in offset order.
  package let beats: [Heartbeat]

  /// The object for a stored series.
  package convenience init(_ series: HeartbeatSeries) {
    self.init(
      series, origin: SampleOrigin(type: HKSeriesType.heartbeat(), unit: nil, source: HKSourceRevision(series.source)))
  }

  /// The object for a series, with `origin` (a builder's series has the unsaved origin).
  init(_ series: HeartbeatSeries, origin: SampleOrigin) {
    self.beats = series.beats
    super.init(
      uuid: series.uuid, start: series.start, end: series.end, count: series.beats.count,
      metadata: .valid(series.metadata), origin: origin)
  }

  override var valueDescription: String? { "\(count) beats" }
}

extension CLLocation {
  /// The fix as the model stores it.
  var routeLocation: RouteLocation {
    RouteLocation(
      timestamp: timestamp, latitude: coordinate.latitude, longitude: coordinate.longitude, altitude: altitude,
      horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy, speed: speed,
      speedAccuracy: speedAccuracy, course: course, courseAccuracy: courseAccuracy)
  }

  /// The location of a stored fix.
  convenience init(_ fix: RouteLocation) {
    self.init(
      coordinate: CLLocationCoordinate2D(latitude: fix.latitude, longitude: fix.longitude), altitude: fix.altitude,
      horizontalAccuracy: fix.horizontalAccuracy, verticalAccuracy: fix.verticalAccuracy, course: fix.course,
      courseAccuracy: fix.courseAccuracy, speed: fix.speed, speedAccuracy: fix.speedAccuracy,
      timestamp: fix.timestamp)
  }
}
