import HealthPairClient
import Posix

/// `healthpair-bench`'s command line.
package enum BenchMain {
  /// Runs with `arguments` (without the program name); returns the exit status.
  package static func main(_ arguments: [String]) -> Int32 {
    if arguments.first == "--echo-server", arguments.count == 3, let size = Int(arguments[2]) {
      return runEchoServer(path: arguments[1], size: size)
    }
    if arguments.first == "--import-child", arguments.count == 3 {
      return runImportChild(socket: arguments[1], file: arguments[2])
    }
    if arguments.contains("--help") {
      Posix.writeStandardOutput(
        """
        USAGE: healthpair-bench [--smoke] [--json <file>] [--markdown] [--scenarios <dir>]

        Measures HealthPair against baselines taken in the same run and prints metric, baseline, HealthPair, ratio,
        target and whether it is met. Build in release mode first (make bench does).
          --smoke            Tiny sizes: checks the machinery, not the performance.
          --json <file>      Where to write the JSON report (default: bench-results.json).
          --markdown         Also print the table as Markdown (for docs/performance.md).
          --scenarios <dir>  Also time the whole scenario suite with --jobs 2.
          --only <names>     Run only some: roundtrip, throughput, sync, start, bigstore, snapshot, import,
                             scenarios (comma-separated).
          --import-records <n>
                             Records in the synthetic export the import benchmark loads (default 2300000, ~1 GiB).
          --snapshot-samples <n>
                             Samples in the store the snapshot benchmark recovers (default 10000000).

        """)
      return 0
    }
    var sizes = BenchSizes()
    var jsonPath = "bench-results.json"
    var markdown = false
    var scenarios: String?
    var only: Set<String> = []
    let known: Set<String> = [
      "roundtrip", "throughput", "sync", "start", "bigstore", "snapshot", "import", "scenarios",
    ]
    var index = 0
    while index < arguments.count {
      switch arguments[index] {
      case "--smoke": sizes = .smoke
      case "--markdown": markdown = true
      case "--json":
        index += 1
        guard index < arguments.count else { return usage("missing value for '--json'") }
        jsonPath = arguments[index]
      case "--only":
        index += 1
        guard index < arguments.count else { return usage("missing value for '--only'") }
        for name in arguments[index].split(separator: ",").map(String.init) {
          guard known.contains(name) else {
            return usage("unknown benchmark '\(name)': expected \(known.sorted().joined(separator: ", "))")
          }
          only.insert(name)
        }
      case "--snapshot-samples":
        index += 1
        guard index < arguments.count, let n = Int(arguments[index]), n > 0 else {
          return usage("--snapshot-samples takes a positive sample count")
        }
        sizes.snapshotStore = n
      case "--import-records":
        index += 1
        guard index < arguments.count, let n = Int(arguments[index]), n > 0 else {
          return usage("--import-records takes a positive record count")
        }
        sizes.importRecords = n
      case "--scenarios":
        index += 1
        guard index < arguments.count else { return usage("missing value for '--scenarios'") }
        scenarios = arguments[index]
      default: return usage("unknown argument '\(arguments[index])'")
      }
      index += 1
    }
    do {
      let daemon = try locateDaemon()
      let metrics = try runBenchmarks(daemon: daemon, sizes: sizes, scenarios: scenarios, only: only)
      let machine = machineDescription()
      Posix.writeStandardOutput("\nMachine: \(machine)\n\n" + benchTable(metrics) + "\n")
      if markdown { Posix.writeStandardOutput("\n" + benchMarkdown(metrics)) }
      try Posix.writeFileAtomically(jsonPath, Array(benchJSON(metrics, machine: machine).utf8), mode: 0o644)
      Posix.writeStandardOutput("\nJSON written to \(jsonPath)\n")
      // A smoke run checks the machinery; targets are judged only at full size (make bench, release build).
      if sizes.throughputSamples < BenchSizes().throughputSamples { return 0 }
      return metrics.contains { $0.met == false } ? 1 : 0
    } catch {
      Posix.writeStandardError("healthpair-bench: \(error)\n")
      return 2
    }
  }

  static func usage(_ message: String) -> Int32 {
    Posix.writeStandardError(
      "healthpair-bench: error: \(message)\nUSAGE: healthpair-bench [--smoke] [--json <file>] [--markdown] [--scenarios <dir>] [--only <names>]\n"
    )
    return 64
  }

  /// CPU model, processor count and kernel, from /proc.
  static func machineDescription() -> String {
    let cpuinfo = (try? Posix.readFile("/proc/cpuinfo")).map { String(decoding: $0, as: UTF8.self) } ?? ""
    let model =
      cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":", maxSplits: 1).last.map
    { String($0).trimmingWhitespace() } ?? "unknown CPU"
    let kernel =
      (try? Posix.readFile("/proc/sys/kernel/osrelease")).map {
        String(decoding: $0, as: UTF8.self).trimmingWhitespace()
      } ?? "?"
    let memory =
      (try? Posix.readFile("/proc/meminfo")).map { String(decoding: $0, as: UTF8.self) }?.split(separator: "\n").first
      .map { String($0).trimmingWhitespace() } ?? ""
    return "\(model), \(Posix.processorCount) cores, Linux \(kernel), \(memory)"
  }
}
