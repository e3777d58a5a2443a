import FoundationEssentials
import HealthModel

#if canImport(Glibc)
  import Glibc  // exp, sin and cos (pure functions; no system calls)
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The wearer's physiology over a session as closed-form pieces, in seconds since the session's start: heart
/// rate, distance and cadence counts at any instant depend only on the session, the wearer and that instant, never
/// on how the virtual clock advanced (what makes chunked generation equal to one pass).
///
/// HealthPair model: the effort is piecewise constant (``EffortProfile``); while paused the wearer stands at
/// ``Effort/rest`` and does not move. Heart rate approaches the effort's target, rest + intensity × (max − rest)
/// (Karvonen), as a first-order lag: time constant ``riseSeconds`` (40 s) rising and ``fallSeconds`` (60 s) falling,
/// starting at ``startIntensity`` (0.2) of the reserve when the session starts.
package struct SensorTimeline: Sendable {
  /// One piece: constant effort, running or paused.
  package struct Piece: Sendable {
    /// Start, seconds since the session's start.
    package var start: Double
    /// End (`.infinity` for the last piece).
    package var end: Double
    /// Whether the session runs in it.
    package var running: Bool
    /// The intensity (fraction of the heart-rate reserve).
    package var intensity: Double
    /// The speed in m/s (0 when paused).
    package var speed: Double
    /// Steps, strokes or pushes per second.
    package var cadence: Double
    /// Heart rate at `start`, count/min.
    package var heartRateAtStart: Double
    /// Distance since the session's start at `start`, metres.
    package var distanceAtStart: Double
    /// Counts since the session's start at `start`.
    package var countAtStart: Double
  }

  /// Heart rate rising time constant, seconds.
  package static let riseSeconds = 40.0
  /// Heart rate falling time constant, seconds.
  package static let fallSeconds = 60.0
  /// The heart-rate reserve fraction at the session's start.
  package static let startIntensity = 0.2

  /// The pieces, start-ascending, covering `[0, ∞)`.
  package let pieces: [Piece]
  /// The wearer.
  package let wearer: Wearer
  /// The activity's motion.
  package let motion: ActivityMotion

  /// The timeline of `session` for `wearer`, up to `horizon` seconds (pieces after it are not needed).
  package init(session: SensorSession, wearer: Wearer, horizon: Double) {
    self.wearer = wearer
    motion = ActivityMotion(session.configuration.activityType)
    let running = session.runningOffsets
    var cuts: Set<Double> = [0]
    for change in wearer.effort.changes where change.offset > 0 && change.offset < horizon {
      cuts.insert(change.offset)
    }
    for span in running {
      if span.start > 0 && span.start < horizon { cuts.insert(span.start) }
      if span.end > 0 && span.end < horizon { cuts.insert(span.end) }
    }
    let starts = cuts.sorted()
    var pieces: [Piece] = []
    pieces.reserveCapacity(starts.count)
    let reserve = wearer.maxHeartRate - wearer.restingHeartRate
    var heartRate = wearer.restingHeartRate + Self.startIntensity * reserve
    var distance = 0.0
    var count = 0.0
    for (index, start) in starts.enumerated() {
      let end = index + 1 < starts.count ? starts[index + 1] : .infinity
      let isRunning = running.contains { $0.start <= start && start < $0.end }
      let effort = isRunning ? wearer.effort.effort(at: start) : Effort.rest
      let intensity = motion.intensity(of: effort)
      let speed = isRunning ? motion.speed(of: effort) : 0
      let piece = Piece(
        start: start, end: end, running: isRunning, intensity: intensity, speed: speed,
        cadence: motion.cadence(at: speed), heartRateAtStart: heartRate, distanceAtStart: distance,
        countAtStart: count)
      pieces.append(piece)
      if end.isFinite {
        heartRate = Self.heartRate(in: piece, at: end, wearer: wearer)
        distance += speed * (end - start)
        count += piece.cadence * (end - start)
      }
    }
    self.pieces = pieces
  }

  /// The index of the piece holding `t` (t ≥ 0).
  package func pieceIndex(at t: Double) -> Int {
    var low = 0
    var high = pieces.count - 1
    while low < high {
      let mid = (low + high + 1) / 2
      if pieces[mid].start <= t { low = mid } else { high = mid - 1 }
    }
    return low
  }

  /// The target heart rate of an intensity, count/min.
  package static func target(_ intensity: Double, wearer: Wearer) -> Double {
    wearer.restingHeartRate + intensity * (wearer.maxHeartRate - wearer.restingHeartRate)
  }

  private static func heartRate(in piece: Piece, at t: Double, wearer: Wearer) -> Double {
    let target = target(piece.intensity, wearer: wearer)
    let tau = piece.heartRateAtStart < target ? riseSeconds : fallSeconds
    return target + (piece.heartRateAtStart - target) * exp(-(t - piece.start) / tau)
  }

  /// The noiseless heart rate at `t`, count/min.
  package func heartRate(at t: Double) -> Double {
    Self.heartRate(in: pieces[pieceIndex(at: max(0, t))], at: max(0, t), wearer: wearer)
  }

  /// Distance in metres from the session's start to `t`.
  package func distance(at t: Double) -> Double {
    let piece = pieces[pieceIndex(at: max(0, t))]
    return piece.distanceAtStart + piece.speed * (max(0, t) - piece.start)
  }

  /// Steps, strokes or pushes (fractional) from the session's start to `t`.
  package func count(at t: Double) -> Double {
    let piece = pieces[pieceIndex(at: max(0, t))]
    return piece.countAtStart + piece.cadence * (max(0, t) - piece.start)
  }

  /// The speed at `t`, m/s.
  package func speed(at t: Double) -> Double { pieces[pieceIndex(at: max(0, t))].speed }

  /// Active energy in kcal over `[from, to)`: each piece's rate times its overlap.
  package func activeEnergy(from: Double, to: Double) -> Double {
    var total = 0.0
    var index = pieceIndex(at: max(0, from))
    while index < pieces.count, pieces[index].start < to {
      let piece = pieces[index]
      let overlap = min(to, piece.end) - max(from, piece.start)
      if overlap > 0 {
        total += overlap * motion.activeEnergyRate(speed: piece.speed, intensity: piece.intensity, wearer: wearer)
      }
      index += 1
    }
    return total
  }
}

/// A span in seconds since the session's start, `[start, end)`; `end` is `.infinity` while open.
package struct OffsetSpan: Hashable, Sendable {
  /// Start.
  package var start: Double
  /// End, or `.infinity`.
  package var end: Double

  /// Creates a span.
  package init(start: Double, end: Double) {
    self.start = start
    self.end = end
  }

  /// `spans` minus `holes`, start-ascending (both in any order, overlaps allowed).
  package static func subtracting(_ holes: [OffsetSpan], from spans: [OffsetSpan]) -> [OffsetSpan] {
    let sortedHoles = holes.sorted { $0.start < $1.start }
    var result: [OffsetSpan] = []
    for span in spans.sorted(by: { $0.start < $1.start }) {
      var cursor = span.start
      for hole in sortedHoles where hole.end > cursor && hole.start < span.end {
        if hole.start > cursor { result.append(OffsetSpan(start: cursor, end: hole.start)) }
        cursor = max(cursor, hole.end)
        if cursor >= span.end { break }
      }
      if cursor < span.end { result.append(OffsetSpan(start: cursor, end: span.end)) }
    }
    return result
  }
}
