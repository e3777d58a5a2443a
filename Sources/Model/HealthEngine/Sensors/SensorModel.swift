import FoundationEssentials
import HealthModel

/// What the sensor model needs of a workout session: its configuration, its start (the anchor of every time grid),
/// the seed of its noise and identifiers, and the spans in which it ran (not paused).
package struct SensorSession: Hashable, Sendable {
  /// The session's configuration (activity type and location).
  package var configuration: WorkoutConfiguration
  /// The session's start: every grid is anchored here.
  package var start: Date
  /// The seed of every noise value and identifier.
  package var seed: UInt64
  /// The spans in which the session was running, from its start; the current one open (`end == nil`) while it
  /// runs. A closed span must be a real pause or the end: generation treats its end as final.
  package var running: [TimeSpan]

  /// Creates a session.
  package init(configuration: WorkoutConfiguration, start: Date, seed: UInt64, running: [TimeSpan]) {
    self.configuration = configuration
    self.start = start
    self.seed = seed
    self.running = running
  }

  /// The running spans in seconds since ``start``, clipped at 0.
  package var runningOffsets: [OffsetSpan] {
    running.map { offsets($0) }.filter { $0.end > $0.start }
  }

  /// `span` in seconds since ``start`` (open: `.infinity`), clipped at 0.
  package func offsets(_ span: TimeSpan) -> OffsetSpan {
    OffsetSpan(
      start: max(0, span.start.timeIntervalSince(start)),
      end: span.end.map { max(0, $0.timeIntervalSince(start)) } ?? .infinity)
  }
}

/// The seeded, deterministic sensor model of a watch on a wearer: what a live workout builder collects while the
/// virtual clock runs.
///
/// **Determinism (HealthPair model).** Every sample sits on a fixed grid anchored at the session's start —
/// heart rate every ``heartRateCadence`` (5 s, workouts.md §6.2), energy, distance, counts and running dynamics
/// over cells of ``intervalCadence`` (10 s; Apple documents none), route fixes every ``routeCadence`` (1 s, within
/// workouts.md §6.2's 3 s). Its value and UUID come from the closed-form ``SensorTimeline`` and a counter-based
/// hash of (seed, type, grid index). An instantaneous sample belongs to the request whose `[from, to)` holds its
/// date; an interval sample (a cell clipped to the running, worn spans) to the one whose `(from, to]` holds its end,
/// emitted only once that end is known. So `samples([a, c)) == samples([a, b)) + samples([b, c))` for every `b`,
/// as long as the session and wearer passed describe the truth up to each request's end.
///
/// Samples are only produced while the session runs and the watch is worn (``Wearer/offWrist``). Heart-rate read
/// denial is not the model's business: the builder drops the types the app may not read (workouts.md §4).
package enum SensorModel {
  /// Seconds between heart-rate samples in a session (workouts.md §6.2: about every 5 s).
  package static let heartRateCadence = 5.0
  /// Length of the cells of energy, distance, count and running-dynamics samples (HealthPair model: 10 s).
  package static let intervalCadence = 10.0
  /// Seconds between route fixes (HealthPair model: 1 Hz; workouts.md §6.2 asks at most about 3 s).
  package static let routeCadence = 1.0
  /// Heart-rate noise: the sum of two uniform values in ±1.5 count/min, the result rounded to whole count/min.
  package static let heartRateNoise = 1.5
  /// Active-energy noise: each cell scaled by a uniform factor in 1 ± 0.04.
  package static let energyNoise = 0.04
  /// Running-dynamics noise: each value scaled by a uniform factor in 1 ± 0.03.
  package static let dynamicsNoise = 0.03

  /// The types a live data source collects by default for `configuration`: workouts.md §6.1's suggested table.
  /// Sourced: heart rate, active and basal energy and the activity's distance (DOCS `running-workout-sessions`,
  /// `hkliveworkoutdatasource/typestocollect`), the swim types (DOCS `dividing-a-healthkit-workout-into-
  /// activities`). Inferred there (HealthPair model): step count for runs and walks, the running dynamics in
  /// outdoor runs, `distanceCycling` only outdoors, push count for wheelchair workouts.
  package static func defaultCollectedTypes(_ configuration: WorkoutConfiguration) -> Set<SampleType> {
    var names = ["heartRate", "activeEnergyBurned", "basalEnergyBurned"]
    let outdoor = configuration.location == .outdoor
    switch configuration.activityType.name {
    case "running":
      names += ["distanceWalkingRunning", "stepCount"]
      if outdoor {
        names += [
          "runningStrideLength", "runningPower", "runningSpeed", "runningGroundContactTime",
          "runningVerticalOscillation",
        ]
      }
    case "walking", "hiking": names += ["distanceWalkingRunning", "stepCount"]
    case "cycling": if outdoor { names.append("distanceCycling") }
    case "swimming": names += ["distanceSwimming", "swimmingStrokeCount"]
    case "wheelchairWalkPace", "wheelchairRunPace": names += ["distanceWheelchair", "pushCount"]
    default: break
    }
    return Set(names.compactMap { SampleType.lookup(name: $0) })
  }

  /// The samples of `types` the watch produces in `[from, to)` of `session` on `wearer`, ordered by the date that
  /// places them (an interval sample's end, an instantaneous sample's date), interval samples first at a tie, then
  /// by type code. Types the model does not produce for the activity are ignored: heart rate (count/min), active and
  /// basal energy (kcal), the activity's distance (m) and count (steps, strokes, pushes), and for runs the running
  /// dynamics (speed m/s, power W, stride length m, ground contact time ms, vertical oscillation cm).
  package static func samples(
    session: SensorSession, wearer: Wearer, from: Date, to: Date, types: Set<SampleType>
  ) -> [SampleInput] {
    let lower = from.timeIntervalSince(session.start)
    let upper = to.timeIntervalSince(session.start)
    guard upper > lower, upper > 0 else { return [] }
    let timeline = SensorTimeline(session: session, wearer: wearer, horizon: upper)
    let spans = wornRunningSpans(session: session, wearer: wearer)
    var out: [(key: Double, instant: Bool, sample: SampleInput)] = []
    if let heartRate = SampleType.lookup(name: "heartRate"), types.contains(heartRate) {
      let first = max(0, (lower / heartRateCadence).rounded(.up))
      var index = first
      while index * heartRateCadence < upper {
        let t = index * heartRateCadence
        if t >= lower, spans.contains(where: { $0.start <= t && t < $0.end }) {
          let noise = (symmetric(session.seed, heartRate, Int64(index), 0) + symmetric(
            session.seed, heartRate, Int64(index), 1)) * heartRateNoise
          let value = min(wearer.maxHeartRate, max(wearer.restingHeartRate, timeline.heartRate(at: t) + noise))
          let date = session.start.addingTimeInterval(t)
          let sample = SampleInput(
            uuid: uuid(session.seed, heartRate, Int64(index)), type: heartRate,
            value: .quantity(value.rounded(), unit: "count/min"), start: date, end: date)
          out.append((t, true, sample))
        }
        index += 1
      }
    }
    for cell in cells(spans: spans, lower: lower, upper: upper) {
      for sample in intervalSamples(cell, session: session, timeline: timeline, types: types) {
        out.append((cell.end, false, sample))
      }
    }
    out.sort { a, b in
      if a.key != b.key { return a.key < b.key }
      if a.instant != b.instant { return !a.instant }
      return a.sample.type.code < b.sample.type.code
    }
    return out.map(\.sample)
  }

  /// The session's running spans minus the wearer's off-wrist spans, in seconds since the start.
  package static func wornRunningSpans(session: SensorSession, wearer: Wearer) -> [OffsetSpan] {
    OffsetSpan.subtracting(wearer.offWrist.map { session.offsets($0) }, from: session.runningOffsets)
  }

  /// One grid cell clipped to a worn running span: `[start, end)` in seconds since the session's start.
  struct Cell {
    var index: Int64
    var start: Double
    var end: Double
  }

  /// The clipped cells whose end lies in `(lower, upper]`.
  static func cells(spans: [OffsetSpan], lower: Double, upper: Double) -> [Cell] {
    var cells: [Cell] = []
    for span in spans where span.start < upper && span.end > lower {
      var index = (max(span.start, lower) / intervalCadence).rounded(.down)
      while index * intervalCadence < min(span.end, upper) {
        let start = max(span.start, index * intervalCadence)
        let end = min(span.end, (index + 1) * intervalCadence)
        if end > lower && end <= upper && end > start {
          cells.append(Cell(index: Int64(index), start: start, end: end))
        }
        index += 1
      }
    }
    return cells
  }

  private static func intervalSamples(
    _ cell: Cell, session: SensorSession, timeline: SensorTimeline, types: Set<SampleType>
  ) -> [SampleInput] {
    var result: [SampleInput] = []
    let motion = timeline.motion
    let wearer = timeline.wearer
    let startDate = session.start.addingTimeInterval(cell.start)
    let endDate = session.start.addingTimeInterval(cell.end)
    let key = cell.index &* 1_000_003 &+ Int64((cell.start * 1000).rounded())
    func emit(_ name: String, _ value: Double, _ unit: String) {
      guard let type = SampleType.lookup(name: name), types.contains(type), value > 0 else { return }
      result.append(
        SampleInput(
          uuid: uuid(session.seed, type, key), type: type, value: .quantity(value, unit: unit), start: startDate,
          end: endDate))
    }
    func noisy(_ name: String, _ value: Double, _ spread: Double) -> Double {
      guard let type = SampleType.lookup(name: name) else { return value }
      return value * (1 + spread * symmetric(session.seed, type, key, 0))
    }
    let seconds = cell.end - cell.start
    emit("activeEnergyBurned", noisy("activeEnergyBurned", timeline.activeEnergy(from: cell.start, to: cell.end),
      energyNoise), "kcal")
    emit("basalEnergyBurned", wearer.basalEnergyPerDay / 86_400 * seconds, "kcal")
    let distance = timeline.distance(at: cell.end) - timeline.distance(at: cell.start)
    if let type = motion.distanceType { emit(type.name, distance, "m") }
    if let type = motion.countType {
      emit(type.name, (timeline.count(at: cell.end)).rounded(.down) - timeline.count(at: cell.start).rounded(.down),
        "count")
    }
    if motion.kind == .running, distance > 0 {
      let speed = distance / seconds
      let cadence = motion.cadence(at: speed)
      emit("runningSpeed", noisy("runningSpeed", speed, dynamicsNoise), "m/s")
      emit("runningStrideLength", noisy("runningStrideLength", speed / cadence, dynamicsNoise), "m")
      emit("runningPower", noisy("runningPower", 1.04 * wearer.bodyMass * speed, dynamicsNoise), "W")
      emit("runningGroundContactTime", noisy("runningGroundContactTime", 310 - 25 * speed, dynamicsNoise), "ms")
      emit("runningVerticalOscillation", noisy("runningVerticalOscillation", 10 - 0.6 * speed, dynamicsNoise), "cm")
    }
    return result
  }

  // MARK: Counter-based noise

  /// 64 bits derived from (seed, type, index, lane) alone (SplitMix64 over a mixed key): no generator state
  /// carries between grid points.
  package static func bits(_ seed: UInt64, _ type: SampleType, _ index: Int64, _ lane: UInt64) -> UInt64 {
    bits(seed, stream: UInt64(type.code), index, lane)
  }

  /// 64 bits derived from (seed, stream, index, lane) alone; streams below 65,536 are sample type codes.
  package static func bits(_ seed: UInt64, stream: UInt64, _ index: Int64, _ lane: UInt64) -> UInt64 {
    var generator = SeededGenerator(seed: key(seed, stream, index, lane))
    return generator.next()
  }

  /// A uniform value in [-1, 1) from ``bits(_:_:_:_:)``.
  package static func symmetric(_ seed: UInt64, _ type: SampleType, _ index: Int64, _ lane: UInt64) -> Double {
    Double(bits(seed, type, index, lane) >> 11) / Double(1 << 52) - 1
  }

  /// The version-4 UUID of the sample of `type` at grid `index`.
  package static func uuid(_ seed: UInt64, _ type: SampleType, _ index: Int64) -> UUID {
    var generator = SeededGenerator(seed: key(seed, UInt64(type.code), index, 0xFFFF))
    return generator.uuid()
  }

  private static func key(_ seed: UInt64, _ stream: UInt64, _ index: Int64, _ lane: UInt64) -> UInt64 {
    let mixed = SeededGenerator(seed: seed).nextValue() ^ (stream << 40) ^ (lane << 24)
    return SeededGenerator(seed: SeededGenerator(seed: mixed).nextValue() ^ UInt64(bitPattern: index)).nextValue()
  }
}

extension SeededGenerator {
  /// The first output of a generator (a copy; `self` is unchanged).
  fileprivate func nextValue() -> UInt64 {
    var copy = self
    return copy.next()
  }
}
