import FoundationEssentials
import HealthModel

// Statistics as healthd computes them: samples of several sources de-duplicated by the source order
// (docs/behavior.md P1), split over calendar intervals in the device's time zone (K3), with the options each
// aggregation style allows (Q3).

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
