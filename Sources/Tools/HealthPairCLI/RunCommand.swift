import FoundationEssentials
import HealthPairClient
import PairProcesses
import Posix
import Render
import Scenario
import ScenarioLanguage

/// `healthpair run`: runs scenario files against fresh daemon pairs.
package struct RunCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    name: "run", abstract: "Run scenario files, each against a fresh phone + watch pair, and report.",
    usage: "run [<path>…] [--jobs <n>] [--filter <text>] [--shard <k>/<n>] [--seed <n>] [--junit <file>] [--json]"
      + " [--html <file>] [--keep-failed <dir>]",
    discussion: """
      ARGUMENTS:
        <path>             Scenario files or directories (searched for *.scenario). Default: Scenarios/.

      OPTIONS:
        --jobs <n>         Scenarios run in parallel (default: the number of processors).
        --filter <text>    Only scenarios whose path or title contains <text>. Files outside the filter are not
                           parsed, so a broken one cannot block the run.
        --shard <k>/<n>    Only shard k of n (1 ≤ k ≤ n): the files, in path order, at positions k, k+n, k+2n…
                           Deterministic and disjoint; the n shards together run every scenario (a CI matrix).
        --seed <n>         The seed for scenarios without a 'seed' line (default 1). Same seed, same run.
        --junit <file>     Also write a JUnit XML report to <file>.
        --json             Print a JSON report instead of the human one (state and trace as objects).
        --html <file>      Also write a self-contained HTML report to <file>: a summary with filters, and
                           per scenario a timeline with a phone lane and a watch lane.
        --keep-failed <dir>
                           Keep each failed scenario's pair directory (journals, daemon logs) and its trace
                           (trace.txt, trace.json) in <dir>/<scenario-name>/. Otherwise pairs are removed.

      EXIT STATUS: 0 every scenario passed (or the shard is empty: its reports are written, with no scenario),
      1 a scenario failed, 2 invalid scenario input (a file that is not UTF-8, does not parse, or has no step or no
      expectation), 64 usage, 130 SIGINT and 143 SIGTERM: the pairs are stopped and removed, the partial reports
      written (the unfinished scenarios marked interrupted) and 'interrupted by SIGINT' printed. Reports count each scenario's steps and
      expectations; JUnit carries them as testcase properties.
      A failure shows both devices' state and the trace up to it: each step, app calls and what they
      returned, sheets and how they closed, sync deliveries and link changes, with both virtual clocks.
      Colour is used only on a terminal and never when NO_COLOR is set. The language: docs/scenario-language.md.
      """)

  var paths: [String]
  var jobs: Int
  var filter: String?
  var shard: (index: Int, count: Int)?
  var seed: UInt64
  var junit: String?
  var json: Bool
  var html: String?
  var keepFailed: String?

  /// Parses the arguments (usage errors exit 64, like every command's).
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    jobs = try args.intOption("jobs", range: 1...256) ?? Posix.processorCount
    filter = try args.option("filter")
    if let text = try args.option("shard") {
      let parts = text.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), (1...10_000).contains(n),
        (1...n).contains(k)
      else { throw args.error("invalid value '\(text)' for '--shard': expected <k>/<n> with 1 <= k <= n, e.g. 2/4") }
      shard = (k, n)
    }
    if let text = try args.option("seed") {
      guard let value = UInt64(text) else {
        throw args.error("invalid value '\(text)' for '--seed': expected a non-negative integer")
      }
      seed = value
    } else {
      seed = 1
    }
    junit = try args.option("junit")
    json = args.flag("json")
    html = try args.option("html")
    keepFailed = try args.option("keep-failed")
    paths = try args.rest()
    if paths.isEmpty { paths = ["Scenarios"] }
    try args.finish()
  }

  /// Runs the suite; after SIGINT or SIGTERM, writes the partial reports and returns 130 or 143 (``Interruption``).
  package func run() throws -> Int32 {
    try Interruption.deferringExit { try runSuite() }
  }

  private func runSuite() throws -> Int32 {
    let loaded = Suite.load(paths, selecting: Suite.Selection(filter: filter, shard: shard))
    for problem in loaded.unreadable { err("error: \(problem)\n") }
    if !loaded.diagnostics.isEmpty {
      for diagnostic in loaded.diagnostics { err(diagnostic.description + "\n\n") }
      let files = Set(loaded.diagnostics.map(\.location.file)).count
      err(
        "\(loaded.diagnostics.count) error\(loaded.diagnostics.count == 1 ? "" : "s") in \(files) file\(files == 1 ? "" : "s"); nothing was run\n"
      )
      return 2
    }
    if !loaded.unreadable.isEmpty { return 2 }
    let scenarios = loaded.scenarios
    if scenarios.isEmpty {
      // An empty shard of a suite smaller than the shard count has nothing to do, which is not a failure: its
      // reports are written, empty, so collectors and `--json | jq` see a run of zero scenarios.
      if let shard, filter == nil, !Suite.load(paths).scenarios.isEmpty {
        let line = "shard \(shard.index)/\(shard.count): no scenario in this shard\n"
        if json { err(line) } else { out(line) }
        return report([], elapsed: 0, printHuman: false) ?? 0
      }
      err("error: no scenario matches" + (filter.map { " '\($0)'" } ?? "") + " in \(paths.joined(separator: ", "))\n")
      return 2
    }
    let daemon = try locateDaemon()
    let live = Posix.isTerminal(1) && !json
    var runner = ScenarioRunner(daemon: daemon)
    if let keepFailed {
      do { try Posix.makeDirectory(keepFailed, mode: 0o755) } catch {
        err("error: cannot create the --keep-failed directory: \(error)\n")
        return 2
      }
      runner.keepFailed = keepFailed
    }
    let started = Posix.monotonicNanoseconds()
    let results = Suite.run(scenarios, seed: seed, jobs: jobs, runner: runner) { done, failed, total in
      if live { out("\r\u{1B}[K[\(done)/\(total)] \(failed) failed") }
    }
    if live { out("\r\u{1B}[K") }
    let elapsed = Double(Posix.monotonicNanoseconds() - started) / 1e9
    // Interrupted: every pair is down and its directory gone before the partial reports are written.
    let signal = Interruption.signal
    if signal != nil { Interruption.waitForCleanup() }
    if let failed = report(results, elapsed: elapsed, printHuman: true) { return failed }
    if let signal {
      let unfinished = results.tally.interrupted
      Interruption.report(
        "interrupted by \(Interruption.name(of: signal)): \(unfinished) of \(results.count) scenario"
          + "\(results.count == 1 ? "" : "s") not finished"
          + (junit != nil || html != nil || json ? "; partial reports written\n" : "\n"))
      return Interruption.exitStatus(for: signal)
    }
    return results.allSatisfy(\.passed) ? 0 : 1
  }

  /// Writes the JUnit and HTML reports asked for and prints the JSON one (or, with `printHuman`, the human one);
  /// returns 2 when a report could not be written, else nil.
  private func report(_ results: [ScenarioResult], elapsed: Double, printHuman: Bool) -> Int32? {
    if let junit {
      do {
        try Posix.writeFileAtomically(junit, Array(Reports.junit(results, elapsed: elapsed).utf8), mode: 0o644)
      } catch {
        err("error: cannot write the JUnit report: \(error)\n")
        return 2
      }
    }
    if let html {
      let page = HTMLReport.page(results, seed: seed, jobs: jobs, elapsed: elapsed)
      do { try Posix.writeFileAtomically(html, Array(page.utf8), mode: 0o644) } catch {
        err("error: cannot write the HTML report: \(error)\n")
        return 2
      }
    }
    for problem in results.compactMap(\.keepProblem) { err("warning: \(problem)\n") }
    if json {
      out(Reports.json(results, seed: seed, jobs: jobs, elapsed: elapsed))
    } else if printHuman {
      out(Reports.human(results, seed: seed, jobs: jobs, elapsed: elapsed, style: Style.forStandardOutput()))
    }
    return nil
  }
}
