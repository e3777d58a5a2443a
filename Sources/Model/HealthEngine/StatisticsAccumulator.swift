import FoundationEssentials
import HealthModel

#if canImport(Glibc)
  import Glibc  // pow and log10 (pure functions; no system calls)
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One visible sample as statistics see it.
struct StatisticsItem {
  var start: Double
  var end: Double
  var value: Double
  /// Index into the store's source table.
  var source: UInt32
}

/// Accumulates the statistics of one bucket.
struct StatisticsAccumulator: Hashable, Sendable {
  /// Samples that count in the bucket (after de-duplication).
  var count = 0
  /// Pro-rata sum of counted time.
  var sum = 0.0
  /// Value × counted seconds.
  var weightedSum = 0.0
  /// Counted seconds, per sample.
  var weight = 0.0
  /// Sum of counted samples' values.
  var plainSum = 0.0
  /// For equivalent continuous levels: the highest level so far, and Σ 10^((level − highest) / 10) weighted by
  /// counted seconds (`weightedEnergy`) and per counted sample (`plainEnergy`) — scaled to the highest level so no
  /// power overflows.
  var highestLevel = -Double.infinity
  var weightedEnergy = 0.0
  var plainEnergy = 0.0
  var minimum = Double.infinity
  var maximum = -Double.infinity
  var mostRecentEnd = -Double.infinity
  var mostRecentStart = -Double.infinity
  var mostRecentValue = 0.0
  /// Time covered by counted samples (each instant once).
  var duration = 0.0

  /// A counted stretch of `length` seconds of a sample, `fraction` of its whole duration.
  @inline(__always)
  mutating func addPiece(value: Double, length: Double, fraction: Double, level: Bool) {
    sum += value * fraction
    weightedSum += value * length
    weight += length
    if level {
      rescale(to: value)
      weightedEnergy += pow(10, (value - highestLevel) / 10) * length
    }
  }

  /// A sample that counts in the bucket (once per bucket).
  @inline(__always)
  mutating func countSample(value: Double, start: Double, end: Double, level: Bool) {
    count += 1
    plainSum += value
    if level {
      rescale(to: value)
      plainEnergy += pow(10, (value - highestLevel) / 10)
    }
    minimum = Swift.min(minimum, value)
    maximum = Swift.max(maximum, value)
    if end > mostRecentEnd || (end == mostRecentEnd && start >= mostRecentStart) {
      mostRecentEnd = end
      mostRecentStart = start
      mostRecentValue = value
    }
  }

  /// Makes `level` the reference of the energy sums when it is the highest so far.
  private mutating func rescale(to level: Double) {
    guard level > highestLevel else { return }
    let scale = highestLevel.isFinite ? pow(10, (highestLevel - level) / 10) : 0
    weightedEnergy *= scale
    plainEnergy *= scale
    highestLevel = level
  }

  func result(start: Date, end: Date, options: StatisticsOptions, style: AggregationStyle) -> Statistics {
    var stats = Statistics(start: start, end: end)
    stats.sampleCount = count
    guard count > 0 else { return stats }
    if options.contains(.cumulativeSum) { stats.sum = sum }
    if options.contains(.discreteAverage) {
      switch style {
      case .discreteTemporallyWeighted where weight > 0: stats.average = weightedSum / weight
      case .discreteEquivalentContinuousLevel:
        // IEC 61672-1's Leq: 10·log10 of the mean energy, weighted by time when samples have some, else by count.
        let mean = weight > 0 ? weightedEnergy / weight : plainEnergy / Double(count)
        stats.average = highestLevel + 10 * log10(mean)
      default: stats.average = plainSum / Double(count)
      }
    }
    if options.contains(.discreteMin) { stats.minimum = minimum }
    if options.contains(.discreteMax) { stats.maximum = maximum }
    if options.contains(.mostRecent) {
      stats.mostRecent = mostRecentValue
      stats.mostRecentDates =
        Date(timeIntervalSinceReferenceDate: mostRecentStart)...Date(timeIntervalSinceReferenceDate: mostRecentEnd)
    }
    if options.contains(.duration) { stats.duration = duration }
    return stats
  }
}

/// Fills `buckets` from `items` (in start order), de-duplicating by `ranks` (per item; lower ranks win).
///
/// When every item has the same rank (one source) and the covered duration is not needed, each sample simply adds
/// its overlap with each bucket. Otherwise time is cut at every sample start and end and every bucket boundary;
/// in each piece the samples of the best-ranked source present count (all of that source's samples there), the
/// others not; an instantaneous sample counts unless a better-ranked source has a sample covering its instant or
/// an instantaneous one at the same instant (docs/behavior.md P1).
func accumulate(
  _ items: [StatisticsItem], ranks: [Int32], buckets: StatisticsBuckets, style: AggregationStyle, needsUnion: Bool
) -> [StatisticsAccumulator] {
  var result = [StatisticsAccumulator](repeating: StatisticsAccumulator(), count: buckets.count)
  guard !items.isEmpty else { return result }
  let level = style == .discreteEquivalentContinuousLevel
  let oneSource = ranks.allSatisfy { $0 == ranks[0] }
  let low = buckets.bounds[0]
  let high = buckets.bounds[buckets.count]
  var cursor = StatisticsBuckets.Cursor()
  if oneSource && !needsUnion {
    for item in items {
      let duration = item.end - item.start
      if duration <= 0 {
        guard let b = cursor.bucket(of: item.start, in: buckets) else { continue }
        result[b].addPiece(value: item.value, length: 0, fraction: 1, level: level)
        result[b].countSample(value: item.value, start: item.start, end: item.end, level: level)
        continue
      }
      guard var b = cursor.firstBucket(from: item.start, in: buckets) else { continue }
      while b < buckets.count {
        let bucketStart = buckets.isSingleWindow ? low : buckets.bounds[b]
        let bucketEnd = buckets.isSingleWindow ? high : buckets.bounds[b + 1]
        if bucketStart >= item.end { break }
        let overlap = min(item.end, bucketEnd) - max(item.start, bucketStart)
        if overlap > 0 {
          result[b].addPiece(value: item.value, length: overlap, fraction: overlap / duration, level: level)
          result[b].countSample(value: item.value, start: item.start, end: item.end, level: level)
          result[b].duration += overlap
        }
        b += 1
      }
    }
    return result
  }
  // The sweep, in time order: the samples by start (the scan's order), the active samples' ends from a min-heap,
  // the bucket boundaries. At one instant: ends, then starts, then instantaneous samples; boundaries only cut.
  var items = items
  var ranks = ranks
  if zip(items, items.dropFirst()).contains(where: { $0.start > $1.start }) {
    let order = items.indices.sorted { items[$0].start < items[$1].start }
    items = order.map { items[$0] }
    ranks = order.map { ranks[$0] }
  }
  let bounds = buckets.bounds.filter(\.isFinite)
  // The active samples (started, not ended, positive duration) and where each sits in `active`.
  var active: [Int32] = []
  var activeSlot = [Int32](repeating: -1, count: items.count)
  var lastCounted = [Int](repeating: -1, count: items.count)
  var ends = EndHeap()
  var next = 0
  var boundary = 0
  var previous = -Double.infinity
  var instants: [Int] = []
  while next < items.count || !ends.isEmpty {
    var time = Double.infinity
    if next < items.count { time = items[next].start }
    if let soonest = ends.minimum, soonest.end < time { time = soonest.end }
    if boundary < bounds.count, bounds[boundary] < time { time = bounds[boundary] }
    // The stretch since the previous instant: the best-ranked active source's samples count.
    let from = max(previous, low)
    let to = min(time, high)
    if to > from, !active.isEmpty, let bucket = cursor.bucket(of: from, in: buckets) {
      var rank = Int32.max
      for i in active where ranks[Int(i)] < rank { rank = ranks[Int(i)] }
      let length = to - from
      for i in active where ranks[Int(i)] == rank {
        let item = items[Int(i)]
        result[bucket].addPiece(
          value: item.value, length: length, fraction: length / (item.end - item.start), level: level)
        if lastCounted[Int(i)] != bucket {
          lastCounted[Int(i)] = bucket
          result[bucket].countSample(value: item.value, start: item.start, end: item.end, level: level)
        }
      }
      result[bucket].duration += length
    }
    while let soonest = ends.minimum, soonest.end == time {
      _ = ends.removeMinimum()
      let slot = Int(activeSlot[Int(soonest.index)])
      let last = active.removeLast()
      if last != soonest.index {
        active[slot] = last
        activeSlot[Int(last)] = Int32(slot)
      }
    }
    instants.removeAll(keepingCapacity: true)
    while next < items.count, items[next].start == time {
      let item = items[next]
      if item.end > item.start {
        activeSlot[next] = Int32(active.count)
        active.append(Int32(next))
        ends.insert(end: item.end, index: Int32(next))
      } else {
        instants.append(next)
      }
      next += 1
    }
    while boundary < bounds.count, bounds[boundary] <= time { boundary += 1 }
    if !instants.isEmpty, let bucket = cursor.bucket(of: time, in: buckets) {
      var winner = Int32.max
      for i in active where ranks[Int(i)] < winner { winner = ranks[Int(i)] }
      for i in instants where ranks[i] < winner { winner = ranks[i] }
      for i in instants where ranks[i] == winner {
        let item = items[i]
        result[bucket].addPiece(value: item.value, length: 0, fraction: 1, level: level)
        result[bucket].countSample(value: item.value, start: item.start, end: item.end, level: level)
      }
    }
    previous = time
  }
  return result
}

/// The ends of the samples active in the sweep, soonest first: a binary min-heap.
struct EndHeap {
  private var heap: [(end: Double, index: Int32)] = []

  var isEmpty: Bool { heap.isEmpty }
  var minimum: (end: Double, index: Int32)? { heap.first }

  mutating func insert(end: Double, index: Int32) {
    heap.append((end, index))
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].end < heap[parent].end else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  mutating func removeMinimum() -> (end: Double, index: Int32)? {
    guard !heap.isEmpty else { return nil }
    heap.swapAt(0, heap.count - 1)
    let minimum = heap.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < heap.count, heap[left].end < heap[smallest].end { smallest = left }
      if right < heap.count, heap[right].end < heap[smallest].end { smallest = right }
      if smallest == parent { break }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
    return minimum
  }
}
