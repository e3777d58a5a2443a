import Testing

@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix

/// `healthpair up` and `down` refuse a pair directory that is not ours (issue 29) before using anything in it.
@Suite("Command line: a pair directory that is not ours")
struct HostilePairDirectoryCLITests {
  @Test func upAndDownRefuseAWorldWritablePairDirectory() throws {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-cli-loose")
    defer { Posix.removeTree(dir) }
    try Posix.chmod(dir, 0o777)
    let up = try healthpair(["up", "--dir", dir])
    #expect(up.status != 0)
    #expect(up.err.contains(dir) && up.err.contains("mode 0777"), "\(up.err)")
    #expect(try Posix.listDirectory(dir).isEmpty, "nothing was created in it")
    let down = try healthpair(["down", "--dir", dir])
    #expect(down.status != 0 && down.err.contains(dir), "\(down.err)")
  }

  @Test(.enabled(if: Posix.effectiveUserID == 0, "needs root, to hand a directory to another uid (65534)"))
  func rootRefusesUpInAnotherUsersPairDirectory() throws {
    let dir = try Posix.makeTemporaryDirectory(prefix: "hp-cli-foreign")
    defer { Posix.removeTree(dir) }
    let layout = PairLayout(root: dir)
    try Posix.makeDirectory(layout.directory(.phone), mode: 0o700)
    try Posix.writeFileAtomically(layout.pairingKey, Array("0123456789abcdef0123456789abcdef".utf8))
    try Posix.writeFileAtomically(layout.journal(.phone), [])
    for path in [dir, layout.directory(.phone), layout.pairingKey, layout.journal(.phone)] {
      try Posix.changeOwner(path, uid: 65534, gid: 65534)
    }
    let up = try healthpair(["up", "--dir", dir])
    #expect(up.status != 0)
    #expect(up.err.contains(dir) && up.err.contains("owned by uid 65534"), "\(up.err)")
    #expect(try Posix.readFile(layout.journal(.phone)).isEmpty, "their journal was not touched")
    #expect(!Posix.exists(layout.directory(.watch)) && !Posix.exists(layout.log(.phone)), "nothing created")
    #expect(Posix.fileMode(dir)?.uid == 65534)
  }
}
