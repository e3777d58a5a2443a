import Dispatch
import Posix
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Posix: directory listing and removal")
struct DirectoryTests {
  /// `removeTree` empties nested directories, removes a symbolic link without following it, and leaves nothing.
  @Test func removeTreeRemovesNestedFilesAndLinksWithoutFollowingThem() throws {
    let outside = try Posix.makeTemporaryDirectory(prefix: "hp-keep")
    defer { Posix.removeTree(outside) }
    try Posix.writeFileAtomically(outside + "/kept", Array("kept".utf8))
    let root = try Posix.makeTemporaryDirectory(prefix: "hp-tree")
    try Posix.makeDirectory(root + "/phone", mode: 0o700)
    try Posix.makeDirectory(root + "/phone/deeper", mode: 0o700)
    try Posix.writeFileAtomically(root + "/key", Array("k".utf8))
    try Posix.writeFileAtomically(root + "/phone/journal", Array("j".utf8))
    try Posix.writeFileAtomically(root + "/phone/deeper/log", Array("l".utf8))
    #expect(symlink(outside, root + "/phone/link-to-outside") == 0)
    Posix.removeTree(root)
    #expect(!Posix.exists(root))
    #expect(Posix.exists(outside + "/kept"), "the link's target is untouched")
  }

  /// The prefix listing returns exactly the names that start with the prefix (the sweep of pair directories lists
  /// a crowded /tmp this way).
  @Test func listingByPrefixReturnsOnlyMatchingNames() throws {
    let root = try Posix.makeTemporaryDirectory(prefix: "hp-list")
    defer { Posix.removeTree(root) }
    for name in ["healthpair-1-abcdef", "healthpair-22-zzzzzz", "healthpai", "other", "xhealthpair-3-aaaaaa"] {
      try Posix.writeFileAtomically(root + "/" + name, [])
    }
    let names = try Posix.listDirectory(root, prefix: "healthpair-").sorted()
    #expect(names == ["healthpair-1-abcdef", "healthpair-22-zzzzzz"])
    #expect(try Posix.listDirectory(root, prefix: "").count == 5)
  }
}

@Suite("Posix: CPU pinning")
struct PinningTests {
  /// The CPUs a thread may run on, as the kernel lists them for the calling thread.
  static func allowedCPUs() -> String {
    let status = (try? Posix.readFile("/proc/thread-self/status")).map { String(decoding: $0, as: UTF8.self) } ?? ""
    return status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }.map(String.init) ?? "?"
  }

  /// A thread started while its creator is pinned runs on the process's CPUs, not the creator's one (a pool thread
  /// or the spawner would otherwise keep the pin for good, and pass it to every daemon it spawns); unpinning gives
  /// the creator its CPUs back.
  @Test func aThreadStartedWhilePinnedIsNotPinned() {
    let before = Self.allowedCPUs()
    #expect(Posix.pinToCPU(0))
    let pinned = Self.allowedCPUs()
    let seen = Mutex<String?>(nil)
    let done = DispatchSemaphore(value: 0)
    Posix.startThread {
      seen.withLock { $0 = PinningTests.allowedCPUs() }
      done.signal()
    }
    let finished = done.wait(timeout: .now() + 30)
    Posix.unpin()
    #expect(finished == .success)
    #expect(pinned.hasSuffix("\t0") || pinned.hasSuffix(" 0"), "\(pinned)")
    #expect(seen.withLock { $0 } == before, "the new thread runs where the process may")
    #expect(Self.allowedCPUs() == before, "unpinned")
  }
}
