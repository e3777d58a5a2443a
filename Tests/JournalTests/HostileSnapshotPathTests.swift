import Testing

@testable import HealthEngine
@testable import Journal
@testable import Posix

/// A snapshot is written and read as the daemon's own file (issue 29): whatever is planted at its paths — a link,
/// a FIFO — is refused and named, never written through or waited on.
@Suite("Snapshots never follow what is planted at their paths")
struct HostileSnapshotPathTests {
  @Test func aLinkAtTheTemporarySnapshotIsRefusedNotWrittenThrough() throws {
    let dir = try TempDir()
    let outside = try TempDir()
    let target = outside.file("captured")
    try Posix.writeFileAtomically(target, Array("keep".utf8), mode: 0o644)
    let path = dir.file("phone.journal")
    let device = try DurableDevice(path: path, device: .phone)
    try phoneHistory(Driver(device: device), part: 0)
    let temporary = SnapshotFile.path(forJournal: path) + ".tmp"
    try Posix.makeSymbolicLink(temporary, to: target)
    let error = #expect(throws: SnapshotError.self) { try device.writeSnapshot() }
    let message = error.map { "\($0)" } ?? ""
    #expect(message.contains(temporary) && message.contains("symbolic link"), "\(message)")
    #expect(try Posix.readFile(target) == Array("keep".utf8), "the link's target was written")
    #expect(Posix.fileMode(target)?.mode == 0o644)
    #expect(Posix.status(ofPath: temporary)?.kind == .symbolicLink, "the planted link is left alone")
    #expect(!Posix.exists(SnapshotFile.path(forJournal: path)))
  }

  @Test func aFIFOAtTheSnapshotIsReportedWithoutWaitingOnIt() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    do {
      let device = try DurableDevice(path: path, device: .phone)
      try phoneHistory(Driver(device: device), part: 0)
    }
    let snapshot = SnapshotFile.path(forJournal: path)
    try Posix.makeFIFO(snapshot)
    let error = #expect(throws: SnapshotError.self) { _ = try SnapshotFile.read(path: snapshot, device: .phone) }
    let message = error.map { "\($0)" } ?? ""
    #expect(message.contains(snapshot) && message.contains("FIFO"), "\(message)")
  }
}
