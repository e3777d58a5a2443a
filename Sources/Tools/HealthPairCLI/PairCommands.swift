import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Render
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// The pair directory: `--dir`, else `$HEALTHPAIR_DIR`, else `./.healthpair`; made absolute.
func pairDirectory(_ option: String?) -> String {
  let raw = option ?? Posix.environment("HEALTHPAIR_DIR") ?? ".healthpair"
  return raw.hasPrefix("/") ? raw : Posix.currentDirectory() + "/" + raw
}

let dirHelp = "  --dir <dir>        The pair's directory (default: $HEALTHPAIR_DIR, else ./.healthpair)."

/// `healthpair up`: starts both daemons in the background and returns once they are ready and linked.
package struct UpCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    name: "up", abstract: "Start the phone and watch daemons in the background, ready and linked.",
    usage: "up [--dir <dir>] [--fresh] [--fsync] [--log-level <level>]",
    discussion: """
      OPTIONS:
      \(dirHelp)
        --fresh            Start clean: remove the pair's saved state (journals, logs) first.
        --fsync            fsync each journal append (survives power loss, slower).
        --log-level <l>    debug, info (default), warning, error or fault.

      A pair's state is kept in <dir> between runs: 'up' says whether it resumed saved state (and how many samples
      each device holds) or started empty. Creates <dir>/pairing.key (mode 0600), starts <dir>/phone and
      <dir>/watch, and waits until both answer on their sockets and the peer link is up. Stop them with 'healthpair down'.

      If one daemon of the pair is still running (the other crashed or was killed), only the missing one is
      started, with the options the pair was started with (recorded in <dir>/launch.options; --fsync and
      --log-level given now override them), and 'up' says so. See also 'healthpair restart'.
      """)

  var directory: String
  var options = LaunchOptions()
  /// The flags given on the command line (they override the recorded ones when one daemon is restarted).
  var fsyncGiven = false
  var logLevelGiven: String?
  /// Remove the saved state before starting.
  var fresh = false

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    directory = pairDirectory(try args.option("dir"))
    fresh = args.flag("fresh")
    fsyncGiven = args.flag("fsync")
    options.fsync = fsyncGiven
    if let level = try args.option("log-level") {
      guard ["debug", "info", "warning", "error", "fault"].contains(level) else {
        throw args.error("invalid value '\(level)' for '--log-level': expected debug, info, warning, error or fault")
      }
      options.logLevel = level
      logLevelGiven = level
    }
    options.detach = true
    try args.finish()
  }

  /// Starts the pair, or the one daemon of it that is not running.
  package func run() throws -> Int32 {
    let layout = PairLayout(root: directory)
    // Another user's directory (or one others may write) is refused before anything in it is probed or used.
    if Posix.exists(directory) { try layout.checkOwned() }
    let running = DeviceKind.allCases.compactMap { device in
      layout.runningDaemon(device, timeout: 2).map { (device, $0) }
    }
    if running.count == DeviceKind.allCases.count {
      err("error: the phone and watch daemons are already running in \(directory); use 'healthpair down' first\n")
      return 1
    }
    if let (alive, alivePID) = running.first {
      let missing = alive.peer
      var recorded = LaunchOptions.recorded(in: layout)
      if fsyncGiven { recorded.fsync = true }
      if let logLevelGiven { recorded.logLevel = logLevelGiven }
      let report = try restartDaemon(missing, layout: layout, options: recorded)
      let pids = [alive: alivePID, missing: report.started]
      out(
        """
        HealthPair is up in \(directory); the \(missing) daemon was not running and was restarted alone
          phone  pid \(pids[.phone]!)  \(layout.socket(.phone))\(alive == .phone ? "  (already running)" : "")
          watch  pid \(pids[.watch]!)  \(layout.socket(.watch))\(alive == .watch ? "  (already running)" : "")
          link   up

        """)
      return 0
    }
    if fresh && Posix.exists(directory) {
      // Only a directory that looks like a pair's is removed, never an arbitrary one given by mistake.
      let looksLikeAPair = ["pairing.key", "phone", "watch"].contains { Posix.exists(directory + "/" + $0) }
      guard looksLikeAPair || (try? Posix.listDirectory(directory))?.isEmpty == true else {
        err("error: --fresh: \(directory) is not a HealthPair directory; refusing to remove it\n")
        return 1
      }
      Posix.removeTree(directory)
    }
    let resumed = DeviceKind.allCases.filter { Posix.exists(layout.journal($0)) }
    let made = !Posix.exists(directory)
    // Interrupted before the pair is up, ``Interruption`` stops its daemons and this command ends the process: once
    // the launch has unwound (nothing of it writes into the directory any more) and the cleanup is done, it removes
    // the directory if it made it — saved state in one that was there is kept. Interrupted once the pair is
    // released, the pair stays up.
    let (phone, watch, held) = try Interruption.deferringExit { () throws -> (pid_t, pid_t, [DeviceKind: Int]) in
      do {
        try Posix.makeDirectory(directory, mode: 0o700)
        try options.record(in: layout)
        let pair = try Pair(root: directory, options: options)
        let pids = (pair.process(.phone)!.pid, pair.process(.watch)!.pid)
        var held: [DeviceKind: Int] = [:]
        for device in resumed {
          held[device] = (try? pair.client(device).dump().device.sampleCounts.values.reduce(0, +)) ?? 0
        }
        guard pair.release() else { throw PairError.interrupted(signal: Interruption.signal ?? SIGINT) }
        return (pids.0, pids.1, held)
      } catch {
        if made, Interruption.isInterrupted {
          Interruption.waitForCleanup()
          Posix.removeTree(directory)
        }
        throw error
      }
    }
    let state =
      resumed.isEmpty
      ? "started empty"
      : "resumed the saved state (" + resumed.map { "\($0): \(held[$0] ?? 0) samples" }.joined(separator: ", ")
        + "); 'healthpair up --fresh' starts clean"
    out(
      """
      HealthPair is up in \(directory): \(state)
        phone  pid \(phone)  \(PairLayout(root: directory).socket(.phone))
        watch  pid \(watch)  \(PairLayout(root: directory).socket(.watch))
        link   up

      """)
    return 0
  }
}

/// `healthpair restart <phone|watch>`: restarts one daemon of a pair and waits until it is linked again.
package struct RestartCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    name: "restart",
    abstract: "Restart one daemon of the pair (after a crash or kill) and wait until it is linked again.",
    usage: "restart <phone|watch> [--dir <dir>]",
    discussion: """
      OPTIONS:
      \(dirHelp)

      Starts the device's daemon alone, in the background, with the options 'healthpair up' recorded in
      <dir>/launch.options — stopping it first (SIGTERM) if it is running — and waits until it is ready and, when the
      other device is running, until the peer link is up. The other daemon is left alone. 'healthpair up' does the
      same for a pair with one daemon down.
      """)

  var directory: String
  var device: DeviceKind

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    directory = pairDirectory(try args.option("dir"))
    let name = try args.required("device ('phone' or 'watch')")
    guard let device = DeviceKind(name: name) else {
      throw args.error("unknown device '\(name)': expected 'phone' or 'watch'")
    }
    self.device = device
    try args.finish()
  }

  /// Restarts the daemon.
  package func run() throws -> Int32 {
    let layout = PairLayout(root: directory)
    let report = try restartDaemon(device, layout: layout, options: LaunchOptions.recorded(in: layout))
    let before = report.stopped.map { "stopped pid \($0) first" } ?? "it was not running"
    out("restarted the \(device) daemon in \(directory): pid \(report.started) (\(before))\n")
    if report.peerRunning {
      out("link up\n")
    } else {
      out("link down: the \(device.peer) is not running (start it with 'healthpair restart \(device.peer)')\n")
    }
    return 0
  }
}

/// `healthpair down`: stops both daemons (SIGTERM) and waits for them to exit.
package struct DownCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    name: "down", abstract: "Stop the phone and watch daemons.", usage: "down [--dir <dir>]",
    discussion:
      "OPTIONS:\n\(dirHelp)\n\nSends SIGTERM to each daemon (its pid is in <dir>/<device>/<device>.lock) and waits until it exits."
  )

  var directory: String

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    directory = pairDirectory(try args.option("dir"))
    try args.finish()
  }

  /// Stops the pair.
  package func run() throws -> Int32 {
    let layout = PairLayout(root: directory)
    // Never signal a pid read from a file another user could have written.
    if Posix.exists(directory) { try layout.checkOwned() }
    var stopped = 0
    for device in DeviceKind.allCases {
      guard let text = try? Posix.readOwnFile(layout.lock(device)),
        let pid = Int32(String(decoding: text, as: UTF8.self).trimmingWhitespace()), Posix.isAlive(pid),
        Posix.exists(layout.socket(device))
      else { continue }
      try? Posix.kill(pid, SIGTERM)
      if Posix.waitForExit(pid, timeoutMilliseconds: 10_000) {
        out("stopped \(device) (pid \(pid))\n")
        stopped += 1
      } else {
        err("error: the \(device) daemon (pid \(pid)) did not stop within 10 s\n")
        return 1
      }
    }
    if stopped == 0 { out("nothing is running in \(directory)\n") }
    return 0
  }
}

/// `healthpair status`: both devices side by side.
package struct StatusCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    name: "status",
    abstract: "Show both devices side by side: apps, permissions (hidden read state included), samples, link.",
    usage: "status [--dir <dir>] [--json]",
    discussion: "OPTIONS:\n\(dirHelp)\n  --json             Print JSON instead of a table.")

  var directory: String
  var json: Bool

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    directory = pairDirectory(try args.option("dir"))
    json = args.flag("json")
    try args.finish()
  }

  /// Prints the status.
  package func run() throws -> Int32 {
    let layout = PairLayout(root: directory)
    var snapshots: [DeviceKind: DaemonSnapshot] = [:]
    var problems: [String] = []
    for device in DeviceKind.allCases {
      do {
        let client = try DeviceClient(socketPath: layout.socket(device), clientName: "healthpair status", timeout: 10)
        defer { client.close() }
        snapshots[device] = try client.dump()
      } catch {
        problems.append("\(device): \(error)")
      }
    }
    if json {
      var fields: [(String, JSON)] = [("dir", .string(directory))]
      for device in DeviceKind.allCases {
        fields.append(
          (
            device.description,
            snapshots[device]?.json
              ?? .object([("error", .string(problems.first { $0.hasPrefix(device.description) } ?? "down"))])
          ))
      }
      if let phone = snapshots[.phone], let watch = snapshots[.watch] {
        let state = PairSyncState(phone: phone.link.sync, watch: watch.link.sync)
        fields.append(("sync", .string(state.rawValue)))
        fields.append(
          (
            "lag",
            .object([
              (
                "phoneToWatch",
                PairSyncState.lag(from: phone.link.sync, to: watch.link.sync).map(JSON.unsigned) ?? .null
              ),
              (
                "watchToPhone",
                PairSyncState.lag(from: watch.link.sync, to: phone.link.sync).map(JSON.unsigned) ?? .null
              ),
            ])
          ))
      }
      out(JSON.object(fields).render() + "\n")
    } else {
      out("HealthPair in \(directory)\n")
      let left = snapshots[.phone]?.describe() ?? ["not running"]
      let right = snapshots[.watch]?.describe() ?? ["not running"]
      out(sideBySide(left: left, right: right) + "\n")
      if let phone = snapshots[.phone], let watch = snapshots[.watch] {
        let state = PairSyncState(phone: phone.link.sync, watch: watch.link.sync)
        func lag(_ value: UInt64?) -> String { value.map { "\($0) entries" } ?? "a restarted log" }
        out(
          "sync: \(state.rawValue) (phone→watch \(lag(PairSyncState.lag(from: phone.link.sync, to: watch.link.sync))), "
            + "watch→phone \(lag(PairSyncState.lag(from: watch.link.sync, to: phone.link.sync))))\n")
      }
    }
    for problem in problems { err("error: \(problem)\n") }
    return problems.count == 2 ? 1 : 0
  }
}
