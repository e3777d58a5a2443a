import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Journal
@testable import Posix

@Suite("Snapshots")
struct SnapshotTests {
  /// Builds a history in three parts with a snapshot after the second, reopens from snapshot + tail and by full
  /// replay, and compares every durable field, then every query, then the same further changes on both.
  @Test(arguments: [DeviceKind.phone, .watch])
  func aSnapshotRestoresExactlyTheReplayedState(_ kind: DeviceKind) throws {
    let dir = try TempDir()
    let path = dir.file("\(kind).journal")
    let history = kind == .phone ? phoneHistory : watchHistory
    var live: DeviceState
    do {
      let device = try DurableDevice(path: path, device: kind)
      let driver = Driver(device: device)
      try history(driver, 0)
      var probe = device.state
      _ = observations(&probe)  // queries only read: the state is the same after them
      device.state = probe
      try history(driver, 1)
      let bytes = try device.writeSnapshot()
      #expect(bytes > 0 && device.snapshotEnd == device.journal.size)
      // The snapshot is exactly what its journal prefix rebuilds (the lazy acknowledgement was journaled first).
      #expect(try DurableDevice(path: path, device: kind, snapshots: false).state.differences(from: device.state) == [])
      try history(driver, 2)
      live = device.state
    }
    let resumed = try DurableDevice(path: path, device: kind)
    let replayed = try DurableDevice(path: path, device: kind, snapshots: false)
    #expect(resumed.snapshotProblem == nil)
    #expect(resumed.recovery.resumedRecords > 0 && resumed.recovery.resumedRecords < resumed.recovery.records)
    #expect(resumed.recovery.records == replayed.recovery.records)
    #expect(replayed.recovery.resumedRecords == 0)
    #expect(resumed.state.differences(from: replayed.state) == [])
    #expect(resumed.state.differences(from: live) == [])
    #expect(resumed.state.store.changeCounter > 0 && resumed.state.store.tombstones.count > 0)
    var a = resumed.state
    var b = replayed.state
    expectSameObservations(&a, &b)
    // The restored indexes keep working: the same changes on both, out of date order included.
    try applySameChanges(&a, kind)
    try applySameChanges(&b, kind)
    #expect(a.differences(from: b) == [])
    expectSameObservations(&a, &b)
  }

  /// A device whose journal lost records asks the peer for everything it holds (docs/protocol.md): the request is
  /// journaled and snapshotted, so it outlives any number of restarts, until the peer's new log answers it.
  @Test func aResendRequestSurvivesReplayAndSnapshotsUntilAnswered() throws {
    let dir = try TempDir()
    let path = dir.file("watch.journal")
    do {
      let device = try DurableDevice(path: path, device: .watch)
      try device.persist(device.state.restartSyncLog(logID: 0x51))
      try device.persist(device.state.adoptPeerLog(0x60))
      try device.persist(device.state.requestPeerResend())
      #expect(device.state.requestPeerResend().isEmpty, "asked once")
      #expect(try device.writeSnapshot() > 0)
    }
    let restored = try DurableDevice(path: path, device: .watch)
    let replayed = try DurableDevice(path: path, device: .watch, snapshots: false)
    #expect(restored.snapshotProblem == nil && restored.state.sync.resendRequested)
    #expect(replayed.state.sync.resendRequested && replayed.state.sync.peerLogID == 0x60)
    // Adopting a log some other way leaves the request standing; the answer clears it.
    try restored.persist(restored.state.adoptPeerLog(0x61))
    #expect(restored.state.sync.resendRequested)
    try restored.persist(restored.state.adoptResentPeerLog(0x62))
    #expect(!restored.state.sync.resendRequested && restored.state.sync.peerLogID == 0x62)
    #expect(restored.state.sync.appliedFromPeer == 0)
    _ = try restored.writeSnapshot()
    let answered = try DurableDevice(path: path, device: .watch)
    let answeredReplay = try DurableDevice(path: path, device: .watch, snapshots: false)
    #expect(!answered.state.sync.resendRequested && answered.state.sync.peerLogID == 0x62)
    #expect(answered.state.differences(from: answeredReplay.state) == [])
  }

  func expectSameObservations(
    _ a: inout DeviceState, _ b: inout DeviceState, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let ((x, answered), (y, _)) = (observations(&a), observations(&b))
    let what: Comment = "\(answered) of \(x.count) queries answered"
    // Queries of a type whose read permission was never decided fail with code 5 (behavior.md R5): compared as
    // failures; enough of the others must really run.
    #expect(x.count == y.count && answered >= 10, what, sourceLocation: sourceLocation)
    for (i, (p, q)) in zip(x, y).enumerated() where p != q {
      let what: Comment = "observation \(i) differs:\n\("\(p)".prefix(800))\n\("\(q)".prefix(800))"
      Issue.record(what, sourceLocation: sourceLocation)
      break
    }
  }

  func applySameChanges(_ state: inout DeviceState, _ kind: DeviceKind) throws {
    let wall = state.now(wall: t0)
    let inputs = (900..<940).map { i in
      let date = wall.addingTimeInterval(Double(i - 940) * 13)
      return SampleInput(uuid: uuid(i, 9), type: water, value: .quantity(2, unit: "mL"), start: date, end: date)
    }
    _ = try state.save(waterApp.bundleID, inputs, wall: wall)
    let live = state.storedSamples(type: water, wall: wall).filter { $0.source.bundleID == waterApp.bundleID }
    _ = try state.delete(waterApp.bundleID, live.prefix(3).map(\.uuid), wall: wall)
    _ = state.receivePeerAck(state.sync.lastSeq)
  }

  @Test func theStoredDateIndexIsKeptAsItWas() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    let device = try DurableDevice(path: path, device: .phone)
    try phoneHistory(Driver(device: device), part: 0)
    let contents = device.state.store.contents
    let orders = contents.startOrders
    let outOfInsertionOrder = orders.contains { order in
      order.order != contents.slots.indices.filter { contents.slots[$0].type == order.type }.map { Int32($0) }
    }
    #expect(outOfInsertionOrder, "the history inserts out of date order")
    #expect(orders.allSatisfy { $0.sortedCount == $0.order.count }, "a snapshot holds the date index merged")
    try device.writeSnapshot()
    let resumed = try DurableDevice(path: path, device: .phone)
    #expect(resumed.recovery.resumedRecords == device.journal.records)
    #expect(resumed.state.store.contents.startOrders == orders)
  }

  /// A snapshot written on an empty journal, and one on a journal whose snapshot covers everything.
  @Test func edgesOfTheJournal() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    do {
      let device = try DurableDevice(path: path, device: .phone)
      try device.writeSnapshot()
      #expect(!device.snapshotDue(atShutdown: true), "nothing changed since")
    }
    let empty = try DurableDevice(path: path, device: .phone)
    #expect(empty.snapshotProblem == nil && empty.recovery.records == 0)
    try phoneHistory(Driver(device: empty), part: 0)
    try empty.writeSnapshot()
    let full = try DurableDevice(path: path, device: .phone)
    #expect(full.snapshotProblem == nil && full.recovery.resumedRecords == full.recovery.records)
    #expect(full.state.differences(from: empty.state) == [])
  }

  // MARK: Falling back to replay

  /// A journal with a snapshot covering part of it; returns the journal path, the snapshot's bytes and the state.
  func journalWithSnapshot(_ dir: TempDir) throws -> (path: String, snapshot: [UInt8], state: DeviceState) {
    let path = dir.file("phone.journal")
    let device = try DurableDevice(path: path, device: .phone)
    try phoneHistory(Driver(device: device), part: 0)
    try device.writeSnapshot()
    try phoneHistory(Driver(device: device), part: 1)
    let replayed = try DurableDevice(path: path, device: .phone, snapshots: false).state
    return (path, try Posix.readFile(SnapshotFile.path(forJournal: path)), replayed)
  }

  /// Opens `path`, which must fall back to a full replay with a problem matching `problem`, and rebuild `expected`.
  func expectFallback(
    _ path: String, _ expected: DeviceState, _ problem: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let device = try DurableDevice(path: path, device: .phone)
    #expect(device.recovery.resumedRecords == 0, sourceLocation: sourceLocation)
    let found = device.snapshotProblem ?? "no problem"
    #expect(found.contains(problem), "\(found)", sourceLocation: sourceLocation)
    #expect(device.state.differences(from: expected) == [], sourceLocation: sourceLocation)
  }

  @Test func aTornSnapshotIsIgnored() throws {
    let dir = try TempDir()
    let (path, snapshot, state) = try journalWithSnapshot(dir)
    let snapshotPath = SnapshotFile.path(forJournal: path)
    for cut in [0, 5, 16, snapshot.count / 2, snapshot.count - 9, snapshot.count - 1] {
      try Posix.writeFileAtomically(snapshotPath, Array(snapshot[0..<cut]))
      try expectFallback(path, state, snapshotPath)
    }
  }

  @Test func aCorruptSnapshotIsIgnoredWhereverTheDamage() throws {
    let dir = try TempDir()
    let (path, snapshot, state) = try journalWithSnapshot(dir)
    let snapshotPath = SnapshotFile.path(forJournal: path)
    var mutator = 0x5EED as UInt64
    for _ in 0..<40 {
      mutator = mutator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      var bytes = snapshot
      let at = Int(mutator >> 33) % bytes.count
      bytes[at] ^= UInt8(1 << Int(mutator >> 60 & 7))
      try Posix.writeFileAtomically(snapshotPath, bytes)
      try expectFallback(path, state, snapshotPath)
    }
  }

  /// Re-frames a snapshot's header and body with valid checksums, so only what the bytes say is wrong.
  func reframed(_ snapshot: [UInt8], _ change: (inout [UInt8]) -> Void) -> [UInt8] {
    let n = snapshot.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: snapshot.count - 24, as: UInt32.self)) }
    var bytes = Array(snapshot[0..<(snapshot.count - SnapshotFile.trailerTail - 4 * n)])
    change(&bytes)
    return SnapshotFile.file(header: Array(bytes[0..<16]), body: Array(bytes[16...]))
  }

  @Test func aSnapshotOfAnotherVersionOrDeviceIsIgnored() throws {
    let dir = try TempDir()
    let (path, snapshot, state) = try journalWithSnapshot(dir)
    let snapshotPath = SnapshotFile.path(forJournal: path)
    #expect(reframed(snapshot) { _ in } == snapshot, "re-framing alone changes nothing")
    try Posix.writeFileAtomically(snapshotPath, reframed(snapshot) { $0[8] = 3 })
    try expectFallback(path, state, "snapshot format version 3 is not supported")
    // A version-1 snapshot (written before workouts) is refused: the journal is replayed in full.
    try Posix.writeFileAtomically(snapshotPath, reframed(snapshot) { $0[8] = 1 })
    try expectFallback(path, state, "snapshot format version 1 is not supported (this build reads version 2)")
    try Posix.writeFileAtomically(snapshotPath, reframed(snapshot) { $0[12] = 1 })
    try expectFallback(path, state, "snapshot belongs to device 1, not the phone")
    try Posix.writeFileAtomically(snapshotPath, reframed(snapshot) { $0[0] = UInt8(ascii: "X") })
    try expectFallback(path, state, "not a HealthPair snapshot")
    // A watch's snapshot put beside the phone's journal.
    let watchPath = dir.file("watch.journal")
    let watch = try DurableDevice(path: watchPath, device: .watch)
    try watchHistory(Driver(device: watch), part: 0)
    try watch.writeSnapshot()
    try Posix.writeFileAtomically(snapshotPath, try Posix.readFile(SnapshotFile.path(forJournal: watchPath)))
    try expectFallback(path, state, "not the phone")
    // Trailing garbage inside a well-framed body.
    try Posix.writeFileAtomically(snapshotPath, reframed(snapshot) { $0 += [0] })
    try expectFallback(path, state, "unexpected trailing bytes after snapshot")
  }

  @Test func aSnapshotOfAnotherJournalIsIgnored() throws {
    let dir = try TempDir()
    let (path, snapshot, _) = try journalWithSnapshot(dir)
    // Another journal of the same device, with a history of its own, gets the first one's snapshot.
    let otherPath = dir.file("other/phone.journal")
    try Posix.makeDirectory(dir.file("other"))
    let other = try DurableDevice(path: otherPath, device: .phone)
    try watchHistory(Driver(device: other), part: 0)
    let expected = other.state
    try Posix.writeFileAtomically(SnapshotFile.path(forJournal: otherPath), snapshot)
    try expectFallback(otherPath, expected, "journal")
    _ = path
  }

  /// A journal cut back before the snapshot's end (a torn tail after a power loss, a restore from an older copy)
  /// and one that was cut and then grew again past it with other records.
  @Test func aSnapshotAheadOfItsJournalIsIgnored() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    let device = try DurableDevice(path: path, device: .phone)
    try phoneHistory(Driver(device: device), part: 0)
    let keep = device.journal.size
    let kept = try DurableDevice(path: path, device: .phone, snapshots: false).state
    try phoneHistory(Driver(device: device), part: 1)
    try device.writeSnapshot()
    let full = try Posix.readFile(path)
    try Posix.writeFileAtomically(path, Array(full[0..<keep]))
    // The cut also lost change numbers the change mark keeps (ChangeMarkTests); this test is about the snapshot.
    Posix.unlink(ChangeMarkFile.path(forJournal: path))
    try expectFallback(path, kept, "but the journal has \(keep)")
    // Grown again past the snapshot's end, with other records.
    let regrown = try DurableDevice(path: path, device: .phone, snapshots: false)
    var n = 10_000
    while regrown.journal.size <= full.count + 100 {
      try Driver(device: regrown).save(waterApp.bundleID, (n..<n + 10).map { waterAt(Double($0), 1, id: uuid($0)) })
      n += 10
    }
    try expectFallback(path, regrown.state, "snapshot")
  }

  @Test func damageAfterTheSnapshotIsHandledAsWithoutOne() throws {
    let dir = try TempDir()
    let (path, _, _) = try journalWithSnapshot(dir)
    let withSnapshot = try DurableDevice(path: path, device: .phone)
    #expect(withSnapshot.recovery.resumedRecords > 0)
    let records = try Posix.readFile(path).withUnsafeBytes { try JournalFormat.scan(file: $0).records }
    // A torn last record is cut; the snapshot still applies.
    var bytes = try Posix.readFile(path)
    bytes.removeLast(3)
    try Posix.writeFileAtomically(path, bytes)
    let torn = try DurableDevice(path: path, device: .phone)
    #expect(torn.recovery.truncated != nil && torn.recovery.resumedRecords > 0)
    #expect(torn.recovery.records == records.count - 1)
    #expect(torn.state.differences(from: try DurableDevice(path: path, device: .phone, snapshots: false).state) == [])
    // A flipped byte in a record after the snapshot with intact records after it: refused, as without one.
    bytes = try Posix.readFile(path)
    let victim = records[records.count - 3]
    bytes[victim.offset] ^= 0x40
    try Posix.writeFileAtomically(path, bytes)
    let error = #expect(throws: JournalError.self) { _ = try DurableDevice(path: path, device: .phone) }
    guard case .corrupt(let at, let damage, let bytesAfter)? = error else {
      Issue.record("expected the damage to be refused as corruption, got \(String(describing: error))")
      return
    }
    #expect(at == path && !damage.isTail && bytesAfter > 0)
    #expect(damage.offset == victim.offset - JournalFormat.recordHeaderSize, "located at the damaged record")
    guard case .checksumMismatch = damage.kind else {
      Issue.record("expected a payload checksum mismatch, got \(damage)")
      return
    }
  }

  @Test func aFailedWriteLeavesThePreviousSnapshot() throws {
    let dir = try TempDir()
    let (path, snapshot, _) = try journalWithSnapshot(dir)
    let snapshotPath = SnapshotFile.path(forJournal: path)
    let device = try DurableDevice(path: path, device: .phone)
    try phoneHistory(Driver(device: device), part: 2)
    // Faults are process-wide: only operations no other test injects, on this test's own path.
    for operation in ["rename", "open"] {
      Posix.injectFault(operation, .noSpace, subjectContains: snapshotPath)
      let failed = operation == "open" ? snapshotPath + ".tmp" : snapshotPath
      let error = #expect(throws: SnapshotError.self) { try device.writeSnapshot() }
      guard case .io(let failure)? = error else {
        Issue.record("\(operation): expected the injected failure, got \(String(describing: error))")
        continue
      }
      #expect(failure == SystemError(operation, failed, .noSpace))
      #expect(try Posix.readFile(snapshotPath) == snapshot, "\(operation)")
      #expect(!Posix.exists(snapshotPath + ".tmp"))
      #expect(!device.snapshotDue(), "no retry before the journal grows")
    }
    // An interrupted write's leftover is removed at the next open, and the old snapshot still serves.
    try Posix.writeFileAtomically(snapshotPath + ".tmp", [1, 2, 3])
    let reopened = try DurableDevice(path: path, device: .phone)
    #expect(!Posix.exists(snapshotPath + ".tmp"))
    #expect(reopened.snapshotProblem == nil && reopened.recovery.resumedRecords > 0)
    #expect(reopened.state.differences(from: device.state) == [])
  }

  @Test func whenASnapshotIsDue() throws {
    let dir = try TempDir()
    let device = try DurableDevice(path: dir.file("phone.journal"), device: .phone)
    #expect(!device.snapshotDue() && !device.snapshotDue(atShutdown: true), "an empty journal")
    device.snapshotPolicy.minimumGrowth = 4096
    device.snapshotPolicy.shutdownGrowth = 1024
    try device.persist(device.state.setClock(t0))
    #expect(!device.snapshotDue() && !device.snapshotDue(atShutdown: true))
    try phoneHistory(Driver(device: device), part: 0)
    #expect(device.snapshotDue() && device.snapshotDue(atShutdown: true))
    let bytes = try device.writeSnapshot()
    #expect(!device.snapshotDue() && !device.snapshotDue(atShutdown: true))
    // Next due after half the snapshot's size (more than the minimum here).
    #expect(bytes / 2 > 4096)
    while device.journalSinceSnapshot < bytes / 2 - 64 {
      try device.persist(device.state.setClock(t0))
      #expect(!device.snapshotDue())
    }
    while device.journalSinceSnapshot < bytes / 2 { try device.persist(device.state.setClock(t0)) }
    #expect(device.snapshotDue())
    let off = try DurableDevice(path: dir.file("other.journal"), device: .phone, snapshots: false)
    try phoneHistory(Driver(device: off), part: 0)
    off.snapshotPolicy.minimumGrowth = 1
    #expect(!off.snapshotDue() && !off.snapshotDue(atShutdown: true))
    #expect(try off.writeSnapshot() == 0 && !Posix.exists(dir.file("other.snapshot")))
  }
}
