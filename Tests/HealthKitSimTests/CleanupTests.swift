import Foundation
import HealthPairClient
import PairProcesses
import Posix
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("HealthPairTesting: a killed test leaves nothing behind")
struct CleanupTests {
  /// A test process killed with SIGKILL (no cleanup code runs) in the middle of a pair: its daemons stop and remove
  /// the pair's directory. Once with the dedicated daemon, once with the daemon embedded in the test binary.
  @Test(arguments: [false, true])
  func aTestProcessKilledMidPairLeavesNoDaemonAndNoDirectory(embeddedDaemon: Bool) throws {
    let here = try #require(Posix.executablePath())
    let helper =
      here.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
      + "/healthpair-pair-holder"
    try #require(Posix.exists(helper), "build the helper: swift build --build-tests")
    let output = try Posix.pipe()
    let input = try Posix.pipe()
    defer {
      Posix.close(output.read)
      Posix.close(input.write)
    }
    // HEALTHPAIRD naming the helper itself launches its embedded daemon.
    let environment = embeddedDaemon ? ["HEALTHPAIRD": helper] : [:]
    let pid: pid_t
    do {
      defer {
        Posix.close(output.write)
        Posix.close(input.read)
      }
      pid = try Posix.spawn(helper, [], stdout: output.write, stdin: input.read, extraEnvironment: environment)
    }
    let directory = try readLine(output.read, timeoutSeconds: 30)
    try #require(directory.hasPrefix("/"), "the helper printed '\(directory)'")
    let daemons = try ["phone", "watch"].map { device in
      let text = try Posix.readFile("\(directory)/\(device)/\(device).lock")
      return try #require(Int32(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
    }
    #expect(daemons.allSatisfy(Posix.isAlive) && !daemons.contains(pid))

    try Posix.kill(pid, SIGKILL)
    #expect(Posix.waitForExit(pid, timeoutMilliseconds: 10_000))
    #expect(try Posix.wait(pid, block: true) == .signaled(SIGKILL))
    for daemon in daemons {
      #expect(Posix.waitForExit(daemon, timeoutMilliseconds: 10_000), "daemon \(daemon) outlived its test process")
    }
    // The last daemon removes the directory before it exits.
    #expect(!Posix.exists(directory), "\(directory) was left behind")
  }

  /// SIGINT (Ctrl-C in `swift test`: sent to the whole process group) or SIGTERM (a CI runner's cancel) to a test
  /// process mid-pair: the harness stops the pair and removes its directory before the process ends by the signal,
  /// and the daemons, in a process group of their own, were not killed under it.
  @Test(arguments: [SIGINT, SIGTERM])
  func anInterruptedTestProcessStopsItsPairsAndRemovesTheirDirectories(signal: Int32) throws {
    let holder = try PairHolderProcess()
    let directory = try readLine(holder.output.read, timeoutSeconds: 30)
    try #require(directory.hasPrefix("/"), "the helper printed '\(directory)'")
    let daemons = try ["phone", "watch"].map { device in
      let text = try Posix.readFile("\(directory)/\(device)/\(device).lock")
      return try #require(Int32(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
    }
    try Posix.kill(signal == SIGINT ? -holder.pid : holder.pid, signal)
    #expect(Posix.waitForExit(holder.pid, timeoutMilliseconds: 20_000))
    #expect(try Posix.wait(holder.pid, block: true) == .signaled(signal), "it ends by the signal, as without a handler")
    // Done before the process ended, not later by the daemons' lifeline.
    #expect(!daemons.contains(where: Posix.isAlive), "a daemon outlived its interrupted test process")
    #expect(!Posix.exists(directory), "\(directory) was left behind")
  }

  /// The same test process as PID 1 of a container (a new pid namespace), which has no default signal actions:
  /// SIGTERM still stops it, and it exits 143.
  @Test(
    .enabled(
      if: Posix.userID == 0 && Posix.exists("/usr/bin/unshare"),
      "a new pid namespace (unshare --pid) needs root and /usr/bin/unshare"))
  func anInterruptedTestProcessAsPID1Exits143AndLeavesNothing() throws {
    // Its pairs in a directory of their own: a PID 1 that sees no other process would sweep others' directories.
    let base = try Posix.makeTemporaryDirectory(prefix: "hp-pid1")
    defer { Posix.removeTree(base) }
    let holder = try PairHolderProcess(
      under: ["/usr/bin/unshare", "--pid", "--fork", "--mount-proc"], environment: ["HEALTHPAIR_TMPDIR": base])
    let directory = try readLine(holder.output.read, timeoutSeconds: 30)
    try #require(directory.hasPrefix("/"), "the helper printed '\(directory)'")
    // To the group: unshare ignores SIGTERM while it waits, and exits with its child's status.
    try Posix.kill(-holder.pid, SIGTERM)
    let ended = Posix.waitForExit(holder.pid, timeoutMilliseconds: 20_000)
    if !ended { try? Posix.kill(-holder.pid, SIGKILL) }
    #expect(ended, "PID 1 ignored SIGTERM")
    #expect(try Posix.wait(holder.pid, block: true) == .exited(143))
    #expect(!Posix.exists(directory), "\(directory) was left behind")
  }

  /// Pair directories go to memory when it is there and roomy, and where the user says when they say.
  @Test func pairDirectoriesGoToMemoryWhenItIsUsable() {
    let roomy: (String) -> UInt64? = { $0 == "/mem" ? 4 << 30 : nil }
    let small: (String) -> UInt64? = { $0 == "/mem" ? 64 << 20 : nil }
    let choose = TemporaryPairDirectories.chooseBase
    #expect(choose(nil, "/mem", "/tmp", roomy) == "/mem")
    #expect(choose(nil, "/mem", "/tmp", small) == "/tmp", "a container's 64 MiB /dev/shm is too small")
    #expect(choose(nil, "/mem", "/tmp", { _ in nil }) == "/tmp", "no writable memory file system")
    #expect(choose("/work/pairs", "/mem", "/tmp", roomy) == "/work/pairs", "HEALTHPAIR_TMPDIR wins")
    #expect(choose("", "/mem", "/tmp", roomy) == "/mem", "an empty variable is unset")
    // This process's pairs are made there.
    if let made = try? TemporaryPairDirectories.make() {
      defer { Posix.removeTree(made) }
      #expect(made.hasPrefix(TemporaryPairDirectories.base + "/" + TemporaryPairDirectories.prefix))
    }
  }

  /// The pair's directory is named after the launching process, so a later process can sweep what a crash at a worse
  /// moment left (the launcher killed before its daemons started, or the daemons killed with it).
  @Test func directoriesOfDeadLaunchersAreSweptAndOthersKept() throws {
    let base = try Posix.makeTemporaryDirectory(prefix: "hp-sweep")
    defer { Posix.removeTree(base) }
    let gone = try Posix.spawn("/bin/true", [])
    _ = try Posix.wait(gone, block: true)
    let dead = "\(base)/\(TemporaryPairDirectories.prefix)\(gone)-abcdef"
    let alive = "\(base)/\(TemporaryPairDirectories.prefix)\(Posix.processID)-abcdef"
    let locked = "\(base)/\(TemporaryPairDirectories.prefix)\(gone)-ghijkl"
    let unrelated = "\(base)/healthpair-demo-abcdef"
    for path in [dead, alive, locked, unrelated] { try Posix.makeDirectory(path + "/phone") }
    let lock = try Posix.lockFile(locked + "/phone/phone.lock")  // a daemon still running in it, held to the end
    defer { _ = lock.rawValue }
    #expect(TemporaryPairDirectories.sweep(in: base) == [dead])
    #expect(!Posix.exists(dead) && Posix.exists(alive) && Posix.exists(locked) && Posix.exists(unrelated))
  }
}

/// `healthpair-pair-holder` (Tests/PairHolder) holding a pair, in a process group of its own as a shell starts a job,
/// optionally under a wrapper command (`unshare …`). Its standard input stays open until this value goes.
private final class PairHolderProcess {
  let pid: pid_t
  let output: (read: Int32, write: Int32)
  private let input: (read: Int32, write: Int32)

  init(under wrapper: [String] = [], environment: [String: String] = [:]) throws {
    let here = try #require(Posix.executablePath())
    let helper =
      here.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
      + "/healthpair-pair-holder"
    try #require(Posix.exists(helper), "build the helper: swift build --build-tests")
    let output = try Posix.pipe()
    let input = try Posix.pipe()
    defer {
      Posix.close(output.write)
      Posix.close(input.read)
    }
    let command = wrapper + [helper]
    pid = try Posix.spawn(
      command[0], Array(command.dropFirst()), stdout: output.write, stdin: input.read, extraEnvironment: environment,
      newProcessGroup: true, defaultSignals: [SIGINT, SIGTERM])
    self.output = output
    self.input = input
  }

  deinit {
    Posix.close(output.read)
    Posix.close(input.write)
  }
}

/// Reads one line from `fd` within the deadline (without the newline).
private func readLine(_ fd: Int32, timeoutSeconds: Double) throws -> String {
  var line: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 512)
  let deadline = Posix.monotonicNanoseconds() + UInt64(timeoutSeconds * 1e9)
  while !line.contains(UInt8(ascii: "\n")) {
    let now = Posix.monotonicNanoseconds()
    guard now < deadline, Posix.waitReadable(fd, timeoutMilliseconds: Int32((deadline - now) / 1_000_000) + 1) else {
      throw PairError.timeout("a line from the helper")
    }
    let result = try buffer.withUnsafeMutableBytes { raw in
      catching { () throws(SystemError) in try Posix.read(fd, into: raw) }
    }.get()
    guard case .bytes(let n) = result else { break }
    line += buffer[0..<n]
  }
  return String(decoding: line.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
}
