import Foundation
import FoundationXML
import Testing

@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix

#if canImport(Glibc)
  import Glibc
#endif

/// SIGINT (a terminal's Ctrl-C, sent to the whole foreground process group) and SIGTERM (a CI runner's cancel,
/// `docker stop`) to `healthpair run` and `healthpair up`: every pair stopped, every directory made removed, the
/// partial reports written with the unfinished scenarios marked, one "interrupted" line, exit 130 / 143.
@Suite("Command line: interrupted runs", .serialized)
struct InterruptTests {
  /// A run of slow-ish scenarios, interrupted once its first pair directory appears.
  @Test(arguments: [SIGINT, SIGTERM])
  func anInterruptedRunStopsItsPairsAndWritesPartialReports(signal: Int32) throws {
    let work = try Posix.makeTemporaryDirectory(prefix: "hp-interrupt")
    defer { Posix.removeTree(work) }
    let (suite, base, count) = try slowSuite(in: work)
    let job = try Job.start(
      try buildDirectory() + "/healthpair",
      ["run", suite, "--jobs", "1", "--junit", work + "/r.xml", "--html", work + "/r.html", "--json"],
      environment: ["HEALTHPAIR_TMPDIR": base])
    try waitForEntry(in: base, prefix: TemporaryPairDirectories.prefix, timeout: 60)
    // SIGINT as a terminal sends it, to the whole process group; SIGTERM as `kill` and `docker stop` send it.
    try Posix.kill(signal == SIGINT ? -job.pid : job.pid, signal)
    let ended = try job.finish(timeout: 60)

    #expect(ended.status == .exited(Interruption.exitStatus(for: signal)), "\(ended.err)")
    let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
    let lines = ended.err.split(separator: "\n").filter { $0.contains("interrupted") }
    #expect(lines.count == 1 && lines[0].hasPrefix("interrupted by \(name)"), "\(ended.err)")
    try expectNothingLeft(in: base)

    // The JSON report: an object with every scenario, the unfinished ones "interrupted".
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(ended.out.utf8)) as? [String: Any], "\(ended.out)")
    let scenarios = try #require(object["scenarios"] as? [[String: Any]])
    let statuses = scenarios.compactMap { $0["status"] as? String }
    #expect(statuses.count == count && statuses.allSatisfy { ["passed", "interrupted"].contains($0) }, "\(statuses)")
    let summary = try #require(object["summary"] as? [String: Any])
    let interrupted = statuses.filter { $0 == "interrupted" }.count
    #expect(interrupted > 0 && summary["interrupted"] as? Int == interrupted && summary["failed"] as? Int == 0)

    // JUnit: every scenario a testcase; each interrupted one an <error> (it had started) or <skipped> (it had not).
    let xml = String(decoding: try Posix.readFile(work + "/r.xml"), as: UTF8.self)
    let root = try #require(try XMLDocument(xmlString: xml).rootElement(), "\(xml)")
    #expect(try root.nodes(forXPath: "//testcase").count == count)
    let marked =
      try root.nodes(forXPath: "//testcase/error[@message='interrupted']").count
      + root.nodes(forXPath: "//testcase/skipped[@message='interrupted']").count
    #expect(marked == interrupted, "\(xml)")
    #expect(try root.nodes(forXPath: "//failure").isEmpty)
    let html = String(decoding: try Posix.readFile(work + "/r.html"), as: UTF8.self)
    #expect(html.contains("\(interrupted) interrupted") && html.hasSuffix("</html>\n"))
  }

  /// `healthpair` as PID 1 of a container (here a new pid namespace) handles SIGTERM: `docker stop` does not wait
  /// out its grace period.
  @Test(
    .enabled(
      if: Posix.userID == 0 && Posix.exists("/usr/bin/unshare"),
      "a new pid namespace (unshare --pid) needs root and /usr/bin/unshare"))
  func asPID1TheRunStopsOnSIGTERM() throws {
    let work = try Posix.makeTemporaryDirectory(prefix: "hp-interrupt")
    defer { Posix.removeTree(work) }
    let (suite, base, _) = try slowSuite(in: work)
    let job = try Job.start(
      "/usr/bin/unshare",
      ["--pid", "--fork", "--mount-proc", try buildDirectory() + "/healthpair", "run", suite, "--jobs", "1", "--json"],
      environment: ["HEALTHPAIR_TMPDIR": base])
    try waitForEntry(in: base, prefix: TemporaryPairDirectories.prefix, timeout: 60)
    // To the group: `unshare` itself ignores SIGTERM while it waits, and exits as its child (PID 1) did.
    try Posix.kill(-job.pid, SIGTERM)
    let ended = try job.finish(timeout: 60)
    #expect(ended.status == .exited(143), "\(ended.err)")
    #expect(ended.err.contains("interrupted by SIGTERM"), "\(ended.err)")
    try expectNothingLeft(in: base)
  }

  /// `healthpair up` interrupted before its pair is up: the daemons it started are stopped and the directory it
  /// made removed. (Its daemon here never becomes ready, so the signal always comes while `up` waits.)
  @Test(arguments: [SIGINT, SIGTERM])
  func anInterruptedUpStopsItsDaemonsAndRemovesItsDirectory(signal: Int32) throws {
    let work = try Posix.makeTemporaryDirectory(prefix: "hp-interrupt")
    defer { Posix.removeTree(work) }
    let (daemon, marks) = try neverReadyDaemon(in: work)
    let directory = work + "/pair"
    let job = try Job.start(
      try buildDirectory() + "/healthpair", ["up", "--dir", directory], environment: ["HEALTHPAIRD": daemon])
    let started = try waitForEntry(in: marks, prefix: "", timeout: 60)
    let fake = try #require(Int32(started))
    try Posix.kill(signal == SIGINT ? -job.pid : job.pid, signal)
    let ended = try job.finish(timeout: 60)
    #expect(ended.status == .exited(Interruption.exitStatus(for: signal)), "\(ended.err)")
    #expect(ended.err.contains("interrupted by \(signal == SIGINT ? "SIGINT" : "SIGTERM")"), "\(ended.err)")
    // Gone or exited: once `up` has exited, its killed child may still be a zombie until init reaps it.
    #expect(Posix.waitForExit(fake, timeoutMilliseconds: 10_000), "the daemon \(fake) outlived the interrupted 'up'")
    #expect(!Posix.exists(directory), "\(directory) was left behind")
    if Posix.isAlive(fake) { try? Posix.kill(fake, SIGKILL) }
  }

  /// `healthpair up` interrupted the moment its directory appears — while it still writes its first files into it,
  /// before or as its first daemon starts: the directory is removed all the same, nothing being written into it
  /// afterwards.
  @Test func anUpInterruptedAsItMakesItsDirectoryRemovesIt() throws {
    let work = try Posix.makeTemporaryDirectory(prefix: "hp-interrupt")
    defer { Posix.removeTree(work) }
    let (daemon, marks) = try neverReadyDaemon(in: work)
    let directory = work + "/pair"
    let job = try Job.start(
      try buildDirectory() + "/healthpair", ["up", "--dir", directory], environment: ["HEALTHPAIRD": daemon])
    _ = try waitForEntry(in: work, prefix: "pair", timeout: 60)
    try Posix.kill(-job.pid, SIGINT)
    let ended = try job.finish(timeout: 60)
    #expect(ended.status == .exited(Interruption.exitStatus(for: SIGINT)), "\(ended.err)")
    #expect(ended.err.contains("interrupted by SIGINT"), "\(ended.err)")
    for fake in try Posix.listDirectory(marks).compactMap({ Int32($0) }) {
      #expect(Posix.waitForExit(fake, timeoutMilliseconds: 10_000), "the daemon \(fake) outlived the interrupted 'up'")
      if Posix.isAlive(fake) { try? Posix.kill(fake, SIGKILL) }
    }
    #expect(!Posix.exists(directory), "\(directory) was left behind")
  }

  /// A chaos campaign (its own pair, daemons killed and restarted under it) interrupted by Ctrl-C.
  @Test func anInterruptedChaosCampaignStopsItsPair() throws {
    let work = try Posix.makeTemporaryDirectory(prefix: "hp-interrupt")
    defer { Posix.removeTree(work) }
    let base = work + "/pairs"
    try Posix.makeDirectory(base, mode: 0o700)
    let job = try Job.start(
      try buildDirectory() + "/healthpair", ["chaos", "--steps", "100000"], environment: ["HEALTHPAIR_TMPDIR": base])
    try waitForEntry(in: base, prefix: TemporaryPairDirectories.prefix, timeout: 60)
    try Posix.kill(-job.pid, SIGINT)
    let ended = try job.finish(timeout: 60)
    #expect(ended.status == .exited(130), "\(ended.err)")
    #expect(ended.err.split(separator: "\n").filter { $0.contains("interrupted") } == ["interrupted by SIGINT"])
    try expectNothingLeft(in: base)
  }

  /// An empty shard (fewer files than shards) writes its reports, empty, and exits 0.
  @Test func anEmptyShardWritesEmptyReports() throws {
    let work = try Posix.makeTemporaryDirectory(prefix: "hp-interrupt")
    defer { Posix.removeTree(work) }
    let text =
      "scenario: alone\ninstall Water on phone share dietaryWater\n"
      + "expect phone: store has 0 dietaryWater samples\n"
    try Posix.writeFileAtomically(work + "/only.scenario", Array(text.utf8))
    let run = try healthpair([
      "run", work + "/only.scenario", "--shard", "4/4", "--junit", work + "/e.xml", "--html", work + "/e.html",
      "--json",
    ])
    #expect(run.status == 0, "\(run.err)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any], "\(run.out)")
    #expect((object["scenarios"] as? [Any])?.isEmpty == true)
    #expect((object["summary"] as? [String: Any])?["total"] as? Int == 0)
    #expect(run.err.contains("no scenario in this shard"))
    let xml = String(decoding: try Posix.readFile(work + "/e.xml"), as: UTF8.self)
    let root = try #require(try XMLDocument(xmlString: xml).rootElement(), "\(xml)")
    #expect(root.name == "testsuites" && root.attribute(forName: "tests")?.stringValue == "0")
    let html = String(decoding: try Posix.readFile(work + "/e.html"), as: UTF8.self)
    #expect(html.contains("No scenario ran") && html.hasSuffix("</html>\n"))
    let human = try healthpair(["run", work + "/only.scenario", "--shard", "2/2", "--junit", work + "/h.xml"])
    #expect(human.status == 0 && human.out.contains("no scenario in this shard") && Posix.exists(work + "/h.xml"))
  }
}

/// Six scenarios of 120 saves each (seconds, one at a time) and the base their pairs go to.
private func slowSuite(in work: String) throws -> (suite: String, base: String, count: Int) {
  let suite = work + "/suite"
  let base = work + "/pairs"
  try Posix.makeDirectory(suite, mode: 0o755)
  try Posix.makeDirectory(base, mode: 0o700)
  let minutes = (0..<30).map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ", ")
  for i in 0..<6 {
    let text = """
      scenario: slow \(i)
      install Water on phone and watch share dietaryWater read dietaryWater
      phone: Water requests
      user on phone: allows all
      for minute in \(minutes):
        phone: Water saves 250 mL dietaryWater at 08:<minute>
        phone: Water saves 100 mL dietaryWater at 09:<minute>
        phone: Water saves 150 mL dietaryWater at 10:<minute>
        phone: Water saves 50 mL dietaryWater at 11:<minute>
      expect phone: store has 120 dietaryWater samples

      """
    try Posix.writeFileAtomically("\(suite)/s\(i).scenario", Array(text.utf8))
  }
  return (suite, base, 6)
}

/// No pair directory under `base`, and no process whose command line names it (a daemon of such a pair).
private func expectNothingLeft(in base: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
  let left = try Posix.listDirectory(base)
  #expect(left.isEmpty, "left behind in \(base): \(left)", sourceLocation: sourceLocation)
  let running = processes(mentioning: base)
  #expect(running.isEmpty, "processes still running in \(base): \(running)", sourceLocation: sourceLocation)
  for pid in running { try? Posix.kill(pid, SIGKILL) }
}

/// The processes whose command line contains `text` (from /proc).
func processes(mentioning text: String) -> [Int32] {
  ((try? Posix.listDirectory("/proc")) ?? []).compactMap { name -> Int32? in
    guard let pid = Int32(name), pid != Posix.processID,
      let bytes = try? Posix.readFile("/proc/\(name)/cmdline")
    else { return nil }
    return String(decoding: bytes.map { $0 == 0 ? 32 : $0 }, as: UTF8.self).contains(text) ? pid : nil
  }
}

/// Waits until `directory` has an entry whose name starts with `prefix`, woken by each entry created in it;
/// returns the name.
@discardableResult
func waitForEntry(in directory: String, prefix: String, timeout: Double) throws -> String {
  let watch = try Posix.watchDirectory(directory)
  let deadline = Posix.monotonicNanoseconds() + UInt64(timeout * 1e9)
  while true {
    if let name = try Posix.listDirectory(directory, prefix: prefix).sorted().first { return name }
    let now = Posix.monotonicNanoseconds()
    guard now < deadline else { throw PairError.timeout("an entry '\(prefix)…' in \(directory)") }
    _ = Posix.waitReadable(watch.rawValue, timeoutMilliseconds: Int32((deadline - now) / 1_000_000) + 1)
    Posix.drainDirectoryWatch(watch.rawValue)
  }
}

/// A stand-in daemon in `work` that never becomes ready: it writes its pid into the file `<marks>/<pid>`, then
/// waits forever. Returns its path and the marks directory.
func neverReadyDaemon(in work: String) throws -> (daemon: String, marks: String) {
  let marks = work + "/marks"
  try Posix.makeDirectory(marks, mode: 0o700)
  let daemon = work + "/never-ready"
  let script = "#!/bin/sh\necho $$ > \"\(marks)/$$\"\nexec tail -f /dev/null\n"
  try Posix.writeFileAtomically(daemon, Array(script.utf8), mode: 0o755)
  return (daemon, marks)
}

/// A command started in a process group of its own, as a shell starts a job, with its output in files.
struct Job {
  let pid: pid_t
  let output: String

  /// Starts `binary` with `arguments` and `environment` added.
  static func start(_ binary: String, _ arguments: [String], environment: [String: String]) throws -> Job {
    let output = try Posix.makeTemporaryDirectory(prefix: "hp-job")
    let out = try Posix.openOwned(output + "/out", O_WRONLY | O_CREAT | O_TRUNC)
    let err = try Posix.openOwned(output + "/err", O_WRONLY | O_CREAT | O_TRUNC)
    var extra = environment
    extra["NO_COLOR"] = "1"
    let pid = try Posix.spawn(
      binary, arguments, stdout: out.rawValue, stderr: err.rawValue, extraEnvironment: extra, newProcessGroup: true,
      defaultSignals: [SIGINT, SIGTERM])
    return Job(pid: pid, output: output)
  }

  /// Waits for it to end (SIGKILL to its group after `timeout` seconds); its status and output.
  func finish(timeout: Double) throws -> (status: Posix.ExitStatus, out: String, err: String) {
    defer { Posix.removeTree(output) }
    if !Posix.waitForExit(pid, timeoutMilliseconds: Int32(timeout * 1000)) { try? Posix.kill(-pid, SIGKILL) }
    let status = try #require(try Posix.wait(pid, block: true))
    return (
      status, String(decoding: try Posix.readFile(output + "/out"), as: UTF8.self),
      String(decoding: try Posix.readFile(output + "/err"), as: UTF8.self)
    )
  }
}
