import Dispatch
import FoundationEssentials
import Synchronization
import Testing

@testable import HealthEngine
@testable import HealthExport
@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Journal
@testable import Posix

#if canImport(Glibc)
  import Glibc
#endif

/// The pair directory is ours or refused (issue 29): another user's directory or file, one others may write, a
/// symbolic link or a FIFO at any of the daemon's paths stops `up` at once with the path named — never adopted,
/// followed or waited on.
@Suite("Hostile pair directories and files (real processes)")
struct HostileDirectoryTests {
  /// What starting a pair in `root` threw (nil when it started, which the caller reports), within a deadline: a
  /// start that hangs (a FIFO waited on) is recorded as a failure instead of hanging the test run.
  func startRefusal(_ root: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    let outcome = Mutex<String??>(nil)
    let done = DispatchSemaphore(value: 0)
    Posix.startThread {
      do {
        let pair = try Pair(root: root)
        pair.shutdown()
        outcome.withLock { $0 = .some(nil) }
      } catch { outcome.withLock { $0 = .some("\(error)") } }
      done.signal()
    }
    guard done.wait(timeout: .now() + 60) == .success else {
      Issue.record("starting the pair in \(root) hung", sourceLocation: sourceLocation)
      return "hung"
    }
    return outcome.withLock { $0 } ?? nil
  }

  /// A fresh pair directory with an empty phone directory, both `0700`.
  func pairDirectory(_ prefix: String) throws -> String {
    let root = try Posix.makeTemporaryDirectory(prefix: prefix)
    try Posix.makeDirectory(root + "/phone", mode: 0o700)
    return root
  }

  @Test(
    "A FIFO or a symbolic link at a daemon's journal, change mark, snapshot, log, lock or stderr path is refused, named",
    arguments: ["phone.journal", "phone.changes", "phone.snapshot", "phone.log", "phone.lock", "phone.stderr"],
    [false, true])
  func aFIFOOrALinkInTheDeviceDirectoryIsRefused(name: String, link: Bool) throws {
    let root = try pairDirectory("hp-hostile")
    defer { Posix.removeTree(root) }
    let path = root + "/phone/" + name
    let target = root + "/outside"
    if link { try Posix.makeSymbolicLink(path, to: target) } else { try Posix.makeFIFO(path) }
    let refusal = try #require(startRefusal(root), "the pair started with \(link ? "a link" : "a FIFO") at \(path)")
    #expect(refusal.contains(path), "\(refusal)")
    #expect(refusal.contains(link ? "symbolic link" : "FIFO"), "\(refusal)")
    #expect(!Posix.exists(target), "the link's target was created")
    #expect(Posix.status(ofPath: path)?.kind == (link ? .symbolicLink : .fifo), "what was planted is left alone")
  }

  @Test("A pair or device directory that others may write is refused; a sticky world-writable parent is fine")
  func aDirectoryOthersMayWriteIsRefused() throws {
    let parent = try Posix.makeTemporaryDirectory(prefix: "hp-shared")
    defer { Posix.removeTree(parent) }
    try Posix.chmod(parent, 0o1777)  // like /tmp or /dev/shm
    let root = parent + "/pair"
    try Posix.makeDirectory(root + "/phone", mode: 0o700)
    try Posix.chmod(root, 0o777)
    let loose = try #require(startRefusal(root), "a world-writable pair directory was adopted")
    #expect(loose.contains(root) && loose.contains("mode 0777"), "\(loose)")
    #expect(Posix.fileMode(root)?.mode == 0o777, "refused, not silently repaired")
    try Posix.chmod(root, 0o700)
    try Posix.chmod(root + "/phone", 0o770)
    let group = try #require(startRefusal(root), "a group-writable device directory was adopted")
    #expect(group.contains(root + "/phone") && group.contains("mode 0770"), "\(group)")
    try Posix.chmod(root + "/phone", 0o700)
    #expect(startRefusal(root) == nil, "a private pair directory under a sticky world-writable parent starts")
  }

  @Test(
    "Root refuses a pair directory, device directory or key that another user owns, though it could write them",
    .enabled(if: Posix.effectiveUserID == 0, "needs root, to hand a directory to another uid (65534)"))
  func anotherUsersPairDirectoryIsRefusedEvenByRoot() throws {
    let root = try pairDirectory("hp-foreign")
    defer { Posix.removeTree(root) }
    // A pair another user made: their key and journal, their directories.
    let key = PairLayout(root: root).pairingKey
    try Posix.writeFileAtomically(key, Array("0123456789abcdef0123456789abcdef".utf8))
    let journal = PairLayout(root: root).journal(.phone)
    try Posix.writeFileAtomically(journal, [])
    for path in [root, root + "/phone", key, journal] { try Posix.changeOwner(path, uid: 65534, gid: 65534) }
    let refusal = try #require(startRefusal(root), "root adopted another user's pair directory")
    #expect(refusal.contains(root) && refusal.contains("owned by uid 65534"), "\(refusal)")
    #expect(try Posix.readFile(journal).isEmpty, "nothing was appended to their journal")
    #expect(Posix.fileMode(root)?.uid == 65534 && Posix.fileMode(root)?.mode == 0o700)
    // Each level on its own: our root with their device directory, then our directories with their key.
    try Posix.changeOwner(root, uid: 0, gid: 0)
    let device = try #require(startRefusal(root), "root adopted another user's device directory")
    #expect(device.contains(root + "/phone") && device.contains("owned by uid 65534"), "\(device)")
    try Posix.changeOwner(root + "/phone", uid: 0, gid: 0)
    let foreignKey = try #require(startRefusal(root), "root used another user's pairing key")
    #expect(foreignKey.contains(key) && foreignKey.contains("owned by uid 65534"), "\(foreignKey)")
    #expect(try Posix.readFile(journal).isEmpty)
  }

  @Test(
    "healthpaird itself refuses a device directory, journal or socket of another user",
    .enabled(if: Posix.effectiveUserID == 0, "needs root, to hand a directory to another uid (65534)"),
    arguments: ["", "phone.journal", "phone.sock"])
  func theDaemonRefusesAnotherUsersDirectory(name: String) throws {
    let root = try pairDirectory("hp-foreign-daemon")
    defer { Posix.removeTree(root) }
    let dir = root + "/phone"
    let foreign = name.isEmpty ? dir : dir + "/" + name
    if name == "phone.journal" { try Posix.writeFileAtomically(foreign, []) }
    if name == "phone.sock" { _ = try Posix.listenUnix(foreign) }  // closed at once: a stale socket file
    try Posix.changeOwner(foreign, uid: 65534, gid: 65534)
    let errorPath = root + "/stderr"
    let errFD = try Posix.open(errorPath, O_WRONLY | O_CREAT | O_TRUNC)
    let null = Posix.devNull()
    let (path, environment) = daemonExecutable(try locateDaemon())
    let pid = try Posix.spawn(
      path, ["--device", "phone", "--dir", dir], stdout: null, stderr: errFD, extraEnvironment: environment)
    Posix.close(errFD)
    Posix.close(null)
    if !Posix.waitForExit(pid, timeoutMilliseconds: 20_000) {
      Issue.record("the daemon started in another user's directory instead of refusing")
      try Posix.kill(pid, SIGKILL)
    }
    #expect(try Posix.wait(pid, block: true) == .exited(71))
    let message = String(decoding: try Posix.readFile(errorPath), as: UTF8.self)
    #expect(message.contains(foreign) && message.contains("owned by uid 65534"), "\(message)")
    #expect(!Posix.exists(dir + "/phone.lock") && !Posix.exists(dir + "/phone.log"), "nothing created in it")
    #expect(Posix.fileMode(foreign)?.uid == 65534, "left as it was")
  }

  /// `healthpair export` writes through a temporary file beside the destination; in a shared sticky directory
  /// another user could plant a link at a predictable name and capture the export. The name is unpredictable and
  /// the file created exclusively.
  @Test func anExportNeverWritesThroughALinkPlantedBesideIt() throws {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-export-link")
    defer { Posix.removeTree(dir) }
    let destination = dir + "/export.xml"
    let captured = dir + "/captured"
    try Posix.makeSymbolicLink(destination + ".tmp-\(Posix.processID)", to: captured)
    _ = try HealthExportFiles.writeSynthetic(SyntheticExport(records: 10, end: t0, seed: 1), to: destination)
    #expect(!Posix.exists(captured), "the export was written through the planted link")
    #expect(Posix.status(ofPath: destination)?.kind == .regular)
    let leftovers = try Posix.listDirectory(dir).filter { $0.hasPrefix("export.xml.tmp-") }
    #expect(leftovers == ["export.xml.tmp-\(Posix.processID)"], "only the planted link is left: \(leftovers)")
  }
}
