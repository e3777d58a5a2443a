import HealthModel
import Posix
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

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

  /// Sends a signal — none once the process is known to have ended (reaped, its pid may already be another
  /// process's).
  package func signal(_ signal: Int32) {
    guard reaped.withLock({ $0 }) == nil else { return }
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
