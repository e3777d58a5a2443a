import FoundationEssentials
import HealthEngine
import HealthModel
import ScenarioLanguage

/// What one `saves workout …` step hands the daemon: the workout, its associated samples and its route, derived
/// from the step's values alone (identifiers from the scenario's seed), so the same step saves the same workout.
struct WorkoutPlan {
  /// The workout, its events, statistics and metadata; `associated` names ``samples``.
  var input: WorkoutInput
  /// The samples the totals and series make, saved with the workout.
  var samples: [SampleInput]
  /// The route, when the step has one.
  var route: RouteInput?
  /// The workout's active stretches (start to end minus the pauses), in order.
  var active: [DateInterval]
}

/// What the runner keeps of a workout a step saved, for later steps and checks by its name.
struct SavedWorkout {
  /// The workout's identifier.
  var uuid: UUID
  /// Its active stretches (a later route covers them).
  var active: [DateInterval]
  /// Its distance total in metres, if it had one (a later route's speed).
  var metres: Double?
  /// The types of the samples associated with it so far.
  var sampleTypes: Set<SampleType>
}

extension WorkoutPlan {
  /// `start` to `end` minus `pauses` (each clipped to the workout), in order; empty stretches left out.
  static func activeStretches(start: Date, end: Date, pauses: [DateInterval]) -> [DateInterval] {
    var stretches: [DateInterval] = []
    var cursor = start
    for pause in pauses.sorted(by: { $0.start < $1.start }) {
      let from = max(pause.start, start)
      let to = min(pause.end, end)
      guard from < to else { continue }
      if cursor < from { stretches.append(DateInterval(start: cursor, end: from)) }
      cursor = max(cursor, to)
    }
    if cursor < end { stretches.append(DateInterval(start: cursor, end: end)) }
    return stretches
  }

  /// The instants `start + k × interval` before the end of the last stretch that fall inside a stretch.
  static func ticks(every interval: Double, over stretches: [DateInterval]) -> [Date] {
    guard let start = stretches.first?.start, let end = stretches.last?.end, interval > 0 else { return [] }
    var result: [Date] = []
    var k = 0.0
    while true {
      let t = start.addingTimeInterval(k * interval)
      if t >= end { break }
      if stretches.contains(where: { $0.start <= t && t < $0.end }) { result.append(t) }
      k += 1
    }
    return result
  }

  /// Seconds of active time from the first stretch's start up to `t`.
  static func activeSeconds(until t: Date, in stretches: [DateInterval]) -> Double {
    stretches.reduce(0) { sum, s in sum + max(0, min(t, s.end).timeIntervalSince(s.start)) }
  }

  /// The fixes of `route` over `stretches`: one every interval of active time, heading north from the start point at
  /// the route's speed (else `metres` over the active time, else 3 m/s), 5 m accurate.
  static func locations(_ route: RouteSpec, over stretches: [DateInterval], metres: Double?) -> [RouteLocation] {
    let activeTotal = stretches.reduce(0) { $0 + $1.duration }
    let speed = route.speed ?? metres.flatMap { activeTotal > 0 ? $0 / activeTotal : nil } ?? 3
    return ticks(every: route.interval, over: stretches).map { t in
      let along = speed * activeSeconds(until: t, in: stretches)
      return RouteLocation(
        timestamp: t, latitude: route.latitude + along / 111_320, longitude: route.longitude, altitude: 0,
        horizontalAccuracy: 5, verticalAccuracy: 5, speed: speed, speedAccuracy: 0.5, course: 0, courseAccuracy: 5)
    }
  }
}

extension RunContext {
  /// The workout, samples and route `spec` describes on `device` (times resolved in its time zone).
  mutating func plan(_ spec: WorkoutSpec, on device: DeviceKind) -> WorkoutPlan {
    let start = resolve(spec.start, on: device)
    let end = resolved(spec.end, after: start, on: device)
    var events: [WorkoutEvent] = []
    var pauses: [DateInterval] = []
    for pause in spec.pauses {
      let from = resolve(pause.start, on: device)
      let to = resolved(pause.end, after: from, on: device)
      events.append(WorkoutEvent(type: .pause, start: from))
      events.append(WorkoutEvent(type: .resume, start: to))
      if from < to { pauses.append(DateInterval(start: from, end: to)) }
    }
    events.sort { $0.start < $1.start }
    let active = WorkoutPlan.activeStretches(start: start, end: max(start, end), pauses: pauses)
    let activeTotal = active.reduce(0) { $0 + $1.duration }
    var samples: [SampleInput] = []
    var statistics: [WorkoutStatistic] = []
    for total in spec.totals {
      let canonical = total.type.descriptor.canonicalUnit!
      let value = (try? HealthUnit(parsing: total.unit).convert(total.value, to: canonical)) ?? total.value
      // One sample per active stretch, its share of the total by time; the last takes the remainder.
      var left = value
      for (index, stretch) in active.enumerated() {
        let share = index == active.count - 1 ? left : value * stretch.duration / max(activeTotal, 1)
        left -= share
        samples.append(
          SampleInput(
            uuid: rng.uuid(), type: total.type, value: .quantity(share, unit: canonical.description),
            start: stretch.start, end: stretch.end, metadata: [:]))
      }
      statistics.append(WorkoutStatistic(type: total.type, start: start, end: end, sum: value))
    }
    for series in spec.series {
      let canonical = series.type.descriptor.canonicalUnit!
      let value = (try? HealthUnit(parsing: series.unit).convert(series.value, to: canonical)) ?? series.value
      let ticks = WorkoutPlan.ticks(every: series.interval, over: active)
      for t in ticks {
        samples.append(
          SampleInput(
            uuid: rng.uuid(), type: series.type, value: .quantity(value, unit: canonical.description), start: t,
            end: t, metadata: [:]))
      }
      guard !ticks.isEmpty else { continue }
      if series.type.descriptor.aggregation == .cumulative {
        statistics.append(
          WorkoutStatistic(type: series.type, start: start, end: end, sum: value * Double(ticks.count)))
      } else {
        statistics.append(
          WorkoutStatistic(
            type: series.type, start: start, end: end, minimum: value, maximum: value, average: value,
            mostRecent: value))
      }
    }
    var metadata = spec.metadata
    switch spec.location {
    case .indoor: metadata["HKIndoorWorkout"] = .bool(true)
    case .outdoor: metadata["HKIndoorWorkout"] = .bool(false)
    default: break
    }
    let uuid = spec.uuid ?? rng.uuid()
    var input = WorkoutInput(
      uuid: uuid, activityType: spec.activity, start: start, end: end, events: events, statistics: statistics,
      metadata: metadata, associated: samples.map(\.uuid))
    let metres = Self.distanceMetres(spec)
    let route = spec.route.map { r in
      RouteInput(uuid: rng.uuid(), locations: WorkoutPlan.locations(r, over: active, metres: metres))
    }
    input.activities = planActivities(spec, samples: samples, on: device)
    return WorkoutPlan(input: input, samples: samples, route: route, active: active)
  }

  /// The workout's distance total in metres, if it has one.
  static func distanceMetres(_ spec: WorkoutSpec) -> Double? {
    guard let total = spec.totals.first(where: { $0.type.name.hasPrefix("distance") }) else { return nil }
    return try? HealthUnit(parsing: total.unit).convert(total.value, to: HealthUnit(parsing: "m"))
  }

  /// An end written as a duration after `start` or as a time.
  func resolved(_ end: SampleSpec.Either, after start: Date, on device: DeviceKind) -> Date {
    switch end {
    case .duration(let d): start.addingTimeInterval(d)
    case .time(let t): resolve(t, on: device)
    }
  }
}
