import Testing

@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Command line: versions and deadlines")
struct DeadlineAndVersionTests {
  @Test func bothProgramsPrintTheOneVersion() throws {
    #expect(try healthpair(["--version"]).out == "healthpair \(HealthPairVersion.current)\n")
    #expect(DaemonLocator.probe(try locateDaemon()) == .success(HealthPairVersion.current))
  }

  @Test func anInvalidTimeoutIsAUsageError() throws {
    for value in ["abc", "0", "-1", "inf"] {
      let result = try healthpair(["ctl", "phone", "dump", "--timeout", value])
      #expect(result.status == 64 && result.err.contains("invalid value '\(value)' for '--timeout'"), "\(result.err)")
    }
  }

  /// `ctl request` waits for the user only until `--timeout`; `events` listens until it; a daemon that stops
  /// answering (SIGSTOP) makes any operation fail at its deadline instead of hanging.
  @Test func blockingOperationsEndAtTheirTimeout() throws {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-cli-timeout")
    defer {
      _ = try? healthpair(["down", "--dir", dir])
      Posix.removeTree(dir)
    }
    #expect(try healthpair(["up", "--dir", dir]).status == 0)
    let install = ["ctl", "phone", "install", "com.example.water", "--write-usage", "Logs water", "--dir", dir]
    #expect(try healthpair(install).status == 0)

    let request = try healthpair(
      ["ctl", "phone", "request", "com.example.water", "--share", "dietaryWater", "--timeout", "0.5", "--dir", dir])
    #expect(request.status == 1)
    #expect(request.out.contains("sheet presented"))
    #expect(request.err.contains("nobody answered the sheet within 0.5 s"), "\(request.err)")
    #expect(request.err.contains("healthpair ctl phone answer"))

    let events = try healthpair(["ctl", "watch", "events", "--timeout", "0.3", "--dir", dir])
    #expect(events.status == 0 && events.out.contains("listening for events on the watch for 0.3 s"), "\(events)")

    let text = try Posix.readFile(PairLayout(root: dir).lock(.phone))
    let pid = try #require(Int32(String(decoding: text, as: UTF8.self).trimmingWhitespace()))
    try Posix.kill(pid, SIGSTOP)
    defer { try? Posix.kill(pid, SIGCONT) }
    let stuck = try healthpair(["ctl", "phone", "dump", "--timeout", "0.5", "--dir", dir])
    #expect(stuck.status == 1 && stuck.err.contains("within 0.5 s"), "\(stuck.err)")
  }
}
