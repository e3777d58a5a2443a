import FoundationEssentials
import HealthModel

/// `DeviceState`: saving workouts, routes and heartbeat series, associating samples with workouts, deleting them
/// (workouts.md §1, §1.6, §1.7, §4).
extension DeviceState {
  /// Whether any store on this device knows the identifier (samples, correlations, workouts, and what waits for
  /// the unlock).
  func isKnownObject(_ uuid: UUID) -> Bool {
    store.isKnown(uuid) || correlationStore.isKnown(uuid) || workoutStore.isKnown(uuid) || specialObjects.isKnown(uuid)
      || (isLocked
        && (lockedJournal.contains { $0.uuid == uuid } || lockedWorkouts.contains { $0.uuid == uuid }
          || lockedRoutes.contains { $0.uuid == uuid }))
  }

  /// Refuses an identifier already stored, or repeated in `seen`.
  func requireNewIdentifier(_ uuid: UUID, _ seen: inout Set<UUID>) throws(HealthError) {
    guard !isKnownObject(uuid), seen.insert(uuid).inserted else {
      throw .healthKit(.errorInvalidArgument, "An object with UUID \(uuid) is already stored")
    }
  }

  /// Refuses an object ending before `earliestPermittedSampleDate()` on a device with a retention window (W6).
  func requireInsideRetention(_ uuid: UUID, end: Date, wall: Date) throws(HealthError) {
    guard policy.retention != nil else { return }
    let earliest = earliestPermittedSampleDate(wall: wall)
    guard end >= earliest else {
      throw .healthKit(
        .errorInvalidArgument,
        "Object \(uuid) ends at \(formatDate(end)), before earliestPermittedSampleDate \(formatDate(earliest)) on "
          + "the \(device)")
    }
  }

  /// Refuses saving while locked what HealthPair does not keep for the unlock (correlations, heartbeat series; L3,
  /// E31).
  func requireUnlockedForWorkouts(_ what: String) throws(HealthError) {
    guard !isLocked else {
      throw .healthKit(
        .errorDatabaseInaccessible,
        "Protected health data is inaccessible (the \(device) is locked): HealthPair does not keep \(what) saved "
          + "while locked")
    }
  }

  /// The live workout `uuid`, visible to the app (R1–R4 for the workout type), or `errorInvalidArgument`: a workout
  /// that was never saved, was deleted, or that the app cannot see (Apple does not document the code for an unsaved
  /// workout, workouts.md §4: HealthPair model).
  func requireSavedWorkout(_ bundleID: String, _ uuid: UUID, wall: Date, for what: String) throws(HealthError)
    -> Workout
  {
    guard let workout = workoutStore.workout(uuid), workout.end.timeIntervalSinceReferenceDate >= floor(wall: wall),
      visible(workout.source, visibility(bundleID, WorkoutStore.workoutType))
    else {
      throw .healthKit(.errorInvalidArgument, "\(what): the workout \(uuid) must already be saved")
    }
    return workout
  }

  /// `save(_:)` of an `HKWorkout` (a builder's `finishWorkout`, or a legacy initializer) and, from a workout
  /// builder's route series, its route: the workout is validated (``WorkoutInput/validated(source:)``), share
  /// permission is checked for `workout` (and `workoutRoute` with a route), identifiers must be new, every sample
  /// the workout names must be stored on this device, and the retention window applies; one commit stores the
  /// workout, then the route. While the device is locked they wait for the unlock instead (E31), and the samples the
  /// workout names may be waiting too: ``isWaitingForUnlock(_:)`` tells the caller that `finishWorkout()` hands
  /// back nil.
  /// - Throws: the validation errors; code 5 or 4 for share permission; `errorInvalidArgument` for a known
  ///   identifier, an associated sample not stored here, a route without locations, or an object before the
  ///   retention window.
  package mutating func saveWorkout(_ bundleID: String, _ input: WorkoutInput, route: RouteInput?, wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    _ = try installedAppRecord(bundleID)
    let source = SampleSource(bundleID: bundleID, device: device)
    let workout = try input.validated(source: source)
    let stored = try route?.validated(workout: workout.uuid, source: source)
    try requireShare(bundleID, WorkoutStore.workoutType, verb: "save")
    if stored != nil { try requireShare(bundleID, WorkoutStore.routeType, verb: "save") }
    var seen: Set<UUID> = []
    try requireNewIdentifier(workout.uuid, &seen)
    if let stored { try requireNewIdentifier(stored.uuid, &seen) }
    let waiting = isLocked ? Set(lockedJournal.map(\.uuid)) : []
    for uuid in workout.associated where store.liveSample(uuid) == nil && !waiting.contains(uuid) {
      throw .healthKit(.errorInvalidArgument, "The workout names sample \(uuid), which is not stored on the \(device)")
    }
    try requireInsideRetention(workout.uuid, end: workout.end, wall: wall)
    if let stored { try requireInsideRetention(stored.uuid, end: stored.end, wall: wall) }
    if isLocked {
      return commitEvents([.workoutsSavedWhileLocked(workouts: [workout], routes: stored.map { [$0] } ?? [])])
    }
    var events: [DeviceEvent] = [.workoutsSaved([workout])]
    if let stored { events.append(.routesSaved([stored])) }
    return commitEvents(events)
  }

  /// Whether a commit's events hold objects waiting for the unlock (a save on a locked device, L3, E31).
  package static func isWaitingForUnlock(_ events: [DeviceEvent]) -> Bool {
    events.contains {
      switch $0 {
      case .workoutsSavedWhileLocked, .samplesSavedWhileLocked: true
      default: false
      }
    }
  }

  /// `add(_:to:)` (`addSamples:toWorkout:`, deprecated in iOS 17): the workout must be saved, live and visible to
  /// the app (else `errorInvalidArgument`: Apple documents no code, HealthPair model); `new` samples are saved under
  /// ``save(_:_:wall:)``'s rules (validation, share permission, new identifiers, retention; sync identifiers are
  /// stored as given) and `existing` must be stored on this device; share permission for `workout` is needed to
  /// change the workout (HealthPair model). One commit saves the new samples and associates all of them; the
  /// workout's totals and duration do not change (workouts.md §1.7).
  package mutating func addSamples(
    _ bundleID: String, new: [SampleInput], existing: [UUID], to workoutID: UUID, wall: Date
  ) throws(HealthError) -> [DeviceEvent] {
    _ = try installedAppRecord(bundleID)
    guard !new.isEmpty || !existing.isEmpty else {
      throw .healthKit(.errorInvalidArgument, "Adding an empty array of samples to a workout fails")
    }
    let source = SampleSource(bundleID: bundleID, device: device)
    var samples: [Sample] = []
    for input in new { samples.append(try input.validated(source: source)) }
    try requireShare(bundleID, WorkoutStore.workoutType, verb: "save")
    var checked: Set<SampleType> = []
    for sample in samples where checked.insert(sample.type).inserted {
      try requireShare(bundleID, sample.type, verb: "save")
    }
    try requireProtectedData()
    _ = try requireSavedWorkout(bundleID, workoutID, wall: wall, for: "add(_:to:)")
    var seen: Set<UUID> = []
    for sample in samples {
      try requireNewIdentifier(sample.uuid, &seen)
      try requireInsideRetention(sample.uuid, end: sample.end, wall: wall)
    }
    for uuid in existing where store.liveSample(uuid) == nil {
      throw .healthKit(.errorInvalidArgument, "Sample \(uuid) is not stored on the \(device)")
    }
    var events: [DeviceEvent] = []
    if !samples.isEmpty { events.append(.samplesSaved(samples)) }
    var named: Set<UUID> = []
    let all = (samples.map(\.uuid) + existing).filter { named.insert($0).inserted }
    events.append(.workoutSamplesAssociated(workout: workoutID, samples: all))
    return commitEvents(events)
  }

  /// `HKWorkoutRouteBuilder.finishRoute(with:metadata:)`: the workout must already be saved (workouts.md §1.6; else
  /// `errorInvalidArgument`, HealthPair model) and the route is stored as belonging to it for ever; share
  /// permission for `workoutRoute`, a new identifier, at least one location, the retention window.
  package mutating func saveRoute(_ bundleID: String, _ route: RouteInput, workout workoutID: UUID, wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    _ = try installedAppRecord(bundleID)
    let stored = try route.validated(workout: workoutID, source: SampleSource(bundleID: bundleID, device: device))
    try requireShare(bundleID, WorkoutStore.routeType, verb: "save")
    try requireProtectedData()
    _ = try requireSavedWorkout(bundleID, workoutID, wall: wall, for: "finishRoute(with:metadata:)")
    var seen: Set<UUID> = []
    try requireNewIdentifier(stored.uuid, &seen)
    try requireInsideRetention(stored.uuid, end: stored.end, wall: wall)
    return commitEvents([.routesSaved([stored])])
  }

  /// `save(_:)` of an `HKHeartbeatSeriesSample` (`HKHeartbeatSeriesBuilder.finishSeries`): validated
  /// (``HeartbeatSeriesInput/validated(source:)``), share permission for `heartbeatSeries`, a new identifier, the
  /// retention window; `errorDatabaseInaccessible` while locked.
  package mutating func saveHeartbeatSeries(_ bundleID: String, _ input: HeartbeatSeriesInput, wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    _ = try installedAppRecord(bundleID)
    let series = try input.validated(source: SampleSource(bundleID: bundleID, device: device))
    try requireShare(bundleID, WorkoutStore.heartbeatSeriesType, verb: "save")
    var seen: Set<UUID> = []
    try requireNewIdentifier(series.uuid, &seen)
    try requireInsideRetention(series.uuid, end: series.end, wall: wall)
    try requireUnlockedForWorkouts("heartbeat series")
    return commitEvents([.heartbeatSeriesSaved([series])])
  }

  /// The tombstones for deleting the live workout, route, series, audiogram, State of Mind or vision prescription `uuid` on behalf of
  /// `bundleID`, or nil when `uuid` names none. Only the app's own objects inside the retention window (D6), with share
  /// permission for the
  /// object's type (D7). A workout's routes are deleted with it ("deleting a workout deletes its route", issue 32);
  /// its associated samples stay (Apple documents no cascade to samples: HealthPair model).
  func workoutTombstones(_ bundleID: String, _ uuid: UUID, at: Date, wall: Date) throws(HealthError) -> [Tombstone]? {
    let floor = floor(wall: wall)
    func owned(_ source: SampleSource, _ end: Date) throws(HealthError) {
      guard source.bundleID == bundleID, end.timeIntervalSinceReferenceDate >= floor else {
        throw .healthKit(.errorInvalidArgument, "Failed to find some objects for deletion")
      }
    }
    if let workout = workoutStore.workout(uuid) {
      try owned(workout.source, workout.end)
      try requireShare(bundleID, WorkoutStore.workoutType, verb: "delete")
      let tombstone = Tombstone(
        uuid: uuid, type: WorkoutStore.workoutType, source: workout.source, deletedAt: at, metadata: workout.metadata)
      return [tombstone]
        + workoutStore.routes(of: uuid).map {
          Tombstone(
            uuid: $0.uuid, type: WorkoutStore.routeType, source: $0.source, deletedAt: at, metadata: $0.metadata)
        }
    }
    /// The tombstone of the app's own object `uuid` of `type`, once it passes the ownership and share checks.
    func own(_ type: SampleType, _ source: SampleSource, _ end: Date, _ metadata: Metadata) throws(HealthError)
      -> [Tombstone]
    {
      try owned(source, end)
      try requireShare(bundleID, type, verb: "delete")
      return [Tombstone(uuid: uuid, type: type, source: source, deletedAt: at, metadata: metadata)]
    }
    if let route = workoutStore.routes[uuid]?.value {
      return try own(WorkoutStore.routeType, route.source, route.end, route.metadata)
    }
    if let audiogram = specialObjects.audiograms[uuid] {
      return try own(SpecialObjectStore.audiogramType, audiogram.source, audiogram.end, audiogram.metadata)
    }
    if let state = specialObjects.statesOfMind[uuid] {
      return try own(SpecialObjectStore.stateOfMindType, state.source, state.date, state.metadata)
    }
    if let document = specialObjects.cdaDocuments[uuid] {
      return try own(SpecialObjectStore.cdaType, document.source, document.end, document.metadata)
    }
    if let assessment = specialObjects.scoredAssessments[uuid] {
      return try own(assessment.objectType, assessment.source, assessment.date, assessment.metadata)
    }
    if let prescription = specialObjects.visionPrescriptions[uuid] {
      return try own(
        SpecialObjectStore.visionPrescriptionType, prescription.source, prescription.end, prescription.metadata)
    }
    if let series = workoutStore.series[uuid]?.value {
      return try own(WorkoutStore.heartbeatSeriesType, series.source, series.end, series.metadata)
    }
    return nil
  }

  /// The next change number (shared with the sample store, so anchors of every type count in one sequence).
  mutating func nextChange() -> UInt64 {
    store.advanceChangeCounter(to: store.changeCounter + 1)
    return store.changeCounter
  }

  // A save's checks make every insert below succeed; only a hostile journal names an object the store refuses (a
  // known identifier, a route of no live workout), and the sync log then leaves it out too.

  /// Applies ``DeviceEvent/workoutsSaved(_:)``: the workouts the store takes go to the sync log.
  mutating func applyWorkoutsSaved(_ workouts: [Workout]) {
    let taken = workouts.filter { !isKnownObject($0.uuid) && workoutStore.insert($0, change: nextChange()) }
    for workout in taken { noteChange(WorkoutStore.workoutType, workout.source.bundleID) }
    if !taken.isEmpty { sync.appendWorkouts(taken) }
  }

  /// Applies ``DeviceEvent/routesSaved(_:)``: the routes the store takes go to the sync log.
  mutating func applyRoutesSaved(_ routes: [WorkoutRoute]) {
    let taken = routes.filter { route in
      !isKnownObject(route.uuid) && workoutStore.workout(route.workout) != nil
        && workoutStore.insert(route, change: nextChange())
    }
    for route in taken { noteChange(WorkoutStore.routeType, route.source.bundleID) }
    if !taken.isEmpty { sync.appendRoutes(taken) }
  }

  /// Applies ``DeviceEvent/heartbeatSeriesSaved(_:)``: the series the store takes go to the sync log.
  mutating func applyHeartbeatSeriesSaved(_ series: [HeartbeatSeries]) {
    let taken = series.filter { !isKnownObject($0.uuid) && workoutStore.insert($0, change: nextChange()) }
    for item in taken { noteChange(WorkoutStore.heartbeatSeriesType, item.source.bundleID) }
    if !taken.isEmpty { sync.appendHeartbeatSeries(taken) }
  }

  /// Applies ``DeviceEvent/workoutObjectsDeleted(_:)``.
  mutating func applyWorkoutObjectsDeleted(_ tombstones: [Tombstone]) {
    for tombstone in tombstones {
      let special = specialObjects.remove(tombstone.uuid)
      if workoutStore.delete(tombstone, change: nextChange()) || special {
        noteChange(tombstone.type, tombstone.source.bundleID)
      }
    }
    sync.appendWorkoutDeletions(tombstones)
  }

  // Peer payloads are applied in log order (samples, then workouts, then routes), so a workout arrives after the
  // samples it names and a route after its workout. An identifier already known is left as it is (the first copy
  // wins, as for correlations); an object ending before the retention floor is left out (W7).

  /// Applies ``SyncPayload/workouts(_:)`` from the peer. A workout live here already (a re-send after a log
  /// restart) keeps its contents, but takes the samples the copy names that are not associated here yet: a restart
  /// drops the association entries the peer had not applied, and the re-sent workout carries them.
  mutating func applyPeerWorkouts(_ workouts: [Workout], floor: Date?) {
    for workout in workouts {
      if workoutStore.workout(workout.uuid) != nil {
        workoutStore.associate(workout.associated, with: workout.uuid)
        continue
      }
      guard !isKnownObject(workout.uuid) else { continue }
      if let floor, workout.end < floor { continue }
      workoutStore.insert(workout, change: nextChange())
      noteChange(WorkoutStore.workoutType, workout.source.bundleID)
    }
  }

  /// Applies ``SyncPayload/routes(_:)`` from the peer. A route whose workout is not live here (deleted, pruned,
  /// never received) is refused — dropped, the same way on every replay (HealthPair model: a route never exists
  /// without its workout, and a route belongs to one workout for ever, workouts.md §1.6).
  mutating func applyPeerRoutes(_ routes: [WorkoutRoute], floor: Date?) {
    for route in routes where !isKnownObject(route.uuid) && workoutStore.workout(route.workout) != nil {
      if let floor, route.end < floor { continue }
      workoutStore.insert(route, change: nextChange())
      noteChange(WorkoutStore.routeType, route.source.bundleID)
    }
  }

  /// Applies ``SyncPayload/heartbeatSeries(_:)`` from the peer.
  mutating func applyPeerHeartbeatSeries(_ series: [HeartbeatSeries], floor: Date?) {
    for item in series where !isKnownObject(item.uuid) {
      if let floor, item.end < floor { continue }
      workoutStore.insert(item, change: nextChange())
      noteChange(WorkoutStore.heartbeatSeriesType, item.source.bundleID)
    }
  }

  /// Applies ``SyncPayload/workoutDeletions(_:)`` from the peer (deletions already recorded change nothing). A
  /// deleted workout takes with it every route of it stored here, including routes saved here that the peer had not
  /// received when it deleted the workout (E9; a route never outlives its workout, E4): each gets a tombstone of
  /// the route type dated as the workout's, so anchored route queries here report it deleted.
  mutating func applyPeerWorkoutDeletions(_ tombstones: [Tombstone]) {
    for tombstone in tombstones where workoutStore.deleted[tombstone.uuid] == nil {
      let routes = tombstone.type == WorkoutStore.workoutType ? workoutStore.routes(of: tombstone.uuid) : []
      let special = specialObjects.remove(tombstone.uuid)
      if workoutStore.delete(tombstone, change: nextChange()) || special {
        noteChange(tombstone.type, tombstone.source.bundleID)
      }
      for route in routes where workoutStore.deleted[route.uuid] == nil {
        let routeTombstone = Tombstone(
          uuid: route.uuid, type: WorkoutStore.routeType, source: route.source, deletedAt: tombstone.deletedAt,
          metadata: route.metadata)
        if workoutStore.delete(routeTombstone, change: nextChange()) {
          noteChange(WorkoutStore.routeType, route.source.bundleID)
        }
      }
    }
  }

  /// Applies an association from the peer; one with a workout not live here is dropped.
  mutating func applyPeerAssociation(_ workout: UUID, _ samples: [UUID]) {
    workoutStore.associate(samples, with: workout)
  }

  /// Received workouts that change something here: unknown ones inside the floor, and live ones whose copy names
  /// samples not associated here (a re-send after a log restart, ``applyPeerWorkouts(_:floor:)``).
  func changingWorkouts(_ workouts: [Workout], floor: Date?) -> [Workout] {
    workouts.filter { workout in
      if let live = workoutStore.workout(workout.uuid) {
        return !Set(workout.associated).isSubset(of: live.associated)
      }
      return !isKnownObject(workout.uuid) && (floor.map { workout.end >= $0 } ?? true)
    }
  }

  /// Received items that change something here (see ``effective(_:floor:)``): identifiers not known here that end
  /// inside the floor.
  func unknownInside<T>(_ items: [T], floor: Date?, uuid: (T) -> UUID, end: (T) -> Date) -> [T] {
    items.filter { item in !isKnownObject(uuid(item)) && (floor.map { end(item) >= $0 } ?? true) }
  }
}
