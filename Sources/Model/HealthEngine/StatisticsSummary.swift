import FoundationEssentials
import HealthModel

// Daily sums without touching every sample: the common collection (cumulativeSum only, no predicate filter, no
// source predicate) is computed per 15-minute grain, and each cumulative type keeps those grains' de-duplicated
// partial sums up to date as samples come and go, so a year of daily totals adds 35,000 grains instead of sweeping
// every sample. Both the summary and the scan that stands in for it (uneven boundaries, an app that sees only its
// own samples, a floor, a source predicate) run the same sweep (GrainSweep.swift) and fold the same grain partials
// in the same order, so their results are identical to the bit (`StatisticsSummaryTests`,
// `theSummaryEqualsTheScanToTheBit`).

/// One cumulative type's summary: for every grain, the de-duplicated partial sum of the samples overlapping it
/// (as a scan computes it), how many samples count in it, how many of those also counted in the grain before, and
/// whether one of them counted earlier but not in the grain before (a gap, which the count formula cannot see).
package struct StatisticsSummary: Sendable {
  /// 1,024 consecutive grains.
  struct Page: Sendable {
    var sums = [Double](repeating: 0, count: StatisticsGrain.pageSize)
    var counted = [Int32](repeating: 0, count: StatisticsGrain.pageSize)
    var continuing = [Int32](repeating: 0, count: StatisticsGrain.pageSize)
    var gaps = [Bool](repeating: false, count: StatisticsGrain.pageSize)
  }

  var pages: [Int64: Page] = [:]
  /// Grain ranges whose samples changed since the last refresh.
  var dirty: [ClosedRange<Int64>] = []
  /// The source order the partials were computed under (nil: the default order).
  var order: SourceOrder?
  /// Whether the partials were ever computed.
  var built = false
  /// More than ``GrainSweep/maxOverlap`` samples overlapped somewhere, or samples spanning more than ``maxGrains``
  /// changed at once: the summary is not used until it is rebuilt (after a change of the source order, or a
  /// restart).
  var deep = false

  /// The most grains one recomputation covers (about 30 years): a summary of samples spanning more is not kept.
  static let maxGrains: Int64 = 1 << 20
  /// The most pages a summary holds (``maxGrains`` of them; 17 MiB): a type whose samples cover more has none.
  static let maxPages = Int(maxGrains) / StatisticsGrain.pageSize

  /// Whether a query may use it: built, clean, not deep, under the type's current source order.
  func usable(order current: SourceOrder?) -> Bool { built && dirty.isEmpty && !deep && order == current }

  /// Records changed grains, extending the last range when they overlap or nearly touch it.
  mutating func noteDirty(_ range: ClosedRange<Int64>) {
    if dirty.count >= 4096 {
      // Changes all over the type's span (an import out of date order): one rebuild costs less than many refreshes.
      built = false
      return
    }
    if let last = dirty.last, range.lowerBound >= last.lowerBound, range.lowerBound <= last.upperBound &+ 96 {
      dirty[dirty.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
    } else {
      dirty.append(range)
    }
  }
}

/// A summary refresh's sink: the grains `first…` of a window, in plain arrays.
struct SummarySink: GrainSink {
  let first: Int64
  var sums: [Double]
  var counted: [Int32]
  var continuing: [Int32]
  var gaps: [Bool]

  init(first: Int64, count: Int) {
    self.first = first
    sums = [Double](repeating: 0, count: count)
    counted = [Int32](repeating: 0, count: count)
    continuing = [Int32](repeating: 0, count: count)
    gaps = [Bool](repeating: false, count: count)
  }

  @inline(__always)
  mutating func piece(grain: Int64, bucket: Int, amount: Double, previousGrain: Int64, newInBucket: Bool) {
    let i = Int(grain - first)
    guard i >= 0, i < sums.count else { return }
    sums[i] += amount
    guard previousGrain != grain else { return }
    counted[i] += 1
    if previousGrain == grain - 1 {
      continuing[i] += 1
    } else if previousGrain != .min {
      gaps[i] = true
    }
  }
}

/// A full rebuild's sink: straight into a summary's pages, one page open at a time (pieces come in time order).
/// Stops writing, and says so, past ``StatisticsSummary/maxPages`` pages.
struct PageSink: GrainSink {
  var pages: [Int64: StatisticsSummary.Page] = [:]
  var open = StatisticsSummary.Page()
  var openIndex = Int64.min
  var overflow = false

  @inline(__always)
  mutating func piece(grain: Int64, bucket: Int, amount: Double, previousGrain: Int64, newInBucket: Bool) {
    let index = grain >> 10  // pageSize 1,024; an arithmetic shift rounds down for earlier grains too
    if index != openIndex {
      close()
      guard pages.count < StatisticsSummary.maxPages else {
        overflow = true
        return
      }
      openIndex = index
      open = pages.removeValue(forKey: index) ?? StatisticsSummary.Page()
    }
    let k = Int(grain & 1023)
    open.sums[k] += amount
    guard previousGrain != grain else { return }
    open.counted[k] += 1
    if previousGrain == grain - 1 {
      open.continuing[k] += 1
    } else if previousGrain != .min {
      open.gaps[k] = true
    }
  }

  /// Stores the open page.
  mutating func close() {
    guard openIndex != .min, !overflow else { return }
    pages[openIndex] = open
    openIndex = .min
  }
}

extension SampleStore {
  /// The most samples of one type that may overlap at one instant for the grain sweep (``GrainSweep``); deeper
  /// overlap makes a scan return nil, and the general sweep (``accumulate``), whose cost does not grow with it,
  /// answers, and it keeps a summary from being used.
  package static let maxOverlapForFastSum = 64

  /// Whether statistics summaries are kept for `type`: cumulative quantity types (sums).
  static func summarizes(_ type: SampleType) -> Bool { type.descriptor.aggregation == .cumulative }

  /// Notes that a sample of `type` spanning `start…end` was added or removed: its grains need recomputing. Samples
  /// saved in date order extend the last range noted.
  mutating func noteSummaryChange(type code: UInt16, start: Double, end: Double) {
    // A summary no query has built yet is built whole by its first refresh: nothing to note.
    if summaries[code]?.built == false { return }
    guard let type = SampleType.lookup(code: code), Self.summarizes(type) else { return }
    guard StatisticsGrain.inRange(start), StatisticsGrain.inRange(end) else {
      // Dates no valid sample has (a hostile journal or peer): the summary is not used until it is rebuilt.
      summaries[code, default: StatisticsSummary()].deep = true
      return
    }
    let low = StatisticsGrain.index(of: start)
    let high = StatisticsGrain.index(of: max(start, end))
    summaries[code, default: StatisticsSummary()].noteDirty(low...high)
  }

  /// Brings every summary (only `type`'s, when given) up to date: a summary computed under another source order (or
  /// never) is rebuilt from all of its type's samples; otherwise the grains that changed are recomputed. `orders`
  /// are the device's source orders by type (docs/behavior.md P2). The owner calls it before a statistics query
  /// reads the summary (``DeviceState/refreshStatisticsSummaries(for:)``); events only mark grains dirty.
  package mutating func refreshSummaries(orders: [SampleType: SourceOrder], only type: SampleType? = nil) {
    var work: [UInt16] = []
    for (code, summary) in summaries
    where (type == nil || type?.code == code)
      && (!summary.built || !summary.dirty.isEmpty || summary.order != orders[SampleType(unchecked: code)])
    {
      work.append(code)
    }
    for code in work {
      let type = SampleType(unchecked: code)
      let current = orders[type]
      guard var summary = summaries[code] else { continue }
      let rebuild = !summary.built || summary.order != current
      if !rebuild && summary.dirty.isEmpty { continue }
      summaries[code] = nil  // no copy of the pages while they change
      let rank = sourceRanks(order: current)
      if rebuild {
        summary = StatisticsSummary()
        summary.order = current
        summary.built = true
        summary.deep = !recomputeAll(&summary, type: type, rank: rank)
      } else if !summary.deep {
        for range in Self.merged(summary.dirty) where !recompute(&summary, type: type, grains: range, rank: rank) {
          summary.deep = true
          break
        }
      }
      summary.dirty = []
      summaries[code] = summary
    }
  }

  /// Ranges sorted and merged where they overlap or nearly touch (a day of grains apart).
  static func merged(_ ranges: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
    var result: [ClosedRange<Int64>] = []
    for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
      if let last = result.last, range.lowerBound <= last.upperBound &+ 96 {
        result[result.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
      } else {
        result.append(range)
      }
    }
    return result
  }

  /// Computes every grain of `summary` from all live samples of `type` in one sweep; false when a sample lies where
  /// grains are not counted, lasts longer than ``StatisticsSummary/maxGrains`` grains, too many overlap, or they
  /// cover more than ``StatisticsSummary/maxPages`` pages.
  private func recomputeAll(_ summary: inout StatisticsSummary, type: SampleType, rank: [Int32]) -> Bool {
    guard maxDuration(of: type) / StatisticsGrain.seconds < Double(StatisticsSummary.maxGrains) else { return false }
    var sweep = GrainSweep(sink: PageSink(), bounds: [])
    if let c = candidates(type: type, range: nil, visibility: .all, sources: nil) {
      var complete = true
      slots.withUnsafeBufferPointer { buffer in
        c.order.withUnsafeBufferPointer { order in
          for position in c.lower..<c.upper {
            let slot = buffer[Int(order[position])]
            guard slot.live else { continue }
            guard StatisticsGrain.inRange(slot.start), StatisticsGrain.inRange(slot.end),
              sweep.add(start: slot.start, end: slot.end, value: slot.value, rank: rank[Int(slot.source)])
            else {
              complete = false
              return
            }
          }
        }
      }
      guard complete else { return false }
      sweep.finish()
    }
    sweep.sink.close()
    guard !sweep.sink.overflow else { return false }
    summary.pages = sweep.sink.pages
    return true
  }

  /// Recomputes grains `grains` of `summary` from the live samples of `type`; false when too many overlap.
  ///
  /// The sweep starts a longest sample's duration before the first grain, so a sample active there is followed
  /// from its start (which grains it counted in before decides the grain's continuing count and gap).
  private func recompute(
    _ summary: inout StatisticsSummary, type: SampleType, grains: ClosedRange<Int64>, rank: [Int32]
  ) -> Bool {
    let from = StatisticsGrain.start(of: grains.lowerBound)
    let to = StatisticsGrain.start(of: grains.upperBound + 1)
    let lead = StatisticsGrain.index(of: from - maxDuration(of: type))
    guard grains.upperBound - lead < StatisticsSummary.maxGrains else { return false }
    let count = Int(grains.upperBound - grains.lowerBound + 1)
    var sweep = GrainSweep(
      sink: SummarySink(first: grains.lowerBound, count: count), bounds: [], low: StatisticsGrain.start(of: lead),
      high: to)
    // Every sample overlapping the lead: the ones masking a sample active at `from` before it are among them.
    let window = DateRange(
      start: Date(timeIntervalSinceReferenceDate: StatisticsGrain.start(of: lead)),
      end: Date(timeIntervalSinceReferenceDate: to))
    if let c = candidates(type: type, range: window, visibility: .all, sources: nil) {
      let matcher = window.matcher
      var complete = true
      slots.withUnsafeBufferPointer { buffer in
        c.order.withUnsafeBufferPointer { order in
          for position in c.lower..<c.upper {
            let slot = buffer[Int(order[position])]
            if !slot.live || !matcher.matches(start: slot.start, end: slot.end) { continue }
            guard sweep.add(start: slot.start, end: slot.end, value: slot.value, rank: rank[Int(slot.source)]) else {
              complete = false
              return
            }
          }
        }
      }
      guard complete else { return false }
      sweep.finish()
    }
    let sink = sweep.sink
    let size = Int64(StatisticsGrain.pageSize)
    var g = grains.lowerBound
    while g <= grains.upperBound {
      let page = g >= 0 ? g / size : (g - size + 1) / size
      let pageEnd = min(grains.upperBound, (page + 1) * size - 1)
      let offset = Int(g - page * size)
      let n = Int(pageEnd - g + 1)
      let source = Int(g - grains.lowerBound)
      let empty = (source..<source + n).allSatisfy { sink.counted[$0] == 0 }
      if empty && summary.pages[page] == nil {
        g = pageEnd + 1
        continue
      }
      var target = summary.pages.removeValue(forKey: page) ?? StatisticsSummary.Page()
      for k in 0..<n {
        target.sums[offset + k] = sink.sums[source + k]
        target.counted[offset + k] = sink.counted[source + k]
        target.continuing[offset + k] = sink.continuing[source + k]
        target.gaps[offset + k] = sink.gaps[source + k]
      }
      summary.pages[page] = target
      g = pageEnd + 1
    }
    return true
  }

  /// Adds bucket `bucket`'s sum and count from `type`'s summary, when the summary can give them exactly: the
  /// bucket's bounds `from…to` are grain boundaries and no sample counting in it has a gap. Returns nil otherwise.
  func summarized(type: SampleType, from: Double, to: Double) -> (sum: Double, count: Int)? {
    guard let summary = summaries[type.code], let first = StatisticsGrain.grain(startingAt: from),
      let end = StatisticsGrain.grain(startingAt: to), end > first
    else { return nil }
    let size = Int64(StatisticsGrain.pageSize)
    var sum = 0.0
    var count = 0
    var g = first
    while g < end {
      let page = g >= 0 ? g / size : (g - size + 1) / size
      let pageEnd = min(end, (page + 1) * size)
      guard let p = summary.pages[page] else {
        g = pageEnd
        continue
      }
      for k in Int(g - page * size)..<Int(pageEnd - page * size) where p.counted[k] > 0 {
        if page * size + Int64(k) > first {
          // A sample counted in the grain before is counted once; one that skipped grains cannot be told apart.
          if p.gaps[k] { return nil }
          count -= Int(p.continuing[k])
        }
        sum += p.sums[k]
        count += Int(p.counted[k])
      }
      g = pageEnd
    }
    return (sum, count)
  }

  /// Whether buckets spanning `from…to` are few enough grains to be cut at grains (``GrainSweep/cutsGrains``) and
  /// served from summaries.
  static func cutsGrains(from: Double, to: Double) -> Bool {
    (to - from) / StatisticsGrain.seconds <= Double(StatisticsSummary.maxGrains)
  }

  /// Whether `type` has a summary a query may use under `order`.
  func summaryUsable(_ type: SampleType, order: SourceOrder?) -> Bool {
    summaries[type.code]?.usable(order: order) ?? false
  }

  /// Sums visible samples into `buckets` by the same sweep as the summaries (de-duplicating sources by `rank`, per
  /// source-table entry): the samples matching `range` that overlap `window` (the buckets' span, or part of it).
  /// Returns nil when more than ``GrainSweep/maxOverlap`` samples overlap (the general sweep takes over).
  /// `cutsGrains`: whether stretches are cut at grains (``GrainSweep/cutsGrains``).
  package func sumByGrains(
    type: SampleType, range: DateRange?, floor: Double, visibility: Visibility, sources allowed: Set<String>?,
    buckets: [Double], rank: [Int32], cutsGrains: Bool
  ) -> (sums: [Double], counts: [Int])? {
    var sweep = GrainSweep(sink: BucketSink(buckets: buckets.count - 1), bounds: buckets, cutsGrains: cutsGrains)
    let window = DateRange(
      start: Date(timeIntervalSinceReferenceDate: buckets[0]),
      end: Date(timeIntervalSinceReferenceDate: buckets[buckets.count - 1]))
    if let c = candidates(type: type, range: window, visibility: visibility, sources: allowed) {
      let checkOwn = !c.own.isEmpty
      let matcher = (range ?? DateRange(start: nil, end: nil)).matcher
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
      guard complete else { return nil }
      sweep.finish()
    }
    sweep.sink.flush()
    return (sweep.sink.sums, sweep.sink.counts)
  }
}
