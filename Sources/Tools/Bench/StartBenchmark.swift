import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Render

#if canImport(Glibc)
  import Glibc
#endif

/// Row 4: a stand-alone daemon's start to ready on an empty store, against spawning `/bin/true`.
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
