/// The time ranges a statistics computation fills: bucket `i` is `[bounds[i], bounds[i+1])`, in seconds since the
/// reference date. A statistics query has one window (possibly unbounded); a collection has its intervals.
package struct StatisticsBuckets: Sendable {
  /// The boundaries, one more than the buckets.
  package let bounds: [Double]
  /// Equal lengths from an origin (fixed-length intervals, or days in a zone without daylight saving time): a
  /// bucket is found by division instead of a search.
  package let uniform: (origin: Double, interval: Double)?
  /// One window (`HKStatisticsQuery`): every matching instantaneous sample falls in it.
  package let isSingleWindow: Bool

  /// One window from `start` to `end` (either may be infinite).
  package init(window start: Double, _ end: Double) {
    bounds = [start, end]
    uniform = nil
    isSingleWindow = true
  }

  /// Buckets with these boundaries (at least two, increasing).
  package init(bounds: [Double]) {
    self.bounds = bounds
    isSingleWindow = false
    let interval = bounds[1] - bounds[0]
    var equal = true
    for i in 1..<bounds.count where bounds[i] != bounds[0] + Double(i) * interval {
      equal = false
      break
    }
    uniform = equal ? (bounds[0], interval) : nil
  }

  /// The number of buckets.
  package var count: Int { bounds.count - 1 }

  /// The bucket containing `t`, or nil outside them.
  @inline(__always)
  package func bucket(of t: Double) -> Int? {
    if isSingleWindow { return 0 }
    if let (origin, interval) = uniform {
      let position = ((t - origin) / interval).rounded(.down)
      guard position >= 0, position < Double(count) else { return nil }
      return Int(position)
    }
    guard t >= bounds[0], t < bounds[count] else { return nil }
    var low = 0
    var high = count
    while high - low > 1 {
      let middle = (low + high) / 2
      if bounds[middle] <= t { low = middle } else { high = middle }
    }
    return low
  }

  /// The first bucket a sample starting at `start` can overlap (bucket 0 for a sample that starts before them).
  @inline(__always)
  func firstBucket(from start: Double) -> Int? {
    if start < bounds[0] { return 0 }
    return bucket(of: start)
  }

  /// Finds buckets for times that mostly come in increasing order (samples in start order, the sweep's
  /// stretches): one step forward instead of a search over uneven boundaries.
  package struct Cursor {
    var index = 0

    /// Creates a cursor at the first bucket.
    package init() {}

    /// The bucket containing `t`, or nil outside them.
    @inline(__always)
    package mutating func bucket(of t: Double, in buckets: StatisticsBuckets) -> Int? {
      if buckets.isSingleWindow || buckets.uniform != nil { return buckets.bucket(of: t) }
      let bounds = buckets.bounds
      guard t >= bounds[0], t < bounds[buckets.count] else { return nil }
      if t < bounds[index] { index = buckets.bucket(of: t)! }
      while bounds[index + 1] <= t { index += 1 }
      return index
    }

    /// The first bucket a sample starting at `start` can overlap (bucket 0 for one that starts before them).
    @inline(__always)
    package mutating func firstBucket(from start: Double, in buckets: StatisticsBuckets) -> Int? {
      if start < buckets.bounds[0] { return 0 }
      return bucket(of: start, in: buckets)
    }
  }
}
