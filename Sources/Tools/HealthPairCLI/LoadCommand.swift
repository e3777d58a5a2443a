import Chaos
import FoundationEssentials
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Render

/// `healthpair load`: many concurrent clients on both devices of one pair for a bounded time, then a check that
/// every acknowledgement held and the stores converged.
package struct LoadCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    name: "load",
    abstract: "Run concurrent clients against both devices while sync runs; check nothing acknowledged is lost.",
    usage: "load [--clients <n>] [--seconds <n>] [--seed <n>]",
    discussion: """
      OPTIONS:
        --clients <n>      Concurrent connections, split between phone and watch (default 32, at most 500).
        --seconds <n>      How long the clients run (default 10).
        --seed <n>         Seed of the clients' choices (default 1).

      Each client loops until the time is up: saves of 1–8 samples, sample queries, hourly statistics over a
      day, and deletes of samples it saved itself. The link stays up, so sync runs throughout. Afterwards the
      run waits until both devices are synced and checks that every acknowledged save is on both devices,
      every acknowledged delete is gone from both, the stores are equal, no request failed and no daemon died.
      It prints operations, latency quantiles, the daemons' peak resident memory and the sync drain time.
      EXIT STATUS: 0 nothing lost and no errors, 1 otherwise.
      """)

  var load = LoadTest()

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    // Half the clients go to each daemon, which serves 256 connections by default (the harness holds two).
    load.clients = try args.intOption("clients", range: 1...500) ?? 32
    load.seconds = Double(try args.intOption("seconds", range: 1...86_400) ?? 10)
    if let text = try args.option("seed") {
      guard let value = UInt64(text) else {
        throw args.error("invalid value '\(text)' for '--seed': expected a non-negative integer")
      }
      load.seed = value
    }
    try args.finish()
  }

  /// Runs the load and prints the figures.
  package func run() throws -> Int32 {
    var test = load
    test.daemon = try locateDaemon()
    let report = test.run()
    out(Self.render(report))
    for failure in report.failures { err("FAILED: \(failure)\n") }
    if !report.passed {
      err(
        "  reproduce: healthpair load --clients \(report.clients) --seconds \(Int(report.seconds)) --seed \(report.seed)\n"
      )
    }
    return report.passed ? 0 : 1
  }

  /// The report as a table and a summary.
  static func render(_ report: LoadReport) -> String {
    func ms(_ v: Double?) -> String { v.map { formatFixed($0, decimals: 2) } ?? "—" }
    var rows = [["operation", "count", "per second", "p50 ms", "p99 ms", "max ms"]]
    for kind in report.operations.keys.sorted() {
      let count = report.operations[kind] ?? 0
      rows.append([
        kind, String(count), String(Int((Double(count) / max(report.elapsed, 0.001)).rounded())),
        ms(report.latencyMilliseconds(kind, quantile: 0.5)), ms(report.latencyMilliseconds(kind, quantile: 0.99)),
        ms(report.latencyMilliseconds(kind, quantile: 1)),
      ])
    }
    var text = table(rows) + "\n"
    text += "\(report.clients) clients for \(formatFixed(report.elapsed, decimals: 2)) s: "
    text += "\(report.totalOperations) requests answered, "
    text +=
      "\(report.savedSamples) samples saved, \(report.deletedSamples) deleted, \(report.storedSamples) stored after sync\n"
    text += "errors: \(report.errors.values.reduce(0, +)), lost acknowledgements: \(report.lostAcknowledgements), "
    let (phone, watch) = (report.peakResidentMiB.first ?? 0, report.peakResidentMiB.last ?? 0)
    text += "sync drained in \(formatFixed(report.syncDrainSeconds, decimals: 2)) s, "
    text += "peak RSS phone \(formatFixed(phone, decimals: 2)) MiB, watch \(formatFixed(watch, decimals: 2)) MiB\n"
    return text
  }
}
