// Processes: spawning, signals, exit statuses, the environment, resource limits, threads, CPU affinity.
import CPosix

#if canImport(Glibc)
  import Glibc
#endif

extension Posix {
  /// Starts `path` with `arguments` (argv[0] excluded) as a new process. `stdout` and `stderr` are redirected to
  /// the given descriptors when set; `descriptors` maps further child descriptors to ours (a browser's
  /// `--remote-debugging-pipe` reads 3 and writes 4); `extraEnvironment` is added to ours; `newProcessGroup` starts
  /// it in a process group of its own (a terminal's SIGINT to ours does not reach it); `defaultSignals` start at
  /// their default action in the child even where ours ignores them (as an interactive shell starts a job).
  /// C: `posix_spawn`.
  package static func spawn(
    _ path: String, _ arguments: [String], stdout: Int32? = nil, stderr: Int32? = nil, stdin: Int32? = nil,
    descriptors: [Int32: Int32] = [:], extraEnvironment: [String: String] = [:], newProcessGroup: Bool = false,
    defaultSignals: [Int32] = []
  ) throws(SystemError) -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var mapping: [(ours: Int32, child: Int32)] = []
    if let stdin { mapping.append((stdin, 0)) }
    if let stdout { mapping.append((stdout, 1)) }
    if let stderr { mapping.append((stderr, 2)) }
    for (child, ours) in descriptors.sorted(by: { $0.key < $1.key }) { mapping.append((ours, child)) }
    // The child's dup2s run in order, so a descriptor of ours that is also a child number could be overwritten
    // before it is copied (or, copied onto itself, keep close-on-exec): such sources are first copied above them.
    let targets = Set(mapping.map(\.child))
    var copies: [Int32] = []
    defer { copies.forEach { close($0) } }
    for (ours, child) in mapping {
      var source = ours
      if targets.contains(ours) {
        source = fcntl(ours, F_DUPFD_CLOEXEC, (targets.max() ?? 2) + 1)
        if source < 0 { throw SystemError("fcntl(F_DUPFD_CLOEXEC)", "fd \(ours)", .current) }
        copies.append(source)
      }
      posix_spawn_file_actions_adddup2(&actions, source, child)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    var flags = Int16(POSIX_SPAWN_SETSIGMASK)
    if newProcessGroup {
      flags |= Int16(POSIX_SPAWN_SETPGROUP)
      posix_spawnattr_setpgroup(&attributes, 0)
    }
    if !defaultSignals.isEmpty {
      var reset = sigset_t()
      sigemptyset(&reset)
      for signal in defaultSignals { sigaddset(&reset, signal) }
      posix_spawnattr_setsigdefault(&attributes, &reset)
      flags |= Int16(POSIX_SPAWN_SETSIGDEF)
    }
    posix_spawnattr_setflags(&attributes, flags)
    var environment: [String] = []
    var index = 0
    while let entry = environ[index] {
      let text = String(cString: entry)
      let key = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
      if extraEnvironment[key] == nil { environment.append(text) }
      index += 1
    }
    environment += extraEnvironment.map { "\($0.key)=\($0.value)" }
    let argv = [path] + arguments
    var cArgs = argv.map { strdup($0) } + [nil]
    var cEnv = environment.map { strdup($0) } + [nil]
    defer {
      cArgs.forEach { free($0) }
      cEnv.forEach { free($0) }
    }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, path, &actions, &attributes, &cArgs, &cEnv)
    if rc != 0 { throw SystemError("posix_spawn", path, Errno(rawValue: rc)) }
    return pid
  }

  /// Sends a signal. C: `kill`.
  package static func kill(_ pid: pid_t, _ signal: Int32) throws(SystemError) {
    if Glibc.kill(pid, signal) != 0 { throw SystemError("kill", "pid \(pid)", .current) }
  }

  /// How a child process ended.
  package enum ExitStatus: Equatable, Sendable, CustomStringConvertible {
    /// It called exit with this code.
    case exited(Int32)
    /// A signal killed it.
    case signaled(Int32)

    /// `exit 0` or `signal 9`.
    package var description: String {
      switch self {
      case .exited(let c): "exit \(c)"
      case .signaled(let s): "signal \(s)"
      }
    }
  }

  /// Reaps a child; nil when `block` is false and it is still running. C: `waitpid`.
  package static func wait(_ pid: pid_t, block: Bool) throws(SystemError) -> ExitStatus? {
    var status: Int32 = 0
    let (n, e) = retrying { Glibc.waitpid(pid, &status, block ? 0 : WNOHANG) }
    if let e { throw SystemError("waitpid", "pid \(pid)", e) }
    if n == 0 { return nil }
    if status & 0x7f == 0 { return .exited((status >> 8) & 0xff) }
    return .signaled(status & 0x7f)
  }

  /// Whether a process exists (signal 0).
  package static func isAlive(_ pid: pid_t) -> Bool { Glibc.kill(pid, 0) == 0 }

  /// This process's id.
  package static var processID: pid_t { getpid() }
  /// This process's user id.
  package static var userID: uid_t { getuid() }

  /// An environment variable.
  package static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

  /// The absolute path of the running executable (`/proc/self/exe`).
  package static func executablePath() -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The current working directory.
  package static func currentDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getcwd(&buffer, buffer.count) != nil else { return "." }
    return string(fromNulTerminated: buffer)
  }

  /// Decodes a NUL-terminated C character array as UTF-8.
  package static func string(fromNulTerminated chars: [CChar]) -> String {
    let bytes = chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
  }
  /// Raises this process's soft limit on open descriptors to its hard limit; returns the limit now in force.
  /// C: `getrlimit`/`setrlimit(RLIMIT_NOFILE)`.
  @discardableResult
  package static func raiseOpenFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
    if limit.rlim_cur < limit.rlim_max {
      var raised = limit
      raised.rlim_cur = limit.rlim_max
      if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
    }
    return Int(clamping: limit.rlim_cur)
  }

  /// How many descriptors this process has open (`/proc/self/fd`, less the one listing it); nil when unknown.
  package static func openDescriptorCount() -> Int? {
    guard let names = try? listDirectory("/proc/self/fd") else { return nil }
    return max(0, names.count - 1)
  }

  /// The number of online processors.
  package static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

  /// The resident set size of a process in bytes, from `/proc/<pid>/statm`.
  package static func residentBytes(of pid: pid_t) -> Int? {
    guard let bytes = try? readFile("/proc/\(pid)/statm") else { return nil }
    let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }

  /// The peak resident set size of a process in bytes (`VmHWM` in `/proc/<pid>/status`).
  package static func peakResidentBytes(of pid: pid_t) -> Int? {
    guard let bytes = try? readFile("/proc/\(pid)/status") else { return nil }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let digits = line.dropFirst(6).filter(\.isNumber)
      return Int(digits).map { $0 * 1024 }
    }
    return nil
  }
}

// MARK: - Threads and process exit

/// A boxed closure handed to a new thread.
private final class ThreadBody {
  let body: () -> Void
  init(_ body: @escaping () -> Void) { self.body = body }
}

extension Posix {
  /// Runs blocking `body` on a thread of its own and awaits its result, so the awaiting task's thread — one of
  /// Swift's few cooperative-pool threads — stays free for other tasks meanwhile.
  package static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      startThread { continuation.resume(with: Result { try body() }) }
    }
  }

  /// Starts a detached thread running `body`. The corresponding C function is `pthread_create`.
  package static func startThread(_ body: @escaping @Sendable () -> Void) {
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    // A thread started while its creator is pinned (a benchmark measuring one core) runs on the process's CPUs
    // anyway: it may live as long as the process (the spawner, a pool's threads) and pass its mask to every process
    // it spawns.
    _ = cposix_thread_attr_unpinned(&attributes)
    let rc = pthread_create(
      &thread, &attributes,
      { raw in
        let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
        body.body()
        return nil
      }, box)
    pthread_attr_destroy(&attributes)
    precondition(rc == 0, "pthread_create failed with \(rc)")
  }

  /// Waits up to `timeoutMilliseconds` for process `pid` to exit (any process, not only children); true when it
  /// exited (or never existed). C: `pidfd_open`, `poll`.
  package static func waitForExit(_ pid: pid_t, timeoutMilliseconds: Int32) -> Bool {
    let fd = cposix_pidfd_open(pid)
    if fd < 0 { return !isAlive(pid) }
    defer { close(fd) }
    return pidfdExited(fd, timeoutMilliseconds: timeoutMilliseconds)
  }
}

extension Posix {
  /// Asks the kernel to send this process SIGTERM when its parent exits; returns false when the parent (by pid)
  /// is already gone. C: `prctl(PR_SET_PDEATHSIG)`.
  package static func exitWithParent(_ parent: pid_t) -> Bool { cposix_exit_with_parent(parent) == 0 }

  /// This process's parent id. C: `getppid`.
  package static var parentProcessID: pid_t { getppid() }

  /// Whether this binary embeds `healthpaird` (it links HealthPairTesting, whose entry point CPosix's start-up hook
  /// calls when the binary is launched with ``embeddedDaemonVariable`` set to `1`).
  package static var embedsDaemon: Bool { cposix_embeds_daemon() != 0 }

  /// The environment variable that launches a binary embedding `healthpaird` as the daemon.
  package static let embeddedDaemonVariable = CPOSIX_EMBEDDED_DAEMON_VARIABLE

  /// The path that names this process's own executable, even if the file was replaced since it started.
  package static let ownExecutable = "/proc/self/exe"
}

extension Posix {
  /// Pins the calling thread (and processes it spawns itself afterwards) to one CPU; threads it starts with
  /// ``startThread(_:)`` are not pinned, nor what they spawn (``pinProcess(_:toCPU:)`` pins a process started that
  /// way, such as a daemon forked by the zygote). C: `sched_setaffinity`.
  @discardableResult
  package static func pinToCPU(_ cpu: Int) -> Bool { cposix_pin_to_cpu(Int32(cpu)) == 0 }

  /// Lets the calling thread run where it could before its first pin (every CPU the process may use). C:
  /// `sched_setaffinity`.
  package static func unpin() { _ = cposix_unpin() }

  /// Pins every thread of process `pid` to `cpu`; false when it could not. C: `sched_setaffinity`.
  @discardableResult
  package static func pinProcess(_ pid: Int32, toCPU cpu: Int) -> Bool { cposix_pin_process(pid, Int32(cpu)) == 0 }
}
