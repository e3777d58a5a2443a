import HealthModel
import Render

/// The metrics as an aligned table.
package func benchTable(_ metrics: [Metric]) -> String {
  var rows = [["metric", "baseline", "HealthPair", "ratio", "target", "met?"]]
  for m in metrics {
    rows.append([m.name, m.baseline, m.value, m.ratio, m.target, m.met.map { $0 ? "yes" : "NO" } ?? "—"])
  }
  return table(rows)
}

/// The metrics as a Markdown table (for docs/performance.md).
package func benchMarkdown(_ metrics: [Metric]) -> String {
  var out = "| metric | baseline | HealthPair | ratio | target | met? |\n|---|---|---|---|---|---|\n"
  for m in metrics {
    out +=
      "| \(m.name) | \(m.baseline) | \(m.value) | \(m.ratio) | \(m.target) | \(m.met.map { $0 ? "yes" : "**no**" } ?? "—") |\n"
  }
  return out
}

/// The metrics as JSON.
package func benchJSON(_ metrics: [Metric], machine: String) -> String {
  JSON.object([
    ("machine", .string(machine)),
    (
      "metrics",
      .array(
        metrics.map { m in
          .object([
            ("name", .string(m.name)), ("baseline", .string(m.baseline)), ("value", .string(m.value)),
            ("ratio", .string(m.ratio)),
            ("target", .string(m.target)), ("met", m.met.map { JSON.bool($0) } ?? .null),
            ("numbers", .object(m.numbers.map { ($0.0, JSON.number($0.1)) })),
          ])
        })
    ),
  ]).render() + "\n"
}
