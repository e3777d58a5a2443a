import Posix
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A daemon process kept loaded to fork fresh daemons from (`healthpaird --zygote`), so that starting a daemon
/// costs a `fork` of an already-loaded process instead of an `exec` that loads and relocates the Swift runtime and
/// every library again (`make bench` row 10a measures a pair's start).
///
/// The model:
/// - **One per daemon executable, per process**, started on the first launch that needs it, living until this
///   process exits (its control socket then closes and it exits). Each daemon it forks is a new process with
///   nothing shared: its own directory, journal, sockets and memory — the same daemon an `exec` would have started,
///   from the same binary, with the same arguments.
/// - **The lifeline carries over.** The zygote holds the lifeline's read end as descriptor 3, so every daemon it
///   forks does too and stops when this process exits, however it exits.
/// - **Falls back quietly.** When the zygote cannot start or stops answering, launches go back to `posix_spawn`
///   for the rest of the process. `HEALTHPAIR_ZYGOTE=0` (or `off`) turns it off; detached daemons
///   (`healthpair up`) are always spawned.
/// - Daemons it forks are its children, not this process's: ``DaemonProcess`` signals them through a pidfd (never
///   a reused pid) and asks the zygote for their exit status.
package final class DaemonZygote: Sendable {
  /// The environment variable that turns the zygote off (`0`, `off`, `no`, `false`).
  package static let environmentVariable = "HEALTHPAIR_ZYGOTE"

  /// Whether launches may use a zygote, from ``environmentVariable``.
  package static func isEnabled(_ value: String? = Posix.environment(environmentVariable)) -> Bool {
    guard let value else { return true }
    return !isTurnedOff(value)
  }

  /// The zygote's descriptor for the control socket.
  static let controlDescriptor: Int32 = 4

  /// The zygote's process id.
  package let pid: pid_t
  /// The control socket; nil once the zygote stopped answering (it is then not used again).
  private let control: Mutex<FileDescriptor?>

  private init(pid: pid_t, control: consuming FileDescriptor) {
    self.pid = pid
    self.control = Mutex(control)
  }

  /// The zygotes started so far, by daemon executable; nil where one could not start (launches then spawn).
  private static let started = Mutex<[String: DaemonZygote?]>([:])

  /// The zygote for `daemon`, starting it on first use; nil when turned off or when it could not start.
  package static func shared(for daemon: String) -> DaemonZygote? {
    guard isEnabled() else { return nil }
    return started.withLock { zygotes -> DaemonZygote? in
      if let known = zygotes[daemon] { return known.flatMap { $0.isUsable ? $0 : nil } }
      let zygote = try? DaemonZygote.start(daemon)
      zygotes[daemon] = .some(zygote)
      return zygote
    }
  }

  /// Spawns `daemon --zygote 4` with the lifeline as descriptor 3, in a process group of its own — which the daemons
  /// it forks share, so a terminal's SIGINT does not reach them.
  private static func start(_ daemon: String) throws(SystemError) -> DaemonZygote {
    let sockets = try Posix.sequencedPacketPair()
    let null = FileDescriptor(Posix.devNull())
    let lifeline = try Lifeline.readEnd()
    let (path, environment) = daemonExecutable(daemon)
    let (nullFD, theirsFD) = (null.rawValue, sockets.theirs.rawValue)
    let pid = try Spawner.shared.run { () throws(SystemError) in
      try Posix.spawn(
        path, ["--zygote", String(controlDescriptor)], stdout: nullFD, stderr: nullFD, stdin: nullFD,
        descriptors: [Lifeline.childDescriptor: lifeline, controlDescriptor: theirsFD], extraEnvironment: environment,
        newProcessGroup: true)
    }
    return DaemonZygote(pid: pid, control: sockets.ours)
  }

  /// Forks a daemon with `arguments` and the given standard descriptors; returns its pid and a pidfd for it.
  /// - Throws: `SystemError` when the zygote failed or did not answer within `timeout` seconds (it is then
  ///   abandoned: later launches spawn).
  package func spawn(_ arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32, timeout: Double)
    throws(SystemError) -> Posix.ForkedProcess
  {
    try control.withLock { control throws(SystemError) -> Posix.ForkedProcess in
      guard let socket = control?.rawValue else { throw SystemError("zygote spawn", nil, Errno(rawValue: EPIPE)) }
      do throws(SystemError) {
        return try Posix.zygoteSpawn(
          control: socket, arguments: arguments, stdin: stdin, stdout: stdout, stderr: stderr,
          timeoutMilliseconds: Int32(min(timeout, 600) * 1000))
      } catch {
        abandon(&control)
        throw error
      }
    }
  }

  /// How the daemon `pid` that this zygote forked ended; nil while it runs or when the zygote cannot tell.
  package func exitStatus(of pid: pid_t) -> Posix.ExitStatus? {
    control.withLock { control -> Posix.ExitStatus? in
      guard let socket = control?.rawValue else { return nil }
      do throws(SystemError) {
        return try Posix.zygoteStatus(control: socket, pid: pid, timeoutMilliseconds: 10_000)
      } catch {
        if error.errno.rawValue != ESRCH { abandon(&control) }
        return nil
      }
    }
  }

  /// Whether the zygote still answers.
  package var isUsable: Bool { control.withLock { $0 != nil } }

  /// Closes the control socket (the zygote exits when it reads end of file) and reaps the zygote if it is gone.
  private func abandon(_ control: inout FileDescriptor?) {
    control = nil
    _ = try? Posix.wait(pid, block: false)
  }
}
