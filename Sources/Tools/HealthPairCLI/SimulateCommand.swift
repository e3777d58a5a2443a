import Dispatch
import FoundationEssentials
import HealthModel
import Posix
import Render
import Simulation

/// `healthpair simulate`: the deterministic pair simulator over many seeds (docs/reliability.md).
package struct SimulateCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    name: "simulate",
    abstract: "Run the deterministic in-process pair simulator over many seeds and check the sync invariants.",
    usage:
      "simulate [--seed <n>] [--seeds <n>] [--steps <n>] [--jobs <n>] [--no-crashes] [--no-torn-tails] "
      + "[--no-network-faults] [--no-workouts]",
    discussion: """
      OPTIONS:
        --seed <n>             The first seed (default 1). The same seed always gives the same run.
        --seeds <n>            How many consecutive seeds to run (default 1).
        --steps <n>            Steps per seed (default 1000).
        --jobs <n>             Threads (default: the number of cores).
        --no-crashes           Devices never crash.
        --no-torn-tails        Crashes never cut the journal's tail.
        --no-network-faults    No connection resets, partitions or random delays.
        --no-workouts          The app saves and deletes samples only, no workouts.

      Each seed runs a phone and a watch in this process, built from the daemons' own request and peer-link
      cores, with each journal kept as bytes and replayed on every crash, a virtual clock, and a seeded network
      that delays messages, resets connections (losing what was in flight) and partitions the pair. The app
      saves and deletes samples and workouts (with heart rate samples, sometimes a route) on both devices;
      links are held, released, disconnected and slowed. At the end every fault heals and the run must
      converge: every acknowledged save on both devices unless an acknowledged delete removed it, no deletion
      undone, no UUID stored twice, equal stores, a verified link, journals that replay to exactly the live
      state, every acknowledged workout on the phone with its samples, a route only with its workout, and a
      deleted workout gone from both devices with its route. The real-process end-to-end check is `healthpair chaos`.
      EXIT STATUS: 0 every seed passed, 1 one failed (its seed and a command to replay it are printed).
      """)

  var seed: UInt64 = 1
  var seeds = 1
  var jobs = max(1, Posix.processorCount)
  var options = SimulationOptions()

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    if let text = try args.option("seed") {
      guard let value = UInt64(text) else {
        throw args.error("invalid value '\(text)' for '--seed': expected a non-negative integer")
      }
      seed = value
    }
    seeds = try args.intOption("seeds", range: 1...10_000_000) ?? 1
    options.steps = try args.intOption("steps", range: 1...1_000_000) ?? 1_000
    jobs = try args.intOption("jobs", range: 1...256) ?? jobs
    guard seed <= UInt64.max - UInt64(seeds - 1) else {
      throw args.error("--seed \(seed) with --seeds \(seeds) runs past the largest seed (\(UInt64.max))")
    }
    options.crashes = !args.flag("no-crashes")
    options.tornTails = !args.flag("no-torn-tails")
    options.networkFaults = !args.flag("no-network-faults")
    options.workouts = !args.flag("no-workouts")
    try args.finish()
  }

  /// Runs the seeds and prints the totals, and every failure with the command that replays it.
  package func run() throws -> Int32 {
    let started = Posix.monotonicNanoseconds()
    let summary = SimulationSummary.run(first: seed, count: seeds, options: options, jobs: jobs)
    let seconds = Double(Posix.monotonicNanoseconds() - started) / 1e9
    out(table(summary.rows) + "\n")
    out(
      "\(seeds) seed\(seeds == 1 ? "" : "s") × \(options.steps) steps in \(formatNumber(seconds, decimals: 1)) s: "
        + "\(seeds - summary.failures.count) passed, \(summary.failures.count) failed\n")
    for report in summary.failures.prefix(10) {
      err(
        "\nFAILED seed \(report.seed): \(report.failure ?? "?")\n"
          + "  reproduce: \(PairSimulator.reproduction(seed: report.seed, options: options))\n")
    }
    if summary.failures.count > 10 { err("\n… and \(summary.failures.count - 10) more failed seeds\n") }
    return summary.failures.isEmpty ? 0 : 1
  }
}
