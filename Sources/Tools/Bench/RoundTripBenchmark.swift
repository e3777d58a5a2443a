import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// Echo and save round trips with the client and the two servers (echo child, daemon) placed as given.
struct RoundTrips {
  var echo: [Double]
  var save: [Double]
  var size: Int
  /// CPU time over the save blocks (warm-up included): this process (the client) and the daemon.
  var saveCPU = CallCPU()
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

/// Rows 1, 1a and 1b: a journaled save's round trip against a raw Unix-socket echo of its frame, client and
/// servers on one core and on two, and the same save through DeviceClient in a linked pair.
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
