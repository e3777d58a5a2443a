import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

/// Named spellings of the workout family's operations (each is `perform` of the ``DeviceOperation`` of the same
/// name; see DeviceOperation+Workouts.swift).
extension DeviceClient {
  /// Saves a workout (and the route saved with it), all or nothing. Returns whether they wait for the device to
  /// unlock (saved while locked: a builder's `finishWorkout()` hands back nil, behavior.md E31).
  @discardableResult
  package func saveWorkout(_ bundleID: String, _ workout: WorkoutInput, route: RouteInput? = nil) throws(ClientError)
    -> Bool
  {
    try perform(.saveWorkout(bundleID, workout, route: route)) > 0
  }
  /// `add(_:to:)`: saves `samples` and associates them, and the stored `existing`, with a saved workout.
  package func addSamplesToWorkout(
    _ bundleID: String, workout: UUID, samples: [SampleInput], existing: [UUID] = []
  ) throws(ClientError) {
    try perform(.addSamplesToWorkout(bundleID, workout: workout, samples: samples, existing: existing))
  }
  /// A call on a workout session or its live builder: the session after it.
  package func workoutSession(_ bundleID: String, _ call: SessionCall) throws(ClientError) -> SessionStatus {
    try perform(.workoutSession(bundleID, call))
  }
  /// Saves a route of a saved workout.
  package func saveRoute(_ bundleID: String, workout: UUID, _ route: RouteInput) throws(ClientError) {
    try perform(.saveRoute(bundleID, workout: workout, route))
  }
  /// Saves a heartbeat series.
  package func saveHeartbeatSeries(_ bundleID: String, _ series: HeartbeatSeriesInput) throws(ClientError) {
    try perform(.saveHeartbeatSeries(bundleID, series))
  }
  /// Runs a workout query.
  package func workoutQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError) -> [Workout] {
    try perform(.workoutQuery(bundleID, query))
  }
  /// Routes (of one workout when `workout` is set) with every location.
  package func routeQuery(_ bundleID: String, workout: UUID?, _ query: SampleQuery) throws(ClientError)
    -> [WorkoutRoute]
  {
    try perform(.routeQuery(bundleID, workout: workout, query))
  }
  /// Heartbeat series matching `query`.
  package func heartbeatSeriesQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError) -> [HeartbeatSeries] {
    try perform(.heartbeatSeriesQuery(bundleID, query))
  }
  /// Activity summaries from `from` to `to` (inclusive; nil: unbounded).
  package func activitySummaryQuery(_ bundleID: String, from: LocalDay? = nil, to: LocalDay? = nil)
    throws(ClientError) -> [ActivitySummary]
  {
    try perform(.activitySummaryQuery(bundleID, from: from, to: to))
  }
  /// Every live workout on the device.
  package func storedWorkouts() throws(ClientError) -> [Workout] { try perform(.storedWorkouts) }
  /// Every live route on the device (of one workout, or all).
  package func storedRoutes(workout: UUID? = nil) throws(ClientError) -> [WorkoutRoute] {
    try perform(.storedRoutes(workout: workout))
  }
  /// Every activity summary on the device.
  package func storedActivitySummaries() throws(ClientError) -> [ActivitySummary] {
    try perform(.storedActivitySummaries)
  }
  /// Anchored query of workouts, routes or heartbeat series.
  package func anchoredWorkoutQuery(
    _ bundleID: String, type: SampleType, anchor: UInt64, range: DateRange? = nil, limit: Int = 0,
    filter: SampleFilter? = nil
  ) throws(ClientError) -> AnchoredWorkoutResult {
    try perform(
      .anchoredWorkoutQuery(bundleID, type: type, anchor: anchor, range: range, limit: limit, filter: filter))
  }
}
