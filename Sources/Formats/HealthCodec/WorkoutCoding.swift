import FoundationEssentials
import HealthModel

// Binary encodings of the workout family's values — workouts and what they are made of (events, activities,
// configurations, statistics), routes and their locations, heartbeat series, activity summaries and local days —
// shared by the wire protocol, the journal and snapshots (docs/protocol.md lists the layouts). Stored values
// (`workout`, `workoutRoute`, `heartbeatSeries`, `activitySummary`) are read finite, like `sample`; what an app
// sends (`workoutInput`, the locations and beats it hands over) is read as sent and checked by the engine, like
// `sampleInput`.

extension BinaryWriter {
  /// year `i32` (as `u32`) | month `u8` | day `u8`.
  package mutating func localDay(_ d: LocalDay) {
    u32(UInt32(bitPattern: Int32(clamping: d.year)))
    u8(UInt8(clamping: d.month))
    u8(UInt8(clamping: d.day))
  }
  /// activity type `u32` (Apple's raw value) | location `u8` | swimming location `u8` | lap length `f64?` (metres).
  package mutating func workoutConfiguration(_ c: WorkoutConfiguration) {
    u32(UInt32(clamping: c.activityType.rawValue))
    u8(UInt8(c.location.rawValue))
    u8(UInt8(c.swimmingLocation.rawValue))
    optional(c.lapLength) { $0.f64($1) }
  }
  /// type | start | end | sum `f64?` | minimum `f64?` | maximum `f64?` | average `f64?` | mostRecent `f64?`
  /// (canonical units).
  package mutating func workoutStatistic(_ s: WorkoutStatistic) {
    sampleType(s.type)
    date(s.start)
    date(s.end)
    for value in [s.sum, s.minimum, s.maximum, s.average, s.mostRecent] { optional(value) { $0.f64($1) } }
  }
  /// `u8` HKWorkoutEventType raw value | start | end | metadata.
  package mutating func workoutEvent(_ e: WorkoutEvent) {
    u8(UInt8(e.type.rawValue))
    date(e.start)
    date(e.end)
    metadata(e.metadata)
  }
  /// uuid | configuration | start | end `date?` (absent: still open) | metadata | [statistic].
  package mutating func workoutActivity(_ a: WorkoutActivity) {
    uuid(a.uuid)
    workoutConfiguration(a.configuration)
    date(a.start)
    optional(a.end) { $0.date($1) }
    metadata(a.metadata)
    array(a.statistics) { $0.workoutStatistic($1) }
  }
  /// uuid | activity type `u32` | start | end | duration `f64?` | [event] | [activity] | [statistic] | metadata
  /// | associated [uuid].
  package mutating func workoutInput(_ w: WorkoutInput) {
    uuid(w.uuid)
    u32(UInt32(clamping: w.activityType.rawValue))
    date(w.start)
    date(w.end)
    optional(w.duration) { $0.f64($1) }
    array(w.events) { $0.workoutEvent($1) }
    array(w.activities) { $0.workoutActivity($1) }
    array(w.statistics) { $0.workoutStatistic($1) }
    metadata(w.metadata)
    array(w.associated) { $0.uuid($1) }
  }
  /// uuid | activity type `u32` | start | end | duration `f64` | [event] | [activity] | [statistic] | metadata
  /// | source | associated [uuid].
  package mutating func workout(_ w: Workout) {
    uuid(w.uuid)
    u32(UInt32(clamping: w.activityType.rawValue))
    date(w.start)
    date(w.end)
    f64(w.duration)
    array(w.events) { $0.workoutEvent($1) }
    array(w.activities) { $0.workoutActivity($1) }
    array(w.statistics) { $0.workoutStatistic($1) }
    metadata(w.metadata)
    source(w.source)
    array(w.associated) { $0.uuid($1) }
  }
  /// timestamp | latitude | longitude | altitude | horizontal accuracy | vertical accuracy | speed | speed accuracy
  /// | course | course accuracy (nine `f64`s: 80 bytes in all).
  package mutating func routeLocation(_ l: RouteLocation) {
    date(l.timestamp)
    for value in [
      l.latitude, l.longitude, l.altitude, l.horizontalAccuracy, l.verticalAccuracy, l.speed, l.speedAccuracy,
      l.course, l.courseAccuracy,
    ] { f64(value) }
  }
  /// uuid | workout uuid | [location] | metadata | source (start and end are the first and last fix's).
  package mutating func workoutRoute(_ r: WorkoutRoute) {
    uuid(r.uuid)
    uuid(r.workout)
    array(r.locations) { $0.routeLocation($1) }
    metadata(r.metadata)
    source(r.source)
  }
  /// uuid | [location] (as inserted) | metadata.
  package mutating func routeInput(_ r: RouteInput) {
    uuid(r.uuid)
    array(r.locations) { $0.routeLocation($1) }
    metadata(r.metadata)
  }
  /// offset `f64` (seconds since the series' start) | precededByGap bool.
  package mutating func heartbeat(_ b: Heartbeat) {
    f64(b.offset)
    bool(b.precededByGap)
  }
  /// uuid | start | end | [heartbeat] | metadata | source.
  package mutating func heartbeatSeries(_ s: HeartbeatSeries) {
    uuid(s.uuid)
    date(s.start)
    date(s.end)
    array(s.beats) { $0.heartbeat($1) }
    metadata(s.metadata)
    source(s.source)
  }
  /// uuid | start | end | [heartbeat] (as added) | metadata.
  package mutating func heartbeatSeriesInput(_ s: HeartbeatSeriesInput) {
    uuid(s.uuid)
    date(s.start)
    date(s.end)
    array(s.beats) { $0.heartbeat($1) }
    metadata(s.metadata)
  }
  /// day | move mode `u8` (HKActivityMoveMode) | active energy | its goal | move time | its goal | exercise time
  /// | its goal | stand hours | their goal (eight `f64`s) | isPaused bool.
  package mutating func activitySummary(_ s: ActivitySummary) {
    localDay(s.day)
    u8(UInt8(s.moveMode.rawValue))
    for value in [
      s.activeEnergy, s.activeEnergyGoal, s.moveTime, s.moveTimeGoal, s.exerciseTime, s.exerciseTimeGoal,
      s.standHours, s.standHoursGoal,
    ] { f64(value) }
    bool(s.isPaused)
  }
}

/// The fewest bytes each encoded workout value takes (bounds for an array's claimed count).
package enum WorkoutCodingSize {
  /// A local day.
  package static let localDay = 6
  /// A configuration without a lap length.
  package static let configuration = 7
  /// A statistic with no values.
  package static let statistic = 23
  /// An event without metadata.
  package static let event = 21
  /// An activity with nothing optional.
  package static let activity = 16 + configuration + 8 + 1 + 4 + 4
  /// A workout input with nothing in its lists.
  package static let workoutInput = 16 + 4 + 16 + 1 + 4 * 5
  /// A stored workout with nothing in its lists and the shortest source.
  package static let workout = 16 + 4 + 16 + 8 + 4 * 5 + 5
  /// A location.
  package static let location = 80
  /// A route without locations or metadata, from the shortest source.
  package static let route = 32 + 4 + 4 + 5
  /// A route input without locations or metadata.
  package static let routeInput = 16 + 4 + 4
  /// A beat.
  package static let heartbeat = 9
  /// A heartbeat series input without beats or metadata.
  package static let heartbeatSeriesInput = 16 + 16 + 4 + 4
  /// A heartbeat series without beats or metadata, from the shortest source.
  package static let heartbeatSeries = 32 + 4 + 4 + 5
  /// An activity summary.
  package static let activitySummary = localDay + 1 + 64 + 1
}

extension BinaryReader {
  /// Reads a local day: a real Gregorian date (month 1–12, a day the month has).
  package mutating func localDay() throws(DecodeError) -> LocalDay {
    let start = offset
    let year = Int(Int32(bitPattern: try u32()))
    let month = Int(try u8())
    let day = Int(try u8())
    guard (1...12).contains(month), day >= 1, day <= Self.days(inMonth: month, of: year) else {
      throw DecodeError(offset: reportBase + start, "\(year)-\(month)-\(day) is not a calendar day")
    }
    return LocalDay(year: year, month: month, day: day)
  }
  /// The days of `month` (1–12) of the Gregorian `year`.
  private static func days(inMonth month: Int, of year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }
  /// Reads an `f64` that must be finite when `finite` is set (stored values), as sent otherwise (an app's input).
  private mutating func number(_ what: String, finite: Bool) throws(DecodeError) -> Double {
    finite ? try finiteF64(what) : try f64()
  }
  /// Reads a date, finite when `finite` is set.
  private mutating func instant(_ what: String, finite: Bool) throws(DecodeError) -> Date {
    finite ? try finiteDate(what) : try date()
  }
  /// Reads a configuration; its location and swimming location must be known raw values.
  package mutating func workoutConfiguration(finite: Bool = true) throws(DecodeError) -> WorkoutConfiguration {
    let activityType = WorkoutActivityType(rawValue: UInt(try u32()))
    let rawLocation = try u8()
    guard let location = WorkoutLocationType(rawValue: Int(rawLocation)) else {
      throw error("unknown workout location type \(rawLocation)")
    }
    let rawSwimming = try u8()
    guard let swimming = SwimmingLocationType(rawValue: Int(rawSwimming)) else {
      throw error("unknown swimming location type \(rawSwimming)")
    }
    let lap = try optional { r throws(DecodeError) in try r.number("lap length", finite: finite) }
    return WorkoutConfiguration(
      activityType: activityType, location: location, swimmingLocation: swimming, lapLength: lap)
  }
  /// Reads a workout statistic.
  package mutating func workoutStatistic(finite: Bool = true) throws(DecodeError) -> WorkoutStatistic {
    let type = try sampleType()
    let start = try instant("statistics start date", finite: finite)
    let end = try instant("statistics end date", finite: finite)
    var values: [Double?] = []
    for name in ["sum", "minimum", "maximum", "average", "most recent value"] {
      values.append(try optional { r throws(DecodeError) in try r.number("statistics \(name)", finite: finite) })
    }
    return WorkoutStatistic(
      type: type, start: start, end: end, sum: values[0], minimum: values[1], maximum: values[2],
      average: values[3], mostRecent: values[4])
  }
  /// Reads a workout event; its type must be a known HKWorkoutEventType raw value.
  package mutating func workoutEvent(finite: Bool = true) throws(DecodeError) -> WorkoutEvent {
    let raw = try u8()
    guard let type = WorkoutEventType(rawValue: Int(raw)) else { throw error("unknown workout event type \(raw)") }
    let start = try instant("event start date", finite: finite)
    let end = try instant("event end date", finite: finite)
    return WorkoutEvent(type: type, start: start, end: end, metadata: try metadata(finite: finite))
  }
  /// Reads a workout activity.
  package mutating func workoutActivity(finite: Bool = true) throws(DecodeError) -> WorkoutActivity {
    let id = try uuid()
    let configuration = try workoutConfiguration(finite: finite)
    let start = try instant("activity start date", finite: finite)
    let end = try optional { r throws(DecodeError) in try r.instant("activity end date", finite: finite) }
    let metadata = try metadata(finite: finite)
    let statistics = try array(minElementSize: WorkoutCodingSize.statistic) { r throws(DecodeError) in
      try r.workoutStatistic(finite: finite)
    }
    return WorkoutActivity(
      uuid: id, configuration: configuration, start: start, end: end, metadata: metadata, statistics: statistics)
  }
  /// The lists a workout and a workout input share, in wire order.
  private mutating func workoutParts(finite: Bool) throws(DecodeError) -> (
    events: [WorkoutEvent], activities: [WorkoutActivity], statistics: [WorkoutStatistic], metadata: Metadata
  ) {
    let events = try array(minElementSize: WorkoutCodingSize.event) { r throws(DecodeError) in
      try r.workoutEvent(finite: finite)
    }
    let activities = try array(minElementSize: WorkoutCodingSize.activity) { r throws(DecodeError) in
      try r.workoutActivity(finite: finite)
    }
    let statistics = try array(minElementSize: WorkoutCodingSize.statistic) { r throws(DecodeError) in
      try r.workoutStatistic(finite: finite)
    }
    return (events, activities, statistics, try metadata(finite: finite))
  }
  /// Reads a workout as an app sends it (numbers as sent: the engine's save checks them).
  package mutating func workoutInput() throws(DecodeError) -> WorkoutInput {
    let id = try uuid()
    let activityType = WorkoutActivityType(rawValue: UInt(try u32()))
    let start = try date()
    let end = try date()
    let duration = try optional { r throws(DecodeError) in try r.f64() }
    let parts = try workoutParts(finite: false)
    let associated = try array(minElementSize: 16) { r throws(DecodeError) in try r.uuid() }
    return WorkoutInput(
      uuid: id, activityType: activityType, start: start, end: end, duration: duration, events: parts.events,
      activities: parts.activities, statistics: parts.statistics, metadata: parts.metadata, associated: associated)
  }
  /// Reads a stored workout: every number finite, its start not after its end, each associated sample once.
  package mutating func workout() throws(DecodeError) -> Workout {
    let id = try uuid()
    let activityType = WorkoutActivityType(rawValue: UInt(try u32()))
    let start = try finiteDate("start date")
    let end = try finiteDate("end date")
    guard start <= end else { throw error("workout \(id) ends before it starts") }
    let duration = try finiteF64("duration")
    let parts = try workoutParts(finite: true)
    let source = try source()
    let associated = try array(minElementSize: 16) { r throws(DecodeError) in try r.uuid() }
    guard Set(associated).count == associated.count else {
      throw error("workout \(id) associates a sample twice")
    }
    return Workout(
      uuid: id, activityType: activityType, start: start, end: end, duration: duration, events: parts.events,
      activities: parts.activities, statistics: parts.statistics, metadata: parts.metadata, source: source,
      associated: associated)
  }
  /// Reads a location fix; `finite` as for the stored values.
  package mutating func routeLocation(finite: Bool = true) throws(DecodeError) -> RouteLocation {
    let timestamp = try instant("location timestamp", finite: finite)
    var v: [Double] = []
    v.reserveCapacity(9)
    for _ in 0..<9 { v.append(try number("location value", finite: finite)) }
    return RouteLocation(
      timestamp: timestamp, latitude: v[0], longitude: v[1], altitude: v[2], horizontalAccuracy: v[3],
      verticalAccuracy: v[4], speed: v[5], speedAccuracy: v[6], course: v[7], courseAccuracy: v[8])
  }
  /// Reads locations an app sends (as sent).
  package mutating func routeLocations(finite: Bool) throws(DecodeError) -> [RouteLocation] {
    try array(minElementSize: WorkoutCodingSize.location) { r throws(DecodeError) in
      try r.routeLocation(finite: finite)
    }
  }
  /// Reads a stored route: finite fixes in timestamp order.
  package mutating func workoutRoute() throws(DecodeError) -> WorkoutRoute {
    let id = try uuid()
    let workout = try uuid()
    let locations = try routeLocations(finite: true)
    for (a, b) in zip(locations, locations.dropFirst()) where b.timestamp < a.timestamp {
      throw error("route \(id) has a location before the one it follows")
    }
    let metadata = try metadata(finite: true)
    return WorkoutRoute(uuid: id, workout: workout, locations: locations, metadata: metadata, source: try source())
  }
  /// Reads a route as an app sends it (as sent: the engine sorts and checks it).
  package mutating func routeInput() throws(DecodeError) -> RouteInput {
    RouteInput(uuid: try uuid(), locations: try routeLocations(finite: false), metadata: try metadata())
  }
  /// Reads a beat; `finite` as for the stored values.
  package mutating func heartbeat(finite: Bool = true) throws(DecodeError) -> Heartbeat {
    Heartbeat(offset: try number("beat offset", finite: finite), precededByGap: try bool())
  }
  /// Reads beats an app sends (as sent).
  package mutating func heartbeats(finite: Bool) throws(DecodeError) -> [Heartbeat] {
    try array(minElementSize: WorkoutCodingSize.heartbeat) { r throws(DecodeError) in try r.heartbeat(finite: finite) }
  }
  /// Reads a stored heartbeat series: finite, its start not after its end, its beats in offset order.
  package mutating func heartbeatSeries() throws(DecodeError) -> HeartbeatSeries {
    let id = try uuid()
    let start = try finiteDate("start date")
    let end = try finiteDate("end date")
    guard start <= end else { throw error("heartbeat series \(id) ends before it starts") }
    let beats = try heartbeats(finite: true)
    for (a, b) in zip(beats, beats.dropFirst()) where b.offset < a.offset {
      throw error("heartbeat series \(id) has a beat before the one it follows")
    }
    let metadata = try metadata(finite: true)
    return HeartbeatSeries(uuid: id, start: start, end: end, beats: beats, metadata: metadata, source: try source())
  }
  /// Reads a heartbeat series as an app sends it (as sent: the engine checks it).
  package mutating func heartbeatSeriesInput() throws(DecodeError) -> HeartbeatSeriesInput {
    HeartbeatSeriesInput(
      uuid: try uuid(), start: try date(), end: try date(), beats: try heartbeats(finite: false),
      metadata: try metadata())
  }
  /// Reads an activity summary: a calendar day, a known move mode, finite values.
  package mutating func activitySummary() throws(DecodeError) -> ActivitySummary {
    let day = try localDay()
    let raw = try u8()
    guard let mode = ActivityMoveMode(rawValue: Int(raw)) else { throw error("unknown move mode \(raw)") }
    var v: [Double] = []
    for name in [
      "active energy", "active energy goal", "move time", "move time goal", "exercise time", "exercise goal",
      "stand hours", "stand goal",
    ] { v.append(try finiteF64(name)) }
    return ActivitySummary(
      day: day, moveMode: mode, activeEnergy: v[0], activeEnergyGoal: v[1], moveTime: v[2], moveTimeGoal: v[3],
      exerciseTime: v[4], exerciseTimeGoal: v[5], standHours: v[6], standHoursGoal: v[7], isPaused: try bool())
  }
}
