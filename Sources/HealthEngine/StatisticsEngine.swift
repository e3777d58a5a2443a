import FoundationEssentials
import HealthModel

#if canImport(Glibc)
  import Glibc  // pow and log10 (pure functions; no system calls)
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

// Statistics as healthd computes them: samples of several sources de-duplicated by the source order
// (docs/behavior.md P1), split over calendar intervals in the device's time zone (K3), with the options each
// aggregation style allows (Q3).

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

/// One visible sample as statistics see it.
struct StatisticsItem {
  var start: Double
  var end: Double
  var value: Double
  /// Index into the store's source table.
  var source: UInt32
}

/// Accumulates the statistics of one bucket.
struct StatisticsAccumulator {
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

extension DeviceState {
  /// Checks the options against the type as `-[HKQuantityType supportsStatisticOptions:]` does (docs/behavior.md
  /// Q3): a cumulative type refuses `discreteAverage`, `discreteMin` and `discreteMax`; a discrete type refuses
  /// `cumulativeSum`; `mostRecent`, `duration` and `separateBySource` suit both. The refusal is an exception on a
  /// device (would terminate the app).
  func checkStatisticsOptions(_ type: SampleType, _ options: StatisticsOptions) throws(HealthError) {
    guard let style = type.descriptor.aggregation else {
      throw .healthKit(.errorInvalidArgument, "Statistics need a quantity type; \(type.identifier) is not one")
    }
    let refused: [(StatisticsOptions, String)] =
      style.isDiscrete
      ? [(.cumulativeSum, "HKStatisticsOptionCumulativeSum")]
      : [
        (.discreteAverage, "HKStatisticsOptionDiscreteAverage"), (.discreteMin, "HKStatisticsOptionDiscreteMin"),
        (.discreteMax, "HKStatisticsOptionDiscreteMax"),
      ]
    if let option = refused.first(where: { options.contains($0.0) }) {
      let kind = style.isDiscrete ? "discrete" : "cumulative"
      throw .invalidArgumentException(
        "Statistics option \(option.1) is not compatible with \(kind) data type \(type.identifier)")
    }
  }

  /// The visible samples of a statistics query, in start order, and each one's rank in the type's source order.
  private func statisticsItems(_ bundleID: String, _ query: StatisticsQuery, wall: Date)
    -> (items: [StatisticsItem], ranks: [Int32])
  {
    var items: [StatisticsItem] = []
    let floor = earliestPermittedSampleDate(wall: wall).timeIntervalSinceReferenceDate
    let visibility = visibility(bundleID, query.type)
    // Predicate filters (UUIDs, metadata, devices, values) narrow the samples before anything is merged.
    let allowed = passing(query.filter, query.type, query.range, floor, visibility, query.sources)
    store.scanSlots(
      type: query.type, range: query.range, floor: floor, visibility: visibility, sources: query.sources
    ) { index, slot in
      if let allowed, !allowed.contains(index) { return }
      items.append(StatisticsItem(start: slot.start, end: slot.end, value: slot.value, source: slot.source))
    }
    return (items, ranks(of: items, type: query.type))
  }

  /// Each item's rank under the type's source order (0 = highest priority).
  private func ranks(of items: [StatisticsItem], type: SampleType) -> [Int32] {
    guard let first = items.first?.source, items.contains(where: { $0.source != first }) else {
      return [Int32](repeating: 0, count: items.count)
    }
    var rankOfSource = [Int32](repeating: -1, count: Int(items.map(\.source).max()!) + 1)
    var present: [UInt32] = []
    for item in items where rankOfSource[Int(item.source)] == -1 {
      rankOfSource[Int(item.source)] = 0
      present.append(item.source)
    }
    // A source is an app on a device: store entries that differ only in what an imported export said of them
    // (its version, its hardware) are one source, with one rank.
    let keys = present.map { index in
      let source = store.source(at: index)
      return SampleSource(bundleID: source.bundleID, device: source.device)
    }
    let ordered = SourceOrder.ranked(Array(Set(keys)), by: policy.sourceOrders[type])
    for (index, key) in zip(present, keys) { rankOfSource[Int(index)] = Int32(ordered.firstIndex(of: key)!) }
    return items.map { rankOfSource[Int($0.source)] }
  }

  /// The rank of every entry of the store's source table under the type's source order (0 = highest priority),
  /// as ``ranks(of:type:)`` ranks the sources of a query's items.
  private func sourceRanks(_ type: SampleType) -> [Int32] { store.sourceRanks(order: policy.sourceOrders[type]) }

  /// A `cumulativeSum` collection's sums and counts per bucket (`bounds`, reference seconds), de-duplicated by the
  /// source order: each bucket from the type's summary when it can give it exactly (`summary`, the query sees every
  /// sample, no source predicate, the bucket lies within the predicate's dates on grain boundaries, the floor is
  /// not after it), the rest by a scan through the same grain sweep — the two agree to the bit. Nil when too many
  /// samples overlap for the grain sweep.
  package func grainSums(
    _ bundleID: String, _ query: StatisticsQuery, buckets bounds: [Double], wall: Date, summary: Bool
  ) -> (sums: [Double], counts: [Int])? {
    let floor = earliestPermittedSampleDate(wall: wall).timeIntervalSinceReferenceDate
    let visibility = visibility(bundleID, query.type)
    let rank = sourceRanks(query.type)
    let count = bounds.count - 1
    let cutsGrains = SampleStore.cutsGrains(from: bounds[0], to: bounds[count])
    guard summary, cutsGrains, visibility == .all, query.sources == nil, let range = query.range,
      range.options.isEmpty, store.summaryUsable(query.type, order: policy.sourceOrders[query.type])
    else {
      return store.sumByGrains(
        type: query.type, range: query.range, floor: floor, visibility: visibility, sources: query.sources,
        buckets: bounds, rank: rank, cutsGrains: cutsGrains)
    }
    let rangeStart = range.start?.timeIntervalSinceReferenceDate ?? -.infinity
    let rangeEnd = range.end?.timeIntervalSinceReferenceDate ?? .infinity
    var sums = [Double](repeating: 0, count: count)
    var counts = [Int](repeating: 0, count: count)
    var served = [Bool](repeating: false, count: count)
    for k in 0..<count where bounds[k] >= rangeStart && bounds[k + 1] <= rangeEnd && floor <= bounds[k] {
      guard let (sum, n) = store.summarized(type: query.type, from: bounds[k], to: bounds[k + 1]) else { continue }
      sums[k] = sum
      counts[k] = n
      served[k] = true
    }
    var k = 0
    while k < count {
      if served[k] {
        k += 1
        continue
      }
      var j = k
      while j < count, !served[j] { j += 1 }
      guard
        let part = store.sumByGrains(
          type: query.type, range: query.range, floor: floor, visibility: visibility, sources: query.sources,
          buckets: Array(bounds[k...j]), rank: rank, cutsGrains: true)
      else { return nil }
      sums.replaceSubrange(k..<j, with: part.sums)
      counts.replaceSubrange(k..<j, with: part.counts)
      k = j
    }
    return (sums, counts)
  }

  /// Brings the store's statistics summaries (of `type` only, when given) up to date with its samples and the source
  /// orders. Summaries are a query cache: events only mark the grains they change, and a statistics request
  /// refreshes its type's summary before it reads (`RequestCore`), so a store that is only written pays for none.
  package mutating func refreshStatisticsSummaries(for type: SampleType? = nil) {
    store.refreshSummaries(orders: policy.sourceOrders, only: type)
  }

  /// Per-app statistics (`separateBySource`): each app's samples on their own, its sources on the two devices
  /// de-duplicated by the order between them, as healthd keeps one statistics record per bundle identifier.
  private func statisticsBySource(
    _ items: [StatisticsItem], ranks: [Int32], buckets: StatisticsBuckets, style: AggregationStyle,
    needsUnion: Bool
  ) -> [String: [StatisticsAccumulator]] {
    var byApp: [String: [Int]] = [:]
    for (i, item) in items.enumerated() { byApp[store.source(at: item.source).bundleID, default: []].append(i) }
    var result: [String: [StatisticsAccumulator]] = [:]
    for (bundle, indices) in byApp {
      result[bundle] = accumulate(
        indices.map { items[$0] }, ranks: indices.map { ranks[$0] }, buckets: buckets, style: style,
        needsUnion: needsUnion)
    }
    return result
  }

  /// `HKStatisticsQuery`: one result over the range; errorNoData when no visible sample matches.
  ///
  /// A sample that only partly overlaps the range contributes the overlapping fraction of its value to sums
  /// (HealthPair model, as HealthKit splits samples across statistics intervals); overlapping samples of several
  /// sources are de-duplicated by the type's source order (P1).
  package func statistics(_ bundleID: String, _ query: StatisticsQuery, wall: Date) throws(HealthError)
    -> Statistics
  {
    try queryable(bundleID, query.type, range: query.range)
    try checkStatisticsOptions(query.type, query.options)
    let style = query.type.descriptor.aggregation!
    let rangeStart = query.range?.start?.timeIntervalSinceReferenceDate ?? -Double.infinity
    let rangeEnd = query.range?.end?.timeIntervalSinceReferenceDate ?? Double.infinity
    let (items, ranks) = statisticsItems(bundleID, query, wall: wall)
    guard !items.isEmpty else {
      throw .healthKit(.errorNoData, "No data available for the specified predicate (\(query.type.identifier))")
    }
    let buckets = StatisticsBuckets(window: rangeStart, rangeEnd)
    let needsUnion = query.options.contains(.duration)
    let total = accumulate(items, ranks: ranks, buckets: buckets, style: style, needsUnion: needsUnion)[0]
    let first = items.map(\.start).min()!
    let last = items.map(\.end).max()!
    let start = Date(timeIntervalSinceReferenceDate: rangeStart.isFinite ? rangeStart : first)
    let end = Date(timeIntervalSinceReferenceDate: rangeEnd.isFinite ? rangeEnd : last)
    var result = total.result(start: start, end: end, options: query.options, style: style)
    if query.options.contains(.separateBySource) {
      let parts = statisticsBySource(items, ranks: ranks, buckets: buckets, style: style, needsUnion: needsUnion)
      for (bundle, accumulators) in parts where accumulators[0].count > 0 {
        result.bySource[bundle] = accumulators[0].result(start: start, end: end, options: query.options, style: style)
      }
    }
    return result
  }

  /// `HKStatisticsCollectionQuery`: one result per interval of the device's calendar, counted from the anchor in
  /// both directions (K3), empty intervals included; overlapping sources de-duplicated as for a statistics query.
  package func statisticsCollection(_ bundleID: String, _ query: StatisticsQuery, wall: Date)
    throws(HealthError) -> [Statistics]
  {
    try queryable(bundleID, query.type, range: query.range, anchor: query.anchor)
    try checkStatisticsOptions(query.type, query.options)
    guard let interval = query.interval, interval.isValid else {
      throw .invalidArgumentException(
        "HKStatisticsCollectionQuery needs intervalComponents that move time forward, of at most 10,000 years "
          + "(got \(query.interval.map(\.description) ?? "none"))")
    }
    let style = query.type.descriptor.aggregation!
    let calendar = policy.calendar
    let anchor = (query.anchor ?? Date(timeIntervalSinceReferenceDate: 0)).timeIntervalSince1970
    let reference = LocalCalendar.referenceOffset
    if query.options == .cumulativeSum, query.filter == nil, let start = query.range?.start,
      let end = query.range?.end
    {
      // The common daily sum: grain by grain, from the type's summary where it is exact (StatisticsSummary.swift).
      let buckets = try collectionBuckets(
        from: start.timeIntervalSince1970, to: end.timeIntervalSince1970, anchor: anchor, interval, calendar)
      if let (sums, counts) = grainSums(bundleID, query, buckets: buckets.bounds, wall: wall, summary: true) {
        return (0..<buckets.count).map { i in
          var stats = Statistics(
            start: Date(timeIntervalSinceReferenceDate: buckets.bounds[i]),
            end: Date(timeIntervalSinceReferenceDate: buckets.bounds[i + 1]))
          stats.sampleCount = counts[i]
          if counts[i] > 0 { stats.sum = sums[i] }
          return stats
        }
      }
    }
    let (items, ranks) = statisticsItems(bundleID, query, wall: wall)
    var from = query.range?.start.map { $0.timeIntervalSince1970 }
    var to = query.range?.end.map { $0.timeIntervalSince1970 }
    if from == nil || to == nil {
      guard !items.isEmpty else { return [] }
      from = from ?? items.map(\.start).min()! + reference
      to = to ?? items.map(\.end).max()! + reference
    }
    let buckets = try collectionBuckets(from: from!, to: to!, anchor: anchor, interval, calendar)
    let needsUnion = query.options.contains(.duration)
    let totals = accumulate(items, ranks: ranks, buckets: buckets, style: style, needsUnion: needsUnion)
    let parts =
      query.options.contains(.separateBySource)
      ? statisticsBySource(items, ranks: ranks, buckets: buckets, style: style, needsUnion: needsUnion) : [:]
    return totals.enumerated().map { i, accumulator in
      let start = Date(timeIntervalSinceReferenceDate: buckets.bounds[i])
      let end = Date(timeIntervalSinceReferenceDate: buckets.bounds[i + 1])
      var stats = accumulator.result(start: start, end: end, options: query.options, style: style)
      for (bundle, accumulators) in parts where accumulators[i].count > 0 {
        stats.bySource[bundle] = accumulators[i].result(start: start, end: end, options: query.options, style: style)
      }
      return stats
    }
  }

  /// The intervals covering `from…to` (Unix seconds): from the one containing `from` to the one containing the
  /// last instant before `to`, at most 100,000 of them.
  private func collectionBuckets(
    from: Double, to: Double, anchor: Double, _ interval: CalendarInterval, _ calendar: LocalCalendar
  ) throws(HealthError) -> StatisticsBuckets {
    let first = calendar.indexUnix(from, anchor: anchor, interval: interval)
    var last = max(first, calendar.indexUnix(to, anchor: anchor, interval: interval))
    if last > first, calendar.addingUnix(interval, times: last, to: anchor) >= to { last -= 1 }
    guard last - first < 100_000, abs(first) < 1_000_000_000 else {
      throw .healthKit(
        .errorInvalidArgument,
        "the collection would have \(formatNumber(Double(last) - Double(first) + 1)) intervals (limit 100000)")
    }
    let reference = LocalCalendar.referenceOffset
    let bounds = (first...(last + 1)).map { calendar.addingUnix(interval, times: $0, to: anchor) - reference }
    return StatisticsBuckets(bounds: bounds)
  }
}
