import FoundationEssentials
import HealthEngine
import HealthModel
import ScenarioLanguage

/// `healthpair run --html`: one self-contained page (inline CSS and script, nothing fetched) with a summary,
/// filters by status and folder, and per scenario a timeline with a phone lane and a watch lane.
///
/// The timeline shows each step in the lane of the device it concerns (across both for the pair), the sheets
/// shown and how they closed, the app calls and what they returned, link changes, and the sync deliveries as
/// arrows from one lane to the other; both virtual clocks stand beside each step. A failing step is highlighted,
/// with its expected and actual values, and both devices' state follows.
package enum HTMLReport {
  /// The page.
  package static func page(_ results: [ScenarioResult], seed: UInt64, jobs: Int, elapsed: Double) -> String {
    let (passed, failed, interrupted) = results.tally
    let steps = results.reduce(0) { $0 + $1.stepsRun }
    let expectations = results.reduce(0) { $0 + $1.expectationsRun }
    var html = """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>HealthPair scenarios: \(passed) passed, \(failed) failed\(interrupted > 0 ? ", \(interrupted) interrupted" : "")</title>
      <style>\(css)</style>
      </head>
      <body>
      <header>
      <h1>HealthPair scenarios</h1>

      """
    html += "<p class=\"summary\">\(results.count) scenario\(results.count == 1 ? "" : "s"), \(steps) steps, "
    html += "\(expectations) expectations: <span class=\"ok\">\(passed) passed</span>, "
    html += "<span class=\"\(failed > 0 ? "bad" : "ok")\">\(failed) failed</span>"
    if interrupted > 0 { html += ", <span class=\"bad\">\(interrupted) interrupted</span>" }
    html +=
      " <span class=\"dim\">· seed \(seed) · \(jobs) job\(jobs == 1 ? "" : "s") · \(seconds(elapsed))</span></p>\n"
    if results.isEmpty { html += "<p class=\"none\">No scenario ran: none was selected (an empty shard).</p>\n" }
    if interrupted > 0 {
      html += "<p class=\"interrupted\"><b>Interrupted:</b> a signal stopped the run; \(interrupted) scenario"
      html += "\(interrupted == 1 ? " was" : "s were") not finished.</p>\n"
    }
    html += filters(results)
    let failures = results.enumerated().filter { $0.element.failed }
    if !failures.isEmpty {
      html += "<p class=\"failures\"><b>Failed:</b> "
      html += failures.map { "<a href=\"#s\($0.offset)\">\(escape($0.element.title))</a>" }.joined(separator: " · ")
      html += "</p>\n"
    }
    html += overview(results)
    html += "</header>\n<main>\n"
    for (index, r) in results.enumerated() { html += section(r, index: index) }
    html += "</main>\n<script>\(script)</script>\n</body>\n</html>\n"
    return html
  }

  // MARK: - Summary

  private static func filters(_ results: [ScenarioResult]) -> String {
    let (passed, failed, interrupted) = results.tally
    var groups: [(String, Int)] = []
    for r in results {
      if let i = groups.firstIndex(where: { $0.0 == r.group }) { groups[i].1 += 1 } else { groups.append((r.group, 1)) }
    }
    var html = "<form class=\"filters\" id=\"filters\">\n<fieldset><legend>Status</legend>\n"
    let statuses =
      [
        ("all", "all", results.count), ("passed", "passed", passed), ("failed", "failed", failed),
      ] + (interrupted > 0 ? [("interrupted", "interrupted", interrupted)] : [])
    for (value, label, count) in statuses {
      html += "<label><input type=\"radio\" name=\"status\" value=\"\(value)\"\(value == "all" ? " checked" : "")>"
      html += " \(label) (\(count))</label>\n"
    }
    html += "</fieldset>\n<fieldset><legend>Folder</legend>\n<select id=\"folder\" name=\"folder\">\n"
    html += "<option value=\"\">all folders</option>\n"
    for (group, count) in groups.sorted(by: { $0.0 < $1.0 }) {
      html += "<option value=\"\(escape(group))\">\(escape(group)) (\(count))</option>\n"
    }
    html += "</select>\n</fieldset>\n"
    html += "<button type=\"button\" id=\"expand\">expand all</button> "
    html += "<button type=\"button\" id=\"collapse\">collapse all</button>\n"
    html += "<output id=\"shown\">\(results.count) of \(results.count) shown</output>\n</form>\n"
    return html
  }

  private static func overview(_ results: [ScenarioResult]) -> String {
    var html = "<table id=\"overview\">\n<thead><tr><th></th><th>folder</th><th>scenario</th><th>steps</th>"
    html += "<th>expectations</th><th>time</th></tr></thead>\n<tbody>\n"
    for (index, r) in results.enumerated() {
      html += "<tr class=\"\(r.statusName)\" data-status=\"\(r.statusName)\""
      html += " data-group=\"\(escape(r.group))\"><td class=\"mark\">\(mark(r))</td>"
      html += "<td class=\"dim group\">\(escape(r.group))</td><td><a href=\"#s\(index)\">\(escape(r.title))</a></td>"
      html += "<td class=\"num\">\(r.stepsRun)</td><td class=\"num\">\(r.expectationsRun)</td>"
      html += "<td class=\"time dim\">\(Int((r.duration * 1000).rounded())) ms</td></tr>\n"
    }
    return html + "</tbody>\n</table>\n"
  }

  // MARK: - One scenario

  private static func section(_ r: ScenarioResult, index: Int) -> String {
    let status = r.statusName
    var html = "<section class=\"scenario \(status)\" id=\"s\(index)\" data-status=\"\(status)\""
    html += " data-group=\"\(escape(r.group))\" data-file=\"\(escape(r.file))\">\n"
    html += "<details\(r.failed ? " open" : "")><summary><span class=\"mark\">\(mark(r))</span> "
    html += "<span class=\"dim\">\(escape(r.group))</span> <span class=\"title\">\(escape(r.title))</span> "
    html += "<span class=\"dim\">\(r.stepsRun) steps, \(r.expectationsRun) expectations, "
    html += "\(Int((r.duration * 1000).rounded())) ms</span></summary>\n"
    html += "<p class=\"meta\"><code>\(escape(r.file))</code> · seed \(r.seed) · reproduce: "
    html += "<code>\(escape(r.reproduce))</code>"
    if let kept = r.kept { html += " · kept in <code>\(escape(kept))</code>" }
    html += "</p>\n"
    if r.interrupted {
      html += "<p class=\"interrupted\">Interrupted: "
      html += r.stepsRun > 0 ? "the run was stopped after step \(r.stepsRun).</p>\n" : "not run.</p>\n"
    }
    if case .failed(let f) = r.status {
      html += "<div class=\"failure\"><p>Failed at <code>\(escape(f.location.file)):\(f.location.line)</code>: "
      html += "<code>\(escape(f.step))</code></p>\n"
      html += "<div class=\"versus\"><div class=\"expected\"><h4>expected</h4><pre>\(escape(f.expected))</pre></div>"
      html += "<div class=\"actual\"><h4>actual</h4><pre>\(escape(f.actual))</pre></div></div></div>\n"
    }
    html += timeline(r)
    if case .failed(let f) = r.status, !f.phone.isEmpty || !f.watch.isEmpty {
      html += "<div class=\"state\"><div><h4>phone when it failed</h4><pre>\(escape(f.phone.joined(separator: "\n")))"
      html +=
        "</pre></div><div><h4>watch when it failed</h4>"
        + "<pre>\(escape(f.watch.joined(separator: "\n")))</pre></div></div>\n"
    }
    return html + "</details>\n</section>\n"
  }

  private static func timeline(_ r: ScenarioResult) -> String {
    var failingStep: Int?
    for entry in r.trace { if case .failure = entry.kind { failingStep = entry.step } }
    var html = "<div class=\"timeline\">\n<div class=\"row head\"><div>step</div><div>clocks</div>"
    html += "<div class=\"lane-title\">phone</div><div class=\"lane-title\">watch</div></div>\n"
    var lastClocks: (Date?, Date?)?
    for entry in r.trace {
      let clocks = (entry.phoneClock, entry.watchClock)
      let changed = lastClocks == nil || lastClocks!.0 != clocks.0 || lastClocks!.1 != clocks.1
      let isStep = if case .step = entry.kind { true } else { false }
      let clockCell = isStep || changed ? clockHTML(entry.phoneClock, entry.watchClock) : ""
      lastClocks = clocks
      switch entry.kind {
      case .step(let line, let text, let category):
        let failing = entry.step == failingStep
        let mark = category == .expect ? (failing ? "✘ " : "✔ ") : ""
        html +=
          "<div class=\"row step cat-\(category.rawValue)\(failing ? " failing" : "")\(down(entry))\""
          + " data-step=\"\(entry.step)\">"
        html +=
          "<div class=\"n\">#\(entry.step)<small>line \(line)</small></div><div class=\"clock\">\(clockCell)</div>"
        html += lane(entry.lane, "<div class=\"box\">\(mark)\(escape(text))</div>") + "</div>\n"
      case .delivery(let from, let to, let upTo, let items, let added, let deleted):
        var detail = "\(items) item\(items == 1 ? "" : "s")"
        if added > 0 { detail += ", \(added) added" }
        if deleted > 0 { detail += ", \(deleted) deleted" }
        html += "<div class=\"row event delivery\(down(entry))\" data-step=\"\(entry.step)\"><div class=\"n\"></div>"
        html += "<div class=\"clock\">\(clockCell)</div><div class=\"cell both\">"
        html += "<div class=\"arrow to-\(to)\" title=\"sync \(from) → \(to), up to entry \(upTo)\">"
        html += "<span>sync \(from) → \(to): \(detail)</span></div></div></div>\n"
      case .failure(let expected, let actual):
        html += "<div class=\"row event failure-row\(down(entry))\" data-step=\"\(entry.step)\"><div class=\"n\"></div>"
        html += "<div class=\"clock\">\(clockCell)</div>"
        html += lane(
          .both,
          "<div class=\"box failure-box\"><div><b>expected</b><pre>\(escape(expected))</pre></div>"
            + "<div><b>actual</b><pre>\(escape(actual))</pre></div></div>")
        html += "</div>\n"
      case .call(_, _, let outcome):
        html += eventRow(entry, clockCell, "call result-\(outcome.result.rawValue)")
      case .sheetShown:
        html += eventRow(entry, clockCell, "sheet")
      case .sheetClosed:
        html += eventRow(entry, clockCell, "sheet closed")
      case .link(let up):
        html += eventRow(entry, clockCell, "link \(up ? "up" : "down")")
      case .background(_, _, let event, _, _):
        html += eventRow(entry, clockCell, "background \(event)")
      case .session:
        html += eventRow(entry, clockCell, "session")
      case .remoteData(let from, let to, let app, let session, let messages):
        html += "<div class=\"row event remote\(down(entry))\" data-step=\"\(entry.step)\"><div class=\"n\"></div>"
        html += "<div class=\"clock\">\(clockCell)</div><div class=\"cell both\">"
        html += "<div class=\"arrow remote to-\(to)\" title=\"\(escape(entry.text))\">"
        let label = "\(app)'s \(session) \(from) → \(to): \(messages.joined(separator: ", "))"
        html += "<span>\(escape(label))</span></div></div></div>\n"
      }
    }
    return html + "</div>\n"
  }

  private static func eventRow(_ entry: TraceEntry, _ clockCell: String, _ classes: String) -> String {
    var html = "<div class=\"row event\(down(entry))\" data-step=\"\(entry.step)\"><div class=\"n\"></div>"
    html += "<div class=\"clock\">\(clockCell)</div>"
    html += lane(entry.lane, "<div class=\"box \(classes)\">\(escape(entry.text))</div>")
    return html + "</div>\n"
  }

  /// Classes for the lanes of daemons that are down (their lifeline is drawn dashed).
  private static func down(_ entry: TraceEntry) -> String {
    (entry.phoneClock == nil ? " phone-down" : "") + (entry.watchClock == nil ? " watch-down" : "")
  }

  /// The lane cells of a row with `content` in the lane (or across both).
  private static func lane(_ lane: Lane, _ content: String) -> String {
    switch lane {
    case .phone: "<div class=\"cell phone\">\(content)</div><div class=\"cell watch\"></div>"
    case .watch: "<div class=\"cell phone\"></div><div class=\"cell watch\">\(content)</div>"
    case .both: "<div class=\"cell both\">\(content)</div>"
    }
  }

  private static func clockHTML(_ phone: Date?, _ watch: Date?) -> String {
    func short(_ d: Date?) -> String {
      guard let d else { return "down" }
      let text = formatDate(d)  // 2026-01-05T08:00:00Z: shown as 01-05 08:00:00
      guard text.count >= 20 else { return text }
      let monthDay = text.dropFirst(5).prefix(5)
      return "\(monthDay) \(text.dropFirst(11).prefix(8))"
    }
    let title = "phone \(phone.map(formatDate) ?? "down"), watch \(watch.map(formatDate) ?? "down")"
    if phone == watch { return "<time title=\"\(escape(title))\">\(short(phone))</time>" }
    return "<time title=\"\(escape(title))\">P \(short(phone))<br>W \(short(watch))</time>"
  }

  /// ✔ passed, ✘ failed, – interrupted.
  private static func mark(_ r: ScenarioResult) -> String { r.passed ? "✔" : r.interrupted ? "–" : "✘" }

  private static func seconds(_ s: Double) -> String { formatNumber(s, decimals: 2) + " s" }

  private static func escape(_ s: String) -> String { Reports.escape(s) }

  // MARK: - Style and script

  static let css = """
    :root{--fg:#1d2228;--dim:#6a737d;--line:#c8cfd6;--ok:#1a7f37;--bad:#cf222e;--sync:#8250df;--bg:#fff;
    --panel:#f6f8fa;--app:#ddf4ff;--user:#fff8c5;--setup:#eef1f4;--link:#fbefff;--fault:#ffebe9;--expect:#dafbe1}
    *{box-sizing:border-box}
    body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
    header{padding:16px 24px;background:var(--panel);border-bottom:1px solid var(--line)}
    h1{margin:0 0 4px;font-size:20px} h4{margin:0 0 4px;font-size:12px;color:var(--dim);text-transform:uppercase}
    main{padding:8px 24px 48px}
    .ok{color:var(--ok);font-weight:600}.bad{color:var(--bad);font-weight:600}.dim{color:var(--dim)}
    .filters{display:flex;flex-wrap:wrap;gap:12px;align-items:center;margin:8px 0}
    .filters fieldset{border:1px solid var(--line);border-radius:6px;padding:4px 10px;margin:0}
    .filters legend{font-size:12px;color:var(--dim)} .filters label{margin-right:8px}
    #overview{border-collapse:collapse;width:100%;max-width:1100px;font-size:13px}
    #overview td,#overview th{padding:2px 8px;text-align:left;border-bottom:1px solid #e6e9ec}
    #overview .num,#overview .time{text-align:right;white-space:nowrap} #overview tr.failed td{background:#fff0f0}
    #overview .group{white-space:nowrap} .failures{margin:6px 0;color:var(--bad)} .failures a{color:var(--bad)}
    .mark{font-weight:700} .passed .mark{color:var(--ok)} .failed .mark{color:var(--bad)}
    .interrupted .mark{color:var(--bad)} p.interrupted{color:var(--bad)}
    section.scenario{border:1px solid var(--line);border-radius:8px;margin:10px 0;background:#fff}
    section.failed{border-color:var(--bad);box-shadow:0 0 0 1px var(--bad)}
    summary{cursor:pointer;padding:8px 12px;font-size:15px} summary .title{font-weight:600}
    .meta{margin:0 12px 8px;color:var(--dim);font-size:12px} code{font-size:12px}
    .failure{margin:8px 12px;padding:8px 12px;border-radius:6px;background:#ffebe9;border:1px solid #ff8182}
    .failure p{margin:0 0 6px}
    .versus,.state{display:grid;grid-template-columns:1fr 1fr;gap:12px}
    .state{margin:12px}
    pre{margin:0;white-space:pre-wrap;word-break:break-word;font:12px/1.35 ui-monospace,SFMono-Regular,Menlo,monospace}
    .state pre{background:var(--panel);padding:8px;border-radius:6px;border:1px solid var(--line)}
    .expected pre{background:#dafbe1;padding:6px;border-radius:4px}
    .actual pre{background:#ffd8d3;padding:6px;border-radius:4px}
    .timeline{margin:8px 12px 12px;border:1px solid var(--line);border-radius:6px;overflow:hidden}
    .row{display:grid;grid-template-columns:5em 8.5em 1fr 1fr;align-items:center;min-height:26px}
    .row.head{background:var(--panel);font-weight:600;font-size:12px;color:var(--dim);
    border-bottom:1px solid var(--line)}
    .row.head>div{padding:4px 8px}.lane-title{text-align:center;text-transform:uppercase;letter-spacing:.05em}
    .row.step{border-top:1px solid #edf0f2}
    .n{padding:2px 8px;font-weight:600;font-size:12px}.n small{display:block;font-weight:400;color:var(--dim)}
    .clock{padding:2px 6px;font:11px/1.3 ui-monospace,monospace;color:var(--dim)}
    .cell{align-self:stretch;display:flex;align-items:center;justify-content:center;padding:3px 6px;
    background:linear-gradient(var(--line),var(--line)) center/2px 100% no-repeat}
    .phone-down .cell.phone,.watch-down .cell.watch{background:repeating-linear-gradient(var(--bad) 0 4px,
    transparent 4px 8px) center/2px 100% no-repeat}
    .cell.both{grid-column:3/5;background:linear-gradient(var(--line),var(--line)) 25% 0/2px 100% no-repeat,
    linear-gradient(var(--line),var(--line)) 75% 0/2px 100% no-repeat}
    .box{position:relative;max-width:96%;padding:3px 8px;border-radius:6px;border:1px solid var(--line);background:#fff;
    font-size:13px;word-break:break-word}
    .cell.both>.box{max-width:70%}
    .cat-setup .box{background:var(--setup)}.cat-app .box{background:var(--app);border-color:#54aeff}
    .cat-user .box{background:var(--user);border-color:#d4a72c}
    .cat-link .box{background:var(--link);border-color:#c297ff}
    .cat-fault .box{background:var(--fault);border-color:#ff8182;font-weight:600}
    .cat-expect .box{background:var(--expect);border-color:#4ac26b}
    .row.step.failing{background:#ffebe9}
    .row.step.failing .box{background:var(--bad);border-color:var(--bad);color:#fff;font-weight:700}
    .event .box{font-size:12px;border-style:dashed}
    .box.sheet{background:#fff8c5;border-style:solid}.box.closed{background:#fffbdd}
    .box.result-succeeded{border-color:var(--ok);color:var(--ok)}.box.result-failed{border-color:#bf8700;color:#7d4e00}
    .box.result-wouldTerminate,.box.result-rejected{border-color:var(--bad);color:var(--bad);font-weight:600}
    .box.result-pending{border-color:#54aeff;color:#0969da}
    .box.session{border-color:#1a7f37;background:#dafbe1}
    .box.link{border-color:#c297ff;background:var(--link)}.box.link.down{border-color:var(--bad);color:var(--bad)}
    .cell.both>.box.failure-box{border:2px solid var(--bad);background:#fff;display:grid;grid-template-columns:1fr 1fr;
    gap:8px;max-width:98%;width:98%}
    .failure-box div:first-child pre{background:#dafbe1;padding:4px}
    .failure-box div:last-child pre{background:#ffd8d3;padding:4px}
    .arrow{position:relative;width:50%;margin:0 auto;height:22px;border-bottom:2px solid var(--sync)}
    .arrow.remote{border-bottom-style:dashed}
    .arrow span{position:absolute;left:0;right:0;bottom:2px;text-align:center;font-size:11px;color:var(--sync)}
    .arrow::after{content:"";position:absolute;bottom:-6px;border-style:solid}
    .arrow.to-watch::after{right:-9px;border-width:5px 0 5px 9px;
    border-color:transparent transparent transparent var(--sync)}
    .arrow.to-phone::after{left:-9px;border-width:5px 9px 5px 0;
    border-color:transparent var(--sync) transparent transparent}
    [hidden]{display:none!important}
    """

  static let script = """
    (function () {
      "use strict";
      var sections = Array.prototype.slice.call(document.querySelectorAll("section.scenario"));
      var rows = Array.prototype.slice.call(document.querySelectorAll("#overview tbody tr"));
      var folder = document.getElementById("folder");
      var shown = document.getElementById("shown");
      function apply() {
        var status = document.querySelector("input[name=status]:checked").value;
        var group = folder.value;
        var count = 0;
        sections.forEach(function (section, i) {
          var visible = (status === "all" || section.dataset.status === status) &&
            (group === "" || section.dataset.group === group);
          section.hidden = !visible;
          rows[i].hidden = !visible;
          if (visible) { count += 1; }
        });
        shown.textContent = count + " of " + sections.length + " shown";
      }
      function openAll(open) {
        sections.forEach(function (section) {
          if (!section.hidden) { section.querySelector("details").open = open; }
        });
      }
      Array.prototype.forEach.call(document.querySelectorAll("input[name=status]"), function (input) {
        input.addEventListener("change", apply);
      });
      folder.addEventListener("change", apply);
      document.getElementById("expand").addEventListener("click", function () { openAll(true); });
      document.getElementById("collapse").addEventListener("click", function () { openAll(false); });
      rows.forEach(function (row, i) {
        row.querySelector("a").addEventListener("click", function () {
          sections[i].querySelector("details").open = true;
        });
      });
      // The scenario the URL's fragment names (report.html#s2), on load and on every change of the fragment:
      // shown (the filters reset when they hide it), expanded and scrolled to.
      function reveal() {
        var id;
        try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
        var target = id ? document.getElementById(id) : null;
        var section = target && target.closest("section.scenario");
        if (!section) { return; }
        if (section.hidden) {
          document.querySelector("input[name=status][value=all]").checked = true;
          folder.value = "";
          apply();
        }
        section.querySelector("details").open = true;
        target.scrollIntoView();
      }
      window.addEventListener("hashchange", reveal);
      apply();
      reveal();
    })();
    """
}
