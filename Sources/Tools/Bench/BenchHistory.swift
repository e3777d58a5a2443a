import FoundationEssentials
import HealthModel
import Posix
import Render

/// The last runs of `make bench`, kept in a checked-in JSON file (docs/bench-history.json) so the table can show
/// how far each figure moves from run to run on a shared machine. Pure except ``load(_:)`` and ``save(_:to:)``.
package struct BenchHistory: Codable, Sendable, Equatable {
  /// One run: when, where, how busy the machine was, and each metric's headline figure.
  package struct Run: Codable, Sendable, Equatable {
    /// When it ran (UTC, ISO 8601).
    package var date: String
    /// The machine, as the report prints it.
    package var machine: String
    /// `/proc/loadavg`'s three averages when the run ended.
    package var loadAverage: String
    /// Each metric's figure.
    package var metrics: [Entry]
    /// Creates a run.
    package init(date: String, machine: String, loadAverage: String, metrics: [Entry]) {
      self.date = date
      self.machine = machine
      self.loadAverage = loadAverage
      self.metrics = metrics
    }
  }

  /// One metric's headline figure in one run.
  package struct Entry: Codable, Sendable, Equatable {
    /// The metric's number in the table ("6a", "9c"), which stays when its description's sizes change.
    package var key: String
    /// The name of the figure (the metric's first JSON number, e.g. `medianMs`).
    package var figure: String
    /// Its value.
    package var value: Double
    /// Whether the target was met (nil: reported only).
    package var met: Bool?
    /// Creates an entry.
    package init(key: String, figure: String, value: Double, met: Bool?) {
      self.key = key
      self.figure = figure
      self.value = value
      self.met = met
    }
  }

  /// The runs kept, oldest first.
  package var runs: [Run]
  /// How many runs are kept.
  package static let kept = 10

  /// Creates a history.
  package init(runs: [Run] = []) { self.runs = runs }

  /// The key of a metric: the number its name starts with ("6a" of "6a. Daily statistics …").
  package static func key(of metric: Metric) -> String {
    guard let dot = metric.name.firstIndex(of: ".") else { return metric.name }
    return String(metric.name[..<dot])
  }

  /// The entries of `metrics` as one run.
  package static func run(_ metrics: [Metric], date: String, machine: String, loadAverage: String) -> Run {
    Run(
      date: date, machine: machine, loadAverage: loadAverage,
      metrics: metrics.compactMap { m in
        m.headlineNumber.map { Entry(key: key(of: m), figure: $0.0, value: $0.1, met: m.met) }
      })
  }

  /// This history with `run` appended and only the last `kept` runs left.
  package func appending(_ run: Run, keeping kept: Int = BenchHistory.kept) -> BenchHistory {
    BenchHistory(runs: Array((runs + [run]).suffix(max(kept, 1))))
  }

  /// The lowest and highest value of a metric's figure over the runs that measured it, and how many did.
  package func spread(of key: String, figure: String) -> (low: Double, high: Double, runs: Int, missed: Int)? {
    let entries = runs.flatMap { $0.metrics.filter { $0.key == key && $0.figure == figure } }
    guard let first = entries.first else { return nil }
    var low = first.value
    var high = first.value
    for e in entries {
      low = min(low, e.value)
      high = max(high, e.value)
    }
    return (low, high, entries.count, entries.filter { $0.met == false }.count)
  }

  /// The spread column of a metric: "8.4–14.4 ms (7 runs)", with the misses counted.
  package func spreadText(of metric: Metric) -> String {
    guard let figure = metric.headlineNumber?.0, let s = spread(of: Self.key(of: metric), figure: figure) else {
      return "—"
    }
    let low = Self.format(s.low, figure: figure)
    let high = Self.format(s.high, figure: figure)
    // "8.4–14.4 ms": the unit once, after the range.
    let parts = high.split(separator: " ")
    let unit = parts.count == 2 ? " " + parts[1] : ""
    let shortLow = !unit.isEmpty && low.hasSuffix(unit) ? String(low.dropLast(unit.count)) : low
    let range = low == high ? low : "\(shortLow)–\(high)"
    let missed = s.missed > 0 ? ", missed in \(s.missed)" : ""
    return "\(range) (\(s.runs) run\(s.runs == 1 ? "" : "s")\(missed))"
  }

  /// A figure with the unit its name implies (`medianMs` → ms, `seconds` → ms, `residentMiB` → MiB).
  package static func format(_ value: Double, figure: String) -> String {
    func rounded(_ v: Double, _ digits: Double) -> String { formatNumber((v * digits).rounded() / digits) }
    let lower = figure.lowercased()
    if lower.hasSuffix("ms") { return rounded(value, 100) + " ms" }
    if lower.hasSuffix("micros") { return rounded(value, 10) + " µs" }
    if lower == "seconds" || lower.hasSuffix("seconds") && !lower.hasSuffix("persecond") {
      return rounded(value * 1000, 100) + " ms"
    }
    if lower.hasSuffix("mib") { return rounded(value, 1) + " MiB" }
    if lower.hasSuffix("bytes") { return rounded(value / 1_048_576, 1) + " MiB" }
    if lower.hasSuffix("persecond") { return rounded(value, 1) + "/s" }
    return rounded(value, 100)
  }

  /// Reads a history file; a missing file is an empty history, a malformed one an error naming the file.
  package static func load(_ path: String) throws -> BenchHistory {
    guard Posix.exists(path) else { return BenchHistory() }
    let bytes = try Posix.readFile(path)
    do {
      return try JSONDecoder().decode(BenchHistory.self, from: Data(bytes))
    } catch {
      throw BenchHistoryError(path: path, reason: "\(error)")
    }
  }

  /// Writes the history (pretty, keys sorted, so diffs stay small).
  package func save(to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let data = try encoder.encode(self)
    try Posix.writeFileAtomically(path, Array(data) + [0x0A], mode: 0o644)
  }
}

/// A history file that could not be read as one.
package struct BenchHistoryError: Error, CustomStringConvertible {
  /// The file.
  package var path: String
  /// What the decoder said (with the coding path of the bad value).
  package var reason: String
  /// `path: not a bench history: reason`.
  package var description: String { "\(path): not a bench history: \(reason)" }
}

/// "yes", "no" or "reported": what the met? column says of a metric.
package func metText(_ met: Bool?) -> String { met.map { $0 ? "yes" : "no" } ?? "reported" }

/// The metrics as an aligned table with a met? column that says yes, no or reported.
package func benchTable(_ metrics: [Metric], history: BenchHistory?) -> String {
  var header = ["metric", "baseline", "HealthPair", "ratio", "target", "met?"]
  if history != nil { header.append("spread (last runs)") }
  var rows = [header]
  for m in metrics {
    var row = [m.name, m.baseline, m.value, m.ratio, m.target, metText(m.met)]
    if let history { row.append(history.spreadText(of: m)) }
    rows.append(row)
  }
  return table(rows)
}

/// The metrics as a Markdown table (for docs/performance.md), with the spread over the history's runs.
package func benchMarkdown(_ metrics: [Metric], history: BenchHistory?) -> String {
  var out = "| metric | baseline | HealthPair | ratio | target | met? |"
  out +=
    history == nil
    ? "\n|---|---|---|---|---|---|\n" : " spread (last \(history!.runs.count) runs) |\n|---|---|---|---|---|---|---|\n"
  for m in metrics {
    let met = m.met == false ? "**no**" : metText(m.met)
    out += "| \(m.name) | \(m.baseline) | \(m.value) | \(m.ratio) | \(m.target) | \(met) |"
    if let history { out += " \(history.spreadText(of: m)) |" }
    out += "\n"
  }
  return out
}

/// `/proc/loadavg`'s three load averages ("3.12 2.80 2.41"), or "?".
func loadAverage() -> String {
  guard let bytes = try? Posix.readFile("/proc/loadavg") else { return "?" }
  return String(decoding: bytes, as: UTF8.self).split(separator: " ").prefix(3).joined(separator: " ")
}

extension Metric {
  /// The row's own figure: the number named by `headline`, else the first.
  package var headlineNumber: (String, Double)? {
    guard let headline else { return numbers.first }
    return numbers.first { $0.0 == headline } ?? numbers.first
  }
}
