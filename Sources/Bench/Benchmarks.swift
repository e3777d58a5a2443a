import Dispatch
import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Journal
import Posix
import Render
import Scenario
import ScenarioLanguage
import Synchronization
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// One measured figure, beside its baseline and target.
package struct Metric: Sendable {
  /// What is measured.
  package var name: String
  /// The baseline measured in the same run, if the target is a ratio.
  package var baseline: String
  /// HealthPair's figure.
  package var value: String
  /// value / baseline, when meaningful.
  package var ratio: String
  /// The target.
  package var target: String
  /// Whether the target is met (nil: reported only).
  package var met: Bool?
  /// Raw numbers for the JSON report.
  package var numbers: [(String, Double)]
  /// Which of `numbers` is the row's own figure, the one the history's spread follows (nil: the first).
  package var headline: String? = nil
}

/// Sizes of a benchmark run; `smoke` makes everything tiny (for the test suite).
package struct BenchSizes: Sendable {
  /// Round trips timed for latency.
  package var roundTrips = 20_000
  /// Samples saved for throughput.
  package var throughputSamples = 400_000
  /// Samples synced watch → phone.
  package var syncSamples = 100_000
  /// Daemon starts timed.
  package var starts = 40
  /// Samples in the recovery / query / memory journal.
  package var bigStore = 1_000_000
  /// Samples in the store recovered from a snapshot.
  package var snapshotStore = 10_000_000
  /// The largest store of the scale ladder (a year of watch data; 1,000, 10,000, … up to it).
  package var scaleStore = 10_000_000
  /// Samples of the phone-and-watch store whose statistics are de-duplicated (half from each device).
  package var dedupStore = 100_000
  /// Scenario repetitions.
  package var scenarioRuns = 20
  /// Query repetitions.
  package var queryRuns = 30
  /// Records in the synthetic export the import benchmark loads (about 1 GiB).
  package var importRecords = 2_300_000
  /// Records in each export of the import-scaling rows (8d, 8e): distinct sources, correlation members.
  package var importScalingRecords = 100_000
  /// Sizes of the user-path rows (HealthKitSim calls, pair start-up, suites).
  package var userPath = UserPathSizes()
  /// Creates the full-size configuration.
  package init() {}
  /// A tiny configuration that only checks the machinery.
  package static var smoke: BenchSizes {
    var s = BenchSizes()
    s.roundTrips = 200
    s.throughputSamples = 2000
    s.syncSamples = 1000
    s.starts = 3
    s.bigStore = 5000
    s.snapshotStore = 5000
    s.scaleStore = 2000
    s.dedupStore = 2000
    s.scenarioRuns = 2
    s.queryRuns = 3
    s.importRecords = 2000
    s.importScalingRecords = 2000
    s.userPath = .smoke
    return s
  }
}

/// Runs every benchmark against the daemon binary at `daemon` and returns the metrics, printing progress to
/// standard error.
package func runBenchmarks(
  daemon: String, sizes: BenchSizes, scenarios: String?, only: Set<String> = [], charts: String? = nil
) throws -> [Metric] {
  var metrics: [Metric] = []
  func wanted(_ name: String) -> Bool { only.isEmpty || only.contains(name) }
  func note(_ s: String) { Posix.writeStandardError("bench: \(s)\n") }
  if wanted("roundtrip") {
    note("save round trip vs raw socket echo")
    metrics += try roundTripMetric(daemon: daemon, count: sizes.roundTrips)
  }
  if wanted("throughput") {
    note("batched save throughput")
    metrics.append(try throughputMetric(daemon: daemon, samples: sizes.throughputSamples))
  }
  if wanted("sync") {
    note("sync watch → phone")
    metrics.append(try syncMetric(daemon: daemon, samples: sizes.syncSamples))
  }
  if wanted("start") {
    note("daemon start")
    metrics.append(try startMetric(daemon: daemon, starts: sizes.starts))
  }
  if wanted("bigstore") {
    note("recovery, queries and memory over \(sizes.bigStore) samples")
    metrics += try bigStoreMetrics(daemon: daemon, samples: sizes.bigStore, runs: sizes.queryRuns)
    note("de-duplicated statistics over \(sizes.dedupStore) samples from both devices")
    metrics.append(try dedupMetric(daemon: daemon, samples: sizes.dedupStore, runs: sizes.queryRuns))
  }
  if wanted("snapshot") {
    note("recovery from a snapshot vs the journal over \(sizes.snapshotStore) samples")
    metrics += try snapshotMetrics(daemon: daemon, samples: sizes.snapshotStore)
  }
  if wanted("scale") {
    note("a year of watch data: the store's costs from 1,000 to \(sizes.scaleStore) samples")
    metrics += try scaleMetrics(daemon: daemon, largest: sizes.scaleStore, runs: sizes.queryRuns, charts: charts)
  }
  if wanted("clients") {
    note("save round trip with 1…64 concurrent clients")
    metrics.append(try clientsMetric(daemon: daemon, rounds: sizes.roundTrips / 10, charts: charts))
  }
  if wanted("import") {
    note("import of a synthetic Apple Health export of \(sizes.importRecords) records")
    metrics += try importMetrics(daemon: daemon, records: sizes.importRecords)
  }
  if wanted("import") || wanted("importshape") {
    note("import cost in distinct sources and correlation members, \(sizes.importScalingRecords) records")
    metrics += try importScalingMetrics(records: sizes.importScalingRecords)
  }
  // `userpath` is its three parts: HealthKitSim calls (9), pair start-up (10) and the suite (11).
  let parts = ["calls", "pairs", "suite"].filter { wanted($0) || wanted("userpath") }
  if !parts.isEmpty {
    metrics += try userPathMetrics(
      daemon: daemon, sizes: sizes.userPath, suite: scenarios, charts: charts, parts: Set(parts))
  }
  if wanted("scenarios") {
    note("scenario runner")
    metrics += try scenarioMetrics(daemon: daemon, runs: sizes.scenarioRuns, suite: scenarios)
  }
  return metrics
}

// MARK: - Helpers

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return 0 }
  return sorted.count % 2 == 1
    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func percentile(_ values: [Double], _ p: Double) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return 0 }
  return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func now() -> UInt64 { Posix.monotonicNanoseconds() }

/// The CPU time one request costs, in microseconds per call: the daemon's (its process CPU clock, every thread) and
/// the client's (the calling thread's: sending, waiting, reading and decoding the reply). Nanosecond clocks, unlike
/// `/proc/<pid>/stat`'s 10 ms ticks, so each call is measured on its own and the medians taken.
struct QueryCPU {
  /// The daemon's CPU per call, microseconds.
  var daemon: [Double] = []
  /// The client thread's CPU per call, microseconds.
  var client: [Double] = []
}

/// Clock readings taken just before a call; ``record(into:)`` after it adds the call's cost.
struct QueryCost {
  let pid: Int32
  let daemon0: UInt64
  let client0: UInt64

  /// Reads both clocks now.
  init(daemon pid: Int32) {
    self.pid = pid
    daemon0 = Posix.cpuNanoseconds(ofProcess: pid) ?? 0
    client0 = Posix.threadCPUNanoseconds()
  }

  /// Adds the CPU used since ``init(daemon:)`` to `cpu`.
  func record(into cpu: inout QueryCPU) {
    let client1 = Posix.threadCPUNanoseconds()
    let daemon1 = Posix.cpuNanoseconds(ofProcess: pid) ?? daemon0
    cpu.daemon.append(Double(daemon1 &- daemon0) / 1000)
    cpu.client.append(Double(client1 &- client0) / 1000)
  }
}
func micros(_ ns: UInt64) -> Double { Double(ns) / 1000 }
func us(_ v: Double) -> String { "\(formatNumber((v * 10).rounded() / 10)) µs" }
func ms(_ v: Double) -> String { "\(formatNumber((v * 100).rounded() / 100)) ms" }

let benchApp = AppRecord(
  bundleID: "com.example.bench", displayName: "Bench", writeUsageDescription: "bench", readUsageDescription: "bench")
let water = SampleType.lookup(name: "dietaryWater")!
let benchStart = parseDate("2026-01-05T08:00:00Z")!

/// The i-th of `total` bench samples: water, evenly spread over the `spread` seconds before the bench start.
func sample(_ i: Int, of total: Int = 1_000_000, spread: Double = 86400) -> SampleInput {
  var rng = SeededGenerator(seed: UInt64(i) &+ 1)
  let at = benchStart.addingTimeInterval(-Double(i % max(total, 1)) * spread / Double(max(total, 1)))
  return SampleInput(
    uuid: rng.uuid(), type: water, value: .quantity(Double(100 + i % 400), unit: "mL"), start: at, end: at)
}

/// A pair prepared for writing water as the bench app on both devices.
func preparedPair(daemon: String) throws -> Pair {
  var options = LaunchOptions()
  options.logLevel = "warning"
  let pair = try Pair(daemon: daemon, options: options)
  for client in [pair.phone, pair.watch] {
    try client.setClock(benchStart)
    try client.installApp(benchApp)
    let ticket = try client.beginAuthorization(benchApp.bundleID, share: [water], read: [water])
    _ = try ticket.waitFirst(timeout: 10)
    try client.answerPrompt(.allowAll)
    _ = try ticket.wait(timeout: 10)
  }
  return pair
}

/// A minimal blocking client: one request, one response, on the calling thread (no reader thread).
final class DirectClient {
  private let socket: FileDescriptor
  var fd: Int32 { socket.rawValue }
  var decoder = FrameDecoder(maxFrameLength: WireProtocol.maxPeerFrame)
  var buffer = [UInt8](repeating: 0, count: 1 << 18)
  var nextID: UInt32 = 1

  init(_ path: String) throws {
    socket = try Posix.connectUnix(path)
    Posix.setReceiveTimeout(socket.rawValue, seconds: 60)
    _ = try call(.hello(client: "bench"))
  }

  func send(_ frame: [UInt8]) throws {
    try frame.withUnsafeBytes { b in try catching { () throws(SystemError) in try Posix.sendAll(fd, b) }.get() }
  }

  /// The next frame; a daemon silent for a minute is an error (the socket's receive timeout), so a benchmark can
  /// never hang.
  func receive() throws -> Frame {
    while true {
      if let body = try decoder.next() { return try Frame.decode(body) }
      let r = try buffer.withUnsafeMutableBytes { b in
        try catching { () throws(SystemError) in try Posix.read(fd, into: b) }.get()
      }
      if case .wouldBlock = r { throw ClientError.timeout(request: "a bench reply", seconds: 60) }
      guard case .bytes(let n) = r else { throw ClientError.disconnected("bench connection closed") }
      buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }
  }

  /// Performs `operation`: sends its frame and reads until its answer.
  @discardableResult
  func call<Value>(_ operation: DeviceOperation<Value>) throws -> Value {
    let id = nextID
    nextID += 1
    try send(operation.frame(id: id))
    while true {
      if case .response(id, let result) = try receive() { return try operation.value(from: try result.get()) }
    }
  }
}

// MARK: - 1. Round trip

/// Times `count` calls of `body` after a tenth as many warm-up calls; each call gets a fresh index from
/// `counter`. Returns microseconds per call.
func timed(_ count: Int, _ counter: inout Int, _ body: (Int) throws -> Void) rethrows -> [Double] {
  for _ in 0..<max(1, count / 10) {
    counter += 1
    try body(counter)
  }
  var times: [Double] = []
  times.reserveCapacity(count)
  for _ in 0..<count {
    counter += 1
    let index = counter
    let t0 = now()
    try body(index)
    times.append(micros(now() - t0))
  }
  return times
}

/// Echo and save round trips with the client and the two servers (echo child, daemon) placed as given.
struct RoundTrips {
  var echo: [Double]
  var save: [Double]
  var size: Int
  /// CPU time over the save blocks (warm-up included): this process (the client) and the daemon.
  var saveCPU = CallCPU()
}

/// One round trip to an ``EchoServer`` on `fd`: sends `message`, then reads `reply.count` bytes back into `reply`.
func echoRoundTrip(_ fd: Int32, sending message: [UInt8], into reply: inout [UInt8]) throws {
  try message.withUnsafeBytes { b in try catching { () throws(SystemError) in try Posix.sendAll(fd, b) }.get() }
  var got = 0
  while got < reply.count {
    let r = try reply.withUnsafeMutableBytes { b in
      try catching { () throws(SystemError) in
        try Posix.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: b[got...]))
      }.get()
    }
    guard case .bytes(let n) = r else {
      throw ClientError.disconnected("the echo server closed or stayed silent for 60 s")
    }
    got += n
  }
}

/// Measures echo and save round trips in alternating blocks. The servers are pinned to `serverCPU` (the echo
/// server, spawned from this pinned thread, inherits it; the daemon, forked by the zygote, is pinned by pid); the
/// client then runs pinned to `clientCPU`. With two CPUs, "same core" and
/// "cross core" differ by the cost of waking an idle vCPU, which in a VM is tens of microseconds.
func measureRoundTrips(daemon: String, count: Int, clientCPU: Int, serverCPU: Int) throws -> RoundTrips {
  let root = try Posix.makeTemporaryDirectory(prefix: "hp-bench-rtt")
  defer { Posix.removeTree(root) }
  Posix.pinToCPU(serverCPU)
  defer { Posix.unpin() }
  let process = try startDaemon(daemon: daemon, dir: root)
  defer {
    process.signal(SIGKILL)
    process.waitForExit(timeout: 10)
  }
  Posix.pinProcess(process.pid, toCPU: serverCPU)
  let probe = DeviceOperation.save(benchApp.bundleID, [sample(0)]).frame(id: 1)
  let size = probe.count
  let echo = try EchoServer(path: root + "/echo.sock", messageSize: size)
  defer { echo.stop() }
  Posix.pinToCPU(clientCPU)
  let client = try DirectClient(PairLayout(root: root).socket(.phone))
  try client.call(.setClock(benchStart))
  try client.call(.installApp(benchApp))
  try client.send(
    DeviceOperation.requestAuthorization(benchApp.bundleID, share: [water], read: [water]).frame(id: 999_999))
  _ = try client.receive()
  try client.call(.answerPrompt(.allowAll))
  let echoSocket = try Posix.connectUnix(root + "/echo.sock")
  let echoFD = echoSocket.rawValue
  Posix.setReceiveTimeout(echoFD, seconds: 60)
  var reply = [UInt8](repeating: 0, count: size)
  func echoOnce() throws { try echoRoundTrip(echoFD, sending: probe, into: &reply) }
  var result = RoundTrips(echo: [], save: [], size: size)
  var counter = 1_000_000 * (clientCPU * 2 + serverCPU + 1)
  let blocks = 10
  let perBlock = max(1, count / blocks)
  func cpu() -> (UInt64, UInt64) {
    (Posix.cpuNanoseconds(ofProcess: Posix.processID) ?? 0, Posix.cpuNanoseconds(ofProcess: process.pid) ?? 0)
  }
  for _ in 0..<blocks {
    result.echo += try timed(perBlock, &counter) { _ in try echoOnce() }
    let before = cpu()
    let times = try timed(perBlock, &counter) { i in
      try client.call(.save(benchApp.bundleID, [sample(i)]))
    }
    let after = cpu()
    result.save += times
    result.saveCPU.add(calls: times.count, caller: after.0 - before.0, phone: after.1 - before.1, watch: 0)
  }
  return result
}

func roundTripMetric(daemon: String, count: Int) throws -> [Metric] {
  let cpus = Posix.processorCount
  let same = try measureRoundTrips(daemon: daemon, count: count, clientCPU: 0, serverCPU: 0)
  let cross = cpus > 1 ? try measureRoundTrips(daemon: daemon, count: count, clientCPU: 0, serverCPU: 1) : same
  // The same save in a linked pair (sync competes) through DeviceClient, unpinned: what a user's test sees.
  let pair = try preparedPair(daemon: daemon)
  defer { pair.shutdown() }
  var counter = 5_000_000
  let wrapper = pair.phone
  let wrapperTimes = try timed(count / 2, &counter) { i in try wrapper.save(benchApp.bundleID, [sample(i)]) }
  func ratio(_ v: Double, _ e: Double) -> String { formatNumber((v / e * 100).rounded() / 100) + "×" }
  let e1 = median(same.echo)
  let s1 = median(same.save)
  let e2 = median(cross.echo)
  let s2 = median(cross.save)
  let w = median(wrapperTimes)
  return [
    Metric(
      name: "1. Save round trip (one sample, one client, journaled) vs raw UDS echo of \(same.size) B, same core",
      baseline: us(e1),
      value: us(s1), ratio: ratio(s1, e1), target: "≤ 3×", met: s1 <= 3 * e1,
      numbers: [
        ("echoMedianMicros", e1), ("echoP99Micros", percentile(same.echo, 0.99)), ("saveMedianMicros", s1),
        ("saveP99Micros", percentile(same.save, 0.99)), ("payloadBytes", Double(same.size)),
        ("clientCPUMicros", same.saveCPU.perCall(same.saveCPU.caller)),
        ("daemonCPUMicros", same.saveCPU.perCall(same.saveCPU.phone)),
      ], headline: "saveMedianMicros"),
    Metric(
      name: "1a. The same, client and servers on different cores (both pay the vCPU wake-up)", baseline: us(e2),
      value: us(s2),
      ratio: ratio(s2, e2), target: "≤ 3×", met: s2 <= 3 * e2,
      numbers: [
        ("echoMedianMicros", e2), ("saveMedianMicros", s2), ("saveP99Micros", percentile(cross.save, 0.99)),
        ("clientCPUMicros", cross.saveCPU.perCall(cross.saveCPU.caller)),
        ("daemonCPUMicros", cross.saveCPU.perCall(cross.saveCPU.phone)),
      ],
      headline: "saveMedianMicros"),
    Metric(
      name: "1b. The same save in a linked pair through DeviceClient, unpinned (what HealthKitSim sees)",
      baseline: us(e1), value: us(w),
      ratio: ratio(w, e1), target: "reported", met: nil,
      numbers: [("clientMedianMicros", w), ("clientP99Micros", percentile(wrapperTimes, 0.99))]),
  ]
}

/// A child process echoing fixed-size messages on a Unix socket (the raw-socket baseline).
final class EchoServer: Sendable {
  let pid: pid_t
  /// Spawns the server on `path`; with `journal`, it serves as a daemon must (``runEchoServer(path:size:journal:)``).
  init(path: String, messageSize: Int, journal: String? = nil) throws {
    guard let exe = Posix.executablePath() else { throw PairError.timeout("the bench executable path") }
    let (readEnd, writeEnd) = try Posix.pipe()
    let extra = journal.map { ["--journal", $0] } ?? []
    pid = try Posix.spawn(exe, ["--echo-server", path, String(messageSize)] + extra, stdout: writeEnd)
    Posix.close(writeEnd)
    defer { Posix.close(readEnd) }
    var line = [UInt8](repeating: 0, count: 16)
    guard Posix.waitReadable(readEnd, timeoutMilliseconds: 10_000) else { throw PairError.timeout("the echo server") }
    _ = try line.withUnsafeMutableBytes { b in
      try catching { () throws(SystemError) in try Posix.read(readEnd, into: b) }.get()
    }
  }
  func stop() {
    try? Posix.kill(pid, SIGKILL)
    _ = try? Posix.wait(pid, block: true)
  }
}

/// The echo server's body (runs in the child): accept one connection, echo `size`-byte messages. With `journal`, it
/// serves the way any daemon with a journal must, and no more: it waits in `epoll_wait` on a non-blocking socket,
/// reads the message, appends it to `journal` (one `write`), then echoes it — the floor under a save's round trip
/// (row 9f).
package func runEchoServer(path: String, size: Int, journal: String? = nil) -> Int32 {
  guard let listening = try? Posix.listenUnix(path) else { return 1 }
  let listener = listening.rawValue
  Posix.setNonBlocking(listener, false)
  Posix.writeStandardOutput("ready\n")
  guard Posix.waitReadable(listener, timeoutMilliseconds: 30_000), let connection = try? Posix.accept(listener) else {
    return 1
  }
  let fd = connection.rawValue
  var reader = MessageReader(fd: fd, size: size)
  guard let journal else {
    Posix.setNonBlocking(fd, false)
    while true {
      guard reader.next(waitingIn: nil) else { return 0 }
      let sent = reader.buffer.withUnsafeBytes { b in catching { () throws(SystemError) in try Posix.sendAll(fd, b) } }
      if case .failure = sent { return 0 }
    }
  }
  guard let file = try? Posix.open(journal, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC),
    let epoll = try? Posix.epollCreate(),
    (try? Posix.epollControl(epoll.rawValue, .add, fd, events: Posix.PollEvents.readable, token: 1)) != nil
  else { return 1 }
  defer { Posix.close(file) }
  Posix.setNonBlocking(fd, true)
  while true {
    guard reader.next(waitingIn: epoll.rawValue) else { return 0 }
    let done = reader.buffer.withUnsafeBytes { b in
      catching { () throws(SystemError) in
        try Posix.writeAll(file, b)
        try Posix.sendAll(fd, b)
      }
    }
    if case .failure = done { return 0 }
  }
}

/// The echo server's reads: fixed-size messages into one buffer, with the `epoll_wait` arrays made once (nothing is
/// allocated per message, so the baseline echo pays only its syscalls).
private struct MessageReader {
  let fd: Int32
  var buffer: [UInt8]
  var tokens = [UInt64](repeating: 0, count: 1)
  var events = [UInt32](repeating: 0, count: 1)

  init(fd: Int32, size: Int) {
    self.fd = fd
    buffer = [UInt8](repeating: 0, count: size)
  }

  /// Reads the next message; with `epoll`, the socket is non-blocking and each wait for more is an `epoll_wait` on
  /// it. False when the connection ended.
  mutating func next(waitingIn epoll: Int32?) -> Bool {
    var got = 0
    while got < buffer.count {
      if let epoll {
        guard (try? Posix.epollWait(epoll, tokens: &tokens, events: &events, timeoutMilliseconds: -1)) != nil else {
          return false
        }
      }
      let r = buffer.withUnsafeMutableBytes { b in
        catching { () throws(SystemError) in
          try Posix.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: b[got...]))
        }
      }
      switch r {
      case .success(.bytes(let n)): got += n
      case .success(.wouldBlock): continue
      default: return false
      }
    }
    return true
  }
}

// MARK: - 2. Throughput

func throughputMetric(daemon: String, samples: Int) throws -> Metric {
  let pair = try preparedPair(daemon: daemon)
  defer { pair.shutdown() }
  let client = try DirectClient(pair.layout.socket(.phone))
  let batch = 1000
  let batches = max(1, samples / batch)
  let frames: [[UInt8]] = (0..<batches).map { b in
    let samples: [SampleInput] = (0..<batch).map { sample(b * batch + $0) }
    return DeviceOperation.save(benchApp.bundleID, samples).frame(id: UInt32(b + 100))
  }
  let inFlight = 8
  let t0 = now()
  var sent = 0
  var received = 0
  while received < batches {
    while sent < batches && sent - received < inFlight {
      try client.send(frames[sent])
      sent += 1
    }
    if case .response(_, let result) = try client.receive() {
      _ = try result.get()
      received += 1
    }
  }
  let seconds = Double(now() - t0) / 1e9
  let rate = Double(batches * batch) / seconds
  return Metric(
    name: "2. Batched save throughput (1,000-sample batches, 8 in flight)", baseline: "—",
    value: "\(formatNumber(rate.rounded())) samples/s", ratio: "—", target: "≥ 200,000/s", met: rate >= 200_000,
    numbers: [("samplesPerSecond", rate), ("samples", Double(batches * batch))])
}

// MARK: - 3. Sync

func syncMetric(daemon: String, samples: Int) throws -> Metric {
  let pair = try preparedPair(daemon: daemon)
  defer { pair.shutdown() }
  let writer = try DirectClient(pair.layout.socket(.watch))
  let batch = 4096
  let batches = (samples + batch - 1) / batch
  let frames = (0..<batches).map { b in
    DeviceOperation.save(benchApp.bundleID, (b * batch..<min(samples, (b + 1) * batch)).map { sample($0) })
      .frame(id: UInt32(b + 100))
  }
  let gate = DispatchSemaphore(value: 0)
  let token = pair.phone.addListener { event in if case .syncApplied = event { gate.signal() } }
  defer { pair.phone.removeListener(token) }
  try pair.phone.subscribe(.sync)
  let query = SampleQuery(type: water, limit: 0)
  let t0 = now()
  var sent = 0
  var received = 0
  while received < batches {
    while sent < batches && sent - received < 4 {
      try writer.send(frames[sent])
      sent += 1
    }
    if case .response(_, let result) = try writer.receive() {
      _ = try result.get()
      received += 1
    }
  }
  // All visible to a query on the phone (counted by the daemon: the phone's raw store count, then one query).
  let deadline = DispatchTime.now() + 30
  while try pair.phone.dump().device.sampleCounts[water, default: 0] < samples {
    if gate.wait(timeout: deadline) == .timedOut { break }
  }
  let visible = try pair.phone.sampleQuery(benchApp.bundleID, query).count
  let seconds = Double(now() - t0) / 1e9
  return Metric(
    name: "3. Sync: \(samples) samples saved on the watch, all visible on the phone", baseline: "—",
    value: "\(ms(seconds * 1000)) (\(formatNumber((Double(samples) / seconds).rounded())) samples/s)", ratio: "—",
    target: "≤ 1 s", met: seconds <= 1 && visible == samples,
    numbers: [("seconds", seconds), ("samplesPerSecond", Double(samples) / seconds), ("visible", Double(visible))])
}

// MARK: - 4. Start

func startMetric(daemon: String, starts: Int) throws -> Metric {
  var trueTimes: [Double] = []
  for _ in 0..<starts {
    let t0 = now()
    let pid = try Posix.spawn("/bin/true", [])
    _ = try Posix.wait(pid, block: true)
    trueTimes.append(Double(now() - t0) / 1e6)
  }
  var daemonTimes: [Double] = []
  let root = try Posix.makeTemporaryDirectory(prefix: "hp-bench-start")
  defer { Posix.removeTree(root) }
  for i in 0..<starts {
    let dir = "\(root)/d\(i)"
    let t0 = now()
    let process = try startDaemon(daemon: daemon, dir: dir)
    daemonTimes.append(Double(now() - t0) / 1e6)
    process.signal(SIGKILL)
    process.waitForExit(timeout: 10)
  }
  let t = median(trueTimes)
  let d = median(daemonTimes)
  return Metric(
    name: "4. Daemon start to ready (empty store) vs spawning /bin/true", baseline: ms(t), value: ms(d),
    ratio: formatNumber((d / t * 10).rounded() / 10) + "×", target: "≤ 25 ms median", met: d <= 25,
    numbers: [("daemonMedianMs", d), ("trueMedianMs", t)])
}

/// Spawns a stand-alone phone daemon in `dir` and waits for its ready line.
func startDaemon(daemon: String, dir: String, forked: Bool = true) throws -> DaemonProcess {
  var options = LaunchOptions()
  options.useZygote = forked
  options.logLevel = "warning"
  options.readyTimeout = 60
  // No peer: the start measured is the device itself.
  try Posix.makeDirectory(dir, mode: 0o700)
  let layout = PairLayout(root: dir)
  try Posix.writeFileAtomically(layout.pairingKey, Array("0123456789abcdef0123456789abcdef".utf8))
  return try DaemonProcess.start(.phone, layout: layout, daemon: daemon, options: options)
}

// MARK: - 6/7. Recovery, queries, memory

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

/// The time zone of the bench's phone: daily intervals follow its calendar (23- and 25-hour days in a year).
let benchZone = try! TimeZoneRule(identifier: "Europe/Paris")

/// A phone journal at `path` and a watch state (no retention) set up alike for the store benchmarks: the phone in
/// ``benchZone``, both clocks at ``benchStart``, the bench app installed on both.
func benchDevices(phoneJournal path: String) throws -> (phone: DurableDevice, watch: DeviceState) {
  let phone = try DurableDevice(path: path, device: .phone)
  var watch = DeviceState(device: .watch, policy: DevicePolicy(reprompt: .standard, retention: nil))
  var policy = phone.state.policy
  policy.timeZone = benchZone
  try phone.persist(phone.state.setPolicy(policy))
  try phone.persist(phone.state.setClock(benchStart))
  try phone.persist(phone.state.install(benchApp))
  _ = try watch.setClock(benchStart)
  _ = try watch.install(benchApp)
  return (phone, watch)
}

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

/// Writes a phone journal in-process: the bench app granted water, `samples` water samples over a year in
/// 4,096-sample saves, everything acknowledged by the watch. Returns the open device.
func writeWaterStore(_ journal: String, samples: Int) throws -> DurableDevice {
  let device = try DurableDevice(path: journal, device: .phone)
  var policy = device.state.policy
  policy.timeZone = benchZone
  try device.persist(device.state.setPolicy(policy))
  try device.persist(device.state.setClock(benchStart))
  try device.persist(device.state.install(benchApp))
  let outcome = try device.state.requestAuthorization(
    benchApp.bundleID, share: [water], read: [water], wall: benchStart)
  guard case .prompt(let p) = outcome else { throw PairError.timeout("a sheet") }
  try device.persist(device.state.answerPrompt(id: p.id, bundleID: nil, answer: .allowAll).events)
  var i = 0
  while i < samples {
    let n = min(4096, samples - i)
    let batch = (i..<i + n).map { sample($0, of: samples, spread: 365 * 86400) }
    try device.persist(device.state.save(benchApp.bundleID, batch, wall: benchStart))
    i += n
  }
  try device.persist(device.state.receivePeerAck(device.state.sync.lastSeq))
  return device
}

// MARK: - 4c. Recovery from a snapshot

/// A phone daemon started on a large store twice: with the journal alone (full replay, the baseline) and with a
/// snapshot of the whole store beside it (what a clean shutdown leaves), each until ready.
func snapshotMetrics(daemon: String, samples: Int) throws -> [Metric] {
  let root = try Posix.makeTemporaryDirectory(prefix: "hp-bench-snapshot")
  defer { Posix.removeTree(root) }
  let layout = PairLayout(root: root)
  try Posix.makeDirectory(layout.directory(.phone), mode: 0o700)
  let snapshot = SnapshotFile.path(forJournal: layout.journal(.phone))
  let aside = root + "/snapshot.aside"
  var writeSeconds = 0.0
  var snapshotBytes = 0
  do {
    let device = try writeWaterStore(layout.journal(.phone), samples: samples)
    // What the daemon does at a clean shutdown; the snapshot is put aside for the baseline run.
    let w0 = now()
    snapshotBytes = try device.writeSnapshot()
    writeSeconds = Double(now() - w0) / 1e9
    try Posix.rename(snapshot, to: aside)
  }
  let journalBytes = (try? Posix.readFile(layout.journal(.phone)).count) ?? 0
  func start() throws -> (seconds: Double, residentMiB: Double, log: String) {
    let t0 = now()
    let process = try startDaemon(daemon: daemon, dir: root)
    let seconds = Double(now() - t0) / 1e9
    let rss = Double(Posix.residentBytes(of: process.pid) ?? 0) / 1_048_576
    process.signal(SIGKILL)
    process.waitForExit(timeout: 60)
    let log = (try? Posix.readFile(layout.log(.phone))).map { String(decoding: $0, as: UTF8.self) } ?? ""
    return (seconds, rss, log)
  }
  let replay = try start()
  // The killed daemon may have started (or finished) a snapshot of its own after ready: replace it with ours.
  try Posix.rename(aside, to: snapshot)
  let resumed = try start()
  // The daemons log at warning level: a snapshot that was not used says so.
  let usedSnapshot = !resumed.log.contains("snapshot not used")
  let ratio = resumed.seconds / replay.seconds
  let full = samples >= 10_000_000
  return [
    Metric(
      name: "4c. Recovery of a \(formatNumber(Double(samples)))-sample store to ready from its snapshot "
        + "(\(snapshotBytes / 1_048_576) MiB) vs replaying its journal (\(journalBytes / 1_048_576) MiB)",
      baseline: ms(replay.seconds * 1000), value: ms(resumed.seconds * 1000),
      ratio: formatNumber((ratio * 1000).rounded() / 1000) + "×", target: full ? "≤ 5 s" : "reported",
      met: full ? resumed.seconds <= 5 && usedSnapshot : nil,
      numbers: [
        ("seconds", resumed.seconds), ("replaySeconds", replay.seconds), ("snapshotBytes", Double(snapshotBytes)),
        ("journalBytes", Double(journalBytes)), ("usedSnapshot", usedSnapshot ? 1 : 0),
      ]),
    Metric(
      name: "4d. Daemon resident memory after recovery from the snapshot vs from the journal",
      baseline: "\(formatNumber(replay.residentMiB.rounded())) MiB",
      value: "\(formatNumber(resumed.residentMiB.rounded())) MiB", ratio: "—", target: "reported", met: nil,
      numbers: [("residentMiB", resumed.residentMiB), ("replayResidentMiB", replay.residentMiB)]),
    Metric(
      name: "4e. Writing that snapshot (what a clean shutdown or a due snapshot costs the daemon's loop)",
      baseline: "—", value: ms(writeSeconds * 1000), ratio: "—", target: "reported", met: nil,
      numbers: [("seconds", writeSeconds)]),
  ]
}

// MARK: - 5. Scenarios

let typicalScenario = """
  scenario: A typical scenario (15 steps)
  install Water on phone and watch share dietaryWater read dietaryWater
  install Return on phone and watch share mindfulSession
  phone: Water requests
  user on phone: allows share dietaryWater
  phone: Water saves 250 mL dietaryWater at 08:00 as drink
  watch: Return requests
  user on watch: doesn't allow
  watch: Return requests
  expect watch: Return's request showed no sheet
  user on phone: in the Watch app turns on share mindfulSession for Return
  watch: Return saves notApplicable mindfulSession from 08:00 for 10m as session
  wait until synced
  expect watch: store has drink
  expect phone: Water sees 1 dietaryWater samples
  expect watch: Return share mindfulSession is sharingAuthorized
  """

func scenarioMetrics(daemon: String, runs: Int, suite: String?) throws -> [Metric] {
  let scenario = try ScenarioParser.parse(typicalScenario, file: "bench/typical.scenario").get()
  let runner = ScenarioRunner(daemon: daemon)
  var times: [Double] = []
  for _ in 0..<runs {
    let result = runner.run(scenario, seed: 1)
    guard result.passed else { throw PairError.timeout("the typical scenario to pass: \(result.status)") }
    times.append(result.duration * 1000)
  }
  let typical = median(times)
  var metrics = [
    Metric(
      name: "5a. One typical scenario (fresh pair, 15 steps), median", baseline: "—", value: ms(typical), ratio: "—",
      target: "≤ 60 ms",
      met: typical <= 60, numbers: [("medianMs", typical)])
  ]
  if let suite {
    let loaded = Suite.load([suite])
    let t0 = now()
    let results = Suite.run(loaded.scenarios, seed: 1, jobs: 2, runner: runner)
    let seconds = Double(now() - t0) / 1e9
    metrics.append(
      Metric(
        name: "5b. The whole Scenarios/ suite (\(results.count) scenarios), --jobs 2", baseline: "—",
        value: "\(formatNumber((seconds * 100).rounded() / 100)) s (\(results.filter(\.passed).count) passed)",
        ratio: "—", target: "reported",
        met: nil, numbers: [("seconds", seconds), ("scenarios", Double(results.count))]))
  }
  return metrics
}

// MARK: - Output

/// The metrics as an aligned table.
package func benchTable(_ metrics: [Metric]) -> String {
  var rows = [["metric", "baseline", "HealthPair", "ratio", "target", "met?"]]
  for m in metrics {
    rows.append([m.name, m.baseline, m.value, m.ratio, m.target, m.met.map { $0 ? "yes" : "NO" } ?? "—"])
  }
  return table(rows)
}

/// The metrics as a Markdown table (for docs/performance.md).
package func benchMarkdown(_ metrics: [Metric]) -> String {
  var out = "| metric | baseline | HealthPair | ratio | target | met? |\n|---|---|---|---|---|---|\n"
  for m in metrics {
    out +=
      "| \(m.name) | \(m.baseline) | \(m.value) | \(m.ratio) | \(m.target) | \(m.met.map { $0 ? "yes" : "**no**" } ?? "—") |\n"
  }
  return out
}

/// The metrics as JSON.
package func benchJSON(_ metrics: [Metric], machine: String) -> String {
  JSON.object([
    ("machine", .string(machine)),
    (
      "metrics",
      .array(
        metrics.map { m in
          .object([
            ("name", .string(m.name)), ("baseline", .string(m.baseline)), ("value", .string(m.value)),
            ("ratio", .string(m.ratio)),
            ("target", .string(m.target)), ("met", m.met.map { JSON.bool($0) } ?? .null),
            ("numbers", .object(m.numbers.map { ($0.0, JSON.number($0.1)) })),
          ])
        })
    ),
  ]).render() + "\n"
}
