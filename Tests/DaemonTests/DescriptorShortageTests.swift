import FoundationEssentials
import Testing

@testable import Daemon
@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix
@testable import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// Running out of descriptors must not spin the daemon (issue 29): `accept` failing with `EMFILE` pauses the
/// listener and is logged once, and `--max-clients` is clamped to what `RLIMIT_NOFILE` allows.
@Suite("Descriptor shortage")
struct DescriptorShortageTests {
  func logText(_ path: String) -> String { String(decoding: (try? Posix.readFile(path)) ?? [], as: UTF8.self) }

  func lines(_ text: String, containing needle: String) -> Int {
    text.split(separator: "\n").filter { $0.contains(needle) }.count
  }

  /// A daemon in this process, turned by hand; `accept` on its client socket is forced to fail with `EMFILE`
  /// (faults are process-wide: the subject is this test's own socket path).
  @Test func acceptFailingForWantOfDescriptorsPausesTheListenerAndLogsOnce() throws {
    let root = try Posix.makeTemporaryDirectory(prefix: "hp-emfile")
    defer { Posix.removeTree(root) }
    var options = DaemonOptions(device: .phone, directory: root + "/phone", peerSocket: nil, pairingKey: [])
    options.logLevel = .debug
    let daemon = try DeviceDaemon(options: options)
    daemon.begin()
    let forced = 1000
    Posix.injectFault("accept", .tooManyOpenFiles, subjectContains: options.socketPath, count: forced)
    defer { Posix.faults.withLock { $0["accept"] = nil } }
    let client = try Posix.connectUnix(options.socketPath)  // queued: the daemon cannot accept it
    let turns = 200
    for _ in 0..<turns { #expect(daemon.turn(maximumWaitMilliseconds: 0) == nil) }
    let attempts = forced - (Posix.faults.withLock { $0["accept"]?.remaining } ?? 0)
    let log = logText(options.logPath)
    #expect(lines(log, containing: "accept failed") == 1, "one line per episode, not per attempt:\n\(log)")
    #expect(log.contains("Too many open files") && log.contains("not accepting until a descriptor is freed"))
    #expect(attempts >= 1 && attempts < turns / 2, "\(attempts) accepts in \(turns) turns: the listener spun")
    // Descriptors again: once the back-off passes the waiting client is accepted and served.
    Posix.faults.withLock { $0["accept"] = nil }
    let hello = Frame.request(id: 1, .hello(version: WireProtocol.version, client: "after the shortage")).framed()
    try hello.withUnsafeBytes { try Posix.sendAll(client.rawValue, $0) }
    Posix.setNonBlocking(client.rawValue)
    var reply = [UInt8](repeating: 0, count: 4096)
    var answered = false
    let deadline = Posix.monotonicNanoseconds() + 20_000_000_000
    while !answered && Posix.monotonicNanoseconds() < deadline {
      _ = daemon.turn(maximumWaitMilliseconds: 50)
      let result = try reply.withUnsafeMutableBytes { try Posix.read(client.rawValue, into: $0) }
      if case .bytes = result { answered = true }
    }
    #expect(answered, "the client queued during the shortage is served once it ends")
    let after = logText(options.logPath)
    #expect(after.contains("accepting clients again after a descriptor shortage"), "\(after)")
    #expect(lines(after, containing: "accept failed") == 1)
  }

  /// The clamp is pure arithmetic: the requested limit when it fits, else what the descriptors left allow.
  @Test func theClientLimitFitsTheDescriptorLimit() {
    #expect(DescriptorBudget.maxClients(requested: 256, limit: 1_048_576, inUse: 12) == 256)
    #expect(DescriptorBudget.maxClients(requested: 1000, limit: 64, inUse: 12) == 64 - 12 - DescriptorBudget.reserve)
    #expect(DescriptorBudget.maxClients(requested: 1000, limit: 10, inUse: 12) == 1)
  }

  /// A real daemon under `prlimit --nofile=64`, asked for 1,000 clients: it says once that it serves fewer, and a
  /// flood past that is refused with "too many connections" instead of spinning on `EMFILE`.
  @Test(.enabled(if: Posix.exists("/usr/bin/prlimit"), "needs prlimit (util-linux) to start a daemon under a limit"))
  func aDaemonUnderALowDescriptorLimitClampsMaxClientsAndRefusesTheRest() throws {
    let root = try Posix.makeTemporaryDirectory(prefix: "hp-nofile")
    defer { Posix.removeTree(root) }
    let dir = root + "/phone"
    let (path, environment) = daemonExecutable(try locateDaemon())
    let ready = try Posix.pipe()
    let null = Posix.devNull()
    let pid = try Posix.spawn(
      "/usr/bin/prlimit",
      ["--nofile=64:64", path, "--device", "phone", "--dir", dir, "--max-clients", "1000", "--hello-timeout", "600"],
      stdout: ready.write, stderr: null, extraEnvironment: environment)
    Posix.close(ready.write)
    Posix.close(null)
    defer {
      try? Posix.kill(pid, SIGTERM)
      _ = Posix.waitForExit(pid, timeoutMilliseconds: 10_000)
      _ = try? Posix.wait(pid, block: true)
      Posix.close(ready.read)
    }
    #expect(Posix.waitReadable(ready.read, timeoutMilliseconds: 30_000), "the daemon printed its ready line")
    let log = dir + "/phone.log"
    let clamp = try #require(
      logText(log).split(separator: "\n").first { $0.contains("is more than the descriptor limit allows") })
    let number = clamp.split(separator: "serving at most ").last?.split(separator: " ").first
    let allowed = try #require(number.flatMap { Int($0) }, "\(clamp)")
    #expect(allowed > 0 && allowed < 64, "\(clamp)")
    var flood: [RawConnection] = []
    for _ in 0..<(allowed + 20) { flood.append(try RawConnection(dir + "/phone.sock")) }
    let last = try #require(flood.last)
    let refusal = try #require(responseError(try last.nextFrame()), "the connection past the limit got no answer")
    #expect(refusal.message.contains("too many connections (limit \(allowed))"), "\(refusal.message)")
    let text = logText(log)
    #expect(lines(text, containing: "is more than the descriptor limit allows") == 1)
    #expect(!text.contains("accept failed"), "\(text)")
  }
}
