import FoundationEssentials
import HealthModel
import Render

/// Renders suite results for people (text), CI systems (JUnit XML) and tools (JSON).
package enum Reports {
  /// The human report: one line per scenario (with the steps and expectations it ran), then each failure in
  /// detail, then the summary.
  package static func human(_ results: [ScenarioResult], seed: UInt64, jobs: Int, elapsed: Double, style: Style) -> String {
    var out = ""
    let groupWidth = results.map(\.group.count).max() ?? 0
    let titleWidth = min(64, results.map(\.title.count).max() ?? 0)
    let countsWidth = results.map { counts($0).count }.max() ?? 0
    for r in results {
      let mark = r.passed ? style.pass("✔") : style.fail("✘")
      out += "\(mark) \(style.dim(r.group.padded(groupWidth)))  \(r.title.padded(titleWidth))  "
      out += "\(counts(r).padded(countsWidth))  \(style.dim(milliseconds(r.duration)))\n"
    }
    let failures = results.filter { !$0.passed }
    for r in failures {
      guard case .failed(let f) = r.status else { continue }
      out += "\n" + style.fail("FAILED") + "  \(f.location.file):\(f.location.line)  \(r.title)\n"
      out += "  step      \(f.step)\n"
      out += block("expected", f.expected)
      out += block("actual", f.actual)
      if !f.phone.isEmpty || !f.watch.isEmpty {
        out += "  state\n" + sideBySide(left: f.phone, right: f.watch).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
      }
      out += "  reproduce \(r.reproduce)\n"
    }
    let passed = results.count - failures.count
    let steps = results.reduce(0) { $0 + $1.stepsRun }
    let expectations = results.reduce(0) { $0 + $1.expectationsRun }
    let ran = "\(plural(results.count, "scenario")), \(plural(steps, "step")), \(plural(expectations, "expectation"))"
    let summary = "\(ran): \(passed) passed, \(failures.count) failed in \(seconds(elapsed))"
      + " (seed \(seed), \(plural(jobs, "job")))"
    out += "\n" + (failures.isEmpty ? style.pass(summary) : style.fail(summary)) + "\n"
    return out
  }

  private static func block(_ label: String, _ text: String) -> String {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    var out = "  \(label.padded(9)) \(lines.first ?? "")\n"
    for line in lines.dropFirst() { out += "            \(line)\n" }
    return out
  }

  /// "3 steps, 1 expectation".
  private static func counts(_ r: ScenarioResult) -> String {
    "\(plural(r.stepsRun, "step")), \(plural(r.expectationsRun, "expectation"))"
  }

  private static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }

  private static func milliseconds(_ s: Double) -> String { "\(Int((s * 1000).rounded())) ms" }
  private static func seconds(_ s: Double) -> String { "\((s * 100).rounded() / 100) s" }

  /// JUnit XML: one `testsuite` per topic, one `testcase` per scenario with `steps` and `expectations`
  /// properties (the counts it ran), failures with `file:line`.
  package static func junit(_ results: [ScenarioResult], elapsed: Double) -> String {
    var groups: [String] = []
    for r in results where !groups.contains(r.group) { groups.append(r.group) }
    let failures = results.filter { !$0.passed }.count
    var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    xml += "<testsuites name=\"healthpair\" tests=\"\(results.count)\" failures=\"\(failures)\" errors=\"0\" time=\"\(fixed(elapsed))\">\n"
    for group in groups {
      let members = results.filter { $0.group == group }
      let groupFailures = members.filter { !$0.passed }.count
      let time = members.reduce(0) { $0 + $1.duration }
      xml += "  <testsuite name=\"\(escape(group))\" tests=\"\(members.count)\" failures=\"\(groupFailures)\" errors=\"0\" skipped=\"0\" time=\"\(fixed(time))\">\n"
      for r in members {
        let attributes = "classname=\"\(escape(group))\" name=\"\(escape(r.title))\" file=\"\(escape(r.file))\""
        xml += "    <testcase \(attributes) time=\"\(fixed(r.duration))\">\n"
        xml += "      <properties>\n"
        xml += "        <property name=\"steps\" value=\"\(r.stepsRun)\"/>\n"
        xml += "        <property name=\"expectations\" value=\"\(r.expectationsRun)\"/>\n"
        xml += "      </properties>\n"
        if case .failed(let f) = r.status {
          let message = "\(f.location.file):\(f.location.line): \(f.step): expected \(f.expected.replacingNewlines()), actual \(f.actual.replacingNewlines())"
          xml += "      <failure message=\"\(escape(message))\" type=\"ScenarioFailure\">"
          var body = "\(f.location.file):\(f.location.line): \(f.step)\nexpected: \(f.expected)\nactual:   \(f.actual)\n"
          body += sideBySide(left: f.phone, right: f.watch) + "\nreproduce: \(r.reproduce)\n"
          xml += escape(body) + "</failure>\n"
        }
        xml += "    </testcase>\n"
      }
      xml += "  </testsuite>\n"
    }
    xml += "</testsuites>\n"
    return xml
  }

  /// JSON: every scenario with its status, seed (exact, as an unsigned integer), duration, the steps and
  /// expectations it ran, and its failure; the summary totals them.
  package static func json(_ results: [ScenarioResult], seed: UInt64, jobs: Int, elapsed: Double) -> String {
    let items: [JSON] = results.map { r in
      var fields: [(String, JSON)] = [
        ("file", .string(r.file)), ("title", .string(r.title)), ("group", .string(r.group)),
        ("status", .string(r.passed ? "passed" : "failed")), ("seed", .unsigned(r.seed)),
        ("durationMs", .int(Int((r.duration * 1000).rounded()))), ("steps", .int(r.stepsRun)),
        ("expectations", .int(r.expectationsRun)),
      ]
      if case .failed(let f) = r.status {
        fields.append(("failure", .object([
          ("line", .int(f.location.line)), ("step", .string(f.step)), ("expected", .string(f.expected)), ("actual", .string(f.actual)),
          ("phone", .array(f.phone.map { .string($0) })), ("watch", .array(f.watch.map { .string($0) })),
          ("reproduce", .string(r.reproduce)),
        ])))
      }
      return .object(fields)
    }
    let failed = results.filter { !$0.passed }.count
    let steps = results.reduce(0) { $0 + $1.stepsRun }
    let expectations = results.reduce(0) { $0 + $1.expectationsRun }
    return JSON.object([
      ("seed", .unsigned(seed)), ("jobs", .int(jobs)), ("durationMs", .int(Int((elapsed * 1000).rounded()))),
      ("summary", .object([
        ("total", .int(results.count)), ("passed", .int(results.count - failed)), ("failed", .int(failed)),
        ("steps", .int(steps)), ("expectations", .int(expectations)),
      ])),
      ("scenarios", .array(items)),
    ]).render() + "\n"
  }

  private static func fixed(_ s: Double) -> String { String(format3(s)) }

  private static func format3(_ v: Double) -> String {
    let millis = Int((v * 1000).rounded())
    return "\(millis / 1000).\(String(millis % 1000 + 1000).dropFirst())"
  }

  /// Escapes text for XML attributes and content.
  package static func escape(_ s: String) -> String {
    var out = ""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      default:
        if scalar.value < 0x20 && scalar != "\n" && scalar != "\t" { out += "&#\(scalar.value);" } else { out.unicodeScalars.append(scalar) }
      }
    }
    return out
  }
}

extension String {
  fileprivate func replacingNewlines() -> String { split(separator: "\n").joined(separator: " / ") }
}
