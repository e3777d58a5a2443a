import FoundationEssentials
import HealthModel

/// The workout family a device stores (workouts.md §1): workouts, their routes, heartbeat series, the activity
/// summaries an import brought, and the deletions of workouts, routes and series (kept, like sample tombstones,
/// for anchored queries and sync).
///
/// Few objects compared with samples (one per workout), so dictionaries by identifier are enough. Every stored
/// object carries the change number it was stored (or deleted) under, drawn from the sample store's counter, so
/// anchors of the workout types count in the same sequence as every other anchor on the device.
package struct WorkoutStore: Hashable, Sendable {
  /// A stored object and its change number.
  package struct Entry<Value: Hashable & Sendable>: Hashable, Sendable {
    /// The object.
    package var value: Value
    /// The change number it was stored or deleted under.
    package var change: UInt64

    /// Creates an entry.
    package init(_ value: Value, change: UInt64) {
      self.value = value
      self.change = change
    }
  }

  /// Live workouts by identifier.
  package private(set) var workouts: [UUID: Entry<Workout>] = [:]
  /// Live routes by identifier.
  package private(set) var routes: [UUID: Entry<WorkoutRoute>] = [:]
  /// Live heartbeat series by identifier.
  package private(set) var series: [UUID: Entry<HeartbeatSeries>] = [:]
  /// Imported activity summaries by day (an import's `ActivitySummary` elements; they win over computation).
  package private(set) var summaries: [LocalDay: ActivitySummary] = [:]
  /// Deleted workouts, routes and series by identifier.
  package private(set) var deleted: [UUID: Entry<Tombstone>] = [:]

  /// Creates an empty store.
  package init() {}

  /// Restores a store from a snapshot's lists.
  /// - Throws: ``StateRestoreError`` when an identifier is listed twice, a change number exceeds `changeCounter`,
  ///   a route names no live workout, or a summary's day is listed twice.
  package init(
    restoring workouts: [Entry<Workout>], routes: [Entry<WorkoutRoute>], series: [Entry<HeartbeatSeries>],
    summaries: [ActivitySummary], deleted: [Entry<Tombstone>], changeCounter: UInt64
  ) throws(StateRestoreError) {
    var seen: Set<UUID> = []
    func claim(_ uuid: UUID, _ change: UInt64, _ what: String) throws(StateRestoreError) {
      guard seen.insert(uuid).inserted else { throw StateRestoreError("\(what) \(uuid) listed twice") }
      guard change <= changeCounter else {
        throw StateRestoreError("\(what) \(uuid) has change number \(change) above \(changeCounter)")
      }
    }
    for entry in workouts {
      try claim(entry.value.uuid, entry.change, "workout")
      self.workouts[entry.value.uuid] = entry
    }
    for entry in routes {
      try claim(entry.value.uuid, entry.change, "route")
      guard self.workouts[entry.value.workout] != nil else {
        throw StateRestoreError("route \(entry.value.uuid) belongs to workout \(entry.value.workout), not stored")
      }
      self.routes[entry.value.uuid] = entry
    }
    for entry in series {
      try claim(entry.value.uuid, entry.change, "heartbeat series")
      self.series[entry.value.uuid] = entry
    }
    for entry in deleted {
      try claim(entry.value.uuid, entry.change, "deleted workout object")
      self.deleted[entry.value.uuid] = entry
    }
    for summary in summaries {
      guard self.summaries.updateValue(summary, forKey: summary.day) == nil else {
        throw StateRestoreError("activity summary of \(summary.day) listed twice")
      }
    }
  }

  /// Whether the identifier names a workout, route or series, live or deleted.
  package func isKnown(_ uuid: UUID) -> Bool {
    workouts[uuid] != nil || routes[uuid] != nil || series[uuid] != nil || deleted[uuid] != nil
  }

  /// Whether nothing is stored.
  package var isEmpty: Bool {
    workouts.isEmpty && routes.isEmpty && series.isEmpty && summaries.isEmpty && deleted.isEmpty
  }

  /// The live workouts in change order (the order they were stored): what snapshots and log restarts list.
  package var orderedWorkouts: [Entry<Workout>] { workouts.values.sorted { $0.change < $1.change } }
  /// The live routes in change order.
  package var orderedRoutes: [Entry<WorkoutRoute>] { routes.values.sorted { $0.change < $1.change } }
  /// The live heartbeat series in change order.
  package var orderedSeries: [Entry<HeartbeatSeries>] { series.values.sorted { $0.change < $1.change } }
  /// The deletions in change order.
  package var orderedDeletions: [Entry<Tombstone>] { deleted.values.sorted { $0.change < $1.change } }
  /// The imported summaries, day-ascending.
  package var orderedSummaries: [ActivitySummary] { summaries.values.sorted { $0.day < $1.day } }

  /// The live workout `uuid`.
  package func workout(_ uuid: UUID) -> Workout? { workouts[uuid]?.value }

  /// The live routes of a workout, in change order.
  package func routes(of workout: UUID) -> [WorkoutRoute] {
    routes.values.filter { $0.value.workout == workout }.sorted { $0.change < $1.change }.map(\.value)
  }

  /// The samples associated with the live workout `uuid` (empty for an unknown one).
  package func associated(with uuid: UUID) -> Set<UUID> { Set(workouts[uuid]?.value.associated ?? []) }

  /// Stores a workout (a re-delivery of a known identifier changes nothing); true when stored.
  @discardableResult
  mutating func insert(_ workout: Workout, change: UInt64) -> Bool {
    guard !isKnown(workout.uuid) else { return false }
    workouts[workout.uuid] = Entry(workout, change: change)
    return true
  }

  /// Associates samples with a live workout (each once, in order); its totals and duration do not change
  /// (workouts.md §1.7). Returns the identifiers newly associated.
  @discardableResult
  mutating func associate(_ samples: [UUID], with workout: UUID) -> [UUID] {
    guard var entry = workouts[workout] else { return [] }
    var present = Set(entry.value.associated)
    let fresh = samples.filter { present.insert($0).inserted }
    entry.value.associated += fresh
    workouts[workout] = entry
    return fresh
  }

  /// Stores a route of a live workout; true when stored (false for a known identifier or an unknown workout).
  @discardableResult
  mutating func insert(_ route: WorkoutRoute, change: UInt64) -> Bool {
    guard !isKnown(route.uuid), workouts[route.workout] != nil else { return false }
    routes[route.uuid] = Entry(route, change: change)
    return true
  }

  /// Stores a heartbeat series; true when stored.
  @discardableResult
  mutating func insert(_ series: HeartbeatSeries, change: UInt64) -> Bool {
    guard !isKnown(series.uuid) else { return false }
    self.series[series.uuid] = Entry(series, change: change)
    return true
  }

  /// Stores (or replaces) an imported day's summary.
  mutating func put(_ summary: ActivitySummary) { summaries[summary.day] = summary }

  /// Deletes a workout, route or series, keeping its tombstone; true when it was live.
  @discardableResult
  mutating func delete(_ tombstone: Tombstone, change: UInt64) -> Bool {
    let uuid = tombstone.uuid
    let wasLive =
      workouts.removeValue(forKey: uuid) != nil || routes.removeValue(forKey: uuid) != nil
      || series.removeValue(forKey: uuid) != nil
    if deleted[uuid] == nil { deleted[uuid] = Entry(tombstone, change: change) }
    return wasLive
  }

  /// Drops the live workouts, routes and series that end before `floor` (the watch's retention window, W6), and
  /// the routes of dropped workouts; returns the type and source of each dropped object.
  mutating func prune(endingBefore floor: Date) -> [(SampleType, String)] {
    var dropped: [(SampleType, String)] = []
    for (uuid, entry) in workouts where entry.value.end < floor {
      workouts[uuid] = nil
      dropped.append((WorkoutStore.workoutType, entry.value.source.bundleID))
    }
    for (uuid, entry) in routes where entry.value.end < floor || workouts[entry.value.workout] == nil {
      routes[uuid] = nil
      dropped.append((WorkoutStore.routeType, entry.value.source.bundleID))
    }
    for (uuid, entry) in series where entry.value.end < floor {
      series[uuid] = nil
      dropped.append((WorkoutStore.heartbeatSeriesType, entry.value.source.bundleID))
    }
    return dropped
  }

  /// `HKWorkoutType` (code 70).
  package static let workoutType = SampleType.lookup(name: "workout")!
  /// `HKSeriesType.workoutRoute()` (code 75).
  package static let routeType = SampleType.lookup(name: "workoutRoute")!
  /// `HKSeriesType.heartbeat()` (code 76).
  package static let heartbeatSeriesType = SampleType.lookup(name: "heartbeatSeries")!
  /// `HKActivitySummaryType` (code 71, read-only).
  package static let activitySummaryType = SampleType.lookup(name: "activitySummary")!
}
