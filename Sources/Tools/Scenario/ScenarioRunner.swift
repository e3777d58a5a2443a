import FoundationEssentials
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Render
import ScenarioLanguage
import Wire

/// Why a scenario did not pass.
package struct ScenarioFailure: Sendable, Hashable {
  /// The failing step's location.
  package var location: SourceLocation
  /// The failing step's text.
  package var step: String
  /// What the step expected (or what it tried to do).
  package var expected: String
  /// What happened.
  package var actual: String
  /// The phone's state when it failed.
  package var phone: [String]
  /// The watch's state when it failed.
  package var watch: [String]
  /// The phone's state when it failed, as data (nil: its daemon was not running).
  package var phoneState: DaemonSnapshot? = nil
  /// The watch's state when it failed, as data (nil: its daemon was not running).
  package var watchState: DaemonSnapshot? = nil
}

/// The outcome of one scenario.
package struct ScenarioResult: Sendable {
  /// How it ended.
  package enum Status: Sendable, Hashable {
    /// Every step passed.
    case passed
    /// A step failed.
    case failed(ScenarioFailure)
    /// A signal interrupted the run before the scenario finished (or started: see ``Interruption``).
    case interrupted
  }
  /// The scenario's file.
  package var file: String
  /// Its title.
  package var title: String
  /// Its topic (directory).
  package var group: String
  /// The seed it ran with.
  package var seed: UInt64
  /// How it ended.
  package var status: Status
  /// Wall time in seconds.
  package var duration: Double
  /// When it started, in seconds on the monotonic clock (reports place scenarios run in parallel by it).
  package var started: Double = 0
  /// Steps run, expectations included (up to and including the failing one).
  package var stepsRun: Int
  /// The `expect` steps among ``stepsRun`` (a failed one included).
  package var expectationsRun: Int
  /// What happened, step by step, up to the end or the failure (deterministic: the same seed gives the same
  /// trace, except for when live sync deliveries arrive).
  package var trace: [TraceEntry] = []
  /// Where `--keep-failed` kept the failed scenario's pair directory and trace.
  package var kept: String? = nil
  /// Why it could not be kept.
  package var keepProblem: String? = nil

  /// Whether it passed.
  package var passed: Bool { status == .passed }
  /// The command that reruns it.
  package var reproduce: String { "healthpair run \(file) --seed \(seed)" }
}

/// Runs one scenario against a fresh pair of real daemon processes.
package struct ScenarioRunner: Sendable {
  /// The daemon executable (nil: locate it).
  package var daemon: String?
  /// How long a step may wait for the daemons, seconds.
  package var stepTimeout: Double = 10
  /// `--keep-failed`: the directory a failed scenario's pair directory and trace are kept in (nil: removed).
  package var keepFailed: String?
  /// Whether a used pair is discarded on the pool's retiring thread (``PreparedPairs/retireInBackground(_:)``)
  /// instead of before ``run(_:seed:keepName:)`` returns; ``Suite/run(_:seed:jobs:runner:progress:)`` sets it and
  /// drains the pool at the end.
  package var retiresInBackground = false

  /// Creates a runner.
  package init(daemon: String? = nil) { self.daemon = daemon }

  /// Runs `scenario` with `seed` (its own `seed` line wins). With ``keepFailed`` set, a failure keeps the pair's
  /// directory (journals, logs) and the trace (`trace.txt`, `trace.json`) in `<keepFailed>/<keepName>`.
  package func run(_ scenario: Scenario, seed runSeed: UInt64, keepName: String? = nil) -> ScenarioResult {
    let seed = scenario.seed ?? runSeed
    let started = Posix.monotonicNanoseconds()
    var result = ScenarioResult(
      file: scenario.file, title: scenario.title, group: scenario.group, seed: seed, status: .passed, duration: 0,
      stepsRun: 0, expectationsRun: 0)
    result.started = Double(started) / 1e9
    let destination = keepFailed.map { "\($0)/\(keepName ?? Suite.keepName(scenario.file))" }
    // The parser refuses such files; a scenario built otherwise must not pass without checking anything either.
    guard scenario.steps.contains(where: \.isExpectation) else {
      result.status = .failed(
        ScenarioFailure(
          location: SourceLocation(file: scenario.file, line: 1, column: 1), step: "(the scenario)",
          expected: "at least one expectation", actual: "none", phone: [], watch: []))
      if let destination { keep(&result, pair: nil, at: destination) }
      return result
    }
    let pair: Pair
    do {
      pair = try PreparedPairs.shared.take(daemon: daemon)
    } catch {
      result.status = .failed(
        ScenarioFailure(
          location: SourceLocation(file: scenario.file, line: 1, column: 1), step: "(launch the pair)",
          expected: "a running pair",
          actual: "\(error)", phone: [], watch: []))
      result.duration = Double(Posix.monotonicNanoseconds() - started) / 1e9
      if Interruption.isInterrupted { result.status = .interrupted }
      if let destination, result.failed { keep(&result, pair: nil, at: destination) }
      return result
    }
    let recorder = TraceRecorder()
    recorder.attach(DeviceKind.allCases.map { ($0, pair.client($0)) }, pair: pair)
    var context = RunContext(scenario: scenario, pair: pair, seed: seed, timeout: stepTimeout, recorder: recorder)
    do {
      try context.startClocks()
      for step in scenario.steps {
        result.stepsRun += 1
        if step.isExpectation { result.expectationsRun += 1 }
        context.beginStep(step, number: result.stepsRun)
        do {
          try context.perform(step)
          // What the step sent over the session link has arrived before the step's events are collected.
          try context.settleSessionMessages(step)
        } catch {
          context.endStep()
          throw error
        }
        context.endStep()
      }
    } catch let failure as StepFailure {
      // A step cut short because the pair was stopped under it did not fail: the run was interrupted.
      result.status = Interruption.isInterrupted ? .interrupted : .failed(context.failure(failure))
    } catch  where Interruption.isInterrupted {
      result.status = .interrupted
    } catch {
      let step = scenario.steps[max(0, result.stepsRun - 1)]
      result.status = .failed(context.failure(StepFailure(step: step, expected: "the step to run", actual: "\(error)")))
    }
    recorder.close()
    result.trace = context.trace
    let failed = result.failed && destination != nil
    if failed { pair.keepDirectory() }
    if retiresInBackground {
      PreparedPairs.shared.retireInBackground(pair)
    } else {
      PreparedPairs.shared.retire(pair)
    }
    result.duration = Double(Posix.monotonicNanoseconds() - started) / 1e9
    if failed, let destination { keep(&result, pair: pair, at: destination) }
    return result
  }

  /// Moves the stopped pair's directory to `destination` (replacing an older one) and writes the trace beside it.
  private func keep(_ result: inout ScenarioResult, pair: Pair?, at destination: String) {
    do throws(SystemError) {
      Posix.removeTree(destination)
      let parent = destination.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
      if !parent.isEmpty { try Posix.makeDirectory(parent, mode: 0o755) }
      if let pair {
        try Posix.moveTree(pair.layout.root, to: destination)
      } else {
        try Posix.makeDirectory(destination, mode: 0o755)
      }
      result.kept = destination
      try Posix.writeFileAtomically(
        destination + "/trace.txt", Array(Reports.failureText(result, style: Style(enabled: false)).utf8), mode: 0o644)
      let json = Reports.scenarioJSON(result).render() + "\n"
      try Posix.writeFileAtomically(destination + "/trace.json", Array(json.utf8), mode: 0o644)
    } catch {
      result.keepProblem = "cannot keep the pair directory in \(destination): \(error)"
    }
  }
}
