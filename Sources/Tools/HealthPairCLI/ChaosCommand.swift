import Chaos
import Dispatch
import FoundationEssentials
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Render

/// `healthpair chaos`: seeded fault campaigns against real pairs, with invariants checked at the end.
package struct ChaosCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    name: "chaos",
    abstract: "Run seeded fault campaigns (kills, partitions, holds, latency) and check nothing is lost.",
    usage: "chaos [--seed <n>] [--steps <n>] [--seeds <n>] [--jobs <n>] [--verbose] [--keep]",
    discussion: """
      OPTIONS:
        --seed <n>         The first seed (default 1). The same seed gives the same schedule.
        --steps <n>        Steps per campaign (default 200).
        --seeds <n>        How many consecutive seeds to run (default 1).
        --jobs <n>         Campaigns run at once, each on its own pair (default 1).
        --verbose          Print each step as it runs.
        --keep             Keep a failed campaign's pair directory (journals, logs) and print its path.

      Each campaign starts a fresh pair and runs a schedule drawn from its seed: saves and deletes from several
      connections on both devices (left in flight across kills), authorization and settings changes, link
      disconnects, holds and latency, and kill -9 + restart of either daemon. Then it heals, waits for sync and
      checks: every acknowledged save is on both devices, every acknowledged delete is gone from both, no UUID is
      stored twice, the stores converge, no authorization crossed, and no daemon died unless killed.
      EXIT STATUS: 0 every campaign passed, 1 one failed (its seed and a command to replay it are printed).
      """)

  var seed: UInt64 = 1
  var steps = 200
  var seeds = 1
  var jobs = 1
  var verbose = false
  var keep = false

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    if let text = try args.option("seed") {
      guard let value = UInt64(text) else {
        throw args.error("invalid value '\(text)' for '--seed': expected a non-negative integer")
      }
      seed = value
    }
    steps = try args.intOption("steps", range: 1...1_000_000) ?? 200
    seeds = try args.intOption("seeds", range: 1...100_000) ?? 1
    jobs = try args.intOption("jobs", range: 1...64) ?? 1
    guard seed <= UInt64.max - UInt64(seeds - 1) else {
      throw args.error("--seed \(seed) with --seeds \(seeds) runs past the largest seed (\(UInt64.max))")
    }
    verbose = args.flag("verbose")
    keep = args.flag("keep")
    try args.finish()
  }

  /// Runs the campaigns.
  package func run() throws -> Int32 {
    let daemon = try locateDaemon()
    var rows = [["seed"] + CampaignReport.columns + ["result"]]
    let started = Posix.monotonicNanoseconds()
    // A closed range: `seed + seeds` itself overflows when the last seed is UInt64.max (init checked the rest).
    let seedList = Array(seed...seed + UInt64(seeds - 1))
    let reports = Locked<[UInt64: CampaignReport]>([:])
    let next = Locked(0)
    let group = DispatchGroup()
    for _ in 0..<min(jobs, seeds) {
      group.enter()
      Posix.startThread { [steps, verbose, keep] in
        while true {
          let index: Int = next.withLock { i in
            defer { i += 1 }
            return i
          }
          guard index < seedList.count else { break }
          let s = seedList[index]
          var campaign = Campaign(seed: s, steps: steps, daemon: daemon)
          if verbose { campaign.trace = { index, action in out("  [\(s)] \(index + 1): \(action)\n") } }
          campaign.keepFailed = keep
          let report = campaign.run()
          reports.withLock { $0[s] = report }
        }
        group.leave()
      }
    }
    group.wait()
    // Campaigns cut short by SIGINT or SIGTERM did not fail: the interrupted line reports them (``Interruption``).
    if Interruption.isInterrupted { return 1 }
    var failed: [CampaignReport] = []
    var total = CampaignReport(seed: 0)
    for s in seedList {
      guard let report = reports.withLock({ $0[s] }) else { continue }
      rows.append([String(s)] + report.cells + [report.passed ? "ok" : "FAILED"])
      total.add(report)
      if !report.passed { failed.append(report) }
    }
    if seeds > 1 { rows.append(["total"] + total.cells + [failed.isEmpty ? "ok" : "\(failed.count) FAILED"]) }
    out(table(rows) + "\n")
    let seconds = Double(Posix.monotonicNanoseconds() - started) / 1e9
    out(
      "\(seeds) campaign\(seeds == 1 ? "" : "s") × \(steps) steps in \(formatNumber(seconds, decimals: 1)) s: \(seeds - failed.count) passed, \(failed.count) failed\n"
    )
    for report in failed {
      err(
        "\nFAILED seed \(report.seed): \(report.failure ?? "\(report.losses) acknowledged samples lost")\n  reproduce: \(report.reproduce(steps: steps))\n"
      )
      if let dir = report.keptDirectory { err("  kept: \(dir) (journals and logs of both devices)\n") }
    }
    return failed.isEmpty ? 0 : 1
  }
}
