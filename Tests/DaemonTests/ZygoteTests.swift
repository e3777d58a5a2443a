import Testing

@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix

#if canImport(Glibc)
  import Glibc
#endif

/// The zygote (`healthpaird --zygote`, ``DaemonZygote``): daemons forked from a loaded process, not exec'd.
@Suite("Zygote: daemons forked from a loaded healthpaird (real processes)")
struct ZygoteTests {
  /// The parent process id of `pid`, from `/proc/<pid>/stat` (the field after the state).
  private func parent(of pid: pid_t) -> pid_t? {
    guard let bytes = try? Posix.readFile("/proc/\(pid)/stat") else { return nil }
    let text = String(decoding: bytes, as: UTF8.self)
    guard let close = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    return fields.count > 1 ? pid_t(fields[1]) : nil
  }

  @Test func aPairsDaemonsAreForkedByTheZygoteAndEndTheWayTheyWereStopped() throws {
    let pair = try Pair()
    defer { pair.shutdown() }
    let phone = try #require(pair.process(.phone))
    let watch = try #require(pair.process(.watch))
    #expect(phone.wasForked && watch.wasForked)
    let zygote = try #require(DaemonZygote.shared(for: pair.daemon))
    #expect(parent(of: phone.pid) == zygote.pid, "the zygote forked the phone's daemon")
    #expect(parent(of: watch.pid) == zygote.pid)
    #expect(phone.pid != watch.pid && phone.pid != zygote.pid)
    // The zygote stays single-threaded after its warm-up (a fork copies only the calling thread), and the warm-up's
    // throwaway pair left no directory behind.
    let status = String(decoding: try Posix.readFile("/proc/\(zygote.pid)/status"), as: UTF8.self)
    #expect(status.split(separator: "\n").contains("Threads:\t1"), "\(status)")
    let leftovers = try Posix.listDirectory(Posix.temporaryDirectoryBase).filter {
      TemporaryPairDirectories.launcher(of: $0) == zygote.pid
    }
    #expect(leftovers.isEmpty, "\(leftovers)")
    // Each is a whole daemon of its own: it serves, and stops with its own status.
    try pair.phone.ping()
    #expect(phone.exitStatus == nil, "still running")
    #expect(pair.stop(.phone) == .exited(0), "SIGTERM stops it cleanly, and the zygote reports the status")
    #expect(phone.exitStatus == .exited(0), "the status is kept")
    pair.kill(.watch)
    #expect(watch.waitForExit(timeout: 10) == .signaled(SIGKILL))
    // A restart forks again from the same zygote.
    try pair.restart(.phone, waitForLink: false)
    let restarted = try #require(pair.process(.phone))
    #expect(restarted.wasForked && restarted.pid != phone.pid)
    #expect(parent(of: restarted.pid) == zygote.pid)
    try pair.phone.ping()
  }

  @Test func aDaemonThatCannotStartReportsItsStatusAndStderrThroughTheZygote() throws {
    try withPair { pair in
      // A second phone daemon for the same directory is refused (exit 75), forked or not.
      let layout = pair.layout
      #expect {
        _ = try DaemonProcess.start(.phone, layout: layout, daemon: pair.daemon, options: LaunchOptions())
      } throws: { error in
        guard case PairError.daemonFailed(let device, let status, let stderr) = error else { return false }
        return device == .phone && status == "exit 75" && stderr.contains("another phone daemon is already running")
      }
    }
  }

  @Test func withTheZygoteOffDaemonsAreExecdChildren() throws {
    var options = LaunchOptions()
    options.useZygote = false
    let pair = try Pair(options: options)
    defer { pair.shutdown() }
    let phone = try #require(pair.process(.phone))
    #expect(!phone.wasForked)
    #expect(parent(of: phone.pid) == Posix.processID)
    #expect(pair.stop(.phone) == .exited(0))
    #expect(DaemonZygote.isEnabled("0") == false && DaemonZygote.isEnabled("off") == false)
    #expect(DaemonZygote.isEnabled(nil) && DaemonZygote.isEnabled("1"))
  }

  @Test func aMalformedRequestIsRefusedAndTheZygoteKeepsServing() throws {
    let daemon = try locateDaemon()
    let sockets = try Posix.sequencedPacketPair()
    let null = FileDescriptor(Posix.devNull())
    let zygote = try Posix.spawn(
      daemon, ["--zygote", "4"], stdout: null.rawValue, stderr: null.rawValue, stdin: null.rawValue,
      descriptors: [4: sockets.theirs.rawValue])
    var reaped = false
    defer {
      if !reaped {
        try? Posix.kill(zygote, SIGKILL)
        _ = try? Posix.wait(zygote, block: true)
      }
    }
    let control = sockets.ours.rawValue
    // A request of an unknown kind, and a spawn without its three descriptors: each answered with EINVAL.
    for garbage in [[UInt8(ascii: "X"), 1, 2], Array("Sphone\u{0}".utf8)] {
      try garbage.withUnsafeBytes { try Posix.sendAll(control, $0) }
      var reply = [UInt8](repeating: 0, count: 8)
      let read = try reply.withUnsafeMutableBytes { try Posix.read(control, into: $0) }
      #expect(read == .bytes(8))
      let value = reply.withUnsafeBytes { $0.load(as: Int32.self) }
      let detail = reply.withUnsafeBytes { $0.load(fromByteOffset: 4, as: Int32.self) }
      #expect(value == -1 && detail == EINVAL)
    }
    // Unknown processes are unknown.
    #expect(throws: SystemError.self) {
      _ = try Posix.zygoteStatus(control: control, pid: 1, timeoutMilliseconds: 5000)
    }
    // And it still forks: a `--version` child exits 0 and the zygote reports it.
    let forked = try Posix.zygoteSpawn(
      control: control, arguments: ["--version"], stdin: null.rawValue, stdout: null.rawValue, stderr: null.rawValue,
      timeoutMilliseconds: 10_000)
    #expect(Posix.pidfdExited(forked.pidfd.rawValue, timeoutMilliseconds: 10_000))
    #expect(try Posix.zygoteStatus(control: control, pid: forked.pid, timeoutMilliseconds: 5000) == .exited(0))
    // A usage error in a forked daemon is that daemon's exit 64, not the zygote's.
    let bad = try Posix.zygoteSpawn(
      control: control, arguments: ["--device", "tablet"], stdin: null.rawValue, stdout: null.rawValue,
      stderr: null.rawValue, timeoutMilliseconds: 10_000)
    #expect(Posix.pidfdExited(bad.pidfd.rawValue, timeoutMilliseconds: 10_000))
    #expect(try Posix.zygoteStatus(control: control, pid: bad.pid, timeoutMilliseconds: 5000) == .exited(64))
    #expect(Posix.isAlive(zygote))
    // When the launcher's end closes, the zygote exits.
    _ = consume sockets
    #expect(Posix.waitForExit(zygote, timeoutMilliseconds: 10_000))
    #expect(try Posix.wait(zygote, block: true) == .exited(0))
    reaped = true
  }
}
