import Foundation
import TestSupport
import Testing

@testable import Posix


/// Every `*.scenario` file under `directory`.
private func scenarioFiles(_ directory: String) throws -> [String] {
  var files: [String] = []
  for name in try Posix.listDirectory(directory) where !name.hasPrefix(".") {
    let path = directory + "/" + name
    if Posix.directoryExists(path) {
      files += try scenarioFiles(path)
    } else if name.hasSuffix(".scenario") {
      files.append(path)
    }
  }
  return files
}

/// A scenario that fails at its 8th step (line 9), after a sheet, a save, a sync delivery and a link change.
private let failingScenario = """
  scenario: Deliberately failing for the browser check
  install Return on phone and watch share mindfulSession
  phone: Return requests
  user on phone: allows all
  phone: Return saves notApplicable mindfulSession from 08:00 for 10m as s
  wait until synced
  link: disconnect
  expect watch: store has s
  expect phone: Return share mindfulSession is sharingDenied

  """

/// `make test-html` (which `make test` runs) sets HEALTHPAIR_BROWSER_TEST after installing Chromium; a plain
/// `swift test` skips this suite.
@Suite(
  "HTML report in a real headless Chromium",
  .enabled(if: Posix.environment("HEALTHPAIR_BROWSER_TEST") != nil, "set by make test-html"))
struct HTMLReportBrowserTests {
  @Test func theReportRendersWithoutErrorsHoldsEveryScenarioAndHighlightsTheFailingStep() throws {
    Posix.ignoreBrokenPipe()
    let chromium = try HeadlessBrowser.locate()
    let work = try Posix.makeTemporaryDirectory(prefix: "hp-html")
    defer { Posix.removeTree(work) }
    // Screenshots and the page stay here for people to look at.
    let artifacts = Posix.environment("HEALTHPAIR_HTML_ARTIFACTS") ?? (work + "/artifacts")
    try Posix.makeDirectory(artifacts, mode: 0o755)

    // The scenario library plus one failing scenario from a temporary folder, through the command line.
    let failing = work + "/failing/deliberate.scenario"
    try Posix.makeDirectory(work + "/failing")
    try Posix.writeFileAtomically(failing, Array(failingScenario.utf8))
    let library = try scenarioFiles(Repository.path("Scenarios"))
    let report = artifacts + "/report.html"
    let kept = work + "/kept"
    let run = try healthpair([
      "run", Repository.path("Scenarios"), failing, "--jobs", "\(max(2, Posix.processorCount))", "--html", report,
      "--keep-failed", kept,
    ])
    #expect(run.status == 1, "only the deliberate failure fails:\n\(run.out)\(run.err)")
    #expect(run.out.contains("FAILED  \(failing):9"))
    // An outline (an `examples:` table) is one scenario per row: count scenarios from the run, not files.
    let total = try #require(
      run.out.split(separator: "\n").last { $0.contains(" scenarios, ") }.flatMap { Int($0.prefix { $0.isNumber }) })
    let libraryScenarios = total - 1

    // --keep-failed kept the pair's directory and the trace.
    for file in [
      "phone/phone.log", "watch/watch.log", "phone/phone.journal", "watch/watch.journal", "trace.txt", "trace.json",
    ] {
      #expect(Posix.exists("\(kept)/deliberate/\(file)"), "kept \(file)")
    }
    let phoneLog = String(decoding: try Posix.readFile("\(kept)/deliberate/phone/phone.log"), as: UTF8.self)
    #expect(phoneLog.contains("[virtual 2026-01-05T08:00:00Z]") && phoneLog.contains("call save"), "\(phoneLog)")

    let page = String(decoding: try Posix.readFile(report), as: UTF8.self)
    for external in ["src=", "href=\"http", "@import", "url("] { #expect(!page.contains(external), "no \(external)") }

    let browser = try HeadlessBrowser(executable: chromium, workDirectory: work, width: 1300, height: 900)
    defer { browser.close() }
    let url = "file://" + report
    try browser.navigate(url)

    // Every scenario is on the page, the library's passed, the deliberate one failed.
    let files = try #require(
      try browser.evaluate("[...document.querySelectorAll('section.scenario')].map(s => s.dataset.file)") as? [String])
    #expect(Set(files) == Set(library + [failing]) && files.count == libraryScenarios + 1)
    #expect(
      try browser.evaluate("document.querySelectorAll('section.scenario[data-status=passed]').length") as? Int
        == libraryScenarios)
    #expect(
      try browser.evaluate("document.querySelectorAll('#overview tbody tr').length") as? Int == libraryScenarios + 1)

    // The failing step is highlighted (as rendered), with its expected and actual values.
    let failed = "document.querySelector('section.scenario[data-status=failed]')"
    #expect(try browser.evaluate("\(failed).dataset.file") as? String == failing)
    #expect(try browser.evaluate("\(failed).querySelector('details').open") as? Bool == true)
    #expect(
      try browser.evaluate("[...\(failed).querySelectorAll('.row.step.failing')].map(r => r.dataset.step)") as? [String]
        == ["8"])
    let box = "\(failed).querySelector('.row.step.failing .box')"
    #expect((try browser.evaluate("\(box).textContent") as? String)?.contains("sharingDenied") == true)
    #expect(try browser.evaluate("getComputedStyle(\(box)).backgroundColor") as? String == "rgb(207, 34, 46)")
    #expect(
      try browser.evaluate("getComputedStyle(\(failed).querySelector('.row.step.failing')).backgroundColor") as? String
        == "rgb(255, 235, 233)")
    #expect(
      try browser.evaluate("\(failed).querySelector('.failure .expected pre').textContent") as? String
        == "phone: Return authorizationStatus(mindfulSession) = sharingDenied")
    #expect(
      try browser.evaluate("\(failed).querySelector('.failure .actual pre').textContent") as? String
        == "sharingAuthorized")
    // Its timeline: both lanes, the sheet, the call results, the delivery arrow, the link going down.
    let counts = try #require(
      try browser.evaluate(
        """
        (() => { const s = \(failed); const n = q => s.querySelectorAll(q).length;
          return [n('.box.sheet:not(.closed)'), n('.box.sheet.closed'), n('.box.result-succeeded'),
                  n('.arrow.to-watch'), n('.box.link.down'), n('.row.failure-row'),
                  s.querySelector('.arrow.to-watch').getBoundingClientRect().width > 100 ? 1 : 0]; })()
        """) as? [Int])
    #expect(
      counts == [1, 1, 2, 1, 2, 1, 1], "sheet shown, closed, results, arrow, link down ×2, failure, drawn: \(counts)")

    // The filters work.
    func shown() throws -> Int? {
      try browser.evaluate("[...document.querySelectorAll('section.scenario')].filter(s => !s.hidden).length") as? Int
    }
    _ = try browser.evaluate("document.querySelector('input[name=status][value=failed]').click()")
    #expect(try shown() == 1)
    #expect(
      try browser.evaluate("document.getElementById('shown').textContent") as? String
        == "1 of \(libraryScenarios + 1) shown")
    _ = try browser.evaluate("document.querySelector('input[name=status][value=passed]').click()")
    #expect(try shown() == libraryScenarios)
    _ = try browser.evaluate(
      """
      (() => { const f = document.getElementById('folder'); f.value = 'article';
        f.dispatchEvent(new Event('change')); })()
      """)
    let article = library.filter { $0.contains("/Scenarios/article/") }.count
    #expect(article > 0)
    #expect(try shown() == article)
    _ = try browser.evaluate(
      """
      (() => { const f = document.getElementById('folder'); f.value = '';
        f.dispatchEvent(new Event('change')); document.querySelector('input[name=status][value=all]').click(); })()
      """)
    #expect(try shown() == libraryScenarios + 1)

    // Screenshots: the summary, and the failing scenario's timeline.
    let top = try browser.screenshot(clip: (0, 0, 1300, 900))
    let numbers = try #require(
      try browser.evaluate(
        """
        (() => { const r = \(failed).getBoundingClientRect();
          return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height]; })()
        """) as? [Any])
    let rect = numbers.compactMap { ($0 as? NSNumber)?.doubleValue }
    try #require(rect.count == 4)
    let section = try browser.screenshot(clip: (rect[0], rect[1], rect[2], min(rect[3], 4000)))
    for (name, png) in [("summary.png", top), ("failing-scenario.png", section)] {
      #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(name) is a PNG")
      #expect(png.count > 10_000, "\(name) has content (\(png.count) bytes)")
      try Posix.writeFileAtomically(artifacts + "/" + name, png, mode: 0o644)
    }

    // Nothing went wrong in the page, and it fetched nothing but itself.
    #expect(browser.errors.isEmpty, "console errors: \(browser.errors)")
    #expect(browser.requests.allSatisfy { $0 == url }, "requests: \(browser.requests)")
  }

  /// `report.html#s4` opens that scenario: shown (the filters reset when they hide it), expanded and scrolled to, on
  /// load and whenever the fragment changes.
  @Test func theFragmentOpensAndScrollsToItsScenarioOnLoadAndOnHashChange() throws {
    Posix.ignoreBrokenPipe()
    let chromium = try HeadlessBrowser.locate()
    let work = try Posix.makeTemporaryDirectory(prefix: "hp-html-fragment")
    defer { Posix.removeTree(work) }
    try Posix.makeDirectory(work + "/library")
    for n in 0..<6 {
      let text = "scenario: Passing \(n)\ninstall Water on phone share dietaryWater\n"
        + "expect phone: Water share dietaryWater is notDetermined\n"
      try Posix.writeFileAtomically(work + "/library/passing-\(n).scenario", Array(text.utf8))
    }
    let report = work + "/report.html"
    let run = try healthpair(["run", work + "/library", "--html", report])
    #expect(run.status == 0, "\(run.out)\(run.err)")

    let browser = try HeadlessBrowser(executable: chromium, workDirectory: work, width: 1000, height: 300)
    defer { browser.close() }
    let url = "file://" + report
    /// Which sections are expanded, and whether `id` is shown and inside the viewport.
    func state(_ id: String) throws -> [String: Any] {
      try #require(
        try browser.evaluate(
          """
          (() => { const s = document.getElementById('\(id)'); const r = s.getBoundingClientRect();
            const all = [...document.querySelectorAll('section.scenario')];
            return { open: all.filter(x => x.querySelector('details').open).map(x => x.id),
                     hidden: s.hidden, inView: r.top >= -1 && r.top < innerHeight,
                     scrolled: scrollY > 0 }; })()
          """) as? [String: Any])
    }
    func changeHash(to id: String) throws {
      // Resolves once the page's own hashchange listener (registered first) has run.
      _ = try browser.evaluate(
        """
        new Promise(done => { addEventListener('hashchange', () => setTimeout(done, 0), { once: true });
          location.hash = '#\(id)'; })
        """)
    }

    try browser.navigate(url + "#s4")
    var now = try state("s4")
    #expect(now["open"] as? [String] == ["s4"], "on load: \(now)")
    #expect(now["inView"] as? Bool == true && now["scrolled"] as? Bool == true, "\(now)")

    try changeHash(to: "s1")
    now = try state("s1")
    #expect(now["open"] as? [String] == ["s1", "s4"], "on hashchange: \(now)")
    #expect(now["inView"] as? Bool == true, "\(now)")

    // A filter that hides the scenario is reset so it can be shown.
    _ = try browser.evaluate("document.querySelector('input[name=status][value=failed]').click()")
    try changeHash(to: "s2")
    now = try state("s2")
    #expect(now["hidden"] as? Bool == false && now["inView"] as? Bool == true, "\(now)")
    #expect((now["open"] as? [String])?.contains("s2") == true)
    #expect(try browser.evaluate("document.querySelector('input[name=status]:checked').value") as? String == "all")
    #expect(browser.errors.isEmpty, "console errors: \(browser.errors)")
  }
}
