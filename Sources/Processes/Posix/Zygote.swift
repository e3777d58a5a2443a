// The zygote's system calls: a loaded process that forks fresh daemons on request, and the launcher's side of it.
import CPosix

#if canImport(Glibc)
  import Glibc
#endif

extension Posix {
  /// The two connected ends of a socket pair, each owned.
  @frozen package struct SocketPair: ~Copyable, Sendable {
    /// The end this process keeps.
    package var ours: FileDescriptor
    /// The end handed to another process.
    package var theirs: FileDescriptor
  }

  /// A process a zygote forked, with a pidfd for it.
  @frozen package struct ForkedProcess: ~Copyable, Sendable {
    /// Its process id.
    package var pid: pid_t
    /// A pidfd referring to it (signals and exit waits that cannot reach a later process reusing the pid).
    package var pidfd: FileDescriptor
  }

  /// A connected pair of `SOCK_SEQPACKET` Unix sockets (message boundaries kept), both close-on-exec.
  /// C: `socketpair`.
  package static func sequencedPacketPair() throws(SystemError) -> SocketPair {
    var fds: [Int32] = [-1, -1]
    guard cposix_socketpair_seqpacket(&fds) == 0 else { throw SystemError("socketpair", nil, .current) }
    return SocketPair(ours: FileDescriptor(fds[0]), theirs: FileDescriptor(fds[1]))
  }

  /// Serves as a zygote on `control` until the launcher closes its end: for each spawn request, forks a process
  /// that takes the three descriptors the request carries as its standard input, output and error and returns
  /// `run(argc, argv)` as its exit status (`argv[0]` is `program`). The calling process must be single-threaded,
  /// so that the forked process is whole. Returns when the launcher is gone. C: `recvmsg`, `fork`, `pidfd_open`.
  /// - Throws: `SystemError` when `control` cannot be read (not a socket, not open).
  package static func serveAsZygote(
    control: Int32, program: String,
    run: @convention(c) (Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32
  ) throws(SystemError) {
    let rc = program.withCString { cposix_zygote_serve(control, run, $0) }
    if rc != 0 { throw SystemError("recvmsg", "--zygote \(control)", .current) }
  }

  /// Asks the zygote on `control` to start a process with `arguments` (argv[1...]) and the given descriptors as its
  /// standard input, output and error; returns its pid and a pidfd for it (``pidfdSignal(_:_:)``,
  /// ``pidfdExited(_:timeoutMilliseconds:)``). The caller serialises requests on one control socket.
  /// - Throws: `SystemError` when the request could not be made or answered within `timeoutMilliseconds` (the
  ///   control socket is then out of step and must be abandoned), or with the zygote's errno when fork failed.
  package static func zygoteSpawn(
    control: Int32, arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32, timeoutMilliseconds: Int32
  ) throws(SystemError) -> ForkedProcess {
    var bytes: [CChar] = []
    for argument in arguments {
      bytes += argument.utf8CString
    }
    let fds = [stdin, stdout, stderr]
    var pidfd: Int32 = -1
    let pid = bytes.withUnsafeBufferPointer { buffer in
      cposix_zygote_spawn(control, buffer.baseAddress, buffer.count, fds, timeoutMilliseconds, &pidfd)
    }
    guard pid > 0, pidfd >= 0 else {
      let error = Errno.current
      if pidfd >= 0 { close(pidfd) }
      throw SystemError("zygote spawn", arguments.first, pid > 0 ? Errno(rawValue: EIO) : error)
    }
    return ForkedProcess(pid: pid, pidfd: FileDescriptor(pidfd))
  }

  /// What the zygote on `control` knows of its process `pid`: nil while it runs, its exit status once it ended.
  /// - Throws: `SystemError` when the zygote did not answer, or (`ESRCH`) when it does not know the process.
  package static func zygoteStatus(control: Int32, pid: pid_t, timeoutMilliseconds: Int32) throws(SystemError)
    -> ExitStatus?
  {
    var detail: Int32 = 0
    switch cposix_zygote_status(control, pid, timeoutMilliseconds, &detail) {
    case 0: return nil
    case 1: return .exited(detail)
    case 2: return .signaled(detail)
    case -1: throw SystemError("zygote status", "pid \(pid)", Errno(rawValue: ESRCH))
    default: throw SystemError("zygote status", "pid \(pid)", .current)
    }
  }

  /// Sends `signal` to the process `pidfd` refers to (never to a later process that reused its pid).
  /// C: `pidfd_send_signal`.
  package static func pidfdSignal(_ pidfd: Int32, _ signal: Int32) throws(SystemError) {
    guard cposix_pidfd_send_signal(pidfd, signal) == 0 else {
      throw SystemError("pidfd_send_signal", "signal \(signal)", .current)
    }
  }

  /// Waits up to `timeoutMilliseconds` (0: just looks) for the process `pidfd` refers to to exit; true once it has
  /// (a pidfd polls readable then). C: `poll`.
  package static func pidfdExited(_ pidfd: Int32, timeoutMilliseconds: Int32) -> Bool {
    waitReadable(pidfd, timeoutMilliseconds: timeoutMilliseconds)
  }
}
