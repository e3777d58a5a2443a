import HealthModel
import Posix
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Finds the `healthpaird` executable: `$HEALTHPAIRD`, next to the running executable, a `.build` directory under
/// the current directory, or `$PATH` — each found binary checked with `--version` — and, when none fits, this very
/// binary when it embeds the daemon (test binaries that link HealthPairTesting do).
/// - Throws: ``PairError/daemonNotFound(_:)``, saying where it looked and what to do.
///
/// The answer is kept for the process while `$HEALTHPAIRD`, the current directory and `$PATH` stay the same and the
/// binary is still there, so the prepared pairs that each ask pay no `readlink`, `getcwd` or per-candidate `stat`.
package func locateDaemon() throws(PairError) -> String {
  let key = [
    Posix.environment("HEALTHPAIRD") ?? "", Posix.currentDirectory(), Posix.environment("PATH") ?? "",
  ]
  if let known = locatedDaemon.withLock({ $0?.key == key ? $0?.path : nil }), Posix.exists(known) { return known }
  let path = try DaemonLocator.system().locate()
  locatedDaemon.withLock { $0 = (key, path) }
  return path
}

/// The last answer of ``locateDaemon()``, and what it depended on.
private let locatedDaemon = Mutex<(key: [String], path: String)?>(nil)

/// The daemon search, with its inputs explicit so tests can vary them.
///
/// A binary whose `--version` differs from ``HealthPairVersion/current`` is skipped (a stale build or an older
/// install on `$PATH` would speak another protocol); `$HEALTHPAIRD` is trusted as given. The embedded daemon comes
/// last because a dedicated binary starts faster (it loads no test frameworks).
package struct DaemonLocator: Sendable {
  /// `$HEALTHPAIRD`.
  package var explicit: String?
  /// The running executable (`/proc/self/exe` resolved).
  package var executable: String?
  /// The current directory.
  package var currentDirectory: String
  /// `$PATH`.
  package var searchPath: String
  /// Whether the running executable embeds the daemon.
  package var embedsDaemon: Bool
  /// Whether this process was started as an embedded daemon whose start-up hook did not run.
  package var launchedAsDaemon: Bool
  /// The version a candidate reports, or why it reports none.
  package var version: @Sendable (String) -> Result<String, DaemonProbeFailure>

  /// The locator for this process.
  package static func system() -> DaemonLocator {
    DaemonLocator(
      explicit: Posix.environment("HEALTHPAIRD"), executable: Posix.executablePath(),
      currentDirectory: Posix.currentDirectory(), searchPath: Posix.environment("PATH") ?? "",
      embedsDaemon: Posix.embedsDaemon, launchedAsDaemon: Posix.environment(Posix.embeddedDaemonVariable) != nil,
      version: DaemonLocator.probe)
  }

  /// The daemon to launch: a path (this executable's own path means "launch the embedded daemon").
  /// - Throws: ``PairError/daemonNotFound(_:)``.
  package func locate() throws(PairError) -> String {
    if launchedAsDaemon {
      throw .daemonNotFound(
        "this process was launched as an embedded healthpaird (\(Posix.embeddedDaemonVariable)=1 is set), but its "
          + "start-up hook did not run, so it is running its own main instead; unset \(Posix.embeddedDaemonVariable)"
          + " and set HEALTHPAIRD to a healthpaird binary")
    }
    if let explicit {
      if Posix.exists(explicit) { return explicit }
      throw .daemonNotFound(
        "HEALTHPAIRD is set to '\(explicit)', which does not exist; point it at a healthpaird binary "
          + "('swift build --product healthpaird' in the HealthPair checkout builds one) or unset it")
    }
    var skipped: [String] = []
    for candidate in candidates() where Posix.exists(candidate) {
      switch version(candidate) {
      case .success(HealthPairVersion.current): return candidate
      case .success(let other): skipped.append("\(candidate) (version \(other), this is \(HealthPairVersion.current))")
      case .failure(let failure): skipped.append("\(candidate) (\(failure))")
      }
    }
    if embedsDaemon, let executable { return executable }
    let looked = skipped.isEmpty ? "" : "; skipped " + skipped.joined(separator: ", ")
    throw .daemonNotFound(
      "no healthpaird \(HealthPairVersion.current) next to \(executable ?? "this program"), in "
        + "\(currentDirectory)/.build/{debug,release} or on $PATH\(looked); and this program does not embed the "
        + "daemon (binaries that link HealthPairTesting do). Build it with 'swift build --product healthpaird' in the "
        + "HealthPair checkout and set HEALTHPAIRD to the binary (or put it on $PATH)")
  }

  /// Where a dedicated binary may be, in order: next to the executable (up to three directories up), under
  /// `./.build`, then `$PATH`.
  package func candidates() -> [String] {
    var result: [String] = []
    if let executable {
      var directory = Self.parent(executable)
      for _ in 0..<3 where !directory.isEmpty {
        result.append(directory + "/healthpaird")
        directory = Self.parent(directory)
      }
    }
    for configuration in ["debug", "release"] {
      result.append("\(currentDirectory)/.build/\(configuration)/healthpaird")
    }
    for directory in searchPath.split(separator: ":") where !directory.isEmpty {
      result.append("\(directory)/healthpaird")
    }
    var seen: Set<String> = []
    return result.filter { seen.insert($0).inserted && $0 != executable }
  }

  private static func parent(_ path: String) -> String {
    path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
  }

  /// Versions already asked, by path, for the life of the process.
  private static let probed = Mutex<[String: Result<String, DaemonProbeFailure>]>([:])

  /// Runs `<path> --version` (once per path per process, within 5 s) and parses `healthpaird <version>`.
  package static func probe(_ path: String) -> Result<String, DaemonProbeFailure> {
    if let known = probed.withLock({ $0[path] }) { return known }
    let result = runVersion(path, timeout: 5)
    probed.withLock { $0[path] = result }
    return result
  }

  private static func runVersion(_ path: String, timeout: Double) -> Result<String, DaemonProbeFailure> {
    let ends: (read: Int32, write: Int32)
    do { ends = try Posix.pipe() } catch { return .failure(.system(error)) }
    // Owned: each is closed exactly once, on every way out.
    let readEnd = FileDescriptor(ends.read)
    let writeEnd = FileDescriptor(ends.write)
    let null = FileDescriptor(Posix.devNull())
    let pid: pid_t
    do {
      pid = try Posix.spawn(path, ["--version"], stdout: writeEnd.rawValue, stderr: null.rawValue, stdin: null.rawValue)
    } catch { return .failure(.system(error)) }
    writeEnd.close()  // the child holds the other copy: its exit ends the stream
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 256)
    let deadline = Posix.monotonicNanoseconds() + UInt64(timeout * 1e9)
    reading: while output.count < 4096 {
      let now = Posix.monotonicNanoseconds()
      guard now < deadline,
        Posix.waitReadable(readEnd.rawValue, timeoutMilliseconds: Int32((deadline - now) / 1_000_000) + 1)
      else {
        try? Posix.kill(pid, SIGKILL)
        _ = try? Posix.wait(pid, block: true)
        return .failure(.noAnswer(seconds: timeout))
      }
      let read = buffer.withUnsafeMutableBytes { raw in
        catching { () throws(SystemError) in try Posix.read(readEnd.rawValue, into: raw) }
      }
      switch read {
      case .success(.bytes(let n)): output += buffer[0..<n]
      case .success(.wouldBlock): continue
      case .success(.endOfFile): break reading
      case .failure(let error):
        try? Posix.kill(pid, SIGKILL)
        _ = try? Posix.wait(pid, block: true)
        return .failure(.system(error))
      }
    }
    // Its output ended: it is exiting. A process that closed its output but lingers is killed at the deadline.
    let remaining = Double(deadline &- min(deadline, Posix.monotonicNanoseconds())) / 1e9
    if !Posix.waitForExit(pid, timeoutMilliseconds: Int32(remaining * 1000) + 1) { try? Posix.kill(pid, SIGKILL) }
    let status = (try? Posix.wait(pid, block: true)) ?? nil
    let text = String(decoding: output, as: UTF8.self).trimmingWhitespace()
    let words = text.split(separator: " ")
    guard status == .exited(0), words.count == 2, words[0] == "healthpaird" else {
      return .failure(.unexpectedAnswer(status: status?.description ?? "unknown", output: String(text.prefix(80))))
    }
    return .success(String(words[1]))
  }
}

/// Why a candidate daemon binary did not report its version.
package enum DaemonProbeFailure: Error, Hashable, Sendable, CustomStringConvertible {
  /// It could not be started or read.
  case system(SystemError)
  /// It did not answer within the deadline.
  case noAnswer(seconds: Double)
  /// It answered something else (an older healthpaird has no `--version`).
  case unexpectedAnswer(status: String, output: String)

  /// A short reason.
  package var description: String {
    switch self {
    case .system(let error): "cannot run it: \(error)"
    case .noAnswer(let seconds): "no answer to --version within \(seconds) s"
    case .unexpectedAnswer(let status, let output):
      "--version answered \(output.isEmpty ? "nothing" : "'\(output)'") (\(status)): an older healthpaird, or another "
        + "program"
    }
  }
}
