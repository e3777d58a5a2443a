import FoundationEssentials
import HealthModel

// Binary encodings of what an app sends of the workout family — a workout input, a route input, a heartbeat series
// input — and of a calendar day, for the wire protocol (docs/protocol.md: `workout-input`, `route-input`,
// `heartbeat-series-input`, `local-day`). They share the stored values' layouts (WorkoutCoding.swift) field for
// field, but are read as sent, like `sampleInput`: a non-finite number or an out-of-order list reaches the engine,
// whose save refuses it with HealthKit's error (workouts.md), rather than failing as a malformed frame.

/// The fewest bytes each encoded workout value takes: the bounds of an array's claimed count against the bytes left.
package enum WorkoutCodingSize {
  /// A local day: year `i64`, month, day.
  package static let localDay = 10
  /// A statistic with no values.
  package static let statistic = 23
  /// An event without metadata.
  package static let event = 21
  /// A configuration without a lap length.
  package static let configuration = 11
  /// An activity with nothing optional.
  package static let activity = 16 + configuration + 8 + 1 + 4 + 4
  /// A workout input with nothing in its lists.
  package static let workoutInput = 16 + 8 + 16 + 1 + 4 * 5
  /// A stored workout with nothing in its lists, from the shortest source.
  package static let workout = 16 + 8 + 16 + 8 + 4 * 5 + 5
  /// A location: a timestamp and nine `f64`s.
  package static let location = 80
  /// A route input without locations or metadata.
  package static let routeInput = 16 + 4 + 4
  /// A stored route without locations or metadata, from the shortest source.
  package static let route = 32 + 4 + 4 + 5
  /// A beat.
  package static let heartbeat = 9
  /// A heartbeat series input without beats or metadata.
  package static let heartbeatSeriesInput = 16 + 16 + 4 + 4
  /// A stored heartbeat series without beats or metadata, from the shortest source.
  package static let heartbeatSeries = 32 + 4 + 4 + 5
  /// An activity summary.
  package static let activitySummary = localDay + 1 + 64 + 1
}

extension BinaryWriter {
  /// year `i64` | month `u8` | day `u8` (as an activity summary writes its day).
  package mutating func localDay(_ d: LocalDay) {
    i64(Int64(d.year))
    u8(UInt8(clamping: d.month))
    u8(UInt8(clamping: d.day))
  }
  /// uuid | activity type `u64` | start | end | duration `f64?` | [event] | [activity] | [statistic] | metadata
  /// | associated [uuid] — a stored workout's layout with an optional duration and no source.
  package mutating func workoutInput(_ w: WorkoutInput) {
    uuid(w.uuid)
    u64(UInt64(w.activityType.rawValue))
    date(w.start)
    date(w.end)
    optional(w.duration) { $0.f64($1) }
    array(w.events) { writer, event in
      writer.u8(UInt8(event.type.rawValue))
      writer.date(event.start)
      writer.date(event.end)
      writer.metadata(event.metadata)
    }
    array(w.activities) { writer, activity in
      writer.uuid(activity.uuid)
      writer.workoutConfiguration(activity.configuration)
      writer.date(activity.start)
      writer.optional(activity.end) { $0.date($1) }
      writer.metadata(activity.metadata)
      writer.array(activity.statistics) { $0.workoutStatistic($1) }
    }
    array(w.statistics) { $0.workoutStatistic($1) }
    metadata(w.metadata)
    uuids(w.associated)
  }
  /// timestamp | latitude | longitude | altitude | horizontal accuracy | vertical accuracy | speed | speed accuracy
  /// | course | course accuracy.
  package mutating func routeLocation(_ fix: RouteLocation) {
    routeLocations(CollectionOfOne(fix), count: false)
  }
  /// `[location]` (with `count`, else the fixes alone): each fix's ten `f64`s written in one block of 80 bytes a
  /// fix, the bytes ``routeLocation(_:)`` writes for each, without a capacity check per byte.
  package mutating func routeLocations<C: Collection<RouteLocation>>(_ fixes: C, count: Bool = true) {
    if count { u32(UInt32(fixes.count)) }
    raw(fixes.count * WorkoutCodingSize.location) { p in
      var at = 0
      func put(_ v: Double) {
        p.storeBytes(of: v.bitPattern.littleEndian, toByteOffset: at, as: UInt64.self)
        at += 8
      }
      for fix in fixes {
        put(fix.timestamp.timeIntervalSinceReferenceDate)
        put(fix.latitude)
        put(fix.longitude)
        put(fix.altitude)
        put(fix.horizontalAccuracy)
        put(fix.verticalAccuracy)
        put(fix.speed)
        put(fix.speedAccuracy)
        put(fix.course)
        put(fix.courseAccuracy)
      }
    }
  }
  /// uuid | [location] (as inserted) | metadata.
  package mutating func routeInput(_ r: RouteInput) {
    uuid(r.uuid)
    routeLocations(r.locations)
    metadata(r.metadata)
  }
  /// uuid | start | end | [offset `f64` | precededByGap bool] (as added) | metadata.
  package mutating func heartbeatSeriesInput(_ s: HeartbeatSeriesInput) {
    uuid(s.uuid)
    date(s.start)
    date(s.end)
    array(s.beats) { w, beat in
      w.f64(beat.offset)
      w.bool(beat.precededByGap)
    }
    metadata(s.metadata)
  }
}

extension BinaryReader {
  /// Reads a local day: a real Gregorian date (month 1–12, a day the month has, a year within a million of 0).
  package mutating func localDay() throws(DecodeError) -> LocalDay {
    let start = offset
    let year = try i64()
    let month = Int(try u8())
    let day = Int(try u8())
    guard abs(year) <= 1_000_000, (1...12).contains(month), day >= 1, day <= Self.days(inMonth: month, of: Int(year))
    else { throw DecodeError(offset: reportBase + start, "\(year)-\(month)-\(day) is not a calendar day") }
    return LocalDay(year: Int(year), month: month, day: day)
  }

  /// The days of `month` (1–12) of the Gregorian `year`.
  private static func days(inMonth month: Int, of year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Reads a workout as an app sends it: enumerations must be known, numbers and order are as sent.
  package mutating func workoutInput() throws(DecodeError) -> WorkoutInput {
    let id = try uuid()
    let type = try activityType()
    let start = try date()
    let end = try date()
    let duration = try optional { r throws(DecodeError) in try r.f64() }
    let events = try array(minElementSize: WorkoutCodingSize.event) { r throws(DecodeError) -> WorkoutEvent in
      let raw = try r.u8()
      guard let type = WorkoutEventType(rawValue: Int(raw)) else { throw r.error("unknown workout event type \(raw)") }
      return WorkoutEvent(type: type, start: try r.date(), end: try r.date(), metadata: try r.metadata())
    }
    let activities = try array(minElementSize: WorkoutCodingSize.activity) {
      r throws(DecodeError) -> WorkoutActivity in
      let id = try r.uuid()
      let configuration = try r.inputConfiguration()
      let start = try r.date()
      let end = try r.optional { r throws(DecodeError) in try r.date() }
      let metadata = try r.metadata()
      let statistics = try r.array(minElementSize: WorkoutCodingSize.statistic) { r throws(DecodeError) in
        try r.inputStatistic()
      }
      return WorkoutActivity(
        uuid: id, configuration: configuration, start: start, end: end, metadata: metadata, statistics: statistics)
    }
    let statistics = try array(minElementSize: WorkoutCodingSize.statistic) { r throws(DecodeError) in
      try r.inputStatistic()
    }
    let metadata = try metadata()
    let associated = try array(minElementSize: 16) { r throws(DecodeError) in try r.uuid() }
    return WorkoutInput(
      uuid: id, activityType: type, start: start, end: end, duration: duration, events: events,
      activities: activities, statistics: statistics, metadata: metadata, associated: associated)
  }

  /// A statistic as sent (values not checked).
  private mutating func inputStatistic() throws(DecodeError) -> WorkoutStatistic {
    let type = try sampleType()
    let start = try date()
    let end = try date()
    func value() throws(DecodeError) -> Double? { try optional { r throws(DecodeError) in try r.f64() } }
    let sum = try value()
    let minimum = try value()
    let maximum = try value()
    let average = try value()
    return WorkoutStatistic(
      type: type, start: start, end: end, sum: sum, minimum: minimum, maximum: maximum, average: average,
      mostRecent: try value())
  }

  /// A configuration as sent: its location and swimming location must be known; the lap length is not checked.
  private mutating func inputConfiguration() throws(DecodeError) -> WorkoutConfiguration {
    let type = try activityType()
    let rawLocation = try u8()
    guard let location = WorkoutLocationType(rawValue: Int(rawLocation)) else {
      throw error("unknown workout location type \(rawLocation)")
    }
    let rawSwimming = try u8()
    guard let swimming = SwimmingLocationType(rawValue: Int(rawSwimming)) else {
      throw error("unknown swimming location type \(rawSwimming)")
    }
    let lap = try optional { r throws(DecodeError) in try r.f64() }
    return WorkoutConfiguration(activityType: type, location: location, swimmingLocation: swimming, lapLength: lap)
  }

  /// Reads a location fix as sent.
  package mutating func routeLocation() throws(DecodeError) -> RouteLocation {
    guard remaining >= WorkoutCodingSize.location else {
      // Short input: read field by field, so the error names the field and offset where the bytes ran out.
      let timestamp = try date()
      let latitude = try f64()
      let longitude = try f64()
      let altitude = try f64()
      let horizontal = try f64()
      let vertical = try f64()
      let speed = try f64()
      let speedAccuracy = try f64()
      let course = try f64()
      return RouteLocation(
        timestamp: timestamp, latitude: latitude, longitude: longitude, altitude: altitude,
        horizontalAccuracy: horizontal, verticalAccuracy: vertical, speed: speed, speedAccuracy: speedAccuracy,
        course: course, courseAccuracy: try f64())
    }
    // Bounds checked once for the fix's 80 bytes.
    let fix = try raw(WorkoutCodingSize.location, "route location")
    func value(_ k: Int) -> Double {
      Double(bitPattern: UInt64(littleEndian: fix.loadUnaligned(fromByteOffset: 8 * k, as: UInt64.self)))
    }
    return RouteLocation(
      timestamp: Date(timeIntervalSinceReferenceDate: value(0)), latitude: value(1), longitude: value(2),
      altitude: value(3), horizontalAccuracy: value(4), verticalAccuracy: value(5), speed: value(6),
      speedAccuracy: value(7), course: value(8), courseAccuracy: value(9))
  }

  /// Reads a route as an app sends it (its fixes as inserted).
  package mutating func routeInput() throws(DecodeError) -> RouteInput {
    let id = try uuid()
    let locations = try array(minElementSize: WorkoutCodingSize.location) { r throws(DecodeError) in
      try r.routeLocation()
    }
    return RouteInput(uuid: id, locations: locations, metadata: try metadata())
  }

  /// Reads a heartbeat series as an app sends it.
  package mutating func heartbeatSeriesInput() throws(DecodeError) -> HeartbeatSeriesInput {
    let id = try uuid()
    let start = try date()
    let end = try date()
    let beats = try array(minElementSize: WorkoutCodingSize.heartbeat) { r throws(DecodeError) -> Heartbeat in
      Heartbeat(offset: try r.f64(), precededByGap: try r.bool())
    }
    return HeartbeatSeriesInput(uuid: id, start: start, end: end, beats: beats, metadata: try metadata())
  }
}
