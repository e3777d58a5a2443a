import Dispatch
import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses

/// The workout type (code 70), its route (75) and the quantity types a watch workout records.
let workoutType = SampleType.lookup(name: "workout")!
let routeType = SampleType.lookup(name: "workoutRoute")!
let heartRate = SampleType.lookup(name: "heartRate")!
let activeEnergy = SampleType.lookup(name: "activeEnergyBurned")!
let walkingDistance = SampleType.lookup(name: "distanceWalkingRunning")!
/// Everything the workout rows' app shares and reads (water is the query rows' baseline).
let workoutFamily = [water, workoutType, routeType, heartRate, activeEnergy, walkingDistance]

/// The samples a watch records over a workout of `seconds` from `start`: heart rate every second (instantaneous),
/// active energy and distance every 10 s (each spanning its 10 s), in time order.
func workoutSamples(start: Date, seconds: Int, rng: inout SeededGenerator) -> [SampleInput] {
  var samples: [SampleInput] = []
  samples.reserveCapacity(seconds + seconds / 5)
  for s in 0..<seconds {
    let at = start.addingTimeInterval(Double(s))
    samples.append(
      SampleInput(
        uuid: rng.uuid(), type: heartRate, value: .quantity(Double(120 + s % 40), unit: "count/min"), start: at,
        end: at))
    guard s % 10 == 9 else { continue }
    let from = at.addingTimeInterval(-9)
    let to = at.addingTimeInterval(1)
    samples.append(
      SampleInput(uuid: rng.uuid(), type: activeEnergy, value: .quantity(1.5, unit: "kcal"), start: from, end: to))
    samples.append(
      SampleInput(uuid: rng.uuid(), type: walkingDistance, value: .quantity(30, unit: "m"), start: from, end: to))
  }
  return samples
}

/// Row 12: a watch workout of `seconds` (3 hours at full size) saved as a workout app's builder does — its samples
/// in saves of 10 minutes' worth, then the workout with all of them associated and a 1-Hz route — until the
/// phone's store holds the workout, every associated sample and every fix (polled through the phone's client on
/// each sync event, with a deadline). Baseline: the same samples saved and synced without the workout and route.
/// `runs` alternating pairs of the two, medians.
func workoutSyncMetric(daemon: String, seconds: Int, runs: Int) throws -> Metric {
  let pair = try preparedPair(daemon: daemon, types: workoutFamily)
  defer { pair.shutdown() }
  var rng = SeededGenerator(seed: 12)
  var expected = 0  // samples of the three types the phone should hold once the current run has synced
  let chunk = 600  // heart-rate seconds per save: ten minutes of a builder's samples

  func saveSamples(_ samples: [SampleInput]) throws {
    var i = 0
    while i < samples.count {
      var j = min(samples.count, i + chunk + chunk / 5)
      while j < samples.count && samples[j].type != heartRate { j += 1 }  // a save ends after a 10-s slot
      try pair.watch.save(benchApp.bundleID, Array(samples[i..<j]))
      i = j
    }
  }
  func phoneSamples() throws -> Int {
    let counts = try pair.phone.dump().device.sampleCounts
    return [heartRate, activeEnergy, walkingDistance].reduce(0) { $0 + counts[$1, default: 0] }
  }
  /// Milliseconds from the first save to the phone holding everything; `workout` adds the workout and route.
  func once(workout: Bool, run: Int) throws -> Double {
    // Back to back before the bench's start (the watch keeps only its last week: 11 runs × 4 hours at full size).
    let start = benchStart.addingTimeInterval(-Double(run + 1) * Double(seconds + 3600))
    let samples = workoutSamples(start: start, seconds: seconds, rng: &rng)
    let id = rng.uuid()
    let route = RouteInput(
      uuid: rng.uuid(),
      locations: (0..<seconds).map { s in
        RouteLocation(
          timestamp: start.addingTimeInterval(Double(s)), latitude: 48.85 + Double(s) * 2e-5,
          longitude: 2.35 + Double(s % 600) * 1e-5, altitude: 35, speed: 2.8, speedAccuracy: 0.5)
      })
    let end = start.addingTimeInterval(Double(seconds))
    let input = WorkoutInput(
      uuid: id, activityType: .running, start: start, end: end,
      statistics: [
        WorkoutStatistic(type: activeEnergy, start: start, end: end, sum: 1.5 * Double(seconds / 10)),
        WorkoutStatistic(type: walkingDistance, start: start, end: end, sum: 30 * Double(seconds / 10)),
        WorkoutStatistic(type: heartRate, start: start, end: end, minimum: 120, maximum: 159, average: 139.5),
      ],
      associated: samples.map(\.uuid))
    expected += samples.count
    let t0 = now()
    try saveSamples(samples)
    if workout { try pair.watch.saveWorkout(benchApp.bundleID, input, route: route) }
    try pair.wait(for: "the workout on the phone", timeout: 60, mask: .sync) { () throws -> Bool in
      guard try phoneSamples() >= expected else { return false }
      guard workout else { return true }
      // Only this run's workout (earlier runs' each carry their own 13 k associations).
      let query = SampleQuery(type: workoutType, range: DateRange(start: start, end: end))
      guard let stored = try pair.phone.workoutQuery(benchApp.bundleID, query).first(where: { $0.uuid == id }),
        stored.associated.count == samples.count
      else { return false }
      return try pair.phone.storedRoutes(workout: id).first?.locations.count == seconds
    }
    return Double(now() - t0) / 1e6
  }

  _ = try once(workout: true, run: 0)  // warm-up: both daemons' first workout, route and large saves
  var base: [Double] = []
  var value: [Double] = []
  for r in 0..<runs {
    if r % 2 == 0 {
      base.append(try once(workout: false, run: 2 * r + 1))
      value.append(try once(workout: true, run: 2 * r + 2))
    } else {
      value.append(try once(workout: true, run: 2 * r + 1))
      base.append(try once(workout: false, run: 2 * r + 2))
    }
  }
  let (b, v) = (median(base), median(value))
  let full = seconds >= 10_800
  return Metric(
    name:
      "12. A \(seconds % 3600 == 0 ? "\(seconds / 3600)-hour" : "\(seconds)-second") watch workout (\(seconds) heart-rate samples at 1 s, "
      + "\(seconds / 10) energy and \(seconds / 10) distance samples, in 10-minute saves; then the workout with "
      + "them associated and a \(seconds)-fix route) until the phone holds it whole, vs the same samples alone; "
      + "medians of \(runs)",
    baseline: ms(b), value: ms(v), ratio: ratioText(v, b), target: full ? "≤ 1.5×" : "(smoke)",
    met: full ? v <= 1.5 * b : nil,
    numbers: [("workoutMs", v), ("samplesMs", b), ("ratio", b > 0 ? v / b : 0)])
}

/// Rows 13a and 13b: on the phone, a year of daily workouts (`days`, each with two heart-rate, one energy and one
/// distance sample associated, and totals) returned by a sample query of the workout type (13a) and by one with a
/// `predicateForWorkouts(with: .running)` filter, which every workout matches so the reply is the same (13b).
/// Baseline: a sample query returning as many bytes (water, ``samplesPerDay`` a day) from the same store, so the
/// ratio is a workout's cost per byte against a sample's. The three are timed in turn `runs` times after one
/// untimed call each, medians.
func workoutQueryMetrics(daemon: String, days: Int, runs: Int) throws -> [Metric] {
  let samplesPerDay = WorkoutQueryBaseline.samplesPerDay
  let pair = try preparedPair(daemon: daemon, types: workoutFamily)
  defer { pair.shutdown() }
  var rng = SeededGenerator(seed: 13)
  let bundle = benchApp.bundleID
  let first = benchStart.addingTimeInterval(-Double(days) * 86400)
  var members: [SampleInput] = []
  var workouts: [WorkoutInput] = []
  var daily: [SampleInput] = []
  for d in 0..<days {
    let start = first.addingTimeInterval(Double(d) * 86400 + 7 * 3600)
    let end = start.addingTimeInterval(1800)
    let own = [
      SampleInput(
        uuid: rng.uuid(), type: heartRate, value: .quantity(130, unit: "count/min"), start: start, end: start),
      SampleInput(uuid: rng.uuid(), type: heartRate, value: .quantity(150, unit: "count/min"), start: end, end: end),
      SampleInput(uuid: rng.uuid(), type: activeEnergy, value: .quantity(300, unit: "kcal"), start: start, end: end),
      SampleInput(uuid: rng.uuid(), type: walkingDistance, value: .quantity(5000, unit: "m"), start: start, end: end),
    ]
    members += own
    workouts.append(
      WorkoutInput(
        uuid: rng.uuid(), activityType: .running, start: start, end: end,
        statistics: [
          WorkoutStatistic(type: activeEnergy, start: start, end: end, sum: 300),
          WorkoutStatistic(type: walkingDistance, start: start, end: end, sum: 5000),
        ],
        associated: own.map(\.uuid)))
    // The baseline returns as many bytes as the workouts: a workout with an activity, 2 totals and 4 associations
    // is about 330 bytes in a reply, a sample about 51, so 6 water samples a day.
    for hour in 9..<15 {
      let at = first.addingTimeInterval(Double(d) * 86400 + Double(hour) * 3600)
      daily.append(SampleInput(uuid: rng.uuid(), type: water, value: .quantity(250, unit: "mL"), start: at, end: at))
    }
  }
  try pair.phone.save(bundle, members)
  try pair.phone.save(bundle, daily)
  for workout in workouts { try pair.phone.saveWorkout(bundle, workout) }
  try pair.waitSynced(timeout: 60)  // the watch's copy applied: no sync work competes with the queries

  let baseQuery = SampleQuery(type: water)
  let allQuery = SampleQuery(type: workoutType)
  let runningQuery = SampleQuery(
    type: workoutType, filter: .workoutActivityType([WorkoutActivityType.running.rawValue]))
  let counts = (
    try pair.phone.sampleQuery(bundle, baseQuery).count, try pair.phone.workoutQuery(bundle, allQuery).count,
    try pair.phone.workoutQuery(bundle, runningQuery).count
  )
  guard counts == (days * samplesPerDay, days, days) else {
    throw PairError.timeout("the year of workouts (\(counts) returned, \(days) expected)")
  }
  var base: [Double] = []
  var all: [Double] = []
  var running: [Double] = []
  for _ in 0..<runs {
    var t0 = now()
    _ = try pair.phone.sampleQuery(bundle, baseQuery)
    base.append(micros(now() - t0))
    t0 = now()
    _ = try pair.phone.workoutQuery(bundle, allQuery)
    all.append(micros(now() - t0))
    t0 = now()
    _ = try pair.phone.workoutQuery(bundle, runningQuery)
    running.append(micros(now() - t0))
  }
  let b = median(base)
  let full = days >= 365
  func row(_ name: String, _ v: Double) -> Metric {
    Metric(
      name: name, baseline: us(b), value: us(v), ratio: ratioText(v, b), target: full ? "≤ 2×" : "(smoke)",
      met: full ? v <= 2 * b : nil, numbers: [("medianMicros", v), ("baselineMicros", b), ("ratio", b > 0 ? v / b : 0)])
  }
  return [
    row(
      "13a. Sample query of a year of daily workouts (\(days) workouts, 4 associated samples and 2 totals each), "
        + "median of \(runs), vs a sample query returning as many bytes (\(days * samplesPerDay) quantity samples)",
      median(all)),
    row(
      "13b. The same query with a predicateForWorkouts(with: .running) filter (every workout matches) vs the same "
        + "baseline", median(running)),
  ]
}

/// The baseline of rows 13a and 13b.
enum WorkoutQueryBaseline {
  /// Water samples a day in the baseline query: a reply's workout (an activity, 2 totals, 4 associations) is about
  /// 330 bytes and a sample about 51, so six samples carry a workout's bytes.
  static let samplesPerDay = 6
}
