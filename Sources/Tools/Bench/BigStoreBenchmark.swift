import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Render
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// Rows 4b, 6a, 6b and 7: a phone daemon started on a journal of `samples` water samples — its recovery to
/// ready, a year's daily statistics, a one-day sample query (each median of `runs`) and its resident memory.
func bigStoreMetrics(daemon: String, samples: Int, runs: Int) throws -> [Metric] {
  let root = try Posix.makeTemporaryDirectory(prefix: "hp-bench-big")
  defer { Posix.removeTree(root) }
  let layout = PairLayout(root: root)
  try Posix.makeDirectory(layout.directory(.phone), mode: 0o700)
  // Write the journal in-process: one year of water, synced (acknowledged by the watch).
  _ = try writeWaterStore(layout.journal(.phone), samples: samples)
  let journalBytes = (try? Posix.readFile(layout.journal(.phone)).count) ?? 0
  let t0 = now()
  let process = try startDaemon(daemon: daemon, dir: root)
  let recovery = Double(now() - t0) / 1e9
  // The daemon's CPU time to ready (start, replay, indexes): what the load of other processes does not inflate.
  let recoveryCPU = Double(Posix.cpuNanoseconds(ofProcess: process.pid) ?? 0) / 1e9
  defer {
    process.signal(SIGKILL)
    process.waitForExit(timeout: 10)
  }
  let rss = Double(Posix.residentBytes(of: process.pid) ?? 0) / 1_048_576
  let client = try DirectClient(layout.socket(.phone))
  let year = DateRange(start: benchStart.addingTimeInterval(-365 * 86400), end: benchStart)
  let midnight = parseDate("2025-07-01T00:00:00Z")!
  var collectionTimes: [Double] = []
  var dayTimes: [Double] = []
  var dayCPU = QueryCPU()
  var bucketCount = 0
  var daySamples = 0
  for _ in 0..<runs {
    let c0 = now()
    let buckets = try client.call(
      .statisticsCollection(
        benchApp.bundleID,
        StatisticsQuery(
          type: water, range: year, options: .cumulativeSum, interval: CalendarInterval(days: 1), anchor: midnight)))
    collectionTimes.append(Double(now() - c0) / 1e6)
    bucketCount = buckets.statistics.count
    let cost = QueryCost(daemon: process.pid)
    let d0 = now()
    let day = try client.call(
      .sampleQuery(
        benchApp.bundleID,
        SampleQuery(type: water, range: DateRange(start: midnight, end: midnight.addingTimeInterval(86400)))))
    dayTimes.append(Double(now() - d0) / 1e6)
    cost.record(into: &dayCPU)
    daySamples = day.count
  }
  let collection = median(collectionTimes)
  let dayQuery = median(dayTimes)
  let dayDaemonCPU = median(dayCPU.daemon)
  let dayClientCPU = median(dayCPU.client)
  return [
    Metric(
      name: "4b. Recovery of a \(samples)-sample journal (\(journalBytes / 1_048_576) MiB) to ready; ratio column: "
        + "the daemon's CPU time to ready", baseline: "—",
      value: ms(recovery * 1000),
      ratio: "CPU \(ms(recoveryCPU * 1000))", target: samples >= 1_000_000 ? "≤ 1.5 s" : "(smoke)",
      met: samples >= 1_000_000 ? recovery <= 1.5 : nil,
      numbers: [("seconds", recovery), ("journalBytes", Double(journalBytes)), ("cpuSeconds", recoveryCPU)]),
    Metric(
      name: "6a. Daily statistics collection over a year (\(bucketCount) buckets, \(samples) samples)", baseline: "—",
      value: ms(collection),
      ratio: "—", target: "≤ 30 ms", met: samples >= 1_000_000 ? collection <= 30 : nil,
      numbers: [("medianMs", collection), ("buckets", Double(bucketCount))]),
    Metric(
      name: "6b. Sample query for one day (\(daySamples) samples returned); ratio column: CPU per query, daemon + "
        + "client (medians)", baseline: "—", value: ms(dayQuery),
      ratio: "CPU \(us(dayDaemonCPU)) + \(us(dayClientCPU))",
      target: "≤ 2 ms", met: samples >= 1_000_000 ? dayQuery <= 2 : nil,
      numbers: [
        ("medianMs", dayQuery), ("returned", Double(daySamples)), ("daemonCPUMicroseconds", dayDaemonCPU),
        ("clientCPUMicroseconds", dayClientCPU),
      ]),
    Metric(
      name: "7. Daemon resident memory with \(samples) samples", baseline: "—",
      value: "\(formatNumber(rss.rounded())) MiB", ratio: "—",
      target: "≤ 300 MB", met: samples >= 1_000_000 ? rss * 1.048576 <= 300 : nil, numbers: [("residentMiB", rss)]),
  ]
}
