import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Render
import Scenario

/// The suite rows (11a, 11b): the repository's scenarios and generated suites of growing size, two jobs.
func suiteMetrics(daemon: String, suite: String?, counts: [Int], charts: String? = nil) throws -> [Metric] {
  let runner = ScenarioRunner(daemon: daemon)
  var metrics: [Metric] = []
  if let suite {
    let loaded = Suite.load([suite])
    let t0 = now()
    let results = Suite.run(loaded.scenarios, seed: 1, jobs: 2, runner: runner)
    let seconds = Double(now() - t0) / 1e9
    let rate = Double(results.count) / seconds
    let passed = results.filter(\.passed).count
    metrics.append(
      Metric(
        name: "11a. The repository's Scenarios/ suite (\(results.count) scenarios), --jobs 2", baseline: "—",
        value: "\(formatNumber(rate.rounded())) scenarios/s (\(ms(seconds * 1000)), \(passed) passed)",
        ratio: "—", target: "≥ 150/s", met: results.count >= 50 ? rate >= 150 && passed == results.count : nil,
        numbers: [("scenariosPerSecond", rate), ("seconds", seconds), ("scenarios", Double(results.count))]))
  }
  var series: [(String, Double)] = []
  var last = (count: 0, seconds: 0.0, passed: 0)
  var points: [(count: Int, seconds: Double)] = []
  for count in counts {
    let scenarios = try ScenarioGenerator(seed: 16).scenarios(count)
    let t0 = now()
    let results = Suite.run(scenarios, seed: 1, jobs: 2, runner: runner)
    let seconds = Double(now() - t0) / 1e9
    let passed = results.filter(\.passed).count
    if let failed = results.first(where: { !$0.passed }) {
      throw PairError.timeout("generated scenario \(failed.file) to pass: \(failed.status)")
    }
    series += [("suiteSeconds@\(count)", seconds), ("scenariosPerSecond@\(count)", Double(count) / seconds)]
    points.append((count, seconds))
    last = (count, seconds, passed)
  }
  if let charts, !points.isEmpty { try writeSuiteChart(points, to: charts) }
  if last.count > 0 {
    let rate = Double(last.count) / last.seconds
    metrics.append(
      Metric(
        name: "11b. A generated suite of \(formatNumber(Double(last.count))) scenarios, --jobs 2 "
          + "(series: \(counts.map { formatNumber(Double($0)) }.joined(separator: ", ")))",
        baseline: "—", value: "\(formatNumber(rate.rounded())) scenarios/s (\(ms(last.seconds * 1000)))",
        ratio: "—", target: "reported", met: nil, numbers: series, headline: "scenariosPerSecond@\(last.count)"))
  }
  return metrics
}

/// The suite-time chart (bench-suite.svg): seconds for a generated suite of 10…1,000 scenarios with two jobs, and
/// the 150 scenarios/s target drawn as the time it allows at each size.
func writeSuiteChart(_ points: [(count: Int, seconds: Double)], to directory: String) throws {
  let svg = SVGChart(
    title: "Generated scenario suites, --jobs 2: seconds against scenarios", xLabel: "scenarios",
    yLabel: "seconds", xScale: .logarithmic, yScale: .logarithmic,
    series: [
      SVGChart.Series(name: "measured", points: points.map { .init(x: Double($0.count), y: $0.seconds) }),
      SVGChart.Series(
        name: "target (150 scenarios/s)", points: points.map { .init(x: Double($0.count), y: Double($0.count) / 150) }),
    ])
  try Posix.writeFileAtomically(directory + "/bench-suite.svg", Array(svg.render().utf8), mode: 0o644)
}
