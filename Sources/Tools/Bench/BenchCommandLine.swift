import CommandLineKit
import FoundationEssentials
import HealthModel
import HealthPairClient
import PairProcesses
import Posix

/// `healthpair-bench`'s command line.
package enum BenchMain {
  /// The program: one command, with `--help` and `--version` answered the way every HealthPair executable does.
  package static var program: CommandProgram {
    CommandProgram(command: BenchCommand.self, version: HealthPairVersion.current)
  }

  /// Runs with `arguments` (without the program name); returns the exit status.
  package static func main(_ arguments: [String]) -> Int32 {
    program.main(arguments, standardOutput: Posix.writeStandardOutput, standardError: Posix.writeStandardError)
  }
}

/// `healthpair-bench`: the benchmarks of docs/performance.md.
package struct BenchCommand: ParsableCommand {
  /// The benchmark groups `--only` selects from.
  package static let groups = BenchFamily.names

  /// The command's description.
  package static let configuration = CommandConfiguration(
    program: "healthpair-bench",
    abstract: "Measure HealthPair against baselines taken in the same run, and judge each result by its target.",
    usage: "[--smoke] [--json <file>] [--markdown] [--scenarios <dir>] [--only <names>] [--snapshot-samples <n>] "
      + "[--scale-samples <n>] [--query-runs <n>] [--import-records <n>] [--charts <dir>] [--history <file>]",
    discussion: """
      Prints metric, baseline, HealthPair, ratio, target and whether it is met. Build in release mode first
      (make bench does).

      OPTIONS:
        --smoke            Tiny sizes: checks the machinery, not the performance (nothing is judged).
        --json <file>      Where to write the JSON report (default: bench-results.json).
        --markdown         Also print the table as Markdown (for docs/performance.md).
        --scenarios <dir>  Also time the whole scenario suite with --jobs 2.
        --only <names>     Run only some: roundtrip, throughput, sync, start, bigstore, snapshot, scale,
                           clients, import, scenarios, userpath, workouts (comma-separated; repeatable); userpath
                           is calls (rows 9), pairs (10) and suite (11), which can also be run alone, and
                           import includes importshape (rows 8d, 8e: the reader alone, no daemon), and
                           workouts is workoutsync (row 12), workoutquery (13a, 13b), livesession (14) and
                           mirroring (15).
        --snapshot-samples <n>
                           Samples in the store the snapshot benchmark recovers (default 10000000).
        --scale-samples <n>
                           The largest store of the scale ladder (default 10000000; 1000, 10000, ... up to it).
        --query-runs <n>   Timed calls of each query row (default 30; more for a profile).
        --charts <dir>     Write the growth charts (SVG) of the scale and clients groups into <dir>.
        --history <file>   Append this run's figures to <file> (the last 10 runs are kept) and show each row's
                           spread over them (make bench: docs/bench-history.json). Not with --smoke.
        --import-records <n>
                           Records in the synthetic export the import benchmark loads (default 2300000, ~1 GiB).

      EXIT STATUS: 0 every target met (or --smoke), 1 a target missed, 2 a benchmark could not run, 64 usage.
      """)

  /// How big each benchmark is.
  package var sizes = BenchSizes()
  /// Where the JSON report goes.
  package var jsonPath = "bench-results.json"
  /// Whether the table is also printed as Markdown.
  package var markdown = false
  /// The scenario directory to time, if any.
  package var scenarios: String?
  /// The groups to run (every group when empty).
  package var only: Set<String> = []
  /// Where the growth charts go, if anywhere.
  package var charts: String?
  /// The history file this run is appended to, if any.
  package var history: String?
  /// `--echo-server <path> <size> [--journal <file>]`: this process is the echo baseline's server, spawned by a
  /// benchmark; with `--journal` it serves the way a daemon must (epoll, then an append to the file per message).
  private var echoServer: (path: String, size: Int, journal: String?)?
  /// `--import-child <socket> <file>`: this process is the import benchmark's importer, spawned by it.
  private var importChild: (socket: String, file: String)?

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    if let path = try args.option("echo-server") {
      let text = try args.required("the echo message size")
      guard let size = Int(text), size > 0 else { throw args.error("invalid echo message size '\(text)'") }
      let journal = try args.option("journal")
      try args.finish()
      echoServer = (path, size, journal)
      return
    }
    if let socket = try args.option("import-child") {
      let file = try args.required("the export file to import")
      try args.finish()
      importChild = (socket, file)
      return
    }
    if args.flag("smoke") { sizes = .smoke }
    markdown = args.flag("markdown")
    jsonPath = try args.option("json") ?? jsonPath
    for list in try args.options("only") {
      for name in list.split(separator: ",").map(String.init) {
        guard Self.groups.contains(name) else {
          let suggestion = suggest(name, from: Self.groups).map { " (did you mean '\($0)'?)" } ?? ""
          throw args.error(
            "unknown benchmark '\(name)'\(suggestion): expected \(Self.groups.sorted().joined(separator: ", "))")
        }
        only.insert(name)
      }
    }
    if let n = try args.intOption("snapshot-samples", range: 1...Int.max) { sizes.snapshotStore = n }
    if let n = try args.intOption("import-records", range: 1...Int.max) { sizes.importRecords = n }
    if let n = try args.intOption("scale-samples", range: 1000...Int.max) { sizes.scaleStore = n }
    if let n = try args.intOption("query-runs", range: 1...1_000_000) { sizes.queryRuns = n }
    charts = try args.option("charts")
    history = try args.option("history")
    scenarios = try args.option("scenarios")
    try args.finish()
  }

  /// Runs the benchmarks, prints the table and writes the JSON report.
  package func run() -> Int32 {
    if let echoServer {
      return runEchoServer(path: echoServer.path, size: echoServer.size, journal: echoServer.journal)
    }
    if let importChild { return runImportChild(socket: importChild.socket, file: importChild.file) }
    do {
      let daemon = try locateDaemon()
      let smoke = sizes.throughputSamples < BenchSizes().throughputSamples
      // Read the history first: a malformed file stops the run before it spends minutes measuring.
      var past = try history.map { try BenchHistory.load($0) }
      let metrics = try runBenchmarks(
        daemon: daemon, sizes: sizes, scenarios: scenarios, only: only, charts: charts)
      let machine = BenchMain.machineDescription()
      let load = loadAverage()
      if let history, let old = past, !smoke {
        let date = formatDate(Date(timeIntervalSince1970: Posix.wallClockSeconds().rounded()))
        past = old.appending(BenchHistory.run(metrics, date: date, machine: machine, loadAverage: load))
        try past?.save(to: history)
      }
      Posix.writeStandardOutput(
        "\nMachine: \(machine); load average \(load)\n\n" + benchTable(metrics, history: past) + "\n")
      if markdown { Posix.writeStandardOutput("\n" + benchMarkdown(metrics, history: past)) }
      try Posix.writeFileAtomically(jsonPath, Array(benchJSON(metrics, machine: machine).utf8), mode: 0o644)
      Posix.writeStandardOutput("\nJSON written to \(jsonPath)\n")
      // A smoke run checks the machinery; targets are judged only at full size (make bench, release build).
      if smoke { return 0 }
      return metrics.contains { $0.met == false } ? 1 : 0
    } catch {
      Posix.writeStandardError("healthpair-bench: \(error)\n")
      return 2
    }
  }
}

extension BenchMain {
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
