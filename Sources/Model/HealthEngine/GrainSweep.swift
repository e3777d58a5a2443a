import FoundationEssentials
import HealthModel

/// The grain of statistics summaries: 15 minutes, counted from the reference date (2001-01-01T00:00:00Z). Every
/// time zone's local midnight and hour fall on a grain boundary (zones differ from UTC by multiples of 15 minutes).
package enum StatisticsGrain {
  /// The grain's length in seconds.
  package static let seconds = 900.0
  /// Grains per summary page.
  static let pageSize = 1024

  /// The grain containing `t` (seconds since the reference date, finite): the division's rounding is corrected, so
  /// `start(of: index(of: t)) <= t < start(of: index(of: t) + 1)` holds exactly.
  /// Times beyond ±``limit`` (and NaN) are clamped, never trapped on; a summary never holds them (``inRange(_:)``).
  @inline(__always)
  static func index(of t: Double) -> Int64 {
    guard t > -limit else { return Int64(-limit / seconds) }
    guard t < limit else { return Int64(limit / seconds) }
    var g = Int64((t * (1 / seconds)).rounded(.down))  // the product is corrected below, like a quotient would be
    if start(of: g) > t {
      g -= 1
    } else if start(of: g + 1) <= t {
      g += 1
    }
    return g
  }

  /// The start of grain `g`.
  @inline(__always)
  static func start(of g: Int64) -> Double { Double(g) * seconds }

  /// How far from the reference date (either way, seconds) grains are counted: far beyond any valid sample date.
  static let limit = 1e15

  /// Whether `t` lies where grains are counted.
  @inline(__always)
  static func inRange(_ t: Double) -> Bool { t > -limit && t < limit }

  /// The grain that starts exactly at `t`, if one does (and `t` is in the range a grain index can express).
  static func grain(startingAt t: Double) -> Int64? {
    guard inRange(t) else { return nil }
    let g = index(of: t)
    return start(of: g) == t ? g : nil
  }
}

/// What a sweep tells its sink: a counted piece of a sample (part of a stretch where its source is the best-ranked
/// present, or an instantaneous sample that counts).
protocol GrainSink {
  /// `amount` of a sample's value counts in grain `grain` of bucket `bucket`; the sample last counted in
  /// `previousGrain` (Int64.min: never) and `newInBucket` says whether this is its first piece in the bucket.
  mutating func piece(grain: Int64, bucket: Int, amount: Double, previousGrain: Int64, newInBucket: Bool)
}

/// The de-duplicating sweep both the summaries and the scans run (docs/behavior.md P1): samples arrive in start
/// order; time is cut at every start, end, grain boundary and bucket boundary; in each stretch the samples of the
/// best-ranked source present count, each adding value × stretch ÷ its duration; an instantaneous sample counts
/// unless a better-ranked source is active at its instant or has an instantaneous sample there. Active samples keep
/// their start order (removal preserves it), so the pieces of a grain come in the same order whichever window of
/// samples the sweep is given, as long as it holds every sample overlapping the grain.
struct GrainSweep<Sink: GrainSink> {
  /// A sample with a duration that has started and not ended.
  struct Active {
    var start: Double
    var end: Double
    var value: Double
    var rank: Int32
    var lastGrain = Int64.min
    var lastBucket = -1
  }

  /// The most samples that may overlap at one instant; deeper overlap stops the sweep (``add`` returns false).
  static var maxOverlap: Int { SampleStore.maxOverlapForFastSum }

  var sink: Sink
  /// Bucket boundaries (finite, increasing): stretches are clipped to `bounds.first…bounds.last` and cut at each.
  /// Empty: one bucket (0) without limits.
  let bounds: [Double]
  let low: Double
  let high: Double
  var active: [Active] = []
  var instants: [(value: Double, rank: Int32)] = []
  var previous = -Double.infinity
  /// The bucket containing `previous` (or the next one when `previous` is before them).
  var bucket = 0
  /// The grain containing `previous`, as the last ``nextBoundary(after:)`` found it.
  var grainOfPrevious: Int64 = 0

  /// Whether stretches are cut at grain boundaries (a summary's sweep, and scans of at most
  /// ``StatisticsSummary/maxGrains`` grains: beyond that a stretch is cut at bucket boundaries only, so the cuts
  /// stay bounded whatever the span).
  let cutsGrains: Bool

  /// A sweep into `sink` over buckets with these boundaries (at least two), or, with none, over one bucket from
  /// `low` to `high`: pieces outside are not counted, and grains are cut only within.
  init(sink: Sink, bounds: [Double], low: Double = -.infinity, high: Double = .infinity, cutsGrains: Bool = true) {
    self.sink = sink
    self.bounds = bounds
    self.cutsGrains = cutsGrains
    self.low = bounds.first ?? low
    self.high = bounds.last ?? high
    active.reserveCapacity(Self.maxOverlap)
  }

  /// Adds the next sample in start order; false when more than ``maxOverlap`` samples overlap.
  @inline(__always)
  mutating func add(start: Double, end: Double, value: Double, rank: Int32) -> Bool {
    advance(to: start)
    if end > start {
      guard active.count < Self.maxOverlap else { return false }
      active.append(Active(start: start, end: end, value: value, rank: rank))
    } else {
      instants.append((value, rank))
    }
    return true
  }

  /// Runs the sweep to its end: every active sample ends.
  mutating func finish() { advance(to: .infinity) }

  /// The next cut after `t` that is not a sample's: the next grain boundary or bucket boundary.
  @inline(__always)
  private mutating func nextBoundary(after t: Double) -> Double {
    if t < low { return low }
    guard t < high else { return .infinity }
    grainOfPrevious = StatisticsGrain.index(of: t)
    let next = cutsGrains ? StatisticsGrain.start(of: grainOfPrevious + 1) : .infinity
    guard !bounds.isEmpty else { return next }
    moveBucket(to: t)
    return min(next, bounds[bucket + 1])
  }

  /// Moves `bucket` to the bucket containing `t` (t ≥ low).
  @inline(__always)
  private mutating func moveBucket(to t: Double) {
    while bucket + 1 < bounds.count - 1, bounds[bucket + 1] <= t { bucket += 1 }
  }

  /// Moves the sweep to `time`: judges the instants waiting at the current instant, then counts every stretch up
  /// to `time`, cut at the ends and boundaries before it, removing the samples that end.
  @inline(__always)
  private mutating func advance(to time: Double) {
    if time == previous { return }
    flushInstants()
    while !active.isEmpty {
      var next = time
      for a in active where a.end < next { next = a.end }
      next = min(next, nextBoundary(after: previous))
      countStretch(to: next)
      previous = next
      // The samples that end here leave; the others keep their order.
      var kept = 0
      for i in active.indices where active[i].end != next {
        if kept != i { active[kept] = active[i] }
        kept += 1
      }
      if kept < active.count { active.removeLast(active.count - kept) }
      if next == time { return }
    }
    previous = time
  }

  /// Counts the stretch from `previous` to `to` (within one grain and one bucket) for the best-ranked source.
  @inline(__always)
  private mutating func countStretch(to: Double) {
    let from = max(previous, low)
    let end = min(to, high)
    guard end > from else { return }
    if !bounds.isEmpty { moveBucket(to: from) }
    // A stretch that counts starts at `previous`, whose grain ``nextBoundary(after:)`` just found.
    let grain = grainOfPrevious
    var best = Int32.max
    for a in active where a.rank < best { best = a.rank }
    let length = end - from
    for i in active.indices where active[i].rank == best {
      let newInBucket = active[i].lastBucket != bucket
      sink.piece(
        grain: grain, bucket: bucket, amount: active[i].value * (length / (active[i].end - active[i].start)),
        previousGrain: active[i].lastGrain, newInBucket: newInBucket)
      active[i].lastGrain = grain
      active[i].lastBucket = bucket
    }
  }

  /// Judges the instantaneous samples at `previous`: those of the best rank among them and the active samples count.
  @inline(__always)
  private mutating func flushInstants() {
    guard !instants.isEmpty else { return }
    defer { instants.removeAll(keepingCapacity: true) }
    guard previous >= low, previous < high else { return }
    if !bounds.isEmpty { moveBucket(to: previous) }
    let grain = StatisticsGrain.index(of: previous)
    var best = Int32.max
    for a in active where a.rank < best { best = a.rank }
    for i in instants where i.rank < best { best = i.rank }
    for i in instants where i.rank == best {
      sink.piece(grain: grain, bucket: bucket, amount: i.value, previousGrain: .min, newInBucket: true)
    }
  }
}

/// A scan's sink: each grain's pieces (within a bucket) add up to a partial sum, and each bucket's sum is its
/// touched partials added in time order; a sample counts once per bucket.
struct BucketSink: GrainSink {
  var sums: [Double]
  var counts: [Int]
  var partial = 0.0
  var partialGrain = Int64.min
  var partialBucket = -1

  init(buckets: Int) {
    sums = [Double](repeating: 0, count: buckets)
    counts = [Int](repeating: 0, count: buckets)
  }

  @inline(__always)
  mutating func piece(grain: Int64, bucket: Int, amount: Double, previousGrain: Int64, newInBucket: Bool) {
    if grain != partialGrain || bucket != partialBucket {
      flush()
      partialGrain = grain
      partialBucket = bucket
    }
    partial += amount
    if newInBucket { counts[bucket] += 1 }
  }

  /// Adds the open partial to its bucket.
  mutating func flush() {
    guard partialBucket >= 0 else { return }
    sums[partialBucket] += partial
    partial = 0
    partialBucket = -1
    partialGrain = .min
  }
}
