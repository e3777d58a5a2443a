import Dispatch
import FoundationEssentials
import HealthEngine
import HealthModel
import Posix
import Synchronization
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// Where a pair's files live: `<root>/phone/`, `<root>/watch/`, the peer socket and the pairing key.
package struct PairLayout: Sendable {
  /// The pair's directory.
  package var root: String
  /// Creates a layout rooted at `root`.
  package init(root: String) { self.root = root }
  /// A device's own directory.
  package func directory(_ device: DeviceKind) -> String { "\(root)/\(device)" }
  /// A device's client socket.
  package func socket(_ device: DeviceKind) -> String { "\(directory(device))/\(device).sock" }
  /// A device's log.
  package func log(_ device: DeviceKind) -> String { "\(directory(device))/\(device).log" }
  /// A device's journal.
  package func journal(_ device: DeviceKind) -> String { "\(directory(device))/\(device).journal" }
  /// A device's lock file (holds its pid).
  package func lock(_ device: DeviceKind) -> String { "\(directory(device))/\(device).lock" }
  /// Where a device's standard error goes.
  package func stderr(_ device: DeviceKind) -> String { "\(directory(device))/\(device).stderr" }
  /// The peer link socket (the phone listens on it).
  package var peerSocket: String { "\(directory(.phone))/peer.sock" }
  /// The pairing secret, mode 0600.
  package var pairingKey: String { "\(root)/pairing.key" }
  /// How `healthpair up` launched the daemons, so one can be restarted the same way (``LaunchOptions/recorded(in:)``).
  package var launchOptions: String { "\(root)/launch.options" }

  /// The pid of `device`'s daemon when one answers `hello` on its socket within `timeout` seconds, else nil. The
  /// lock file's pid alone proves nothing: a killed daemon leaves it (and its socket file) behind.
  package func runningDaemon(_ device: DeviceKind, timeout: Double = 5) -> Int32? {
    guard Posix.exists(socket(device)),
      let client = try? DeviceClient(socketPath: socket(device), clientName: "healthpair probe", timeout: timeout)
    else { return nil }
    defer { client.close() }
    return client.daemonPID
  }
}

/// Why a pair could not be started or controlled.
package enum PairError: Error, CustomStringConvertible, Sendable {
  /// No usable daemon executable: where the search looked and what to do.
  case daemonNotFound(String)
  /// A daemon exited before it was ready; its standard error says why.
  case daemonFailed(device: DeviceKind, status: String, stderr: String)
  /// A condition was not reached before the deadline.
  case timeout(String)
  /// A system call failed.
  case system(SystemError)
  /// A call to a daemon failed.
  case client(ClientError)
  /// The directory holds no pair to restart a daemon of.
  case notAPair(root: String)
  /// The process was interrupted by `signal` (``Interruption``): no pair starts any more.
  case interrupted(signal: Int32)

  /// A one-line description.
  package var description: String {
    switch self {
    case .daemonNotFound(let why): "cannot find the healthpaird executable: \(why)"
    case .daemonFailed(let device, let status, let stderr):
      "the \(device) daemon exited before it was ready (\(status)): \(stderr.trimmingWhitespace())"
    case .timeout(let what): "timed out waiting for \(what)"
    case .system(let e): "\(e)"
    case .client(let e): "\(e)"
    case .notAPair(let root): "\(root) holds no pair (no pairing.key); start one with 'healthpair up'"
    case .interrupted(let signal): "interrupted by \(Interruption.name(of: signal))"
    }
  }
}

/// Options for launching daemons.
package struct LaunchOptions: Sendable {
  /// `--fsync`.
  package var fsync = false
  /// `--log-level`.
  package var logLevel = "info"
  /// Let the processes outlive the launcher (`healthpair up`). Otherwise each daemon stops when the launching
  /// process exits, even if it crashes. Either way daemons run in a process group of their own, so a terminal's
  /// SIGINT reaches only the launcher, which stops them in order (``Interruption``).
  package var detach = false
  /// How long to wait for a daemon's ready line, seconds.
  package var readyTimeout = 20.0
  /// Extra arguments for both daemons.
  package var extraArguments: [String] = []
  /// Fork daemons from a ``DaemonZygote`` (when ``DaemonZygote/isEnabled(_:)`` and not ``detach``); false always
  /// spawns (`exec`), which the start-up benchmark measures as the cold start.
  package var useZygote = true
  /// Creates default options.
  package init() {}

  /// The options `record(in:)` wrote for the pair in `layout` (defaults for those it did not write).
  package static func recorded(in layout: PairLayout) -> LaunchOptions {
    var options = LaunchOptions()
    guard let bytes = try? Posix.readOwnFile(layout.launchOptions, limit: 4096) else { return options }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2 else { continue }
      switch parts[0] {
      case "fsync": options.fsync = parts[1] == "true"
      case "log-level": options.logLevel = parts[1]
      default: continue
      }
    }
    return options
  }

  /// Writes the options a restart must reuse (`fsync`, `log-level`) to ``PairLayout/launchOptions``.
  package func record(in layout: PairLayout) throws(SystemError) {
    let text = "fsync=\(fsync)\nlog-level=\(logLevel)\n"
    try Posix.writeFileAtomically(layout.launchOptions, Array(text.utf8), mode: 0o600)
  }
}

/// A running daemon process started by this process.
package final class DaemonProcess: Sendable {
  /// The device.
  package let device: DeviceKind
  /// The process id.
  package let pid: pid_t
  private let reaped = Mutex<Posix.ExitStatus?>(nil)
  private let isChild: Bool
  /// For a daemon a zygote forked: the zygote (which knows its exit status) and a pidfd (to signal and wait on it).
  private let forked: Forked?

  /// A daemon a ``DaemonZygote`` forked.
  private final class Forked: Sendable {
    let zygote: DaemonZygote
    let pidfd: FileDescriptor
    init(zygote: DaemonZygote, pidfd: consuming FileDescriptor) {
      self.zygote = zygote
      self.pidfd = pidfd
    }
  }

  init(device: DeviceKind, pid: pid_t, isChild: Bool) {
    self.device = device
    self.pid = pid
    self.isChild = isChild
    forked = nil
  }

  private init(device: DeviceKind, pid: pid_t, zygote: DaemonZygote, pidfd: consuming FileDescriptor) {
    self.device = device
    self.pid = pid
    isChild = false
    forked = Forked(zygote: zygote, pidfd: pidfd)
  }

  /// Whether a zygote forked this daemon (rather than `posix_spawn`).
  package var wasForked: Bool { forked != nil }

  /// Sends a signal.
  package func signal(_ signal: Int32) {
    if let forked { try? Posix.pidfdSignal(forked.pidfd.rawValue, signal) } else { try? Posix.kill(pid, signal) }
  }

  /// Waits up to `timeout` seconds for the process to exit; returns how it ended (nil for a process that is neither
  /// this one's child nor a zygote's, or on timeout).
  @discardableResult
  package func waitForExit(timeout: Double) -> Posix.ExitStatus? {
    if let done = reaped.withLock({ $0 }) { return done }
    let milliseconds = Int32(min(timeout, 1e6) * 1000)
    if let forked {
      guard Posix.pidfdExited(forked.pidfd.rawValue, timeoutMilliseconds: milliseconds) else { return nil }
      return record(forked.zygote.exitStatus(of: pid))
    }
    guard Posix.waitForExit(pid, timeoutMilliseconds: milliseconds) else { return nil }
    guard isChild else { return nil }
    return record(try? Posix.wait(pid, block: true))
  }

  /// How the process ended, if it has (reaps a child without blocking).
  package var exitStatus: Posix.ExitStatus? {
    if let done = reaped.withLock({ $0 }) { return done }
    if let forked {
      guard Posix.pidfdExited(forked.pidfd.rawValue, timeoutMilliseconds: 0) else { return nil }
      return record(forked.zygote.exitStatus(of: pid))
    }
    guard isChild else { return nil }
    return record(try? Posix.wait(pid, block: false))
  }

  /// Keeps `status` (once known) for later calls.
  private func record(_ status: Posix.ExitStatus?) -> Posix.ExitStatus? {
    if let status { reaped.withLock { $0 = status } }
    return status
  }

  /// Spawns `healthpaird` for `device` in `layout` and returns once it printed its ready line.
  ///
  /// When `daemon` is this process's own executable, it is launched as the embedded daemon (see
  /// ``locateDaemon()``). With `ownsRoot` (and not `detach`), the daemon removes its directory, and the pair's
  /// once the other device's is gone, if this process dies without stopping it.
  package static func start(
    _ device: DeviceKind, layout: PairLayout, daemon: String, options: LaunchOptions, ownsRoot: Bool = false
  ) throws(PairError) -> DaemonProcess {
    var launching: pid_t?
    do {
      try Posix.makeDirectory(layout.directory(device), mode: 0o700)
      // Owned ends: each is closed exactly once, on every way out.
      let ready = try Posix.pipe()
      let readEnd = FileDescriptor(ready.read)
      let writeEnd = FileDescriptor(ready.write)
      let errFile = FileDescriptor(try Posix.openOwnFile(layout.stderr(device), O_WRONLY | O_TRUNC, mode: 0o600))
      let null = FileDescriptor(Posix.devNull())
      var arguments = [
        "--device", device.description, "--dir", layout.directory(device), "--peer", layout.peerSocket,
        "--pairing-key", layout.pairingKey, "--log-level", options.logLevel,
      ]
      if options.fsync { arguments.append("--fsync") }
      var descriptors: [Int32: Int32] = [:]
      if !options.detach {
        // The daemon stops when this process exits, however it ends (SIGKILL too): it watches the lifeline.
        descriptors[Lifeline.childDescriptor] = try Lifeline.readEnd()
        arguments += ["--lifeline", String(Lifeline.childDescriptor)]
        if ownsRoot { arguments += ["--remove-when-orphaned", layout.root] }
      }
      arguments += options.extraArguments
      // A zygote forks the daemon when one runs (a fraction of an exec); otherwise, or if it fails, spawn.
      var forked: DaemonProcess?
      if options.useZygote, !options.detach, let zygote = DaemonZygote.shared(for: daemon) {
        do {
          let spawned = try zygote.spawn(
            arguments, stdin: null.rawValue, stdout: writeEnd.rawValue, stderr: errFile.rawValue,
            timeout: options.readyTimeout)
          forked = DaemonProcess(device: device, pid: spawned.pid, zygote: zygote, pidfd: spawned.pidfd)
        } catch {}
      }
      let process: DaemonProcess
      if let forked {
        process = forked
      } else {
        let (stdout, stderr, stdin) = (writeEnd.rawValue, errFile.rawValue, null.rawValue)
        let argv = arguments
        let inherited = descriptors
        let (path, environment) = daemonExecutable(daemon)
        let pid = try Spawner.shared.run { () throws(SystemError) in
          try Posix.spawn(
            path, argv, stdout: stdout, stderr: stderr, stdin: stdin, descriptors: inherited,
            extraEnvironment: environment, newProcessGroup: true)
        }
        process = DaemonProcess(device: device, pid: pid, isChild: true)
      }
      // Only the daemon holds the write end now: its exit is the end of the stream.
      writeEnd.close()
      // An interruption stops it, ready or not, until its pair holds it (``Interruption/launched(_:)``).
      guard Interruption.launching(process) else {
        process.signal(SIGKILL)
        process.waitForExit(timeout: 5)
        throw PairError.interrupted(signal: Interruption.signal ?? SIGINT)
      }
      launching = process.pid
      var line: [UInt8] = []
      var byte = [UInt8](repeating: 0, count: 256)
      let deadline = Posix.monotonicNanoseconds() + UInt64(options.readyTimeout * 1e9)
      while !line.contains(UInt8(ascii: "\n")) {
        let now = Posix.monotonicNanoseconds()
        guard now < deadline else {
          process.signal(SIGKILL)
          process.waitForExit(timeout: 5)
          throw PairError.timeout("the \(device) daemon to become ready")
        }
        guard Posix.waitReadable(readEnd.rawValue, timeoutMilliseconds: Int32((deadline - now) / 1_000_000) + 1) else {
          continue
        }
        let result = try byte.withUnsafeMutableBytes { b in
          catching { () throws(SystemError) in try Posix.read(readEnd.rawValue, into: b) }
        }.get()
        guard case .bytes(let n) = result else {
          let status = process.waitForExit(timeout: 5)
          let stderr = (try? Posix.readOwnFile(layout.stderr(device))).map { String(decoding: $0, as: UTF8.self) } ?? ""
          throw PairError.daemonFailed(device: device, status: status?.description ?? "still running", stderr: stderr)
        }
        line += byte[0..<n]
      }
      return process
    } catch let error as PairError {
      launching.map(Interruption.launched)
      throw error
    } catch let error as SystemError {
      launching.map(Interruption.launched)
      throw .system(error)
    } catch {
      launching.map(Interruption.launched)
      throw .system(SystemError("spawn", daemon, Errno(rawValue: EIO)))
    }
  }
}

/// What to execute for `daemon`, and the environment to add: this process's own binary (``locateDaemon()``'s
/// embedded daemon) runs as `/proc/self/exe` with ``Posix/embeddedDaemonVariable`` set; any other path as it is.
func daemonExecutable(_ daemon: String) -> (path: String, environment: [String: String]) {
  daemon == Posix.executablePath() ? (Posix.ownExecutable, [Posix.embeddedDaemonVariable: "1"]) : (daemon, [:])
}

/// The pipe that tells this process's daemons it has exited: this process holds both ends for its whole life
/// (close-on-exec, so no other child inherits the write end); each daemon gets the read end as descriptor 3 and
/// `--lifeline 3`. When the process exits — returning, crashing or killed with SIGKILL — the kernel closes the
/// write end and every daemon reads end of file, stops, and (`--remove-when-orphaned`) removes the pair's
/// directory.
///
/// Unlike `--exit-with-parent` (`PR_SET_PDEATHSIG`), which fires when the spawning *thread* exits, this fires only
/// once the whole process is gone: with SIGKILL the threads die in any order, so a parent-death signal can come
/// while the launcher is still half alive, and the daemon could not tell it from the harness's own SIGTERM.
package enum Lifeline {
  /// The descriptor number the read end has in each daemon.
  package static let childDescriptor: Int32 = 3

  private static let pipe = Mutex<(read: Int32, write: Int32)?>(nil)

  /// The read end, creating the pipe on first use.
  /// - Throws: `SystemError` from `pipe2`.
  package static func readEnd() throws(SystemError) -> Int32 {
    try pipe.withLock { ends throws(SystemError) -> Int32 in
      if let ends { return ends.read }
      let created = try Posix.pipe()
      ends = created
      return created.read
    }
  }
}

/// What ``restartDaemon(_:layout:daemon:options:)`` did.
package struct RestartReport: Sendable {
  /// The pid of the daemon it stopped first, when one was running.
  package var stopped: Int32?
  /// The pid of the daemon it started.
  package var started: Int32
  /// Whether the other device was running, and so whether the link was waited for.
  package var peerRunning: Bool
}

/// Starts `device`'s daemon alone, in the background, in the existing pair at `layout` — stopping it first
/// (SIGTERM) if it is running — and waits until it is ready and, when the other device runs, linked to it. For a
/// pair started with `healthpair up` whose daemon crashed or was killed.
package func restartDaemon(
  _ device: DeviceKind, layout: PairLayout, daemon: String? = nil, options: LaunchOptions
) throws(PairError) -> RestartReport {
  guard Posix.exists(layout.pairingKey) else { throw .notAPair(root: layout.root) }
  do { try layout.checkOwned() } catch { throw .system(error) }
  let executable: String
  if let daemon { executable = daemon } else { executable = try locateDaemon() }
  let stopped = layout.runningDaemon(device)
  if let pid = stopped {
    try? Posix.kill(pid, SIGTERM)
    guard Posix.waitForExit(pid, timeoutMilliseconds: 10_000) else {
      throw .timeout("the running \(device) daemon (pid \(pid)) to stop")
    }
  }
  var options = options
  options.detach = true
  let process = try DaemonProcess.start(device, layout: layout, daemon: executable, options: options)
  // Detached, it outlives this process once linked; interrupted before, it is stopped.
  defer { Interruption.launched(process.pid) }
  let peerRunning = layout.runningDaemon(device.peer) != nil
  if peerRunning {
    let client: DeviceClient
    do { client = try DeviceClient(socketPath: layout.socket(device), clientName: "healthpair restart") } catch {
      throw .client(error)
    }
    defer { client.close() }
    try waitForLink(client, timeout: options.readyTimeout)
  }
  return RestartReport(stopped: stopped, started: process.pid, peerRunning: peerRunning)
}

/// Waits until `client`'s daemon reports its peer link up, re-checking whenever it pushes a link event.
package func waitForLink(_ client: DeviceClient, timeout: Double) throws(PairError) {
  let gate = DispatchSemaphore(value: 0)
  let token = client.addListener { event in
    if case .linkChanged = event { gate.signal() }
  }
  defer { client.removeListener(token) }
  let deadline = DispatchTime.now() + timeout
  do { try client.subscribe(.link) } catch { throw .client(error) }
  func connected() throws(PairError) -> Bool {
    do { return try client.link(.reconnectNow).connected } catch { throw .client(error) }
  }
  while true {
    if try connected() { return }
    if gate.wait(timeout: deadline) == .timedOut {
      if try connected() { return }
      throw .timeout("the peer link")
    }
  }
}

/// Runs every daemon spawn on one thread that lives as long as the process.
///
/// A daemon started with `--exit-with-parent` is signalled when the *thread* that spawned it exits (that is how
/// `PR_SET_PDEATHSIG` works), so spawning from a short-lived worker or pool thread could stop it early. (Pairs now
/// use the ``Lifeline``; the one thread still keeps spawns in order.)
final class Spawner: Sendable {
  static let shared = Spawner()
  private let jobs = Mutex<[@Sendable () -> Void]>([])
  private let wake = DispatchSemaphore(value: 0)

  private init() {
    Posix.startThread { [self] in
      while true {
        wake.wait()
        let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        job?()
      }
    }
  }

  /// Runs `body` on the spawner thread and returns its result; gives up with `ETIMEDOUT` after `timeout` seconds
  /// (a spawn takes milliseconds: only a wedged system gets there).
  func run<T: Sendable>(timeout: Double = 30, _ body: @escaping @Sendable () throws(SystemError) -> T)
    throws(SystemError) -> T
  {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<T, SystemError>?>(nil)
    jobs.withLock {
      $0.append {
        let outcome: Result<T, SystemError> = catching(body)
        result.withLock { $0 = outcome }
        done.signal()
      }
    }
    wake.signal()
    guard done.wait(timeout: .now() + timeout) == .success, let outcome = result.withLock({ $0 }) else {
      throw SystemError("spawn (on the spawner thread)", "no result within \(timeout) s", Errno(rawValue: ETIMEDOUT))
    }
    return try outcome.get()
  }
}

/// A running phone + watch pair: processes, clients, and the conditions tests wait on.
package final class Pair: Sendable {
  /// Where the pair's files are.
  package let layout: PairLayout
  /// The daemon executable.
  package let daemon: String
  /// How daemons are started.
  package let options: LaunchOptions
  /// Whether shutting down removes the directory (cleared by ``keepDirectory()`` and ``release()``, from any thread).
  private let ownsDirectory: Atomic<Bool>
  /// Whether this pair created its directory (its daemons then remove it if this process dies).
  private let createdDirectory: Bool
  private let state = Mutex<State>(State())
  private struct State {
    var processes: [DeviceKind: DaemonProcess] = [:]
    var clients: [DeviceKind: DeviceClient] = [:]
    /// Events the pair's own clients stay subscribed to whatever a wait asks for (``keepSubscribed(_:)``).
    var standing: EventMask = []
  }

  /// Starts a fresh pair in `root` (a new temporary directory when nil) and waits until both daemons are ready and
  /// linked; its clients are then subscribed to `standing` (and the link's events) and stay so
  /// (``keepSubscribed(_:)``).
  package init(
    root: String? = nil, daemon: String? = nil, options: LaunchOptions = LaunchOptions(),
    subscribedTo standing: EventMask = []
  ) throws(PairError) {
    if let daemon { self.daemon = daemon } else { self.daemon = try locateDaemon() }
    self.options = options
    do throws(SystemError) {
      if let root {
        try Posix.makeDirectory(root, mode: 0o700)
        self.layout = PairLayout(root: root)
        ownsDirectory = Atomic(false)
      } else {
        TemporaryPairDirectories.sweepOnce()
        self.layout = PairLayout(root: try TemporaryPairDirectories.make())
        ownsDirectory = Atomic(true)
      }
      createdDirectory = ownsDirectory.load(ordering: .relaxed)
      try layout.checkOwned()
      try Posix.chmod(layout.root, 0o700)
      if !Posix.exists(layout.pairingKey) {
        let secret = Posix.randomBytes(32).map { String($0, radix: 16).leftPadded(2) }.joined()
        try Posix.writeFileAtomically(layout.pairingKey, Array(secret.utf8), mode: 0o600)
      }
    } catch { throw .system(error) }
    keepSubscribed(standing)
    guard Interruption.register(self) else {
      shutdown()
      throw .interrupted(signal: Interruption.signal ?? SIGINT)
    }
    do throws(PairError) {
      try start(.phone)
      try start(.watch)
      try waitLinked(timeout: options.readyTimeout)
    } catch {
      shutdown()
      throw error
    }
  }

  /// The client connected to `device`.
  package func client(_ device: DeviceKind) -> DeviceClient { state.withLock { $0.clients[device]! } }
  /// The client connected to `device`, or nil once the pair has been shut down or discarded.
  package func clientIfRunning(_ device: DeviceKind) -> DeviceClient? { state.withLock { $0.clients[device] } }
  /// The phone's client.
  package var phone: DeviceClient { client(.phone) }
  /// The watch's client.
  package var watch: DeviceClient { client(.watch) }
  /// The process of `device`.
  package func process(_ device: DeviceKind) -> DaemonProcess? { state.withLock { $0.processes[device] } }

  /// Starts `device`'s daemon (with `extraArguments` added for this start only) and connects a client to it.
  package func start(_ device: DeviceKind, extraArguments: [String] = []) throws(PairError) {
    var options = self.options
    options.extraArguments += extraArguments
    let process = try DaemonProcess.start(
      device, layout: layout, daemon: daemon, options: options, ownsRoot: createdDirectory)
    let client: DeviceClient
    do { client = try DeviceClient(socketPath: layout.socket(device), clientName: "pair-\(device)") } catch {
      process.signal(SIGKILL)
      Interruption.launched(process.pid)
      throw .client(error)
    }
    state.withLock {
      $0.processes[device] = process
      $0.clients[device]?.close()
      $0.clients[device] = client
    }
    Interruption.launched(process.pid)
    // A daemon started while the process was being interrupted is stopped by the caller's shutdown.
    if let signal = Interruption.signal { throw .interrupted(signal: signal) }
  }

  /// Kills `device`'s daemon with SIGKILL (no chance to flush or clean up) and waits until it is gone.
  package func kill(_ device: DeviceKind) {
    guard let process = process(device) else { return }
    process.signal(SIGKILL)
    process.waitForExit(timeout: 10)
  }

  /// Stops `device`'s daemon with SIGTERM and returns its exit status.
  @discardableResult
  package func stop(_ device: DeviceKind, timeout: Double = 10) -> Posix.ExitStatus? {
    guard let process = process(device) else { return nil }
    process.signal(SIGTERM)
    return process.waitForExit(timeout: timeout)
  }

  /// Restarts `device` (after `kill` or `stop`), then waits for the link.
  package func restart(_ device: DeviceKind, waitForLink: Bool = true, extraArguments: [String] = []) throws(PairError)
  {
    try start(device, extraArguments: extraArguments)
    if waitForLink { try waitLinked(timeout: options.readyTimeout) }
  }

  /// Keeps the pair's clients subscribed to `mask` from now on: a wait (``wait(for:timeout:mask:_:)``) subscribes
  /// them to its own mask and this one, instead of narrowing the subscription to its own (the scenario runner's
  /// trace collects every event on these connections). The caller subscribes the clients to `mask` itself.
  package func keepSubscribed(_ mask: EventMask) { state.withLock { $0.standing = mask } }

  /// Waits until `condition` holds, re-checking whenever either daemon pushes an event of `mask`.
  package func wait(
    for what: String, timeout: Double, mask: EventMask = .all, _ condition: () throws -> Bool
  ) throws(PairError) {
    let gate = DispatchSemaphore(value: 0)
    let listeners = [DeviceKind.phone, .watch].map { device -> (DeviceClient, UInt64) in
      let client = client(device)
      return (client, client.addListener { event in if mask.contains(event.subscriptionMask) { gate.signal() } })
    }
    // An interruption wakes the wait, which then ends (the pair is being shut down).
    let interruption = Interruption.onInterrupt { gate.signal() }
    defer {
      Interruption.cancel(interruption)
      for (client, token) in listeners { client.removeListener(token) }
    }
    let subscription = mask.union(state.withLock { $0.standing })
    do {
      for (client, _) in listeners { try client.subscribe(subscription) }
      let deadline = DispatchTime.now() + timeout
      while true {
        if try condition() { return }
        if let signal = Interruption.signal { throw PairError.interrupted(signal: signal) }
        let timedOut = gate.wait(timeout: deadline) == .timedOut
        if let signal = Interruption.signal { throw PairError.interrupted(signal: signal) }
        if timedOut {
          if try condition() { return }
          throw PairError.timeout(what)
        }
      }
    } catch let error as PairError {
      throw error
    } catch let error as ClientError {
      throw .client(error)
    } catch {
      throw .timeout("\(what) (\(error))")
    }
  }

  /// Waits until both sides report the link up.
  package func waitLinked(timeout: Double) throws(PairError) {
    try wait(for: "the peer link", timeout: timeout, mask: .link) { () throws -> Bool in
      let watch = try self.watch.link(.reconnectNow)
      let phone = try self.phone.link(.reconnectNow)
      return watch.connected && phone.connected
    }
  }

  /// Waits until each device has applied everything the other logged.
  package func waitSynced(timeout: Double) throws(PairError) {
    try wait(for: "sync to complete", timeout: timeout, mask: [.sync, .link]) { () throws -> Bool in
      let phone = try self.phone.link(.reconnectNow).sync
      let watch = try self.watch.link(.reconnectNow).sync
      return phone.isSynced(with: watch)
    }
  }

  /// Stops both daemons (SIGTERM, then SIGKILL if needed) and removes the directory if this pair created it.
  package func shutdown() { stop(forgetting: true) }

  /// What ``Interruption`` does to a live pair: ``shutdown()``, but its closed connections stay, so whoever uses
  /// the pair meanwhile gets `disconnected` errors rather than finding no client.
  func interrupt() { stop(forgetting: false) }

  private func stop(forgetting: Bool) {
    Interruption.deregister(self)
    let (processes, clients) = state.withLock { s in
      defer {
        if forgetting {
          s.processes.removeAll()
          s.clients.removeAll()
        }
      }
      return (Array(s.processes.values), Array(s.clients.values))
    }
    for client in clients { client.close() }
    for process in processes where process.exitStatus == nil { process.signal(SIGTERM) }
    for process in processes where process.waitForExit(timeout: 10) == nil {
      process.signal(SIGKILL)
      process.waitForExit(timeout: 10)
    }
    if ownsDirectory.load(ordering: .acquiring) { Posix.removeTree(layout.root) }
  }

  /// Whether shutting down keeps the directory (``keepDirectory()``, ``release()``, or a directory given at launch).
  package var keepsDirectory: Bool { !ownsDirectory.load(ordering: .acquiring) }

  /// Ends the pair at once: closes the connections, kills both daemons with SIGKILL, reaps them and removes the
  /// directory if this pair owns it — for a pair whose journals nobody will read again (a graceful stop flushes
  /// and may write a snapshot first: ``shutdown()``).
  package func discard() {
    Interruption.deregister(self)
    let (processes, clients) = state.withLock { s in
      defer {
        s.processes.removeAll()
        s.clients.removeAll()
      }
      return (Array(s.processes.values), Array(s.clients.values))
    }
    for client in clients { client.close() }
    for process in processes where process.exitStatus == nil { process.signal(SIGKILL) }
    for process in processes { process.waitForExit(timeout: 10) }
    if ownsDirectory.load(ordering: .acquiring) { Posix.removeTree(layout.root) }
  }

  /// Keeps the pair's directory when the pair shuts down (for post-mortems).
  package func keepDirectory() { ownsDirectory.store(false, ordering: .releasing) }

  /// Lets the daemons keep running after this object goes away (what `healthpair up` does).
  package func release() {
    Interruption.deregister(self)
    let clients = state.withLock { s in
      defer {
        s.processes.removeAll()
        s.clients.removeAll()
      }
      return Array(s.clients.values)
    }
    for client in clients { client.close() }
    ownsDirectory.store(false, ordering: .releasing)
  }

  deinit { shutdown() }
}


extension String {
  /// The string left-padded with zeros to `width`.
  package func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
