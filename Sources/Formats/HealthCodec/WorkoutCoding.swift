import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encodings of the workout family — workouts (events, activities, configurations, statistics), routes,
// heartbeat series, activity summaries — shared by the wire protocol, the journal and snapshots (docs/journal.md,
// "Workouts"). Each reader checks what it reads as the engine's validation does, so a journal, a snapshot or the
// peer link can never hand the engine a workout an app could not have saved.
//
// workout    := uuid | activityType u64 | start date | end date | duration f64 | [event] | [activity]
//               | [statistic] | metadata | source | associated [uuid]
// event      := u8 type | start date | end date | metadata
// activity   := uuid | configuration | start date | end date? | metadata | [statistic]
// configuration := activityType u64 | u8 location | u8 swimming location | lapLength f64?
// statistic  := type u16 | start date | end date | sum f64? | minimum f64? | maximum f64? | average f64?
//               | mostRecent f64?
// route      := uuid | workout uuid | [location] | metadata | source
// location   := timestamp date | latitude | longitude | altitude | horizontal accuracy | vertical accuracy | speed
//               | speed accuracy | course | course accuracy (f64 each)
// heartbeat-series := uuid | start date | end date | [offset f64 | precededByGap bool] | metadata | source
// activity-summary := year i64 | month u8 | day u8 | u8 move mode | active energy, goal | move time, goal
//               | exercise time, goal | stand hours, goal (f64 each) | isPaused bool

extension BinaryWriter {
  /// A workout statistic (as inside a workout).
  package mutating func workoutStatistic(_ s: WorkoutStatistic) {
    sampleType(s.type)
    date(s.start)
    date(s.end)
    optional(s.sum) { $0.f64($1) }
    optional(s.minimum) { $0.f64($1) }
    optional(s.maximum) { $0.f64($1) }
    optional(s.average) { $0.f64($1) }
    optional(s.mostRecent) { $0.f64($1) }
  }

  mutating func workoutConfiguration(_ c: WorkoutConfiguration) {
    u64(UInt64(c.activityType.rawValue))
    u8(UInt8(c.location.rawValue))
    u8(UInt8(c.swimmingLocation.rawValue))
    optional(c.lapLength) { $0.f64($1) }
  }

  /// A workout (layout above).
  package mutating func workout(_ w: Workout) {
    uuid(w.uuid)
    u64(UInt64(w.activityType.rawValue))
    date(w.start)
    date(w.end)
    f64(w.duration)
    array(w.events) { $0.workoutEvent($1) }
    array(w.activities) { $0.workoutActivity($1) }
    array(w.statistics) { $0.workoutStatistic($1) }
    metadata(w.metadata)
    source(w.source)
    uuids(w.associated)
  }

  /// A route (layout above).
  package mutating func workoutRoute(_ r: WorkoutRoute) {
    uuid(r.uuid)
    uuid(r.workout)
    routeLocations(r.locations)
    metadata(r.metadata)
    source(r.source)
  }

  /// A heartbeat series (layout above).
  package mutating func heartbeatSeries(_ s: HeartbeatSeries) {
    uuid(s.uuid)
    date(s.start)
    date(s.end)
    array(s.beats) { w, beat in
      w.f64(beat.offset)
      w.bool(beat.precededByGap)
    }
    metadata(s.metadata)
    source(s.source)
  }

  /// An activity summary (layout above).
  package mutating func activitySummary(_ s: ActivitySummary) {
    i64(Int64(s.day.year))
    u8(UInt8(clamping: s.day.month))
    u8(UInt8(clamping: s.day.day))
    u8(UInt8(s.moveMode.rawValue))
    for value in [
      s.activeEnergy, s.activeEnergyGoal, s.moveTime, s.moveTimeGoal, s.exerciseTime, s.exerciseTimeGoal,
      s.standHours, s.standHoursGoal,
    ] { f64(value) }
    bool(s.isPaused)
  }
}

extension BinaryReader {
  mutating func activityType() throws(DecodeError) -> WorkoutActivityType {
    let raw = try u64()
    guard raw <= UInt64(UInt.max) else { throw error("activity type \(raw) out of range") }
    return WorkoutActivityType(rawValue: UInt(raw))
  }

  /// A workout statistic (as inside a workout).
  package mutating func workoutStatistic() throws(DecodeError) -> WorkoutStatistic {
    let type = try sampleType()
    let start = try finiteDate("statistics start date")
    let end = try finiteDate("statistics end date")
    func value() throws(DecodeError) -> Double? {
      try optional { r throws(DecodeError) in try r.finiteF64("statistic") }
    }
    let sum = try value()
    let minimum = try value()
    let maximum = try value()
    let average = try value()
    return WorkoutStatistic(
      type: type, start: start, end: end, sum: sum, minimum: minimum, maximum: maximum, average: average,
      mostRecent: try value())
  }

  mutating func workoutConfiguration() throws(DecodeError) -> WorkoutConfiguration {
    let type = try activityType()
    let rawLocation = try u8()
    guard let location = WorkoutLocationType(rawValue: Int(rawLocation)) else {
      throw error("unknown workout location type \(rawLocation)")
    }
    let rawSwimming = try u8()
    guard let swimming = SwimmingLocationType(rawValue: Int(rawSwimming)) else {
      throw error("unknown swimming location type \(rawSwimming)")
    }
    let lap = try optional { r throws(DecodeError) in try r.finiteF64("lap length") }
    return WorkoutConfiguration(activityType: type, location: location, swimmingLocation: swimming, lapLength: lap)
  }

  /// Reads a workout and checks it as ``WorkoutInput/validated(source:)`` leaves one (events sorted, activities
  /// present and in order, statistics of quantity types, finite values).
  package mutating func workout() throws(DecodeError) -> Workout {
    let start = offset
    let id = try uuid()
    let type = try activityType()
    let startDate = try finiteDate("workout start date")
    let endDate = try finiteDate("workout end date")
    let duration = try finiteF64("workout duration")
    let events = try array(minElementSize: 18) { r throws(DecodeError) in try r.workoutEvent() }
    let activities = try array(minElementSize: 42) { r throws(DecodeError) in try r.workoutActivity() }
    let statistics = try array(minElementSize: 23) { r throws(DecodeError) in try r.workoutStatistic() }
    let metadata = try metadata(finite: true)
    let source = try source()
    let associated = try array(minElementSize: 16) { r throws(DecodeError) in try r.uuid() }
    let workout = Workout(
      uuid: id, activityType: type, start: startDate, end: endDate, duration: duration, events: events,
      activities: activities, statistics: statistics, metadata: metadata, source: source, associated: associated)
    let input = WorkoutInput(
      uuid: id, activityType: type, start: startDate, end: endDate, duration: duration, events: events,
      activities: activities, statistics: statistics, metadata: metadata, associated: associated)
    do {
      guard try input.validated(source: source) == workout, !activities.isEmpty else {
        throw DecodeError(offset: reportBase + start, "workout \(id) is not in stored form")
      }
    } catch let error as DecodeError {
      throw error
    } catch {
      throw DecodeError(offset: reportBase + start, "workout \(id) is not valid: \(error)")
    }
    return workout
  }

  /// Reads a route: at least one fix, in timestamp order, each valid.
  package mutating func workoutRoute() throws(DecodeError) -> WorkoutRoute {
    let start = offset
    let id = try uuid()
    let workout = try uuid()
    let locations = try array(minElementSize: 80) { r throws(DecodeError) -> RouteLocation in
      let timestamp = try r.finiteDate("location timestamp")
      let latitude = try r.finiteF64("location value")
      let longitude = try r.finiteF64("location value")
      let altitude = try r.finiteF64("location value")
      let horizontal = try r.finiteF64("location value")
      let vertical = try r.finiteF64("location value")
      let speed = try r.finiteF64("location value")
      let speedAccuracy = try r.finiteF64("location value")
      let course = try r.finiteF64("location value")
      return RouteLocation(
        timestamp: timestamp, latitude: latitude, longitude: longitude, altitude: altitude,
        horizontalAccuracy: horizontal, verticalAccuracy: vertical, speed: speed, speedAccuracy: speedAccuracy,
        course: course, courseAccuracy: try r.finiteF64("location value"))
    }
    let metadata = try metadata(finite: true)
    let source = try source()
    let route = WorkoutRoute(uuid: id, workout: workout, locations: locations, metadata: metadata, source: source)
    guard
      (try? RouteInput(uuid: id, locations: locations, metadata: metadata).validated(workout: workout, source: source))
        == route
    else { throw DecodeError(offset: reportBase + start, "route \(id) is not a valid route in timestamp order") }
    return route
  }

  /// Reads a heartbeat series: dates in order, beats ascending within the series.
  package mutating func heartbeatSeries() throws(DecodeError) -> HeartbeatSeries {
    let start = offset
    let id = try uuid()
    let startDate = try finiteDate("series start date")
    let endDate = try finiteDate("series end date")
    let beats = try array(minElementSize: 9) { r throws(DecodeError) -> Heartbeat in
      let offset = try r.finiteF64("beat offset")
      return Heartbeat(offset: offset, precededByGap: try r.bool())
    }
    let metadata = try metadata(finite: true)
    let source = try source()
    let input = HeartbeatSeriesInput(uuid: id, start: startDate, end: endDate, beats: beats, metadata: metadata)
    guard let series = try? input.validated(source: source) else {
      throw DecodeError(offset: reportBase + start, "heartbeat series \(id) is not valid")
    }
    return series
  }

  /// Reads an activity summary: a real day, a known move mode, finite values not below 0.
  package mutating func activitySummary() throws(DecodeError) -> ActivitySummary {
    let start = offset
    let year = try i64()
    guard abs(year) <= 1_000_000 else { throw error("activity summary year \(year) out of range") }
    let month = Int(try u8())
    let day = Int(try u8())
    let rawMode = try u8()
    guard let mode = ActivityMoveMode(rawValue: Int(rawMode)) else { throw error("unknown move mode \(rawMode)") }
    var v: [Double] = []
    for _ in 0..<8 { v.append(try f64()) }
    let summary = ActivitySummary(
      day: LocalDay(year: Int(year), month: month, day: day), moveMode: mode, activeEnergy: v[0],
      activeEnergyGoal: v[1], moveTime: v[2], moveTimeGoal: v[3], exerciseTime: v[4], exerciseTimeGoal: v[5],
      standHours: v[6], standHoursGoal: v[7], isPaused: try bool())
    guard (try? summary.check()) != nil else {
      throw DecodeError(offset: reportBase + start, "activity summary of \(summary.day) is not valid")
    }
    return summary
  }
}

extension Fields {
  /// `[workout]`.
  static let workouts = RecordField<[Workout]>(
    write: { w, workouts in w.array(workouts) { $0.workout($1) } },
    read: { r throws(DecodeError) in try r.array(minElementSize: 76) { r throws(DecodeError) in try r.workout() } })
  /// `[route]`.
  static let routes = RecordField<[WorkoutRoute]>(
    write: { w, routes in w.array(routes) { $0.workoutRoute($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: 44) { r throws(DecodeError) in try r.workoutRoute() }
    })
  /// `[heartbeat-series]`.
  static let heartbeatSeries = RecordField<[HeartbeatSeries]>(
    write: { w, series in w.array(series) { $0.heartbeatSeries($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: 44) { r throws(DecodeError) in try r.heartbeatSeries() }
    })
  /// `[activity-summary]`.
  static let activitySummaries = RecordField<[ActivitySummary]>(
    write: { w, summaries in w.array(summaries) { $0.activitySummary($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: 76) { r throws(DecodeError) in try r.activitySummary() }
    })
  /// A workout's identifier.
  static let uuid = RecordField<UUID>(write: { $0.uuid($1) }, read: { r throws(DecodeError) in try r.uuid() })
  /// `[uuid]`, each once.
  static let uuids = RecordField<[UUID]>(
    write: { w, uuids in w.array(uuids) { $0.uuid($1) } },
    read: { r throws(DecodeError) in
      let uuids = try r.array(minElementSize: 16) { r throws(DecodeError) in try r.uuid() }
      guard Set(uuids).count == uuids.count else { throw r.error("an identifier is listed twice") }
      return uuids
    })
  /// `[route] | [activity-summary]`: what an import stages beside its workouts.
  static let importedRoutesAndSummaries = RecordField<([WorkoutRoute], [ActivitySummary])>(
    write: { w, value in
      routes.write(&w, value.0)
      activitySummaries.write(&w, value.1)
    },
    read: { r throws(DecodeError) in
      let routes = try routes.read(&r)
      return (routes, try activitySummaries.read(&r))
    })
}

extension BinaryWriter {
  /// A snapshot's workout section: `live [workout, change u64] | routes [route, change u64] | series
  /// [heartbeat-series, change u64] | summaries [activity-summary] | deleted [tombstone, change u64]`, each list
  /// in change order (summaries by day), so equal stores encode to equal bytes.
  mutating func workoutStore(_ store: WorkoutStore) {
    array(store.orderedWorkouts) { w, entry in
      w.workout(entry.value)
      w.u64(entry.change)
    }
    array(store.orderedRoutes) { w, entry in
      w.workoutRoute(entry.value)
      w.u64(entry.change)
    }
    array(store.orderedSeries) { w, entry in
      w.heartbeatSeries(entry.value)
      w.u64(entry.change)
    }
    array(store.orderedSummaries) { $0.activitySummary($1) }
    array(store.orderedDeletions) { w, entry in
      w.tombstone(entry.value)
      w.u64(entry.change)
    }
  }
}

extension BinaryReader {
  /// Reads a snapshot's workout section (``BinaryWriter/workoutStore(_:)``) and restores the store.
  /// - Throws: ``DecodeError`` for malformed bytes or contents the store's restoring initializer refuses.
  mutating func workoutStore(changeCounter: UInt64) throws(DecodeError) -> WorkoutStore {
    let workouts = try array(minElementSize: 84) { r throws(DecodeError) in
      WorkoutStore.Entry(try r.workout(), change: try r.u64())
    }
    let routes = try array(minElementSize: 52) { r throws(DecodeError) in
      WorkoutStore.Entry(try r.workoutRoute(), change: try r.u64())
    }
    let series = try array(minElementSize: 52) { r throws(DecodeError) in
      WorkoutStore.Entry(try r.heartbeatSeries(), change: try r.u64())
    }
    let summaries = try array(minElementSize: 76) { r throws(DecodeError) in try r.activitySummary() }
    let deleted = try array(minElementSize: 39) { r throws(DecodeError) in
      WorkoutStore.Entry(try r.tombstone(), change: try r.u64())
    }
    do {
      return try WorkoutStore(
        restoring: workouts, routes: routes, series: series, summaries: summaries, deleted: deleted,
        changeCounter: changeCounter)
    } catch { throw self.error(error.message) }
  }
}
