import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Journal
import Posix
import Render
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// 6c: a year of steps that both devices counted — the phone's own and the watch's, arrived by sync, each watch
/// walk overlapping a phone walk by four fifths — summed per local day in Paris, de-duplicated by source order.
func dedupMetric(daemon: String, samples: Int, runs: Int) throws -> Metric {
  let root = try Posix.makeTemporaryDirectory(prefix: "hp-bench-dedup")
  defer { Posix.removeTree(root) }
  let layout = PairLayout(root: root)
  try Posix.makeDirectory(layout.directory(.phone), mode: 0o700)
  let steps = SampleType.lookup(name: "stepCount")!
  var (phone, watch) = try benchDevices(phoneJournal: layout.journal(.phone))
  guard
    case .prompt(let phoneSheet) = try phone.state.requestAuthorization(
      benchApp.bundleID, share: [steps], read: [steps], wall: benchStart),
    case .prompt(let watchSheet) = try watch.requestAuthorization(
      benchApp.bundleID, share: [steps], read: [steps], wall: benchStart)
  else { throw PairError.timeout("a sheet") }
  try phone.persist(phone.state.answerPrompt(id: phoneSheet.id, bundleID: nil, answer: .allowAll).events)
  _ = try watch.answerPrompt(id: watchSheet.id, bundleID: nil, answer: .allowAll)
  let year = 365 * 86400.0
  let half = max(1, samples / 2)
  func walk(_ i: Int, shift: Double) -> SampleInput {
    var rng = SeededGenerator(seed: UInt64(i) &* 2 &+ (shift > 0 ? 2 : 1))
    let start = benchStart.addingTimeInterval(-year + Double(i) * year / Double(half) + shift)
    return SampleInput(
      uuid: rng.uuid(), type: steps, value: .quantity(Double(20 + i % 80), unit: "count"), start: start,
      end: start.addingTimeInterval(300))
  }
  var i = 0
  while i < half {
    let n = min(4096, half - i)
    try phone.persist(phone.state.save(benchApp.bundleID, (i..<i + n).map { walk($0, shift: 0) }, wall: benchStart))
    _ = try watch.save(benchApp.bundleID, (i..<i + n).map { walk($0, shift: 60) }, wall: benchStart)
    i += n
  }
  var delivered: UInt64 = 0
  while true {
    let entries = watch.outboundEntries(after: delivered, maxItems: 4096)
    guard let last = entries.last else { break }
    try phone.persist(phone.state.receivePeerEntries(entries, wall: benchStart))
    delivered = last.seq
  }
  try phone.persist(phone.state.receivePeerAck(phone.state.sync.lastSeq))
  let process = try startDaemon(daemon: daemon, dir: root)
  defer {
    process.signal(SIGKILL)
    process.waitForExit(timeout: 10)
  }
  let client = try DirectClient(layout.socket(.phone))
  let calendar = LocalCalendar(benchZone)
  let first = calendar.startOfDay(benchStart.addingTimeInterval(-year))
  let query = StatisticsQuery(
    type: steps, range: DateRange(start: first, end: benchStart), options: .cumulativeSum,
    interval: CalendarInterval(days: 1), anchor: first)
  var times: [Double] = []
  var days = 0
  for _ in 0..<runs {
    let t0 = now()
    let buckets = try client.call(.statisticsCollection(benchApp.bundleID, query))
    times.append(Double(now() - t0) / 1e6)
    days = buckets.statistics.count
  }
  let median = median(times)
  return Metric(
    name: "6c. Daily statistics collection over a year, phone and watch de-duplicated (\(days) local days in "
      + "\(benchZone), \(2 * half) samples)",
    baseline: "—", value: ms(median), ratio: "—", target: samples >= 100_000 ? "≤ 30 ms" : "(smoke)",
    met: samples >= 100_000 ? median <= 30 : nil, numbers: [("medianMs", median), ("buckets", Double(days))])
}
