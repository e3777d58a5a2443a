import HealthPairClient
import PairProcesses
import ScenarioLanguage

// Scenarios a SIGINT or SIGTERM cut short (``Interruption``): the one in progress ends `interrupted` after the
// steps it ran, those not started are `interrupted` with none; reports mark both (JUnit `<error>` and `<skipped>`
// with message "interrupted", JSON and HTML status "interrupted").

extension ScenarioResult {
  /// A scenario the interruption kept from starting: no step ran.
  package static func notRun(_ scenario: Scenario, seed runSeed: UInt64) -> ScenarioResult {
    ScenarioResult(
      file: scenario.file, title: scenario.title, group: scenario.group, seed: scenario.seed ?? runSeed,
      status: .interrupted, duration: 0, stepsRun: 0, expectationsRun: 0)
  }

  /// Whether an interruption cut it short (or kept it from starting).
  package var interrupted: Bool { status == .interrupted }

  /// Whether a step failed (not passed, not interrupted).
  package var failed: Bool { !passed && !interrupted }

  /// `passed`, `failed` or `interrupted`: the status reports name.
  package var statusName: String { passed ? "passed" : interrupted ? "interrupted" : "failed" }
}

extension [ScenarioResult] {
  /// How many passed, failed and were interrupted.
  package var tally: (passed: Int, failed: Int, interrupted: Int) {
    reduce(into: (0, 0, 0)) { t, r in
      if r.passed { t.0 += 1 } else if r.interrupted { t.2 += 1 } else { t.1 += 1 }
    }
  }
}
