import CommandLineKit
import DeviceCore
import HealthModel
import Posix

/// `healthpaird`'s command line: parses arguments, starts the daemon, prints the ready line, serves.
package enum DaemonMain {
  /// The program: one command, with `--help` and `--version` answered the way every HealthPair executable does.
  package static var program: CommandProgram {
    CommandProgram(command: DaemonCommand.self, version: HealthPairVersion.current)
  }

  /// Runs the daemon with `arguments` (without the program name); returns the exit status.
  package static func main(_ arguments: [String]) -> Int32 {
    program.main(arguments, standardOutput: Posix.writeStandardOutput, standardError: Posix.writeStandardError)
  }
}

/// `healthpaird`: one simulated device. Its flags are what `Pair` (PairProcesses) launches it with; a repeated
/// option takes its last value, so a launcher's extra arguments can override the ones it always passes.
package struct DaemonCommand: ParsableCommand {
  /// The command's description.
  package static let configuration = CommandConfiguration(
    program: "healthpaird",
    abstract: "Run one simulated device (phone or watch) of a HealthPair: its journal, client socket and peer link.",
    usage: "--device <phone|watch> --dir <dir> [--peer <socket> --pairing-key <file>] [options]",
    discussion: """
      The client socket <dir>/<device>.sock appears once the daemon is ready, and "ready <pid> <socket>" is
      printed on standard output at the same moment. SIGTERM or SIGINT stops it cleanly.

      OPTIONS:
        --device <phone|watch>   Which device to be.
        --dir <dir>              The device's own directory (journal, socket, log, lock); created with mode 0700.
                                 It and every file in it must be this user's and writable by nobody else.
        --peer <socket>          The peer link socket: the phone listens on it, the watch connects to it.
        --pairing-key <file>     The pairing secret shared by the two daemons (required with --peer).
        --fsync                  fsync the journal after every append (survives power loss).
        --repair                 Cut a journal damaged in the middle instead of refusing to start.
        --log-level <level>      debug, info (default), warning, error or fault.
        --max-clients <n>        Client connections served at once (default 256); more are refused with an error.
                                 Lowered, and said in the log, when the descriptor limit (RLIMIT_NOFILE) is smaller.
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
        --zygote <fd>            Instead of being a device, fork devices: serve the launcher's spawn requests on
                                 descriptor <fd> (a SOCK_SEQPACKET socket) until it closes. Each request carries
                                 a device's arguments and its standard descriptors; the new process is this one,
                                 already loaded, so it starts in a fraction of an exec. The test harness uses it.
        --version                Print the version and exit.
        --help                   Show this help.

      EXIT STATUS: 0 stopped cleanly, 64 usage, 65 the journal is damaged (see --repair), 66 the pairing key
      cannot be read, 70 an internal error, 71 the daemon could not start, 74 the journal could not be written,
      75 another daemon holds the directory's lock.
      """)

  /// What to run.
  package var options: DaemonOptions
  /// The pairing key file (`--pairing-key`), read when the daemon starts.
  package var keyFile: String?
  /// `--exit-with-parent`.
  package var parent: Int32?
  /// `--remove-when-orphaned`.
  package var orphanRoot: String?
  /// `--zygote`: the control socket to serve spawn requests on, instead of being a device.
  package var zygote: Int32?

  /// Parses the arguments.
  package init(_ arguments: [String]) throws {
    var args = try Arguments(arguments, configuration: Self.configuration)
    /// The last value of a repeated option.
    func last(_ name: String) throws(UsageError) -> String? { try args.options(name).last }
    func number<T: LosslessStringConvertible & Comparable>(
      _ name: String, _ range: ClosedRange<T>, _ what: String
    ) throws(UsageError) -> T? {
      guard let text = try last(name) else { return nil }
      guard let value = T(text), range.contains(value) else {
        throw args.error("invalid value '\(text)' for '--\(name)': expected \(what)")
      }
      return value
    }
    let deviceName = try last("device")
    let directory = try last("dir")
    let peer = try last("peer")
    keyFile = try last("pairing-key")
    let fsync = args.flag("fsync")
    let repair = args.flag("repair")
    var level = LogLevel.info
    if let name = try last("log-level") {
      guard let parsed = LogLevel(name: name) else {
        throw args.error("invalid value '\(name)' for '--log-level': expected debug, info, warning, error or fault")
      }
      level = parsed
    }
    parent = try number("exit-with-parent", 1...Int32.max, "a process id")
    let lifeline = try number("lifeline", 3...Int32.max, "a descriptor above 2")
    orphanRoot = try last("remove-when-orphaned")
    let maxClients = try number("max-clients", 1...65536, "an integer in 1...65536")
    let maxBacklog = try number("max-client-backlog", 4096...(1 << 34), "a byte count in 4096...17179869184")
    let handshakeTimeout = try number("handshake-timeout", 0.01...3600.0, "a number of seconds in 0.01...3600")
    let helloTimeout = try number("hello-timeout", 0.01...3600.0, "a number of seconds in 0.01...3600")
    zygote = try number("zygote", 3...Int32.max, "a descriptor above 2")
    try args.finish()
    if zygote != nil {
      guard deviceName == nil, directory == nil, peer == nil else {
        throw args.error("'--zygote' forks devices and takes no device options ('--device', '--dir', '--peer')")
      }
      options = DaemonOptions(device: .phone, directory: "", peerSocket: nil, pairingKey: [])
      return
    }
    guard let deviceName else { throw args.error("missing '--device'") }
    guard let device = DeviceKind(name: deviceName) else {
      throw args.error("invalid value '\(deviceName)' for '--device': expected 'phone' or 'watch'")
    }
    guard let directory else { throw args.error("missing '--dir'") }
    if let orphanRoot {
      guard orphanRoot.hasPrefix("/") else {
        throw args.error("invalid value '\(orphanRoot)' for '--remove-when-orphaned': expected an absolute path")
      }
      guard lifeline != nil else { throw args.error("'--remove-when-orphaned' needs '--lifeline'") }
      guard directory.hasPrefix(orphanRoot + "/") else {
        throw args.error("'--remove-when-orphaned' takes a directory that contains '--dir'")
      }
    }
    if peer != nil, keyFile == nil { throw args.error("'--peer' needs '--pairing-key'") }
    options = DaemonOptions(device: device, directory: directory, peerSocket: peer, pairingKey: [])
    options.fsync = fsync
    options.repair = repair
    options.logLevel = level
    if let maxClients { options.maxClients = maxClients }
    if let maxBacklog { options.maxClientBacklog = maxBacklog }
    if let handshakeTimeout { options.handshakeTimeout = handshakeTimeout }
    if let helloTimeout { options.helloTimeout = helloTimeout }
    options.lifeline = lifeline
  }

  /// Reads the pairing key, starts the daemon, prints the ready line and serves until stopped.
  package func run() -> Int32 {
    if let zygote { return DaemonMain.serveAsZygote(control: zygote) }
    var options = self.options
    let device = options.device
    if options.peerSocket != nil, let keyFile {
      let key: [UInt8]
      do { key = try Posix.readOwnFile(keyFile, limit: 4096) } catch {
        Posix.writeStandardError("healthpaird: cannot read the pairing key: \(error)\n")
        return 66
      }
      guard key.count >= 16 else {
        Posix.writeStandardError("healthpaird: the pairing key in \(keyFile) is too short (\(key.count) bytes)\n")
        return 66
      }
      options.pairingKey = key
    }
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
    if daemon.launcherExited, let orphanRoot {
      DaemonMain.removeOrphaned(options.directory, root: orphanRoot, keeping: keyFile)
    }
    return status
  }
}

extension DaemonMain {
  /// Serves as the zygote (`--zygote`): forks a daemon for each spawn request on `control`, each running
  /// ``main(_:)`` with the request's arguments, until the launcher closes the socket. This process stays
  /// single-threaded (nothing here starts a thread), so every fork is a whole, loaded daemon-to-be.
  static func serveAsZygote(control: Int32) -> Int32 {
    warmUp()
    do {
      try Posix.serveAsZygote(control: control, program: "healthpaird") { argc, argv in
        var arguments: [String] = []
        for index in 1..<max(1, Int(argc)) {
          if let argument = argv?[index] { arguments.append(String(cString: argument)) }
        }
        return DaemonMain.main(arguments)
      }
      return 0
    } catch {
      Posix.writeStandardError("healthpaird: cannot serve as a zygote: \(error)\n")
      return 71
    }
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
