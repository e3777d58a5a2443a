import FoundationEssentials
import Testing

@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix

#if canImport(Glibc)
  import Glibc
#endif

/// The directory holding the built executables (`.build/debug`): where the located `healthpaird` is.
func buildDirectory() throws -> String {
  try locateDaemon().split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
}

/// Runs the built executable `name` (`healthpair`, `healthpaird`, `healthpair-bench`, `healthpair-fuzz`); returns
/// its exit status, standard output and standard error.
func runBuilt(_ name: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
  let binary = try buildDirectory() + "/" + name
  let dir = try Posix.makeTemporaryDirectory(prefix: "hp-cli-out")
  defer { Posix.removeTree(dir) }
  let pid: pid_t
  do {
    // Owned: closed here, in this process, once the child holds its copies (or the spawn failed).
    let out = try Posix.openOwned(dir + "/out", O_WRONLY | O_CREAT | O_TRUNC)
    let err = try Posix.openOwned(dir + "/err", O_WRONLY | O_CREAT | O_TRUNC)
    pid = try Posix.spawn(
      binary, arguments, stdout: out.rawValue, stderr: err.rawValue, extraEnvironment: ["NO_COLOR": "1"])
  }
  let status = try Posix.wait(pid, block: true)
  let code: Int32 = if case .exited(let c) = status { c } else { -1 }
  return (
    code, String(decoding: try Posix.readFile(dir + "/out"), as: UTF8.self),
    String(decoding: try Posix.readFile(dir + "/err"), as: UTF8.self)
  )
}

/// Runs the built `healthpair` binary; returns its exit status, standard output and standard error.
func healthpair(_ arguments: [String], stdin: String? = nil) throws -> (status: Int32, out: String, err: String) {
  try runBuilt("healthpair", arguments)
}

@Suite("Command line")
struct CLITests {
  @Test func versionAndTopLevelHelp() throws {
    let version = try healthpair(["--version"])
    #expect(version.status == 0 && version.out.hasPrefix("healthpair "))
    let help = try healthpair(["--help"])
    #expect(help.status == 0)
    for command in ["up", "down", "restart", "status", "ctl", "run"] where command != "run" {
      #expect(help.out.contains("  \(command) "))
    }
  }

  @Test("--help on every command", arguments: ["up", "down", "restart", "status", "ctl", "demo"])
  func helpOnEveryCommand(_ command: String) throws {
    let result = try healthpair([command, "--help"])
    #expect(result.status == 0)
    #expect(result.out.contains("USAGE: healthpair \(command)"))
  }

  @Test(
    "Usage errors exit 64 with the message and the usage",
    arguments: [
      (["up", "--bogus"], "unknown option '--bogus'"),
      (["status", "extra"], "unexpected argument: 'extra'"),
      (["ctl", "tablet", "dump"], "unknown device 'tablet'"),
      (["ctl"], "missing device"),
      (["up", "--log-level", "loud"], "invalid value 'loud' for '--log-level'"),
      (["staus"], "unknown command 'staus' (did you mean 'status'?)"),
      (["restart"], "missing device ('phone' or 'watch')"),
      (["restart", "tablet"], "unknown device 'tablet'"),
    ])
  func usageErrors(_ arguments: [String], _ message: String) throws {
    let result = try healthpair(arguments)
    #expect(result.status == 64)
    #expect(result.err.contains(message), "\(result.err)")
    #expect(result.err.contains("USAGE: healthpair"))
  }

  @Test func aSessionByHand() throws {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-cli")
    defer {
      _ = try? healthpair(["down", "--dir", dir])
      Posix.removeTree(dir)
    }
    let up = try healthpair(["up", "--dir", dir])
    #expect(up.status == 0, "\(up.err)")
    #expect(up.out.contains("link   up"))
    let again = try healthpair(["up", "--dir", dir])
    #expect(again.status == 1 && again.err.contains("already running"))
    #expect(
      try healthpair([
        "ctl", "phone", "install", "com.example.water", "--write-usage", "Logs water", "--read-usage", "Totals",
        "--dir", dir,
      ]).status == 0)
    let request = try healthpair([
      "ctl", "phone", "request", "com.example.water", "--share", "dietaryWater", "--no-wait", "--dir", dir,
    ])
    #expect(request.out.contains("sheet presented (#1) listing share dietaryWater"))
    #expect(try healthpair(["ctl", "phone", "answer", "allow", "--dir", dir]).status == 0)
    #expect(
      try healthpair([
        "ctl", "phone", "save", "com.example.water", "dietaryWater", "1", "cup_us", "--at", "2026-01-05T08:00", "--dir",
        dir,
      ]).status == 0)
    // Reading was never asked for: the query fails as healthd's does.
    let undecided = try healthpair(["ctl", "phone", "query", "com.example.water", "dietaryWater", "--dir", dir])
    #expect(undecided.status == 1 && undecided.err.contains("errorAuthorizationNotDetermined (5)"), "\(undecided.err)")
    _ = try healthpair([
      "ctl", "phone", "request", "com.example.water", "--read", "dietaryWater", "--no-wait", "--dir", dir,
    ])
    #expect(try healthpair(["ctl", "phone", "answer", "allow", "--dir", dir]).status == 0)
    let query = try healthpair([
      "ctl", "phone", "query", "com.example.water", "dietaryWater", "--unit", "fl_oz_us", "--dir", dir,
    ])
    #expect(query.out.contains("dietaryWater 8 fl_oz_us"), "\(query.out)")
    let denied = try healthpair(["ctl", "phone", "save", "com.example.water", "stepCount", "10", "--dir", dir])
    #expect(denied.status == 1 && denied.err.contains("errorAuthorizationNotDetermined (5)"))
    // The device lock and the Health app (behavior.md L2, C3, R6).
    #expect(try healthpair(["ctl", "phone", "lock", "--dir", dir]).status == 0)
    let locked = try healthpair(["ctl", "phone", "query", "com.example.water", "dietaryWater", "--dir", dir])
    #expect(locked.status == 1 && locked.err.contains("errorDatabaseInaccessible (6)"), "\(locked.err)")
    #expect(try healthpair(["ctl", "phone", "unlock", "--dir", dir]).status == 0)
    #expect(
      try healthpair(["ctl", "phone", "set-characteristic", "bloodType", "abNegative", "--dir", dir]).status == 0)
    let blood = try healthpair(["ctl", "phone", "characteristic", "com.example.water", "bloodType", "--dir", dir])
    #expect(blood.status == 1 && blood.err.contains("errorAuthorizationNotDetermined (5)"), "\(blood.err)")
    #expect(try healthpair(["ctl", "phone", "prefer-unit", "dietaryWater", "L", "--dir", dir]).status == 0)
    let units = try healthpair(["ctl", "phone", "units", "com.example.water", "dietaryWater", "--dir", dir])
    #expect(units.out.contains("dietaryWater: L"), "\(units.out)")
    let notCharacteristic = try healthpair(["ctl", "phone", "set-characteristic", "dietaryWater", "1", "--dir", dir])
    #expect(notCharacteristic.status == 64 && notCharacteristic.err.contains("not a characteristic type"))
    let typo = try healthpair(["ctl", "phone", "status", "com.example.water", "dietaryWatr", "--dir", dir])
    #expect(typo.status == 64 && typo.err.contains("did you mean 'dietaryWater'?"))
    // Time zones and source orders (behavior.md K1, P2).
    let zone = try healthpair(["ctl", "phone", "policy", "--time-zone", "Europe/Pariss", "--dir", dir])
    #expect(zone.status == 64 && zone.err.contains("did you mean 'Europe/Paris'?"), "\(zone.err)")
    let paris = try healthpair(["ctl", "phone", "policy", "--time-zone", "Europe/Paris", "--dir", dir])
    #expect(paris.status == 0 && paris.out.contains("time-zone=Europe/Paris"), "\(paris.out)")
    let order = try healthpair([
      "ctl", "phone", "source-order", "dietaryWater", "com.example.water@watch", "com.example.water@phone", "--dir",
      dir,
    ])
    #expect(order.status == 0 && order.out.contains("com.example.water@watch, com.example.water@phone"))
    let onWatch = try healthpair(["ctl", "watch", "source-order", "dietaryWater", "--default", "--dir", dir])
    #expect(onWatch.status == 1 && onWatch.err.contains("set the order on the iPhone"), "\(onWatch.err)")
    let monthly = try healthpair([
      "ctl", "phone", "collection", "com.example.water", "dietaryWater", "--interval", "1mo", "--anchor",
      "2026-01-01", "--start", "2026-01-01", "--end", "2026-03-01", "--dir", dir,
    ])
    #expect(monthly.status == 0 && monthly.out.split(separator: "\n").count == 2, "\(monthly.out)")
    let status = try healthpair(["status", "--dir", dir])
    #expect(status.out.contains("zone=Europe/Paris"))
    #expect(status.out.contains("sources  dietaryWater: com.example.water@watch, com.example.water@phone"))
    #expect(status.out.contains("dietaryWater share=sharingAuthorized read=authorized"))
    #expect(status.out.contains("samples  dietaryWater=1"))
    let json = try healthpair(["status", "--json", "--dir", dir])
    #expect(json.out.contains("\"phone\": {") && json.out.contains("\"lag\": {"))
    let down = try healthpair(["down", "--dir", dir])
    #expect(down.status == 0 && down.out.contains("stopped phone") && down.out.contains("stopped watch"))
    #expect(!Posix.exists(PairLayout(root: dir).socket(.phone)))
  }

  @Test func aDaemonKilledWithSIGKILLIsRestartedAloneByRestartAndByUp() throws {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-cli-restart")
    defer {
      _ = try? healthpair(["down", "--dir", dir])
      Posix.removeTree(dir)
    }
    let layout = PairLayout(root: dir)
    let up = try healthpair(["up", "--dir", dir, "--fsync"])
    #expect(up.status == 0, "\(up.err)")
    let phone = try #require(layout.runningDaemon(.phone))
    let watch = try #require(layout.runningDaemon(.watch))
    /// Whether both daemons report the link up.
    func linked() throws -> Bool {
      try [layout.socket(.phone), layout.socket(.watch)].allSatisfy { socket in
        let client = try DeviceClient(socketPath: socket, clientName: "test", timeout: 10)
        defer { client.close() }
        return try client.link(.reconnectNow).connected
      }
    }
    /// Kills `pid` with SIGKILL and waits until it is gone.
    func killNine(_ pid: Int32) throws {
      try Posix.kill(pid, SIGKILL)
      #expect(Posix.waitForExit(pid, timeoutMilliseconds: 10_000))
    }

    // The watch crashes: `restart watch` brings it back alone, linked, with the options `up` was given.
    try killNine(watch)
    #expect(layout.runningDaemon(.watch) == nil)
    let restart = try healthpair(["restart", "watch", "--dir", dir])
    #expect(restart.status == 0, "\(restart.err)")
    #expect(restart.out.contains("restarted the watch daemon"), "\(restart.out)")
    #expect(restart.out.contains("(it was not running)"))
    #expect(restart.out.contains("link up"))
    let watch2 = try #require(layout.runningDaemon(.watch))
    #expect(watch2 != watch)
    #expect(layout.runningDaemon(.phone) == phone, "the phone was left alone")
    #expect(try linked())
    let arguments = String(decoding: try Posix.readFile("/proc/\(watch2)/cmdline"), as: UTF8.self)
    #expect(arguments.contains("--fsync"), "the restarted daemon lost the pair's options: \(arguments)")

    // The phone crashes: `up` restarts just the phone and says so.
    try killNine(phone)
    let again = try healthpair(["up", "--dir", dir])
    #expect(again.status == 0, "\(again.err)")
    #expect(again.out.contains("the phone daemon was not running and was restarted alone"), "\(again.out)")
    #expect(again.out.contains("watch  pid \(watch2)") && again.out.contains("(already running)"))
    let phone2 = try #require(layout.runningDaemon(.phone))
    #expect(phone2 != phone)
    #expect(layout.runningDaemon(.watch) == watch2, "the watch was left alone")
    #expect(try linked())

    // A running daemon is stopped first; with both up, `up` still refuses.
    let running = try healthpair(["restart", "phone", "--dir", dir])
    #expect(running.status == 0, "\(running.err)")
    #expect(running.out.contains("(stopped pid \(phone2) first)"), "\(running.out)")
    #expect(try linked())
    let both = try healthpair(["up", "--dir", dir])
    #expect(both.status == 1 && both.err.contains("already running"))
  }

  @Test func restartOutsideAPairIsAClearError() throws {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-cli-nopair")
    defer { Posix.removeTree(dir) }
    let result = try healthpair(["restart", "phone", "--dir", dir])
    #expect(result.status == 1)
    #expect(result.err.contains("holds no pair (no pairing.key)"), "\(result.err)")
  }
}
