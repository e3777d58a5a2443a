import FoundationEssentials
import HealthModel

/// `DeviceState`: activity summaries (`HKActivitySummaryQuery`, workouts.md §1.9) and the workout family of an
/// import.
extension DeviceState {
  /// `HKActivitySummaryQuery`: one summary per local day of this device's calendar (its time zone, K1) from `from`
  /// to `to` (inclusive; nil: unbounded), for the days that have data or an imported summary, day-ascending.
  ///
  /// HealthPair model (Activity computes the rings on the watch, undocumented; behavior.md E11): a day's rings are
  /// computed from the samples the watch recorded (saved on the watch; on the phone, their synced copies), never
  /// from samples saved on the phone or imported, each counted on the local day its start falls in: active energy
  /// burned summed (kcal), Apple exercise time and Apple move time summed (min), and Apple stand hour samples whose
  /// value is "stood" counted (hours). The goals are an imported summary's of that day, else
  /// ``ActivitySummary/modelGoals``. A summary an import stored for a day wins over computation.
  /// - Throws: code 5 when the app's read of `activitySummary` was never decided; `errorDatabaseInaccessible`
  ///   while locked. A denied read returns no summaries (R1: it looks like no data).
  package func activitySummaries(_ bundleID: String, from: LocalDay?, to: LocalDay?, wall: Date) throws(HealthError)
    -> [ActivitySummary]
  {
    _ = try installedAppRecord(bundleID)
    let type = WorkoutStore.activitySummaryType
    guard let decided = decision(bundleID, Permission(type, .read)) else {
      throw .healthKit(.errorAuthorizationNotDetermined, "Authorization not determined")
    }
    try requireProtectedData()
    guard decided == .authorized else { return [] }
    let calendar = policy.calendar
    func day(of date: Date) -> LocalDay {
      let local = calendar.local(date)
      return LocalDay(year: Int(local.year), month: Int(local.month), day: Int(local.day))
    }
    func inside(_ d: LocalDay) -> Bool { (from.map { d >= $0 } ?? true) && (to.map { d <= $0 } ?? true) }
    let range = DateRange(
      start: from.map { calendar.date(year: Int64($0.year), month: Int64($0.month), day: Int64($0.day)) },
      end: to.map {
        calendar.startOfNextDay(calendar.date(year: Int64($0.year), month: Int64($0.month), day: Int64($0.day)))
      }, options: .strictStartDate)
    var computed: [LocalDay: ActivitySummary] = [:]
    let names = ["activeEnergyBurned", "appleExerciseTime", "appleMoveTime", "appleStandHour"]
    let floor = floor(wall: wall)
    for (index, name) in names.enumerated() {
      guard let sampleType = SampleType.lookup(name: name) else { continue }
      store.scan(type: sampleType, range: range, floor: floor, visibility: .all) { slot in
        let source = store.source(ofSlot: slot)
        guard source.device == .watch, source.details == nil else { return }
        let sample = store.materialize(slot)
        let d = day(of: sample.start)
        guard inside(d) else { return }
        var summary = computed[d] ?? Self.modelSummary(d)
        switch (index, sample.value) {
        case (0, .quantity(let kcal)): summary.activeEnergy += kcal
        case (1, .quantity(let minutes)): summary.exerciseTime += minutes
        case (2, .quantity(let minutes)): summary.moveTime += minutes
        case (3, .category(0)): summary.standHours += 1
        default: break
        }
        computed[d] = summary
      }
    }
    for (d, imported) in workoutStore.summaries where inside(d) { computed[d] = imported }
    return computed.values.sorted { $0.day < $1.day }
  }

  /// An empty summary of `day` with the model goals.
  static func modelSummary(_ day: LocalDay) -> ActivitySummary {
    let goals = ActivitySummary.modelGoals
    return ActivitySummary(
      day: day, activeEnergyGoal: goals.activeEnergy, moveTimeGoal: goals.moveTime,
      exerciseTimeGoal: goals.exerciseTime, standHoursGoal: goals.standHours)
  }

  /// Stages the workouts, routes and activity summaries of an import, as ``stageImportCorrelations(_:_:)`` stages
  /// correlations: the samples the workouts name arrive in the import's batches; everything becomes visible at the
  /// commit (``commitImport(_:wall:characteristics:)``). Each workout must be valid as stored (dates, events,
  /// activities, statistics, metadata), each route must have locations in order and a workout staged or stored,
  /// each summary a real day and finite values.
  /// - Throws: a simulator error for identifier 0 or a locked device (L5); `errorInvalidArgument` for an object
  ///   that is not valid.
  package mutating func stageImportWorkouts(
    _ id: UInt64, workouts: [Workout], routes: [WorkoutRoute], summaries: [ActivitySummary]
  ) throws(HealthError) -> [DeviceEvent] {
    guard id != 0 else { throw .simulator("import identifier 0 is reserved") }
    guard !isLocked else {
      throw .simulator("the \(device) is locked: unlock it before the user can import an Apple Health export")
    }
    let staged = Set((stagedImports[id]?.workouts ?? []).map(\.uuid) + workouts.map(\.uuid))
    for workout in workouts {
      try Self.checkImportSource(workout.source)
      do throws(HealthError) {
        let input = WorkoutInput(
          uuid: workout.uuid, activityType: workout.activityType, start: workout.start, end: workout.end,
          duration: workout.duration, events: workout.events, activities: workout.activities,
          statistics: workout.statistics, metadata: workout.metadata, associated: workout.associated)
        let checked = try input.validated(source: workout.source)
        guard checked == workout else { throw HealthError.healthKit(.errorInvalidArgument, "not in stored form") }
      } catch {
        throw .healthKit(.errorInvalidArgument, "imported workout \(workout.uuid) is not valid: \(error.message)")
      }
    }
    for route in routes {
      try Self.checkImportSource(route.source)
      guard staged.contains(route.workout) || workoutStore.workout(route.workout) != nil else {
        throw .healthKit(
          .errorInvalidArgument, "imported route \(route.uuid) names workout \(route.workout), not imported")
      }
      do throws(HealthError) {
        let checked = try RouteInput(uuid: route.uuid, locations: route.locations, metadata: route.metadata)
          .validated(workout: route.workout, source: route.source)
        guard checked == route else { throw HealthError.healthKit(.errorInvalidArgument, "locations out of order") }
      } catch {
        throw .healthKit(.errorInvalidArgument, "imported route \(route.uuid) is not valid: \(error.message)")
      }
    }
    for summary in summaries { try summary.check() }
    return commitEvents([.importWorkoutsStaged(id: id, workouts: workouts, routes: routes, summaries: summaries)])
  }

  /// Applies the workout family of a committed import, after its samples and correlations: workouts and routes
  /// whose identifier any store here knows, or ending before the retention floor, are left out (so is a route whose
  /// workout was); summaries replace the stored summary of their day. Outbound sync carries the workouts and routes.
  mutating func applyImportedWorkouts(_ staged: StagedImport, floor: Date?) {
    var workouts: [Workout] = []
    for workout in staged.workouts where !isKnownObject(workout.uuid) {
      if let floor, workout.end < floor { continue }
      if workoutStore.insert(workout, change: nextChange()) {
        workouts.append(workout)
        noteChange(WorkoutStore.workoutType, workout.source.bundleID)
      }
    }
    if !workouts.isEmpty { sync.appendWorkouts(workouts) }
    var routes: [WorkoutRoute] = []
    for route in staged.routes where !isKnownObject(route.uuid) && workoutStore.workout(route.workout) != nil {
      if let floor, route.end < floor { continue }
      if workoutStore.insert(route, change: nextChange()) {
        routes.append(route)
        noteChange(WorkoutStore.routeType, route.source.bundleID)
      }
    }
    if !routes.isEmpty { sync.appendRoutes(routes) }
    for summary in staged.summaries { workoutStore.put(summary) }
  }
}
