import FoundationEssentials
import HealthEngine
import HealthKitSim
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Wire

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
  // the same kind, one by one in one task, the two taking turns at going first, so the machine's drift falls on both
  // series alike; the block pass above, one kind at a time, gives only the CPU figures.
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
