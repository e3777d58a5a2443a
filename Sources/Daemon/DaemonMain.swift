import HealthModel
import Posix

/// `healthpaird`'s command line: parses arguments, starts the daemon, prints the ready line, serves.
package enum DaemonMain {
  /// The usage text.
  package static let usage = """
    USAGE: healthpaird --device <phone|watch> --dir <dir> [--peer <socket> --pairing-key <file>] [options]

    Runs one simulated device. The client socket <dir>/<device>.sock appears once the daemon is ready, and
    "ready <pid> <socket>" is printed on standard output at the same moment.

    OPTIONS:
      --device <phone|watch>   Which device to be.
      --dir <dir>              The device's own directory (journal, socket, log, lock); created with mode 0700.
      --peer <socket>          The peer link socket: the phone listens on it, the watch connects to it.
      --pairing-key <file>     The pairing secret shared by the two daemons (required with --peer).
      --fsync                  fsync the journal after every append (survives power loss).
      --repair                 Cut a journal damaged in the middle instead of refusing to start.
      --log-level <level>      debug, info (default), warning, error or fault.
      --max-clients <n>        Client connections served at once (default 256); more are refused with an error.
      --max-client-backlog <bytes>
                               Unsent reply bytes a client may leave queued before it is disconnected as too
                               slow (default 67108864, 64 MiB).
      --handshake-timeout <seconds>
                               How long a peer connection may take to complete the pairing handshake before it is
                               closed (default 2). A new peer connection also displaces one still in its handshake.
      --hello-timeout <seconds>
                               How long a client connection may stay open without sending hello before it is closed
                               (default 10).
      --exit-with-parent <pid> Stop (as on SIGTERM) when process <pid>, the launcher, exits: test harnesses use
                               it so a crashed test run leaves no daemons behind.
      --lifeline <fd>          Stop (as on SIGTERM) when descriptor <fd> reaches end of file: the read end of a
                               pipe whose write end only the launcher holds, so it ends when the launcher exits,
                               however it ends (SIGKILL too). The test harness uses it.
      --remove-when-orphaned <root>
                               With --lifeline, <root> containing --dir: when the lifeline ends (the launcher exited
                               without stopping this daemon), remove --dir after stopping, then <root> once it
                               holds nothing but the pairing key (the other device's daemon removed its own).
      --version                Print the version and exit.
      --help                   Show this help.
    """

  /// Runs the daemon with `arguments` (without the program name); returns the exit status.
  package static func main(_ arguments: [String]) -> Int32 {
    if arguments.contains("--help") || arguments.contains("-h") {
      Posix.writeStandardOutput(usage + "\n")
      return 0
    }
    if arguments == ["--version"] {
      Posix.writeStandardOutput("healthpaird \(HealthPairVersion.current)\n")
      return 0
    }
    var device: DeviceKind?
    var directory: String?
    var peer: String?
    var keyFile: String?
    var fsync = false
    var repair = false
    var level = LogLevel.info
    var maxClients = 256
    var maxBacklog = 64 << 20
    var handshakeTimeout = 2.0
    var helloTimeout = 10.0
    var parent: Int32?
    var orphanRoot: String?
    var lifeline: Int32?
    var index = 0
    func fail(_ message: String) -> Int32 {
      Posix.writeStandardError("healthpaird: error: \(message)\n\n\(usage)\n")
      return 64
    }
    while index < arguments.count {
      let argument = arguments[index]
      func value() -> String? {
        index += 1
        return index < arguments.count ? arguments[index] : nil
      }
      switch argument {
      case "--device":
        guard let v = value(), let d = DeviceKind(name: v) else { return fail("--device takes 'phone' or 'watch'") }
        device = d
      case "--dir":
        guard let v = value() else { return fail("missing value for '--dir'") }
        directory = v
      case "--peer":
        guard let v = value() else { return fail("missing value for '--peer'") }
        peer = v
      case "--pairing-key":
        guard let v = value() else { return fail("missing value for '--pairing-key'") }
        keyFile = v
      case "--fsync": fsync = true
      case "--repair": repair = true
      case "--log-level":
        guard let v = value(), let l = LogLevel(name: v) else {
          return fail("--log-level takes debug, info, warning, error or fault")
        }
        level = l
      case "--exit-with-parent":
        guard let v = value(), let pid = Int32(v), pid > 0 else { return fail("--exit-with-parent takes a process id") }
        parent = pid
      case "--lifeline":
        guard let v = value(), let fd = Int32(v), fd > 2 else { return fail("--lifeline takes a descriptor above 2") }
        lifeline = fd
      case "--remove-when-orphaned":
        guard let v = value(), v.hasPrefix("/") else { return fail("--remove-when-orphaned takes an absolute path") }
        orphanRoot = v
      case "--max-clients":
        guard let v = value(), let n = Int(v), n > 0, n <= 65536 else {
          return fail("--max-clients takes an integer in 1...65536")
        }
        maxClients = n
      case "--max-client-backlog":
        guard let v = value(), let n = Int(v), n >= 4096, n <= 1 << 34 else {
          return fail("--max-client-backlog takes a byte count in 4096...17179869184")
        }
        maxBacklog = n
      case "--handshake-timeout", "--hello-timeout":
        guard let v = value(), let seconds = Double(v), seconds >= 0.01, seconds <= 3600 else {
          return fail("\(argument) takes a number of seconds in 0.01...3600")
        }
        if argument == "--handshake-timeout" { handshakeTimeout = seconds } else { helloTimeout = seconds }
      default:
        return fail("unknown argument '\(argument)'")
      }
      index += 1
    }
    guard let device else { return fail("missing '--device'") }
    guard let directory else { return fail("missing '--dir'") }
    if let orphanRoot {
      guard lifeline != nil else { return fail("'--remove-when-orphaned' needs '--lifeline'") }
      guard directory.hasPrefix(orphanRoot + "/") else {
        return fail("'--remove-when-orphaned' takes a directory that contains '--dir'")
      }
    }
    var key: [UInt8] = []
    if peer != nil {
      guard let keyFile else { return fail("'--peer' needs '--pairing-key'") }
      do { key = try Posix.readFile(keyFile, limit: 4096) } catch {
        Posix.writeStandardError("healthpaird: cannot read the pairing key: \(error)\n")
        return 66
      }
      guard key.count >= 16 else {
        Posix.writeStandardError("healthpaird: the pairing key in \(keyFile) is too short (\(key.count) bytes)\n")
        return 66
      }
    }
    var options = DaemonOptions(device: device, directory: directory, peerSocket: peer, pairingKey: key)
    options.fsync = fsync
    options.repair = repair
    options.logLevel = level
    options.maxClients = maxClients
    options.maxClientBacklog = maxBacklog
    options.handshakeTimeout = handshakeTimeout
    options.helloTimeout = helloTimeout
    options.lifeline = lifeline
    Posix.ignoreBrokenPipe()
    if let parent, !Posix.exitWithParent(parent) {
      Posix.writeStandardError("healthpaird (\(device)): the launching process \(parent) is already gone\n")
      return 0
    }
    let daemon: DeviceDaemon
    do { daemon = try DeviceDaemon(options: options) } catch {
      Posix.writeStandardError("healthpaird (\(device)): \(error)\n")
      if case .alreadyRunning = error { return 75 }
      if case .journal = error { return 65 }
      return 71
    }
    Posix.writeStandardOutput("ready \(Posix.processID) \(options.socketPath)\n")
    let status = daemon.run()
    // The launcher died without stopping us, so nobody else cleans up.
    if daemon.launcherExited, let orphanRoot { removeOrphaned(directory, root: orphanRoot, keeping: keyFile) }
    return status
  }

  /// Removes a device directory the dead launcher owned, then the pair's root once nothing but the pairing key
  /// (`key`) is left in it. Each daemon removes its own directory before looking, so whichever looks last sees both
  /// gone.
  static func removeOrphaned(_ directory: String, root: String, keeping key: String?) {
    Posix.removeTree(directory)
    guard let names = try? Posix.listDirectory(root), names.allSatisfy({ "\(root)/\($0)" == key }) else { return }
    Posix.removeTree(root)
  }
}
