import HealthModel
import HealthPairClient
import PairProcesses
import HealthPairTesting
import Posix
import Scenario
import ScenarioLanguage

#if canImport(Glibc)
  import Glibc
#endif

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
