import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import Render
import Wire

/// `ctl` operations on statistics: `stats` (an `HKStatisticsQuery`) and `collection` (an
/// `HKStatisticsCollectionQuery`, intervals in the device's calendar and time zone).
extension CtlCommand {
  /// `stats <app> <type> [--sum|--avg|…] [range] [--unit <unit>]`, `collection … --interval <i> [--anchor <date>]`
  /// (no option: the type's own aggregation).
  func statistics(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    let t = try type(try args.required("type"), args)
    let r = try range(&args)
    var options = statisticsOptions(&args)
    let shown = try unit(&args)
    var interval: CalendarInterval?
    var anchor: Date?
    if operation == "collection" {
      guard let i = try args.option("interval") else { throw args.error("missing '--interval'") }
      guard let parsed = CalendarInterval(parsing: i) else {
        throw args.error("invalid interval '\(i)': expected e.g. 1h, 30m, 1d, 1w, 1mo or 1y")
      }
      interval = parsed
      anchor = try date(try args.option("anchor"), args, "anchor")
    }
    try args.finish()
    if options.isEmpty { options = t.descriptor.aggregation?.isDiscrete == true ? .discreteAverage : .cumulativeSum }
    let query = StatisticsQuery(type: t, range: r, options: options, interval: interval, anchor: anchor)
    if operation == "stats" {
      out(describe(try client.statistics(bundle, query), t, unit: shown) + "\n")
    } else {
      for bucket in try client.statisticsCollection(bundle, query) { out(describe(bucket, t, unit: shown) + "\n") }
    }
  }

  /// The statistics the flags ask for (`--sum`, `--avg`, `--min`, `--max`, `--most-recent`, `--by-source`,
  /// `--duration`).
  func statisticsOptions(_ args: inout Arguments) -> StatisticsOptions {
    var options: StatisticsOptions = []
    if args.flag("sum") { options.insert(.cumulativeSum) }
    if args.flag("avg") { options.insert(.discreteAverage) }
    if args.flag("min") { options.insert(.discreteMin) }
    if args.flag("max") { options.insert(.discreteMax) }
    if args.flag("most-recent") { options.insert(.mostRecent) }
    if args.flag("by-source") { options.insert(.separateBySource) }
    if args.flag("duration") { options.insert(.duration) }
    return options
  }

  /// One result (or bucket) as `ctl` prints it: its interval, sample count, each statistic in `unit` (else the
  /// canonical unit), then each source's.
  func describe(_ stats: Statistics, _ type: SampleType, unit: HealthUnit?) -> String {
    let canonical = type.descriptor.canonicalUnit!
    let shown = unit ?? canonical
    func v(_ x: Double?) -> String? {
      x.map { "\(formatNumber((try? canonical.convert($0, to: shown)) ?? $0)) \(shown)" }
    }
    var parts = ["\(formatDate(stats.start))–\(formatDate(stats.end))", "samples=\(stats.sampleCount)"]
    if let s = v(stats.sum) { parts.append("sum=\(s)") }
    if let s = v(stats.average) { parts.append("avg=\(s)") }
    if let s = v(stats.minimum) { parts.append("min=\(s)") }
    if let s = v(stats.maximum) { parts.append("max=\(s)") }
    if let s = v(stats.mostRecent) { parts.append("most-recent=\(s)") }
    if let d = stats.duration { parts.append("duration=\(formatDuration(d))") }
    for (bundle, part) in stats.bySource.sorted(by: { $0.key < $1.key }) {
      parts.append(
        "[\(bundle): " + describe(part, type, unit: unit).split(separator: " ").dropFirst().joined(separator: " ") + "]"
      )
    }
    return parts.joined(separator: "  ")
  }
}
