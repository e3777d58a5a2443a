import HealthModel
import HealthPairClient
import PairProcesses
import Render
import Scenario
import ScenarioLanguage

/// Row 5a's scenario: fifteen steps across both devices, as a typical scenario of the suite has.
let typicalScenario = """
  scenario: A typical scenario (15 steps)
  install Water on phone and watch share dietaryWater read dietaryWater
  install Return on phone and watch share mindfulSession
  phone: Water requests
  user on phone: allows share dietaryWater
  phone: Water saves 250 mL dietaryWater at 08:00 as drink
  watch: Return requests
  user on watch: doesn't allow
  watch: Return requests
  expect watch: Return's request showed no sheet
  user on phone: in the Watch app turns on share mindfulSession for Return
  watch: Return saves notApplicable mindfulSession from 08:00 for 10m as session
  wait until synced
  expect watch: store has drink
  expect phone: Water sees 1 dietaryWater samples
  expect watch: Return share mindfulSession is sharingAuthorized
  """

/// Rows 5a and 5b: the typical scenario on a fresh pair (median of `runs`), and the whole `suite` with two jobs
/// when a directory is given.
func scenarioMetrics(daemon: String, runs: Int, suite: String?) throws -> [Metric] {
  let scenario = try ScenarioParser.parse(typicalScenario, file: "bench/typical.scenario").get()
  let runner = ScenarioRunner(daemon: daemon)
  var times: [Double] = []
  for _ in 0..<runs {
    let result = runner.run(scenario, seed: 1)
    guard result.passed else { throw PairError.timeout("the typical scenario to pass: \(result.status)") }
    times.append(result.duration * 1000)
  }
  let typical = median(times)
  var metrics = [
    Metric(
      name: "5a. One typical scenario (fresh pair, 15 steps), median", baseline: "—", value: ms(typical), ratio: "—",
      target: "≤ 60 ms",
      met: typical <= 60, numbers: [("medianMs", typical)])
  ]
  if let suite {
    let loaded = Suite.load([suite])
    let t0 = now()
    let results = Suite.run(loaded.scenarios, seed: 1, jobs: 2, runner: runner)
    let seconds = Double(now() - t0) / 1e9
    metrics.append(
      Metric(
        name: "5b. The whole Scenarios/ suite (\(results.count) scenarios), --jobs 2", baseline: "—",
        value: "\(formatNumber((seconds * 100).rounded() / 100)) s (\(results.filter(\.passed).count) passed)",
        ratio: "—", target: "reported",
        met: nil, numbers: [("seconds", seconds), ("scenarios", Double(results.count))]))
  }
  return metrics
}
