import HealthModel

// The de-duplicated daily sum without the general sweep's intermediate arrays (docs/performance.md, "What profiling
// changed"): the common collection (cumulativeSum only, no predicate filter) over samples of several sources.

extension SampleStore {
  /// The most samples of one type that may overlap at one instant for ``sumIntoBucketsDeduplicated``; deeper
  /// overlap returns false and the general sweep (``accumulate``) takes over, whose cost does not grow with it.
  package static let maxOverlapForFastSum = 64

  /// Sums visible samples into buckets, de-duplicating sources as the general sweep does (docs/behavior.md P1): time
  /// is cut at every start, end and bucket boundary; in each stretch only the samples of the best-ranked source
  /// present count, each adding the stretch's share of its value and counting once per bucket; an instantaneous
  /// sample counts unless a better-ranked source is active at its instant or has an instantaneous sample there.
  ///
  /// `rank[source]` is each source-table entry's rank (lower wins). One pass over the start-ordered slots, with
  /// the few samples active at a time in a small array. Returns false, leaving the sums incomplete, when more
  /// than ``maxOverlapForFastSum`` samples overlap.
  package func sumIntoBucketsDeduplicated(
    type: SampleType, range: DateRange?, floor: Double, visibility: Visibility, sources allowed: Set<String>?,
    buckets: StatisticsBuckets, rank: [Int32], sums: inout [Double], counts: inout [Int]
  ) -> Bool {
    guard let c = candidates(type: type, range: range, visibility: visibility, sources: allowed) else { return true }
    let checkOwn = !c.own.isEmpty
    let matcher = (range ?? DateRange(start: nil, end: nil)).matcher
    var sweep = DeduplicatingSweep(buckets: buckets, sums: sums, counts: counts)
    var complete = true
    slots.withUnsafeBufferPointer { buffer in
      c.order.withUnsafeBufferPointer { order in
        for position in c.lower..<c.upper {
          let slot = buffer[Int(order[position])]
          if !slot.live || slot.end < floor { continue }
          if checkOwn, !c.own.contains(slot.source) { continue }
          if let allowedSources = c.allowed, !allowedSources.contains(slot.source) { continue }
          if !matcher.matches(start: slot.start, end: slot.end) { continue }
          guard sweep.add(start: slot.start, end: slot.end, value: slot.value, rank: rank[Int(slot.source)]) else {
            complete = false
            return
          }
        }
      }
    }
    guard complete else { return false }
    sweep.finish()
    sums = sweep.sums
    counts = sweep.counts
    return true
  }
}

/// The state of ``SampleStore/sumIntoBucketsDeduplicated``'s sweep: the samples active now and the instantaneous
/// samples waiting at the current instant.
struct DeduplicatingSweep {
  /// A sample with a duration that has started and not ended.
  struct Active {
    var start: Double
    var end: Double
    var value: Double
    var rank: Int32
    /// The last bucket it was counted in (a sample counts once per bucket).
    var lastBucket: Int
  }

  let buckets: StatisticsBuckets
  let low: Double
  let high: Double
  var sums: [Double]
  var counts: [Int]
  var cursor = StatisticsBuckets.Cursor()
  var active: [Active] = []
  /// Instantaneous samples at `previous`, judged once every sample starting then is active.
  var instants: [(value: Double, rank: Int32)] = []
  /// The last instant the sweep reached.
  var previous = -Double.infinity
  /// The next bucket boundary not yet passed.
  var boundary = 0

  init(buckets: StatisticsBuckets, sums: [Double], counts: [Int]) {
    self.buckets = buckets
    low = buckets.bounds[0]
    high = buckets.bounds[buckets.count]
    self.sums = sums
    self.counts = counts
    active.reserveCapacity(SampleStore.maxOverlapForFastSum)
  }

  /// Adds the next sample in start order; false when too many overlap.
  @inline(__always)
  mutating func add(start: Double, end: Double, value: Double, rank: Int32) -> Bool {
    advance(to: start)
    if end > start {
      guard active.count < SampleStore.maxOverlapForFastSum else { return false }
      active.append(Active(start: start, end: end, value: value, rank: rank, lastBucket: -1))
    } else {
      instants.append((value, rank))
    }
    return true
  }

  /// Runs the sweep to its end: every active sample ends.
  mutating func finish() { advance(to: .infinity) }

  /// Moves the sweep to `time`: judges the instants waiting at the current instant, then counts every stretch
  /// up to `time`, cut at the ends and boundaries before it, removing the samples that end.
  @inline(__always)
  private mutating func advance(to time: Double) {
    if time == previous { return }
    flushInstants()
    while true {
      var next = time
      for a in active where a.end < next { next = a.end }
      let bounds = buckets.bounds
      while boundary < bounds.count, bounds[boundary] <= previous { boundary += 1 }
      if boundary < bounds.count, bounds[boundary] < next { next = bounds[boundary] }
      if next == .infinity && active.isEmpty { return }
      countStretch(to: next)
      previous = next
      var i = 0
      while i < active.count {
        if active[i].end == next {
          active[i] = active[active.count - 1]
          active.removeLast()
        } else {
          i += 1
        }
      }
      if next == time { return }
    }
  }

  /// Counts the stretch from `previous` to `to` for the best-ranked active source.
  @inline(__always)
  private mutating func countStretch(to: Double) {
    let from = max(previous, low)
    let end = min(to, high)
    guard end > from, !active.isEmpty, let bucket = cursor.bucket(of: from, in: buckets) else { return }
    var best = Int32.max
    for a in active where a.rank < best { best = a.rank }
    let length = end - from
    for i in active.indices where active[i].rank == best {
      sums[bucket] += active[i].value * (length / (active[i].end - active[i].start))
      if active[i].lastBucket != bucket {
        active[i].lastBucket = bucket
        counts[bucket] += 1
      }
    }
  }

  /// Judges the instantaneous samples at `previous`: those of the best rank among them and the active samples count.
  @inline(__always)
  private mutating func flushInstants() {
    guard !instants.isEmpty else { return }
    defer { instants.removeAll(keepingCapacity: true) }
    guard let bucket = cursor.bucket(of: previous, in: buckets) else { return }
    var best = Int32.max
    for a in active where a.rank < best { best = a.rank }
    for i in instants where i.rank < best { best = i.rank }
    for i in instants where i.rank == best {
      sums[bucket] += i.value
      counts[bucket] += 1
    }
  }
}
