import FoundationEssentials

/// A route as an app hands it over (`HKWorkoutRouteBuilder.finishRoute(with:metadata:)`, or inside a workout's save):
/// its identifier, its locations in the order inserted, and its metadata. The device sorts, checks and stores it
/// as a ``WorkoutRoute`` of the workout it is saved with.
package struct RouteInput: Hashable, Sendable {
  /// The identifier the app's route object carries.
  package var uuid: UUID
  /// The locations, as inserted (`insertRouteData`).
  package var locations: [RouteLocation]
  /// The route's metadata.
  package var metadata: Metadata

  /// Creates an input route.
  package init(uuid: UUID, locations: [RouteLocation], metadata: Metadata = [:]) {
    self.uuid = uuid
    self.locations = locations
    self.metadata = metadata
  }
}

/// A heartbeat series as an app hands it over (`HKHeartbeatSeriesBuilder.finishSeries`): its identifier, its
/// dates, its beats as added and its metadata.
package struct HeartbeatSeriesInput: Hashable, Sendable {
  /// The identifier the app's series object carries.
  package var uuid: UUID
  /// Start of the series.
  package var start: Date
  /// End of the series.
  package var end: Date
  /// The beats, as added (offsets in seconds from `start`).
  package var beats: [Heartbeat]
  /// The series' metadata.
  package var metadata: Metadata

  /// Creates an input series.
  package init(uuid: UUID, start: Date, end: Date, beats: [Heartbeat], metadata: Metadata = [:]) {
    self.uuid = uuid
    self.start = start
    self.end = end
    self.beats = beats
    self.metadata = metadata
  }
}
