import Dispatch
import FoundationEssentials
import HealthEngine
import HealthKitSim
import HealthModel
import HealthPairClient
import PairProcesses
import HealthPairTesting
import Posix
import Render
import Scenario
import ScenarioLanguage
import Synchronization
import Wire

#if canImport(Glibc)
  import Glibc
#endif

// MARK: - 9–11. What a user's test run feels (issue #16 §1–§3)

/// Sizes of the user-path benchmarks (`--only userpath`).
package struct UserPathSizes: Sendable {
  /// Calls timed per figure (HealthKitSim save and query, DeviceClient, echoes).
  package var calls = 4_000
  /// Empty `withHealthPair` bodies and runner pairs timed.
  package var pairs = 40
  /// Daemon and `/bin/true` starts timed.
  package var starts = 40
  /// The generated suites' sizes (the suite-time-against-count series).
  package var generatedCounts = [10, 100, 1_000]
  /// Creates the full-size configuration.
  package init() {}
  /// Tiny sizes: checks the machinery only.
  package static var smoke: UserPathSizes {
    var s = UserPathSizes()
    s.calls = 100
    s.pairs = 2
    s.starts = 3
    s.generatedCounts = [4]
    return s
  }
}

/// Runs `body` on Swift's cooperative pool (where a Swift Testing test body runs) and blocks until it finishes.
func onPool<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
  let done = DispatchSemaphore(value: 0)
  let result = Mutex<Result<T, any Error>?>(nil)
  Task.detached {
    let outcome: Result<T, any Error>
    do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
    result.withLock { $0 = outcome }
    done.signal()
  }
  done.wait()
  return try result.withLock { $0! }.get()
}

/// Times `count` calls of `body` (after a tenth as many warm-up calls) inside one task; microseconds per call.
func timedAsync(_ count: Int, _ body: @Sendable (Int) async throws -> Void) async rethrows -> [Double] {
  for i in 0..<max(1, count / 10) { try await body(-1 - i) }
  var times: [Double] = []
  times.reserveCapacity(count)
  for i in 0..<count {
    let t0 = now()
    try await body(i)
    times.append(micros(now() - t0))
  }
  return times
}

/// A connection to an echo child of its own, and a round trip over it.
final class EchoLine: Sendable {
  let server: EchoServer
  let socket: FileDescriptor
  let message: [UInt8]

  /// Spawns the child on `root`/echo-`name`.sock (serving as a daemon must with `journaled`: row 9f) and connects.
  init(root: String, name: String, size: Int, journaled: Bool = false) throws {
    let path = root + "/echo-\(name).sock"
    server = try EchoServer(path: path, messageSize: size, journal: journaled ? root + "/echo-\(name).journal" : nil)
    socket = try Posix.connectUnix(path)
    Posix.setReceiveTimeout(socket.rawValue, seconds: 60)
    message = [UInt8](repeating: 7, count: size)
  }

  /// One round trip.
  func once() throws {
    var reply = [UInt8](repeating: 0, count: message.count)
    try echoRoundTrip(socket.rawValue, sending: message, into: &reply)
  }
}

/// Echo round trips of `size` bytes to an echo child, timed from a task on the cooperative pool; with `pinnedCPU`
/// the echo child and the timing thread share that CPU (the timing then runs on the calling thread).
func echoTimes(root: String, size: Int, count: Int, pinnedCPU: Int?) throws -> [Double] {
  if let pinnedCPU { _ = Posix.pinToCPU(pinnedCPU) }
  defer { if pinnedCPU != nil { Posix.unpin() } }
  let line = try EchoLine(root: root, name: pinnedCPU.map(String.init) ?? "free", size: size)
  defer { line.server.stop() }
  if pinnedCPU != nil {
    var counter = 0
    return try timed(count, &counter) { _ in try line.once() }
  }
  return try onPool { try await timedAsync(count) { _ in try line.once() } }
}

/// Row 9f's two series, unpinned from a task: round trips to a plain echo child and to one serving as a daemon must,
/// taking turns call by call (the first of each pair alternating), so the machine's drift falls on both alike.
func floorEchoTimes(root: String, size: Int, count: Int) throws -> (plain: [Double], journaled: [Double]) {
  let plain = try EchoLine(root: root, name: "floor-plain", size: size)
  defer { plain.server.stop() }
  let journaled = try EchoLine(root: root, name: "floor-journaled", size: size, journaled: true)
  defer { journaled.server.stop() }
  return try onPool {
    var times: (plain: [Double], journaled: [Double]) = ([], [])
    let warmUp = max(1, count / 10)
    for turn in -warmUp..<count {
      let pair = try await inTurn(clientFirst: turn % 2 == 0, { try plain.once() }, { try journaled.once() })
      guard turn >= 0 else { continue }
      times.plain.append(pair.client)
      times.journaled.append(pair.sim)
    }
    return times
  }
}

func ratioText(_ v: Double, _ base: Double) -> String {
  base > 0 ? formatNumber((v / base * 100).rounded() / 100) + "×" : "—"
}

/// The HealthKitSim call rows (9a–9f).
func healthKitSimCallMetrics(daemon: String, calls: Int) throws -> [Metric] {
  let pair = try preparedPair(daemon: daemon)
  defer {
    Connections.shared.forget(pair.layout.socket(.phone))
    pair.shutdown()
  }
  let socket = pair.layout.socket(.phone)
  let target = HealthKitSim.Target(socketPath: socket, bundleIdentifier: benchApp.bundleID)
  // A day holding 100 samples for the one-day queries (saved before any timing; the timed saves land later).
  let day = benchStart.addingTimeInterval(-3 * 86400)
  try pair.phone.save(
    benchApp.bundleID,
    (0..<100).map { i in
      var s = sample(10_000_000 + i)
      s.start = day.addingTimeInterval(Double(i) * 600)
      s.end = s.start
      return s
    })
  let dayQuery = SampleQuery(type: water, range: DateRange(start: day, end: day.addingTimeInterval(86400)))

  // DeviceClient's own round trip (a blocking call, as the test harness makes it), alternating with HealthKitSim.
  let client = pair.phone
  let made = CallsTimed(client: client, day: day, dayQuery: dayQuery)
  var counter = 20_000_000
  let blocks = 8
  let perBlock = max(1, calls / blocks)
  var clientSave: [Double] = []
  var clientQuery: [Double] = []
  var simSave: [Double] = []
  var simQuery: [Double] = []
  // CPU time of this process (every thread) and of each daemon, per series: what a loaded machine does not inflate.
  var cpu: [String: CallCPU] = [:]
  let pids = (bench: Posix.processID, phone: pair.phone.daemonPID, watch: pair.watch.daemonPID)
  func accounted<T>(_ series: String, _ body: () throws -> [T]) rethrows -> [T] {
    func now() -> (UInt64, UInt64, UInt64) {
      (
        Posix.cpuNanoseconds(ofProcess: pids.bench) ?? 0, Posix.cpuNanoseconds(ofProcess: pids.phone) ?? 0,
        Posix.cpuNanoseconds(ofProcess: pids.watch) ?? 0
      )
    }
    let before = now()
    let times = try body()
    let after = now()
    cpu[series, default: CallCPU()].add(
      calls: times.count, caller: after.0 - before.0, phone: after.1 - before.1, watch: after.2 - before.2)
    return times
  }
  for _ in 0..<blocks {
    clientSave += try accounted("clientSave") {
      try timed(perBlock, &counter) { i in try made.clientSave(i) }
    }
    let base = counter
    simSave += try accounted("simSave") {
      try onPool {
        try await HealthKitSim.withTarget(target) {
          try await timedAsync(perBlock) { i in try await made.simSave(base + i + 20) }
        }
      }
    }
    counter += perBlock + perBlock / 10 + 40
    clientQuery += try accounted("clientQuery") {
      try timed(max(1, perBlock / 4), &counter) { _ in try made.clientQuery() }
    }
    simQuery += try accounted("simQuery") {
      try onPool {
        try await HealthKitSim.withTarget(target) {
          try await timedAsync(max(1, perBlock / 4)) { _ in try await made.simQuery() }
        }
      }
    }
  }
  // The medians come from a second pass in which each HealthKitSim call is timed right beside a DeviceClient call of
  // the same kind, one by one in one task, the two taking turns at going first. Blocks of one kind at a time (the
  // pass above, which the CPU figures need) let the machine drift between them: two passes minutes apart gave 9a
  // 0.94× and 1.5× for the same build.
  let turns = try onPool {
    try await HealthKitSim.withTarget(target) {
      try await alternating(count: calls, made)
    }
  }
  (clientSave, simSave, clientQuery, simQuery) = (turns.clientSave, turns.simSave, turns.clientQuery, turns.simQuery)
  // The same save with the phone's link held: nothing is sent to the watch, so no sync work follows a save (row 9e).
  _ = try client.link(.hold)
  let heldBase = counter + 10_000_000
  let held = Result {
    try onPool {
      try await HealthKitSim.withTarget(target) {
        try await timedAsync(max(1, calls / 2)) { i in try await made.simSave(heldBase + i + 20) }
      }
    }
  }
  _ = try client.link(.release)
  let heldSave = try held.get()
  try pair.waitSynced(timeout: 60)
  // Raw Unix-socket echoes of the save's frame size, measured the same ways in the same run.
  let size = DeviceOperation.save(benchApp.bundleID, [sample(0)]).frame(id: 1).count
  let root = try Posix.makeTemporaryDirectory(prefix: "hp-bench-echo")
  defer { Posix.removeTree(root) }
  let freeEcho = try echoTimes(root: root, size: size, count: calls, pinnedCPU: nil)
  let pinnedEcho = try echoTimes(root: root, size: size, count: calls, pinnedCPU: 0)
  let floor = try floorEchoTimes(root: root, size: size, count: calls)
  let (cs, cq, ss, sq) = (median(clientSave), median(clientQuery), median(simSave), median(simQuery))
  let (fe, pe, hs) = (median(freeEcho), median(pinnedEcho), median(heldSave))
  let (plainEcho, journaledEcho) = (median(floor.plain), median(floor.journaled))
  func spread(_ prefix: String, _ v: [Double]) -> [(String, Double)] {
    [
      ("\(prefix)MedianMicros", median(v)), ("\(prefix)P10Micros", percentile(v, 0.1)),
      ("\(prefix)P90Micros", percentile(v, 0.9)),
    ]
  }
  let full = calls >= UserPathSizes().calls
  func cpuNumbers(_ series: String) -> [(String, Double)] {
    let c = cpu[series] ?? CallCPU()
    return [
      ("\(series)CallerCPUMicros", c.perCall(c.caller)), ("\(series)PhoneCPUMicros", c.perCall(c.phone)),
      ("\(series)WatchCPUMicros", c.perCall(c.watch)),
    ]
  }
  return [
    Metric(
      name: "9a. HealthKitSim async save of one sample (linked pair, from a task) vs DeviceClient's own round trip",
      baseline: us(cs), value: us(ss), ratio: ratioText(ss, cs), target: "≤ 1.25×",
      met: full ? ss <= 1.25 * cs : nil,
      numbers: spread("sim", simSave) + spread("client", clientSave) + cpuNumbers("simSave")
        + cpuNumbers("clientSave")),
    reportedRatio(
      "9b. The same HealthKitSim save vs a raw UDS echo of \(size) B from a task, both unpinned", fe, ss,
      numbers: spread("echo", freeEcho) + [("simMedianMicros", ss)], headline: "simMedianMicros"),
    reportedRatio(
      "9c. Raw UDS echo unpinned vs pinned to one core (what waking another vCPU costs)", pe, fe,
      numbers: spread("pinnedEcho", pinnedEcho) + [("echoMedianMicros", fe)], headline: "echoMedianMicros"),
    Metric(
      name: "9d. HealthKitSim one-day HKSampleQuery (100 samples) vs DeviceClient's sample query",
      baseline: us(cq), value: us(sq), ratio: ratioText(sq, cq), target: "≤ 1.25×",
      met: full ? sq <= 1.25 * cq : nil,
      numbers: spread("simQuery", simQuery) + spread("clientQuery", clientQuery) + cpuNumbers("simQuery")
        + cpuNumbers("clientQuery")),
    reportedRatio(
      "9e. The 9b save with the phone's link held (no sync work after it) vs the same unpinned echo", fe, hs,
      numbers: spread("heldSave", heldSave) + [("echoMedianMicros", fe)], headline: "heldSaveMedianMicros"),
    reportedRatio(
      "9f. The floor under 9b: an echo served as a daemon must (epoll, a journal append) vs a plain echo", plainEcho,
      journaledEcho, numbers: spread("journaledEcho", floor.journaled) + spread("plainEcho", floor.plain),
      headline: "journaledEchoMedianMicros"),
  ]
}

/// A row with no target: `value` against `baseline` (microseconds), its ratio reported.
func reportedRatio(
  _ name: String, _ baseline: Double, _ value: Double, numbers: [(String, Double)], headline: String
) -> Metric {
  Metric(
    name: name, baseline: us(baseline), value: us(value), ratio: ratioText(value, baseline), target: "reported",
    met: nil, numbers: numbers, headline: headline)
}

/// Call times (microseconds) of the four series of rows 9a and 9d, taken in turns.
struct CallTurns: Sendable {
  var clientSave: [Double] = []
  var simSave: [Double] = []
  var clientQuery: [Double] = []
  var simQuery: [Double] = []
}

/// The calls rows 9a and 9d time, each made as a test makes it: DeviceClient's blocking save and one-day sample query,
/// and HealthKitSim's async `save` and `HKSampleQueryDescriptor` (in a task bound to the pair's phone).
struct CallsTimed: Sendable {
  let client: DeviceClient
  let dayQuery: SampleQuery
  let store = HKHealthStore()
  let waterType = HKQuantityType(.dietaryWater)
  let unit = HKUnit.literUnit(with: .milli)
  let descriptor: HKSampleQueryDescriptor<HKQuantitySample>

  init(client: DeviceClient, day: Date, dayQuery: SampleQuery) {
    self.client = client
    self.dayQuery = dayQuery
    let predicate = HKQuery.predicateForSamples(withStart: day, end: day.addingTimeInterval(86400))
    descriptor = HKSampleQueryDescriptor(
      predicates: [.quantitySample(type: waterType, predicate: predicate)], sortDescriptors: [])
  }

  /// Saves bench sample `i` (its identifier and time come from `i`).
  func clientSave(_ i: Int) throws { try client.save(benchApp.bundleID, [sample(i)]) }

  /// Saves a new 250 mL sample `i` milliseconds before the bench's start.
  func simSave(_ i: Int) async throws {
    let at = benchStart.addingTimeInterval(-Double(i) * 0.001)
    try await store.save(
      HKQuantitySample(type: waterType, quantity: HKQuantity(unit: unit, doubleValue: 250), start: at, end: at))
  }

  /// The one-day query through DeviceClient.
  func clientQuery() throws { _ = try client.sampleQuery(benchApp.bundleID, dayQuery) }

  /// The one-day query through HealthKitSim; it must find the day's 100 samples.
  func simQuery() async throws {
    let found = try await descriptor.result(for: store)
    guard found.count == 100 else { throw PairError.timeout("a one-day query returning 100 samples") }
  }
}

/// Times `count` saves and a quarter as many one-day queries each way, alternating call by call and swapping which
/// goes first every turn, after a tenth as many untimed turns.
func alternating(count: Int, _ made: CallsTimed) async throws -> CallTurns {
  var turns = CallTurns()
  let warmUp = max(1, count / 10)
  for turn in -warmUp..<count {
    let index = turn + warmUp
    let saves = try await inTurn(
      clientFirst: index % 2 == 0, { try made.clientSave(40_000_000 + index) },
      { try await made.simSave(45_000_000 + index) })
    if turn >= 0 {
      turns.clientSave.append(saves.client)
      turns.simSave.append(saves.sim)
    }
    guard index % 4 == 0 else { continue }
    // Query turns fall on even indices, after turns whose DeviceClient save went first (HealthKitSim's save is the last
    // call before every query turn); which query goes first alternates on its own.
    let queries = try await inTurn(
      clientFirst: index % 8 == 0, { try made.clientQuery() }, { try await made.simQuery() })
    if turn >= 0 {
      turns.clientQuery.append(queries.client)
      turns.simQuery.append(queries.sim)
    }
  }
  return turns
}

/// Times `client` and `sim` one right after the other, `client` first when `clientFirst`; microseconds each.
func inTurn(
  clientFirst: Bool, _ client: () throws -> Void, _ sim: () async throws -> Void
) async throws -> (client: Double, sim: Double) {
  let t0 = now()
  if clientFirst { try client() } else { try await sim() }
  let t1 = now()
  if clientFirst { try await sim() } else { try client() }
  let t2 = now()
  return clientFirst ? (micros(t1 - t0), micros(t2 - t1)) : (micros(t2 - t1), micros(t1 - t0))
}

/// CPU time spent over a series of calls (warm-up calls included, a tenth more than timed): the calling process's
/// (every thread: the caller, the connection's reader thread, Dispatch) and each daemon's, nanoseconds.
struct CallCPU {
  var calls = 0
  var caller: UInt64 = 0
  var phone: UInt64 = 0
  var watch: UInt64 = 0

  mutating func add(calls n: Int, caller c: UInt64, phone p: UInt64, watch w: UInt64) {
    calls += n + max(1, n / 10)
    caller += c
    phone += p
    watch += w
  }

  /// Microseconds per call.
  func perCall(_ nanoseconds: UInt64) -> Double { calls > 0 ? Double(nanoseconds) / Double(calls) / 1000 : 0 }
}

/// The pair start-up rows (10a–10c): an empty `withHealthPair`, the runner's per-scenario pair, a daemon start.
func pairStartMetrics(daemon: String, pairs: Int, starts: Int) throws -> [Metric] {
  var trueTimes: [Double] = []
  for _ in 0..<starts {
    let t0 = now()
    let pid = try Posix.spawn("/bin/true", [])
    _ = try Posix.wait(pid, block: true)
    trueTimes.append(Double(now() - t0) / 1e6)
  }
  // A daemon start as the harness does it (forked from the zygote), and a cold one (exec'd, loading everything).
  var daemonTimes: [Double] = []
  var coldTimes: [Double] = []
  let root = try Posix.makeTemporaryDirectory(prefix: "hp-bench-start", in: TemporaryPairDirectories.base)
  defer { Posix.removeTree(root) }
  for i in 0..<starts {
    for cold in [false, true] {
      let t0 = now()
      let process = try startDaemon(daemon: daemon, dir: "\(root)/d\(i)\(cold ? "c" : "f")", forked: !cold)
      (cold ? { coldTimes.append($0) } : { daemonTimes.append($0) })(Double(now() - t0) / 1e6)
      process.signal(SIGKILL)
      process.waitForExit(timeout: 10)
    }
  }
  // What a test sees: an empty body, pair after pair (amortized: total over count). The CPU a pair costs — this
  // process, the zygote and the daemons it forked and reaped — is what a loaded machine does not inflate.
  var empty: [Double] = []
  let zygote = DaemonZygote.shared(for: daemon)?.pid
  func cpuNow() -> (launcher: UInt64, daemons: UInt64) {
    (
      Posix.cpuNanosecondsWithReapedChildren(ofProcess: Posix.processID) ?? 0,
      zygote.flatMap { Posix.cpuNanosecondsWithReapedChildren(ofProcess: $0) } ?? 0
    )
  }
  try withHealthPair { _ in }
  PreparedPairs.shared.drain()
  let c0 = cpuNow()
  let e0 = now()
  for _ in 0..<pairs {
    let t0 = now()
    try withHealthPair { _ in }
    empty.append(Double(now() - t0) / 1e6)
  }
  let emptyAmortized = Double(now() - e0) / 1e6 / Double(max(1, pairs))
  // Discarding a pair waits for its daemons' exits, which the zygote reaps (so its count includes them).
  PreparedPairs.shared.drain()
  let c1 = cpuNow()
  let launcherCPU = Double(c1.launcher - c0.launcher) / 1e6 / Double(max(1, pairs))
  let daemonsCPU = Double(c1.daemons - c0.daemons) / 1e6 / Double(max(1, pairs))
  // The runner's per-scenario pair: a scenario whose one step is an expectation.
  let minimal = try ScenarioParser.parse(
    "scenario: Minimal\nexpect phone: store has 0 dietaryWater samples\n", file: "bench/minimal.scenario"
  ).get()
  // As the suite runs it: a used pair is discarded in the background (the amortized figure includes the drain).
  var runner = ScenarioRunner(daemon: daemon)
  runner.retiresInBackground = true
  var runnerTimes: [Double] = []
  let r0 = now()
  for _ in 0..<pairs {
    let result = runner.run(minimal, seed: 1)
    guard result.passed else { throw PairError.timeout("the minimal scenario to pass: \(result.status)") }
    runnerTimes.append(result.duration * 1000)
  }
  PreparedPairs.shared.drain()
  let runnerAmortized = Double(now() - r0) / 1e6 / Double(max(1, pairs))
  let (t, d) = (median(trueTimes), median(daemonTimes))
  let full = pairs >= UserPathSizes().pairs
  return [
    Metric(
      name: "10a. withHealthPair { _ in } with an empty body, median (amortized over \(pairs) in a row)",
      baseline: "—", value: "\(ms(median(empty))) (\(ms(emptyAmortized)))", ratio: "—", target: "≤ 3 ms",
      met: full ? median(empty) <= 3 && emptyAmortized <= 3 : nil,
      numbers: [
        ("medianMs", median(empty)), ("amortizedMs", emptyAmortized), ("p10Ms", percentile(empty, 0.1)),
        ("p90Ms", percentile(empty, 0.9)), ("cpuPerPairMs", launcherCPU + daemonsCPU),
        ("launcherCPUPerPairMs", launcherCPU), ("daemonsCPUPerPairMs", daemonsCPU),
      ]),
    Metric(
      name: "10b. The runner's per-scenario pair (a one-expectation scenario), median (amortized)", baseline: "—",
      value: "\(ms(median(runnerTimes))) (\(ms(runnerAmortized)))", ratio: "—", target: "≤ 3 ms",
      met: full ? median(runnerTimes) <= 3 && runnerAmortized <= 3 : nil,
      numbers: [
        ("medianMs", median(runnerTimes)), ("amortizedMs", runnerAmortized),
        ("p90Ms", percentile(runnerTimes, 0.9)),
      ]),
    Metric(
      name: "10c. Daemon start to ready (empty store, as the harness starts it) vs spawning /bin/true",
      baseline: ms(t), value: ms(d), ratio: ratioText(d, t), target: "≤ 3×", met: full ? d <= 3 * t : nil,
      numbers: [
        ("daemonMedianMs", d), ("trueMedianMs", t), ("daemonP90Ms", percentile(daemonTimes, 0.9)),
        ("coldExecMedianMs", median(coldTimes)),
      ]),
  ]
}

/// The suite rows (11a, 11b): the repository's scenarios and generated suites of growing size, two jobs.
func suiteMetrics(daemon: String, suite: String?, counts: [Int], charts: String? = nil) throws -> [Metric] {
  let runner = ScenarioRunner(daemon: daemon)
  var metrics: [Metric] = []
  if let suite {
    let loaded = Suite.load([suite])
    let t0 = now()
    let results = Suite.run(loaded.scenarios, seed: 1, jobs: 2, runner: runner)
    let seconds = Double(now() - t0) / 1e9
    let rate = Double(results.count) / seconds
    let passed = results.filter(\.passed).count
    metrics.append(
      Metric(
        name: "11a. The repository's Scenarios/ suite (\(results.count) scenarios), --jobs 2", baseline: "—",
        value: "\(formatNumber(rate.rounded())) scenarios/s (\(ms(seconds * 1000)), \(passed) passed)",
        ratio: "—", target: "≥ 150/s", met: results.count >= 50 ? rate >= 150 && passed == results.count : nil,
        numbers: [("scenariosPerSecond", rate), ("seconds", seconds), ("scenarios", Double(results.count))]))
  }
  var series: [(String, Double)] = []
  var last = (count: 0, seconds: 0.0, passed: 0)
  var points: [(count: Int, seconds: Double)] = []
  for count in counts {
    let scenarios = try ScenarioGenerator(seed: 16).scenarios(count)
    let t0 = now()
    let results = Suite.run(scenarios, seed: 1, jobs: 2, runner: runner)
    let seconds = Double(now() - t0) / 1e9
    let passed = results.filter(\.passed).count
    if let failed = results.first(where: { !$0.passed }) {
      throw PairError.timeout("generated scenario \(failed.file) to pass: \(failed.status)")
    }
    series += [("suiteSeconds@\(count)", seconds), ("scenariosPerSecond@\(count)", Double(count) / seconds)]
    points.append((count, seconds))
    last = (count, seconds, passed)
  }
  if let charts, !points.isEmpty { try writeSuiteChart(points, to: charts) }
  if last.count > 0 {
    let rate = Double(last.count) / last.seconds
    metrics.append(
      Metric(
        name: "11b. A generated suite of \(formatNumber(Double(last.count))) scenarios, --jobs 2 "
          + "(series: \(counts.map { formatNumber(Double($0)) }.joined(separator: ", ")))",
        baseline: "—", value: "\(formatNumber(rate.rounded())) scenarios/s (\(ms(last.seconds * 1000)))",
        ratio: "—", target: "reported", met: nil, numbers: series, headline: "scenariosPerSecond@\(last.count)"))
  }
  return metrics
}

/// The suite-time chart (bench-suite.svg): seconds for a generated suite of 10…1,000 scenarios with two jobs, and
/// the 150 scenarios/s target drawn as the time it allows at each size.
func writeSuiteChart(_ points: [(count: Int, seconds: Double)], to directory: String) throws {
  let svg = SVGChart(
    title: "Generated scenario suites, --jobs 2: seconds against scenarios", xLabel: "scenarios",
    yLabel: "seconds", xScale: .logarithmic, yScale: .logarithmic,
    series: [
      SVGChart.Series(name: "measured", points: points.map { .init(x: Double($0.count), y: $0.seconds) }),
      SVGChart.Series(
        name: "target (150 scenarios/s)", points: points.map { .init(x: Double($0.count), y: Double($0.count) / 150) }),
    ])
  try Posix.writeFileAtomically(directory + "/bench-suite.svg", Array(svg.render().utf8), mode: 0o644)
}

/// The user-path rows of `parts` (`calls`: 9a–9d, `pairs`: 10a–10c, `suite`: 11a–11b; all by default).
package func userPathMetrics(
  daemon: String, sizes: UserPathSizes, suite: String?, charts: String? = nil,
  parts: Set<String> = ["calls", "pairs", "suite"]
) throws -> [Metric] {
  func note(_ s: String) { Posix.writeStandardError("bench: \(s)\n") }
  var metrics: [Metric] = []
  if parts.contains("calls") {
    note("HealthKitSim calls vs DeviceClient and raw echoes")
    metrics += try healthKitSimCallMetrics(daemon: daemon, calls: sizes.calls)
  }
  if parts.contains("pairs") {
    note("pair start-up as a test sees it")
    metrics += try pairStartMetrics(daemon: daemon, pairs: sizes.pairs, starts: sizes.starts)
  }
  if parts.contains("suite") {
    note("scenario suites")
    metrics += try suiteMetrics(daemon: daemon, suite: suite, counts: sizes.generatedCounts, charts: charts)
  }
  return metrics
}
