import FoundationEssentials
import HealthEngine
import HealthModel
import Render
import ScenarioLanguage
import Wire

/// Renders suite results for people (text), CI systems (JUnit XML) and tools (JSON).
package enum Reports {
  /// The human report: one line per scenario (with the steps and expectations it ran), then each failure in
  /// detail, then the summary.
  package static func human(_ results: [ScenarioResult], seed: UInt64, jobs: Int, elapsed: Double, style: Style)
    -> String
  {
    var out = ""
    let groupWidth = results.map(\.group.count).max() ?? 0
    let titleWidth = min(64, results.map(\.title.count).max() ?? 0)
    let countsWidth = results.map { counts($0).count }.max() ?? 0
    for r in results {
      let mark = r.passed ? style.pass("✔") : r.interrupted ? style.warn("–") : style.fail("✘")
      out += "\(mark) \(style.dim(r.group.padded(groupWidth)))  \(r.title.padded(titleWidth))  "
      out += "\(counts(r).padded(countsWidth))  \(style.dim(milliseconds(r.duration)))\n"
    }
    let failures = results.filter(\.failed)
    for r in failures { out += "\n" + failureText(r, style: style) }
    let tally = results.tally
    let steps = results.reduce(0) { $0 + $1.stepsRun }
    let expectations = results.reduce(0) { $0 + $1.expectationsRun }
    let ran = "\(plural(results.count, "scenario")), \(plural(steps, "step")), \(plural(expectations, "expectation"))"
    let summary =
      "\(ran): \(tally.passed) passed, \(tally.failed) failed"
      + (tally.interrupted > 0 ? ", \(tally.interrupted) interrupted" : "") + " in \(seconds(elapsed))"
      + " (seed \(seed), \(plural(jobs, "job")))"
    out += "\n" + (failures.isEmpty && tally.interrupted == 0 ? style.pass(summary) : style.fail(summary)) + "\n"
    return out
  }

  /// One failure in detail: where, the step, expected and actual, both devices' state side by side, the trace up
  /// to the failure, where it was kept, and the command that reproduces it.
  package static func failureText(_ r: ScenarioResult, style: Style) -> String {
    guard case .failed(let f) = r.status else { return "" }
    var out = style.fail("FAILED") + "  \(f.location.file):\(f.location.line)  \(r.title)\n"
    out += "  step      \(f.step)\n"
    out += block("expected", f.expected)
    out += block("actual", f.actual)
    if !f.phone.isEmpty || !f.watch.isEmpty {
      let lines = sideBySide(left: f.phone, right: f.watch).split(separator: "\n")
      out += "  state\n" + lines.map { "  " + $0 }.joined(separator: "\n") + "\n"
    }
    if !r.trace.isEmpty { out += "  trace\n" + traceText(r.trace, style: style) }
    if let kept = r.kept { out += "  kept      \(kept) (journals, logs, trace)\n" }
    if let problem = r.keepProblem { out += "  \(style.warn("not kept")) \(problem)\n" }
    out += "  reproduce \(r.reproduce)\n"
    return out
  }

  /// The trace as text: each step with its number and line, what happened during it indented under it with its
  /// lane, and both clocks whenever they change.
  package static func traceText(_ trace: [TraceEntry], style: Style) -> String {
    var out = ""
    var shownClocks: (Date?, Date?)?
    func clock(_ d: Date?) -> String { d.map(formatDate) ?? "(down)" }
    for entry in trace {
      if shownClocks == nil || shownClocks!.0 != entry.phoneClock || shownClocks!.1 != entry.watchClock {
        out += style.dim("    clocks   phone \(clock(entry.phoneClock))  watch \(clock(entry.watchClock))") + "\n"
        shownClocks = (entry.phoneClock, entry.watchClock)
      }
      switch entry.kind {
      case .step(let line, let text, _):
        out += "    " + "#\(entry.step)".padded(4) + " " + "line \(line)".padded(8) + " \(text)\n"
      case .failure(let expected, let actual):
        out += "                  " + style.fail("✘ expected \(expected.oneLine)") + "\n"
        out += "                  " + style.fail("  actual   \(actual.oneLine)") + "\n"
      default:
        out += "                  \(entry.lane.rawValue.padded(5)) \(entry.text)\n"
      }
    }
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
  private static func seconds(_ s: Double) -> String { formatNumber(s, decimals: 2) + " s" }

  /// JUnit XML: one `testsuite` per topic, one `testcase` per scenario with `steps` and `expectations`
  /// properties (the counts it ran), failures with `file:line`. A scenario an interruption cut short is an
  /// `<error message="interrupted">`, one it kept from starting `<skipped message="interrupted"/>`; no scenario at
  /// all (an empty shard) is a `<testsuites>` with `tests="0"`. A suite's `time` is the wall-clock span of its
  /// scenarios (with parallel jobs less than their sum), and the `testsuites` time is never below a suite's.
  package static func junit(_ results: [ScenarioResult], elapsed: Double) -> String {
    var groups: [String] = []
    for r in results where !groups.contains(r.group) { groups.append(r.group) }
    func counts(_ members: [ScenarioResult], skipped: Bool = true) -> String {
      let errors = members.filter { $0.interrupted && $0.stepsRun > 0 }.count
      let notRun = members.filter { $0.interrupted && $0.stepsRun == 0 }.count
      return "failures=\"\(members.filter(\.failed).count)\" errors=\"\(errors)\""
        + (skipped ? " skipped=\"\(notRun)\"" : "")
    }
    let total = max(elapsed, wallSpan(results))
    var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    xml +=
      "<testsuites name=\"healthpair\" tests=\"\(results.count)\" \(counts(results, skipped: false))"
      + " time=\"\(fixed(total))\">\n"
    for group in groups {
      let members = results.filter { $0.group == group }
      let time = wallSpan(members)
      xml +=
        "  <testsuite name=\"\(escape(group))\" tests=\"\(members.count)\" \(counts(members)) time=\"\(fixed(time))\">\n"
      for r in members {
        let attributes = "classname=\"\(escape(group))\" name=\"\(escape(r.title))\" file=\"\(escape(r.file))\""
        xml += "    <testcase \(attributes) time=\"\(fixed(r.duration))\">\n"
        xml += "      <properties>\n"
        xml += "        <property name=\"steps\" value=\"\(r.stepsRun)\"/>\n"
        xml += "        <property name=\"expectations\" value=\"\(r.expectationsRun)\"/>\n"
        xml += "      </properties>\n"
        if r.interrupted {
          let after = "interrupted after \(plural(r.stepsRun, "step"))"
          xml +=
            r.stepsRun > 0
            ? "      <error message=\"interrupted\" type=\"Interrupted\">\(after)</error>\n"
            : "      <skipped message=\"interrupted\"/>\n"
        }
        if case .failed(let f) = r.status {
          let message =
            "\(f.location.file):\(f.location.line): \(f.step): expected \(f.expected.replacingNewlines()), actual \(f.actual.replacingNewlines())"
          xml += "      <failure message=\"\(escape(message))\" type=\"ScenarioFailure\">"
          var body =
            "\(f.location.file):\(f.location.line): \(f.step)\nexpected: \(f.expected)\nactual:   \(f.actual)\n"
          body += sideBySide(left: f.phone, right: f.watch) + "\n"
          if !r.trace.isEmpty { body += "trace:\n" + traceText(r.trace, style: Style(enabled: false)) }
          body += "reproduce: \(r.reproduce)\n"
          xml += escape(body) + "</failure>\n"
        }
        xml += "    </testcase>\n"
      }
      xml += "  </testsuite>\n"
    }
    xml += "</testsuites>\n"
    return xml
  }

  /// The wall-clock time from the first of `results` to start to the last to end: at least the longest one, at
  /// most their sum.
  static func wallSpan(_ results: [ScenarioResult]) -> Double {
    guard let first = results.map(\.started).min() else { return 0 }
    let last = results.map { $0.started + $0.duration }.max() ?? first
    return max(last - first, results.map(\.duration).max() ?? 0)
  }

  /// JSON: every scenario with its status (`passed`, `failed` or `interrupted`), seed (exact, as an unsigned
  /// integer), duration, the steps and expectations it ran, its trace and its failure (both devices' state as
  /// objects); the summary totals them.
  package static func json(_ results: [ScenarioResult], seed: UInt64, jobs: Int, elapsed: Double) -> String {
    let items = results.map(scenarioJSON)
    let tally = results.tally
    let steps = results.reduce(0) { $0 + $1.stepsRun }
    let expectations = results.reduce(0) { $0 + $1.expectationsRun }
    return JSON.object([
      ("seed", .unsigned(seed)), ("jobs", .int(jobs)), ("durationMs", .int(Int((elapsed * 1000).rounded()))),
      (
        "summary",
        .object([
          ("total", .int(results.count)), ("passed", .int(tally.passed)), ("failed", .int(tally.failed)),
          ("interrupted", .int(tally.interrupted)),
          ("steps", .int(steps)), ("expectations", .int(expectations)),
        ])
      ),
      ("scenarios", .array(items)),
    ]).render() + "\n"
  }

  /// One scenario as JSON: what ``json(_:seed:jobs:elapsed:)`` lists, and what `--keep-failed` writes to
  /// `trace.json`.
  package static func scenarioJSON(_ r: ScenarioResult) -> JSON {
    var fields: [(String, JSON)] = [
      ("file", .string(r.file)), ("title", .string(r.title)), ("group", .string(r.group)),
      ("status", .string(r.statusName)), ("seed", .unsigned(r.seed)),
      ("durationMs", .int(Int((r.duration * 1000).rounded()))), ("steps", .int(r.stepsRun)),
      ("expectations", .int(r.expectationsRun)),
    ]
    if case .failed(let f) = r.status {
      fields.append(
        (
          "failure",
          .object([
            ("line", .int(f.location.line)), ("step", .string(f.step)), ("expected", .string(f.expected)),
            ("actual", .string(f.actual)),
            ("phone", f.phoneState.map(stateJSON) ?? .null), ("watch", f.watchState.map(stateJSON) ?? .null),
            ("reproduce", .string(r.reproduce)),
          ])
        ))
      if let kept = r.kept { fields.append(("kept", .string(kept))) }
    }
    fields.append(("trace", .array(r.trace.map(traceJSON))))
    return .object(fields)
  }

  /// A device's state as JSON, without what differs from run to run (process id, sync log identities).
  package static func stateJSON(_ snapshot: DaemonSnapshot) -> JSON { snapshot.json(includingRunIdentities: false) }

  /// A trace entry as JSON: `step`, `lane`, `kind`, both clocks (null while a daemon is down), then the kind's
  /// own fields.
  package static func traceJSON(_ entry: TraceEntry) -> JSON {
    var fields: [(String, JSON)] = [
      ("step", .int(entry.step)), ("lane", .string(entry.lane.rawValue)), ("kind", .string(entry.kindName)),
      ("phoneClock", .optional(entry.phoneClock.map(formatDate))),
      ("watchClock", .optional(entry.watchClock.map(formatDate))),
    ]
    switch entry.kind {
    case .step(let line, let text, let category):
      fields += [("line", .int(line)), ("text", .string(text)), ("category", .string(category.rawValue))]
    case .call(let app, let call, let outcome):
      fields += [("app", .string(app)), ("call", .string(call)), ("result", .string(outcome.result.rawValue))]
      if let success = outcome.success { fields.append(("success", .bool(success))) }
      if let error = outcome.error { fields.append(("error", errorJSON(error))) }
    case .sheetShown(let app, let sheet, let lists):
      fields += [("app", .string(app)), ("sheet", .unsigned(sheet)), ("lists", .array(lists.map { .string($0) }))]
    case .sheetClosed(let app, let sheet, let outcome):
      fields += [("app", .string(app)), ("sheet", .unsigned(sheet)), ("outcome", .string(outcome))]
    case .delivery(let from, let to, let upTo, let items, let added, let deleted):
      fields += [
        ("from", .string(from.description)), ("to", .string(to.description)), ("upTo", .unsigned(upTo)),
        ("items", .int(items)), ("added", .int(added)), ("deleted", .int(deleted)),
      ]
    case .link(let up):
      fields.append(("up", .bool(up)))
    case .failure(let expected, let actual):
      fields += [("expected", .string(expected)), ("actual", .string(actual))]
    case .background(let app, let type, let event, let delivery, let attempt):
      fields += [
        ("app", .string(app)), ("type", .string(type)), ("event", .string(event)), ("delivery", .unsigned(delivery)),
        ("attempt", .int(attempt)),
      ]
    case .session(let app, let session, let event):
      fields += [("app", .string(app)), ("session", .string(session)), ("event", .string(event))]
    case .remoteData(let from, let to, let app, let session, let messages):
      fields += [
        ("from", .string(from.description)), ("to", .string(to.description)), ("app", .string(app)),
        ("session", .string(session)), ("messages", .array(messages.map { .string($0) })),
      ]
    }
    return .object(fields)
  }

  private static func errorJSON(_ e: HealthError) -> JSON {
    let kind: String
    switch e.kind {
    case .healthKit: kind = "healthKit"
    case .wouldTerminate: kind = "wouldTerminate"
    case .simulator: kind = "simulator"
    }
    return .object([
      ("kind", .string(kind)), ("code", .string("\(e.code)")), ("codeValue", .int(e.code.rawValue)),
      ("message", .string(e.message)), ("exception", .optional(e.exception)),
    ])
  }

  private static func fixed(_ s: Double) -> String { formatFixed(s, decimals: 3) }

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
        if scalar.value < 0x20 && scalar != "\n" && scalar != "\t" {
          out += "&#\(scalar.value);"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out
  }
}

extension String {
  fileprivate func replacingNewlines() -> String { split(separator: "\n").joined(separator: " / ") }
}
