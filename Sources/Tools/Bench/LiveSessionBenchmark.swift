import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Wire

/// The live session of row 14: an outdoor run, and every type its data source collects by default.
private let liveConfiguration = WorkoutConfiguration(activityType: .running, location: .outdoor)
private let liveTypes = SensorModel.defaultCollectedTypes(liveConfiguration).sorted()

/// Row 14: a live workout session on the watch in virtual time — created, started, its builder collecting as the
/// watch's clock moves in 10-minute steps for `seconds` (3 hours at full size), stopped, ended and finished — until
/// the phone holds the workout with every collected sample associated. Baseline: the same number of sensor samples
/// (the seeded sensor model's, with other identifiers) saved directly in 10-minute saves until the phone holds them.
/// `runs` alternating pairs of the two, medians.
func liveSessionMetric(daemon: String, seconds: Int, runs: Int) throws -> Metric {
  let pair = try preparedPair(daemon: daemon, types: workoutFamily + liveTypes)
  defer { pair.shutdown() }
  var rng = SeededGenerator(seed: 14)
  let bundle = benchApp.bundleID
  let step = 600.0
  var expected = 0  // collected-type samples the phone should hold once the current run has synced

  func phoneSamples() throws -> Int {
    let counts = try pair.phone.dump().device.sampleCounts
    return liveTypes.reduce(0) { $0 + counts[$1, default: 0] }
  }
  /// What the watch's sensor model measures for session `uuid` from `start` (what its builder collects).
  func measured(_ uuid: UUID, from start: Date) -> [SampleInput] {
    let end = start.addingTimeInterval(Double(seconds))
    let sensors = SensorSession(
      configuration: liveConfiguration, start: start, seed: DeviceState.sensorSeed(WorkoutSessionID(uuid: uuid)),
      running: [TimeSpan(start: start, end: end)])
    return SensorModel.samples(session: sensors, wearer: Wearer(), from: start, to: end, types: Set(liveTypes))
  }
  /// Milliseconds from the first call to the phone holding everything.
  func once(live: Bool) throws -> Double {
    let start = try pair.watch.advanceClock(seconds: 60)
    let end = start.addingTimeInterval(Double(seconds))
    let uuid = rng.uuid()
    let workout = rng.uuid()
    let samples = measured(uuid, from: start)
    expected += samples.count
    let t0 = now()
    if live {
      let id = WorkoutSessionID(uuid: uuid)
      _ = try pair.watch.workoutSession(bundle, .create(uuid: uuid, configuration: liveConfiguration))
      _ = try pair.watch.workoutSession(bundle, .builder(id))
      _ = try pair.watch.workoutSession(bundle, .command(id, .startActivity(start)))
      _ = try pair.watch.workoutSession(bundle, .beginCollection(id, start))
      var at = start
      while at < end {
        let next = min(end, at.addingTimeInterval(step))
        _ = try pair.watch.advanceClock(seconds: next.timeIntervalSince(at))
        at = next
      }
      _ = try pair.watch.workoutSession(bundle, .command(id, .stopActivity(end)))
      _ = try pair.watch.workoutSession(bundle, .endCollection(id, end))
      _ = try pair.watch.workoutSession(bundle, .finishWorkout(id, workout: workout))
      _ = try pair.watch.workoutSession(bundle, .command(id, .end))
    } else {
      var rest = samples[...]
      var until = start.addingTimeInterval(step)
      while !rest.isEmpty {
        let chunk = rest.prefix { $0.start < until }
        if !chunk.isEmpty {
          try pair.watch.save(bundle, chunk.map { var s = $0; s.uuid = rng.uuid(); return s })
        }
        rest = rest.dropFirst(chunk.count)
        until = until.addingTimeInterval(step)
      }
      _ = try pair.watch.advanceClock(seconds: Double(seconds))
    }
    try pair.wait(for: "the live workout on the phone", timeout: 60, mask: .sync) { () throws -> Bool in
      guard try phoneSamples() >= expected else { return false }
      guard live else { return true }
      let query = SampleQuery(type: workoutType, range: DateRange(start: start, end: end))
      let stored = try pair.phone.workoutQuery(bundle, query).first { $0.uuid == workout }
      return stored?.associated.count == samples.count
    }
    return Double(now() - t0) / 1e6
  }

  _ = try once(live: true)  // warm-up
  var base: [Double] = []
  var value: [Double] = []
  for r in 0..<runs {
    if r % 2 == 0 {
      base.append(try once(live: false))
      value.append(try once(live: true))
    } else {
      value.append(try once(live: true))
      base.append(try once(live: false))
    }
  }
  let (b, v) = (median(base), median(value))
  let full = seconds >= 10_800
  let hours = seconds % 3600 == 0 ? "\(seconds / 3600)-hour" : "\(seconds)-second"
  return Metric(
    name:
      "14. A \(hours) live workout session on the watch in virtual time (created, started, collecting as the "
      + "clock moves in 10-minute steps, stopped, finished) until the phone holds the workout with its samples, vs "
      + "the same sensor samples saved directly in 10-minute saves until the phone holds them; medians of \(runs)",
    baseline: ms(b), value: ms(v), ratio: ratioText(v, b), target: full ? "≤ 1.5×" : "(smoke)",
    met: full ? v <= 1.5 * b : nil,
    numbers: [("liveMs", v), ("samplesMs", b), ("ratio", b > 0 ? v / b : 0)])
}
