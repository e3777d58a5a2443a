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

// MARK: - S. A year of watch data, and how the store's costs grow with its size

/// The sizes of the growth ladder up to `largest`: 1,000, 10,000, … and `largest` itself.
package func scaleLadder(upTo largest: Int) -> [Int] {
  var sizes: [Int] = []
  var n = 1_000
  while n < largest {
    sizes.append(n)
    n *= 10
  }
  sizes.append(largest)
  return sizes
}

/// One kind of sample in the model year: its type, unit, whether the phone or the watch wrote it, its share of the
/// store in tenths, whether it spans time (and then it covers its whole slot), and a value.
struct ScaleStream {
  var type: SampleType
  var unit: String
  var device: DeviceKind
  var tenths: Int
  var spans: Bool
  var shift: Double
}

/// HealthPair's model of a year of Apple Watch data (docs/performance.md, rows S1–S4): active energy is the largest
/// stream, then heart rate and basal energy; steps are counted by both the phone and the watch
/// (each its own source, overlapping by half a sample), so daily step totals de-duplicate two sources.
let scaleStreams: [ScaleStream] = [
  ScaleStream(
    type: SampleType.lookup(name: "activeEnergyBurned")!, unit: "kcal", device: .watch, tenths: 4, spans: true,
    shift: 0),
  ScaleStream(
    type: SampleType.lookup(name: "heartRate")!, unit: "count/min", device: .watch, tenths: 2, spans: false, shift: 0),
  ScaleStream(
    type: SampleType.lookup(name: "basalEnergyBurned")!, unit: "kcal", device: .watch, tenths: 2, spans: true,
    shift: 0),
  ScaleStream(
    type: SampleType.lookup(name: "stepCount")!, unit: "count", device: .phone, tenths: 1, spans: true, shift: 0),
  ScaleStream(
    type: SampleType.lookup(name: "stepCount")!, unit: "count", device: .watch, tenths: 1, spans: true, shift: 0.5),
]

/// What one size of the ladder measured.
struct ScalePoint {
  var samples: Int
  var snapshotBytes: Int
  var usedSnapshot: Bool
  var recoveryMs: Double
  var recoveryCPUMs: Double
  var residentMiB: Double
  var dailyMs: Double
  var dailyCPUMs: Double
  var days: Int
  var dayMs: Double
  /// The daemon's CPU time per one-day query (median of the calls, nanosecond clock).
  var dayCPUMs: Double
  /// The client thread's CPU time per one-day query (sending, reading and decoding the reply; median).
  var dayClientCPUMs: Double
  var dayReturned: Int
}

/// The i-th sample (0-based) of `count` in `stream`, spread evenly over the year before the bench start.
func scaleSample(_ stream: ScaleStream, index i: Int, count: Int, seed: UInt64) -> SampleInput {
  let year = 365 * 86400.0
  let slot = year / Double(max(count, 1))
  var rng = SeededGenerator(seed: seed << 40 | UInt64(i))
  let start = benchStart.addingTimeInterval(-year + (Double(i) + stream.shift) * slot)
  let value: Double
  switch stream.unit {
  case "count/min": value = Double(55 + i % 90)
  case "count": value = Double(5 + i % 60)
  default: value = 0.5 + Double(i % 40) / 10
  }
  return SampleInput(
    uuid: rng.uuid(), type: stream.type, value: .quantity(value, unit: stream.unit), start: start,
    end: stream.spans ? start.addingTimeInterval(slot) : start)
}

/// Writes the phone's journal of `samples` model-year samples (the watch's arrive by sync, as on a real pair) and
/// a snapshot of it, as a clean shutdown leaves them. Returns the snapshot's size.
func writeScaleStore(_ journal: String, samples: Int) throws -> Int {
  var (phone, watch) = try benchDevices(phoneJournal: journal)
  let types = Set(scaleStreams.map(\.type))
  guard
    case .prompt(let phoneSheet) = try phone.state.requestAuthorization(
      benchApp.bundleID, share: types, read: types, wall: benchStart),
    case .prompt(let watchSheet) = try watch.requestAuthorization(
      benchApp.bundleID, share: types, read: types, wall: benchStart)
  else { throw PairError.timeout("a sheet") }
  try phone.persist(phone.state.answerPrompt(id: phoneSheet.id, bundleID: nil, answer: .allowAll).events)
  _ = try watch.answerPrompt(id: watchSheet.id, bundleID: nil, answer: .allowAll)
  var delivered: UInt64 = 0
  for (n, stream) in scaleStreams.enumerated() {
    let count = max(1, samples * stream.tenths / 10)
    var i = 0
    while i < count {
      let k = min(4096, count - i)
      let batch = (i..<i + k).map { scaleSample(stream, index: $0, count: count, seed: UInt64(n + 1)) }
      if stream.device == .phone {
        try phone.persist(phone.state.save(benchApp.bundleID, batch, wall: benchStart))
      } else {
        _ = try watch.save(benchApp.bundleID, batch, wall: benchStart)
        while true {
          let entries = watch.outboundEntries(after: delivered, maxItems: 4096)
          guard let last = entries.last else { break }
          try phone.persist(phone.state.receivePeerEntries(entries, wall: benchStart))
          delivered = last.seq
        }
      }
      i += k
    }
  }
  try phone.persist(phone.state.receivePeerAck(phone.state.sync.lastSeq))
  return try phone.writeSnapshot()
}

/// Measures one size: the store written with its snapshot, the phone daemon started on it until ready (wall time
/// and the daemon's CPU time), its resident set, then `runs` daily step totals over the year in Paris
/// (de-duplicated) and `runs` one-day heart-rate queries, each timed by median and by the daemon's CPU per query.
func measureScale(daemon: String, samples: Int, runs: Int) throws -> ScalePoint {
  let root = try Posix.makeTemporaryDirectory(prefix: "hp-bench-scale")
  defer { Posix.removeTree(root) }
  let layout = PairLayout(root: root)
  try Posix.makeDirectory(layout.directory(.phone), mode: 0o700)
  let snapshotBytes = try writeScaleStore(layout.journal(.phone), samples: samples)
  let t0 = now()
  let process = try startDaemon(daemon: daemon, dir: root)
  let recoveryMs = Double(now() - t0) / 1e6
  let recoveryCPU = cpuSeconds(of: process.pid)
  defer {
    process.signal(SIGKILL)
    process.waitForExit(timeout: 60)
  }
  let resident = Double(Posix.residentBytes(of: process.pid) ?? 0) / 1_048_576
  let log = (try? Posix.readFile(layout.log(.phone))).map { String(decoding: $0, as: UTF8.self) } ?? ""
  let client = try DirectClient(layout.socket(.phone))
  let calendar = LocalCalendar(benchZone)
  let year = 365 * 86400.0
  let first = calendar.startOfDay(benchStart.addingTimeInterval(-year))
  let steps = SampleType.lookup(name: "stepCount")!
  let heartRate = SampleType.lookup(name: "heartRate")!
  let daily = StatisticsQuery(
    type: steps, range: DateRange(start: first, end: benchStart), options: .cumulativeSum,
    interval: CalendarInterval(days: 1), anchor: first)
  let dayStart = calendar.startOfDay(benchStart.addingTimeInterval(-year / 2))
  let oneDay = SampleQuery(
    type: heartRate, range: DateRange(start: dayStart, end: calendar.startOfDay(dayStart.addingTimeInterval(30 * 3600)))
  )
  // One untimed call of each warms the caches the first query pays for.
  try client.call(.statisticsCollection(benchApp.bundleID, daily))
  try client.call(.sampleQuery(benchApp.bundleID, oneDay))
  var dailyTimes: [Double] = []
  var days = 0
  let dailyCPU0 = cpuSeconds(of: process.pid)
  for _ in 0..<runs {
    let q0 = now()
    let buckets = try client.call(.statisticsCollection(benchApp.bundleID, daily))
    dailyTimes.append(Double(now() - q0) / 1e6)
    days = buckets.statistics.count
  }
  let dailyCPU = cpuSeconds(of: process.pid) - dailyCPU0
  var dayTimes: [Double] = []
  var returned = 0
  var dayCPU = QueryCPU()
  for _ in 0..<runs {
    let cost = QueryCost(daemon: process.pid)
    let q0 = now()
    let found = try client.call(.sampleQuery(benchApp.bundleID, oneDay))
    dayTimes.append(Double(now() - q0) / 1e6)
    cost.record(into: &dayCPU)
    returned = found.count
  }
  return ScalePoint(
    samples: samples, snapshotBytes: snapshotBytes, usedSnapshot: !log.contains("snapshot not used"),
    recoveryMs: recoveryMs, recoveryCPUMs: recoveryCPU * 1000, residentMiB: resident, dailyMs: median(dailyTimes),
    dailyCPUMs: dailyCPU * 1000 / Double(max(runs, 1)), days: days, dayMs: median(dayTimes),
    dayCPUMs: median(dayCPU.daemon) / 1000, dayClientCPUMs: median(dayCPU.client) / 1000, dayReturned: returned)
}

/// The scale rows (judged at 10,000,000 samples) and the growth charts' series, measured at each size of the
/// ladder up to `largest` (one size at a time: the machine is shared).
func scaleMetrics(daemon: String, largest: Int, runs: Int, charts: String?) throws -> [Metric] {
  var points: [ScalePoint] = []
  for size in scaleLadder(upTo: largest) {
    Posix.writeStandardError("bench: scale: \(size) samples\n")
    points.append(try measureScale(daemon: daemon, samples: size, runs: runs))
  }
  if let charts { try writeScaleCharts(points, to: charts) }
  let top = points[points.count - 1]
  let judged = top.samples >= 10_000_000
  func ladder(_ name: String, _ value: (ScalePoint) -> Double) -> [(String, Double)] {
    points.map { ("\(name)At\($0.samples)", value($0)) }
  }
  let size = formatNumber(Double(top.samples))
  let cpuNote = "the daemon's CPU time per query"
  return [
    Metric(
      name: "S1. A year of watch data: recovery of a \(size)-sample store (5 streams, 2 step sources, Europe/Paris) "
        + "to ready from its snapshot (\(top.snapshotBytes / 1_048_576) MiB)\(top.usedSnapshot ? "" : ", NOT USED")",
      baseline: "—", value: ms(top.recoveryMs), ratio: "CPU \(ms(top.recoveryCPUMs))",
      target: judged ? "≤ 3 s" : "reported", met: judged ? top.recoveryMs <= 3000 && top.usedSnapshot : nil,
      numbers: [("recoveryMs", top.recoveryMs), ("recoveryCPUMs", top.recoveryCPUMs)]
        + ladder("recoveryMs", \.recoveryMs) + ladder("recoveryCPUMs", \.recoveryCPUMs)),
    Metric(
      name: "S2. Daemon resident memory with those \(size) samples", baseline: "—",
      value: "\(formatNumber(top.residentMiB.rounded())) MiB", ratio: "—", target: judged ? "≤ 800 MiB" : "reported",
      met: judged ? top.residentMiB <= 800 : nil,
      numbers: [("residentMiB", top.residentMiB)] + ladder("residentMiB", \.residentMiB)),
    Metric(
      name: "S3. Daily step totals over the year (\(top.days) local days in \(benchZone), phone and watch "
        + "de-duplicated, \(formatNumber(Double(top.samples / 5))) step samples), median; ratio column: \(cpuNote)",
      baseline: "—", value: ms(top.dailyMs), ratio: "CPU \(ms(top.dailyCPUMs))",
      target: judged ? "≤ 15 ms" : "reported", met: judged ? top.dailyMs <= 15 : nil,
      numbers: [("medianMs", top.dailyMs), ("cpuMs", top.dailyCPUMs)] + ladder("medianMs", \.dailyMs)
        + ladder("cpuMs", \.dailyCPUMs)),
    Metric(
      name: "S4. Heart-rate sample query for one local day (\(top.dayReturned) samples returned), median; ratio "
        + "column: CPU per query, daemon + client (medians)",
      baseline: "—", value: ms(top.dayMs), ratio: "CPU \(ms(top.dayCPUMs)) + \(ms(top.dayClientCPUMs))",
      target: judged ? "≤ 2 ms" : "reported", met: judged ? top.dayMs <= 2 : nil,
      numbers: [
        ("medianMs", top.dayMs), ("cpuMs", top.dayCPUMs), ("clientCPUMs", top.dayClientCPUMs),
        ("returned", Double(top.dayReturned)),
      ]
        + ladder("medianMs", \.dayMs) + ladder("cpuMs", \.dayCPUMs) + ladder("clientCPUMs", \.dayClientCPUMs)),
  ]
}

/// The four growth charts, one per store metric, into `directory`.
func writeScaleCharts(_ points: [ScalePoint], to directory: String) throws {
  func chart(_ file: String, _ title: String, _ yLabel: String, target: (String, Double)?, _ series: [SVGChart.Series])
    throws
  {
    let svg = SVGChart(
      title: title, xLabel: "samples in the store", yLabel: yLabel, xScale: .logarithmic, yScale: .logarithmic,
      series: series, references: target.map { [SVGChart.Reference(label: $0.0, y: $0.1)] } ?? [])
    try Posix.writeFileAtomically(directory + "/" + file, Array(svg.render().utf8), mode: 0o644)
  }
  func series(_ name: String, _ value: (ScalePoint) -> Double) -> SVGChart.Series {
    SVGChart.Series(name: name, points: points.map { SVGChart.Point(x: Double($0.samples), y: value($0)) })
  }
  try chart(
    "bench-scale-recovery.svg", "Recovery to ready from a snapshot", "milliseconds",
    target: ("target at 10M", 3000),
    [series("wall clock", \.recoveryMs), series("daemon CPU time", \.recoveryCPUMs)])
  try chart(
    "bench-scale-memory.svg", "Daemon resident memory after recovery", "MiB", target: ("target at 10M", 800),
    [series("resident set", \.residentMiB)])
  try chart(
    "bench-scale-statistics.svg", "Daily step totals over a year (de-duplicated, Europe/Paris)", "milliseconds",
    target: ("target at 10M", 15),
    [series("median, wall clock", \.dailyMs), series("daemon CPU per query", \.dailyCPUMs)])
  try chart(
    "bench-scale-query.svg", "One local day of heart-rate samples", "milliseconds", target: ("target at 10M", 2),
    [series("median, wall clock", \.dayMs), series("daemon CPU per query", \.dayCPUMs)])
}

// MARK: - C. Save round trip against concurrent clients

/// Client counts the concurrency ladder measures.
let clientLadder = [1, 2, 4, 8, 16, 32, 64]

/// `clients` connections to one journaled phone daemon, each with one save in flight: every round sends one save
/// on each connection, then reads every reply. Returns the round's times (µs) after a warm-up.
func measureClients(daemon: String, clients: Int, rounds: Int) throws -> [Double] {
  let root = try Posix.makeTemporaryDirectory(prefix: "hp-bench-clients")
  defer { Posix.removeTree(root) }
  let process = try startDaemon(daemon: daemon, dir: root)
  defer {
    process.signal(SIGKILL)
    process.waitForExit(timeout: 10)
  }
  let path = PairLayout(root: root).socket(.phone)
  let setup = try DirectClient(path)
  try setup.call(.setClock(benchStart))
  try setup.call(.installApp(benchApp))
  try setup.send(
    DeviceOperation.requestAuthorization(benchApp.bundleID, share: [water], read: [water]).frame(id: 999_999))
  _ = try setup.receive()
  try setup.call(.answerPrompt(.allowAll))
  let connections = try (0..<clients).map { _ in try DirectClient(path) }
  var counter = 10_000_000
  var times: [Double] = []
  for round in 0..<(rounds + max(1, rounds / 10)) {
    let frames = connections.map { c -> [UInt8] in
      counter += 1
      let id = c.nextID
      c.nextID += 1
      return DeviceOperation.save(benchApp.bundleID, [sample(counter)]).frame(id: id)
    }
    let t0 = now()
    for (c, frame) in zip(connections, frames) { try c.send(frame) }
    for c in connections {
      guard case .response(_, let result) = try c.receive() else { throw PairError.timeout("a save reply") }
      _ = try result.get()
    }
    if round >= max(1, rounds / 10) { times.append(micros(now() - t0)) }
  }
  return times
}

/// C1: the round trip with 1…64 concurrent clients (the last size judged by nothing: reported), and its chart.
func clientsMetric(daemon: String, rounds: Int, charts: String?) throws -> Metric {
  var medians: [(clients: Int, round: Double)] = []
  for n in clientLadder {
    let times = try measureClients(daemon: daemon, clients: n, rounds: max(3, rounds / n))
    medians.append((n, median(times)))
  }
  if let charts {
    let svg = SVGChart(
      title: "Save round trip with concurrent clients (one save in flight each)", xLabel: "clients",
      yLabel: "microseconds", xScale: .logarithmic, yScale: .logarithmic,
      series: [
        SVGChart.Series(
          name: "round: every client's save answered", points: medians.map { .init(x: Double($0.0), y: $0.1) }),
        SVGChart.Series(
          name: "per save (round ÷ clients)", points: medians.map { .init(x: Double($0.0), y: $0.1 / Double($0.0)) }),
      ])
    try Posix.writeFileAtomically(charts + "/bench-clients.svg", Array(svg.render().utf8), mode: 0o644)
  }
  let one = medians[0].round
  let last = medians[medians.count - 1]
  return Metric(
    name: "C1. Save round trip with \(last.clients) concurrent clients (one save in flight each) vs one client",
    baseline: us(one),
    value: "\(us(last.round)) (\(formatNumber((Double(last.clients) / last.round * 1e6).rounded())) saves/s)",
    ratio: formatNumber((last.round / one * 100).rounded() / 100) + "×", target: "reported", met: nil,
    numbers: [("roundMicros", last.round), ("oneClientMicros", one)]
      + medians.map { ("roundMicrosAt\($0.clients)", $0.round) })
}
