import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

// The workout family's operations (docs/protocol.md, opcodes 90–109): one named factory per request, each the
// request's row in `RequestTable+Workouts.swift` with its fields labelled.

extension DeviceOperation where Value == Void {
  /// ``Request/saveObjects(bundleID:correlations:samples:workouts:)``: one all-or-nothing save of workouts with
  /// correlations and samples.
  package static func saveObjects(
    _ bundleID: String, correlations: [CorrelationInput], samples: [SampleInput], workouts: [WorkoutInput]
  ) -> Self {
    Self(RequestTable.saveObjects, bundleID, correlations, samples, workouts)
  }

  /// `add(_:to:)`: saves `samples` and associates them, and the stored samples `existing`, with the saved workout
  /// `workout`, all or nothing.
  package static func addSamplesToWorkout(
    _ bundleID: String, workout: UUID, samples: [SampleInput], existing: [UUID] = []
  ) -> Self {
    Self(RequestTable.addSamplesToWorkout, bundleID, workout, samples, existing)
  }
  /// `finishRoute(with:metadata:)`: saves `route` as the route of the saved workout `workout`.
  package static func saveRoute(_ bundleID: String, workout: UUID, _ route: RouteInput) -> Self {
    Self(RequestTable.saveRoute, bundleID, workout, route)
  }
  /// `HKHeartbeatSeriesBuilder.finishSeries`: saves a heartbeat series.
  package static func saveHeartbeatSeries(_ bundleID: String, _ series: HeartbeatSeriesInput) -> Self {
    Self(RequestTable.saveHeartbeatSeries, bundleID, series)
  }
  /// Stages workouts of an import (their samples in its batches); visible at ``importCommit(_:characteristics:)``.
  package static func importWorkouts(_ importID: UInt64, _ workouts: [Workout]) -> Self {
    Self(RequestTable.importWorkouts, importID, workouts)
  }
  /// Stages routes of an import; visible at its commit.
  package static func importRoutes(_ importID: UInt64, _ routes: [WorkoutRoute]) -> Self {
    Self(RequestTable.importRoutes, importID, routes)
  }
  /// Stages activity summaries of an import; visible at its commit.
  package static func importActivitySummaries(_ importID: UInt64, _ summaries: [ActivitySummary]) -> Self {
    Self(RequestTable.importActivitySummaries, importID, summaries)
  }
}

extension DeviceOperation where Value == [Workout] {
  /// `HKSampleQuery` of workouts: `query.type` is the workout type; its filter may hold the workout predicates.
  package static func workoutQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.workoutQuery, bundleID, query)
  }
  /// Every live workout on the device, whatever app saved it (exports, tests).
  package static var storedWorkouts: Self { Self(RequestTable.storedWorkouts) }
}

extension DeviceOperation where Value == [WorkoutRoute] {
  /// Routes the app may read, of the workout `workout` when set, matching `query` (of the route type), each with
  /// every location.
  package static func routeQuery(_ bundleID: String, workout: UUID?, _ query: SampleQuery) -> Self {
    Self(RequestTable.routeQuery, bundleID, workout, query)
  }
  /// Every live route on the device (of one workout, or all), whatever app saved it.
  package static func storedRoutes(workout: UUID? = nil) -> Self { Self(RequestTable.storedRoutes, workout) }
}

extension DeviceOperation where Value == [HeartbeatSeries] {
  /// Heartbeat series the app may read matching `query` (of the heartbeat series type).
  package static func heartbeatSeriesQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.heartbeatSeriesQuery, bundleID, query)
  }
}

extension DeviceOperation where Value == [ActivitySummary] {
  /// `HKActivitySummaryQuery`: the device's summaries from `from` to `to` (inclusive; nil: unbounded), day-ascending.
  package static func activitySummaryQuery(_ bundleID: String, from: LocalDay? = nil, to: LocalDay? = nil) -> Self {
    Self(RequestTable.activitySummaryQuery, bundleID, from, to)
  }
  /// Every activity summary on the device (stored or computed).
  package static var storedActivitySummaries: Self { Self(RequestTable.storedActivitySummaries) }
}

extension DeviceOperation where Value == AnchoredWorkoutResult {
  /// `HKAnchoredObjectQuery` of workouts, routes or heartbeat series (`type`): what changed after `anchor` (0: the
  /// nil anchor), at most `limit` objects (0: no limit), passing `filter` when set (`.associatedWith(workout)` on
  /// the route type: that workout's routes), and the anchor to continue from.
  package static func anchoredWorkoutQuery(
    _ bundleID: String, type: SampleType, anchor: UInt64, range: DateRange? = nil, limit: Int = 0,
    filter: SampleFilter? = nil
  ) -> Self {
    Self(RequestTable.anchoredWorkoutQuery, bundleID, type, anchor, range, limit, filter)
  }
}

extension DeviceOperation where Value == Int {
  /// Saves a workout (naming in `workout.associated` the stored samples that belong to it, or while locked samples
  /// waiting for the unlock) and the route saved with it, all or nothing; the value is 1 when they wait for the
  /// device to unlock (behavior.md E31), else 0.
  package static func saveWorkout(_ bundleID: String, _ workout: WorkoutInput, route: RouteInput? = nil) -> Self {
    Self(RequestTable.saveWorkout, bundleID, workout, route)
  }
}

extension DeviceOperation where Value == SessionStatus {
  /// A call on a workout session or its live builder; the value is the session as the device holds it after the
  /// call. The delegates' callbacks arrive as `workoutSession` and `workoutBuilder` events (subscribe to
  /// `sessions`).
  package static func workoutSession(_ bundleID: String, _ call: SessionCall) -> Self {
    Self(RequestTable.workoutSession, bundleID, call)
  }
}
