import CoreLocation
import Foundation
import HealthModel
import HealthPairClient
import Synchronization

/// The base of the builders of series samples: workout routes and heartbeat series (iOS 11 / watchOS 4).
///
/// Declared `@unchecked Sendable`: the subclasses keep their state behind a `Mutex`.
public class HKSeriesBuilder: NSObject, @unchecked Sendable {
  /// Stops the builder and deletes the data collected so far; later calls fail.
  public func discard() {}
}

/// Builds a workout's route from `CLLocation`s (iOS 11 / watchOS 4; workouts.md §1.6).
///
/// Insert locations in any order (they are sorted when the route is finished), add metadata, then
/// `finishRoute(with:metadata:)` with a workout that is already saved. A route belongs to exactly one workout and
/// never moves. With no location inserted there is no route and `finishRoute` fails (`HKError(.errorNoData)`,
/// HealthPair model of Apple's "an error is returned"). After finishing or discarding, every call fails with
/// `HKError(.errorInvalidArgument)` (HealthPair model of Apple's "the builder is invalid"). Data inserted is lost
/// if the process ends before the route is finished, as on a device.
///
/// The route builder of an ``HKWorkoutBuilder`` (`seriesBuilder(for: .workoutRoute())`) finishes with its workout:
/// `finishRoute` on it fails with `HKError(.errorInvalidArgument)` (Apple: "do not call finishRoute").
public final class HKWorkoutRouteBuilder: HKSeriesBuilder, @unchecked Sendable {
  private struct State {
    var locations: [RouteLocation] = []
    var metadata: Metadata = [:]
    var done = false
  }
  private let state = Mutex(State())
  private let uuid = UUID.fresh()
  /// Whether a workout builder owns the route (it saves it with the workout).
  private let owned: Bool

  /// A route builder for the current device and app.
  public init(healthStore: HKHealthStore, device: HKDevice?) {
    owned = false
    super.init()
  }

  /// A workout builder's route builder.
  init(owned device: HKDevice?) {
    owned = true
    super.init()
  }

  private static func misuse(_ message: String) -> HKError { HKError(.errorInvalidArgument, message: message) }

  /// Adds locations to the route (any order).
  /// - Throws: `HKError(.errorInvalidArgument)` after finish or discard, or for a location whose coordinate is not
  ///   valid (`CLLocationCoordinate2DIsValid`) or whose values are not finite.
  public func insertRouteData(_ routeData: [CLLocation]) async throws {
    try state.withLock { state in
      guard !state.done else { throw Self.misuse("HKWorkoutRouteBuilder: insertRouteData after the route finished") }
      for location in routeData {
        let values = [
          location.altitude, location.horizontalAccuracy, location.verticalAccuracy, location.speed,
          location.speedAccuracy, location.course, location.courseAccuracy,
        ]
        guard CLLocationCoordinate2DIsValid(location.coordinate), values.allSatisfy(\.isFinite) else {
          throw Self.misuse("HKWorkoutRouteBuilder: invalid location \(location)")
        }
      }
      state.locations += routeData.map(\.routeLocation)
    }
  }

  /// As `insertRouteData(_:)`; `completion` receives whether the locations were added and the error.
  public func insertRouteData(_ routeData: [CLLocation], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    let locations = UncheckedLocations(routeData)
    deliverWithTarget({ try await self.insertRouteData(locations.value) }) { completion($0.isSuccess, $0.failure) }
  }

  /// Merges `metadata` into the route's; nothing changes when it fails.
  /// - Throws: `HKError(.errorInvalidArgument)` after finish or discard, or for a value HealthKit refuses.
  public func addMetadata(_ metadata: [String: Any]) async throws {
    try state.withLock { state in
      guard !state.done else { throw Self.misuse("HKWorkoutRouteBuilder: addMetadata after the route finished") }
      state.metadata.merge(try BuilderState.checked(metadata), uniquingKeysWith: { $1 })
    }
  }

  /// As `addMetadata(_:)`.
  public func addMetadata(_ metadata: [String: Any], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    let payload = UncheckedMetadata(metadata)
    deliverWithTarget({ try await self.addMetadata(payload.value) }) { completion($0.isSuccess, $0.failure) }
  }

  /// Saves the route as `workout`'s, with `metadata` merged into the builder's, and returns it.
  /// - Throws: `HKError(.errorNoData)` when no location was inserted; `HKError(.errorInvalidArgument)` when the
  ///   builder finished or was discarded, belongs to a workout builder, or `workout` is not saved; the errors of
  ///   `save` (4, 5).
  public func finishRoute(with workout: HKWorkout, metadata: [String: Any]?) async throws -> HKWorkoutRoute {
    let api = "HKWorkoutRouteBuilder.finishRoute(with:metadata:)"
    guard !owned else {
      throw Self.misuse("HKWorkoutRouteBuilder: the route of an HKWorkoutBuilder is saved by its finishWorkout")
    }
    let extra = try BuilderState.checked(metadata ?? [:])
    let input = try state.withLock { state -> RouteInput in
      guard !state.done else { throw Self.misuse("HKWorkoutRouteBuilder: the route already finished") }
      guard !state.locations.isEmpty else {
        throw HKError(.errorNoData, message: "HKWorkoutRouteBuilder: no route data was inserted")
      }
      return RouteInput(
        uuid: uuid, locations: state.locations.sorted { $0.timestamp < $1.timestamp },
        metadata: state.metadata.merging(extra, uniquingKeysWith: { $1 }))
    }
    let session = try await Session.connected(api: api)
    try await session.performAsync(.saveRoute(session.bundleID, workout: workout.uuid, input), api: api)
    state.withLock { $0.done = true }
    let route = HKWorkoutRoute(
      WorkoutRoute(
        uuid: input.uuid, workout: workout.uuid, locations: input.locations, metadata: input.metadata,
        source: SampleSource(bundleID: session.bundleID, device: .phone)),
      origin: HKSample.unsavedOrigin(HKSeriesType.workoutRoute()))
    HKHealthStore.markSaved([route])
    return route
  }

  /// As `finishRoute(with:metadata:)`; `completion` receives the route or the error.
  public func finishRoute(
    with workout: HKWorkout, metadata: [String: Any]?,
    completion: @escaping @Sendable (HKWorkoutRoute?, (any Error)?) -> Void
  ) {
    let payload = UncheckedMetadata(metadata ?? [:])
    deliverWithTarget({ try await self.finishRoute(with: workout, metadata: payload.value) }) { result in
      switch result {
      case .success(let route): completion(route, nil)
      case .failure(let error): completion(nil, error)
      }
    }
  }

  /// Deletes the locations inserted so far; later calls fail.
  public override func discard() {
    state.withLock { state in
      state.locations = []
      state.done = true
    }
  }

  /// The route a workout builder saves with its workout (nil when no location was inserted, or discarded).
  func collected() throws -> RouteInput? {
    state.withLock { state in
      guard !state.done, !state.locations.isEmpty else { return nil }
      return RouteInput(
        uuid: uuid, locations: state.locations.sorted { $0.timestamp < $1.timestamp }, metadata: state.metadata)
    }
  }
}

/// Locations carried into a completion-handler call (`CLLocation` is immutable).
struct UncheckedLocations: @unchecked Sendable {
  let value: [CLLocation]
  init(_ value: [CLLocation]) { self.value = value }
}

/// Builds a heartbeat series: beats as times since the series' start, each marking whether beats were missed
/// before it (iOS 13 / watchOS 6).
///
/// Times must be finite, non-negative and at most ``maximumCount`` beats may be added (HealthPair model: Apple
/// documents the maximum, not the error); beats are sorted when the series is finished. After finishing or
/// discarding, every call fails with `HKError(.errorInvalidArgument)`.
public final class HKHeartbeatSeriesBuilder: HKSeriesBuilder, @unchecked Sendable {
  private struct State {
    var beats: [Heartbeat] = []
    var metadata: Metadata = [:]
    var done = false
  }
  private let state = Mutex(State())
  private let start: Date
  private let device: HKDevice?

  /// The most beats one series may hold (HealthPair model: Apple's value is not public; 1 000 000).
  public static var maximumCount: Int { 1_000_000 }

  /// A builder of a series starting at `start`.
  public init(healthStore: HKHealthStore, device: HKDevice?, start startDate: Date) {
    self.start = startDate
    self.device = device
    super.init()
  }

  private static func misuse(_ message: String) -> HKError { HKError(.errorInvalidArgument, message: message) }

  /// Adds a beat `timeInterval` seconds after the series' start.
  /// - Throws: `HKError(.errorInvalidArgument)` (finished, a negative or non-finite time, more than
  ///   ``maximumCount`` beats).
  public func addHeartbeat(at timeInterval: TimeInterval, precededByGap: Bool) async throws {
    try state.withLock { state in
      guard !state.done else { throw Self.misuse("HKHeartbeatSeriesBuilder: addHeartbeat after the series finished") }
      guard timeInterval.isFinite, timeInterval >= 0 else {
        throw Self.misuse("HKHeartbeatSeriesBuilder: a beat's time since the start must be finite and not negative")
      }
      guard state.beats.count < Self.maximumCount else {
        throw Self.misuse("HKHeartbeatSeriesBuilder: a series holds at most \(Self.maximumCount) beats")
      }
      state.beats.append(Heartbeat(offset: timeInterval, precededByGap: precededByGap))
    }
  }

  /// As `addHeartbeat(at:precededByGap:)`.
  public func addHeartbeatWithTimeInterval(
    sinceSeriesStartDate timeIntervalSinceStart: TimeInterval, precededByGap: Bool,
    completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    deliverWithTarget({ try await self.addHeartbeat(at: timeIntervalSinceStart, precededByGap: precededByGap) }) {
      completion($0.isSuccess, $0.failure)
    }
  }

  /// Merges `metadata` into the series'.
  /// - Throws: `HKError(.errorInvalidArgument)` (finished, a value HealthKit refuses).
  public func addMetadata(_ metadata: [String: Any]) async throws {
    try state.withLock { state in
      guard !state.done else { throw Self.misuse("HKHeartbeatSeriesBuilder: addMetadata after the series finished") }
      state.metadata.merge(try BuilderState.checked(metadata), uniquingKeysWith: { $1 })
    }
  }

  /// As `addMetadata(_:)`.
  public func addMetadata(_ metadata: [String: Any], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
    let payload = UncheckedMetadata(metadata)
    deliverWithTarget({ try await self.addMetadata(payload.value) }) { completion($0.isSuccess, $0.failure) }
  }

  /// Saves the series (ending at its last beat, or at its start when it has none) and returns it.
  /// - Throws: `HKError(.errorInvalidArgument)` when finished or discarded; the errors of `save` (4, 5).
  public func finishSeries() async throws -> HKHeartbeatSeriesSample {
    let api = "HKHeartbeatSeriesBuilder.finishSeries()"
    let input = try state.withLock { state -> HeartbeatSeriesInput in
      guard !state.done else { throw Self.misuse("HKHeartbeatSeriesBuilder: the series already finished") }
      let beats = state.beats.sorted { $0.offset < $1.offset }
      return HeartbeatSeriesInput(
        uuid: .fresh(), start: start, end: start + (beats.last?.offset ?? 0), beats: beats,
        metadata: MetadataPayload.valid(state.metadata).adding(device).validMetadata)
    }
    let session = try await Session.connected(api: api)
    try await session.performAsync(.saveHeartbeatSeries(session.bundleID, input), api: api)
    state.withLock { $0.done = true }
    let series = HKHeartbeatSeriesSample(
      HeartbeatSeries(
        uuid: input.uuid, start: input.start, end: input.end, beats: input.beats, metadata: input.metadata,
        source: SampleSource(bundleID: session.bundleID, device: .phone)),
      origin: HKSample.unsavedOrigin(HKSeriesType.heartbeat()))
    HKHealthStore.markSaved([series])
    return series
  }

  /// As `finishSeries()`; `completion` receives the series or the error.
  public func finishSeries(completion: @escaping @Sendable (HKHeartbeatSeriesSample?, (any Error)?) -> Void) {
    deliverWithTarget({ try await self.finishSeries() }) { result in
      switch result {
      case .success(let series): completion(series, nil)
      case .failure(let error): completion(nil, error)
      }
    }
  }

  /// Deletes the beats added so far; later calls fail.
  public override func discard() {
    state.withLock { state in
      state.beats = []
      state.done = true
    }
  }
}

extension MetadataPayload {
  /// The metadata when valid, else empty.
  var validMetadata: Metadata {
    if case .valid(let metadata) = self { return metadata }
    return [:]
  }
}
