import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Journal
@testable import Posix

let steps = SampleType.lookup(name: "stepCount")!
let heartRate = SampleType.lookup(name: "heartRate")!
let waterApp = app
let returnApp = AppRecord(
  bundleID: "com.example.return", displayName: "Return", writeUsageDescription: "w", readUsageDescription: nil)
let stepsApp = AppRecord(
  bundleID: "com.example.steps", displayName: "Steps", writeUsageDescription: "w", readUsageDescription: "r")
let trackerApp = AppRecord(
  bundleID: "com.example.tracker", displayName: "Tracker", writeUsageDescription: nil, readUsageDescription: "r",
  entitlements: [.backgroundDelivery])

/// A deterministic identifier: the same history gives the same samples.
func uuid(_ n: Int, _ salt: UInt8 = 0) -> UUID {
  let b = (UInt8(n >> 24 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff))
  return UUID(uuid: (salt, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, b.0, b.1, b.2, b.3))
}

/// A sample input from `t0 + start` lasting `seconds`.
func input(_ type: SampleType, _ value: SampleInput.Value, at start: Double, for seconds: Double, id: UUID)
  -> SampleInput
{
  let from = t0.addingTimeInterval(start)
  return SampleInput(uuid: id, type: type, value: value, start: from, end: from.addingTimeInterval(seconds))
}

/// A stored sample from `t0 + start` lasting `seconds`.
func sample(
  _ type: SampleType, _ value: SampleValue, at start: Double, for seconds: Double, id: UUID, from source: SampleSource
) -> Sample {
  let from = t0.addingTimeInterval(start)
  return Sample(uuid: id, type: type, value: value, start: from, end: from.addingTimeInterval(seconds), source: source)
}

func waterAt(_ seconds: Double, _ mL: Double, id: UUID, metadata: Metadata = [:]) -> SampleInput {
  let date = t0.addingTimeInterval(seconds)
  return SampleInput(
    uuid: id, type: water, value: .quantity(mL, unit: "mL"), start: date, end: date, metadata: metadata)
}

/// Drives a durable device through operations, journaling what they return as the daemon does (acknowledgements
/// lazily: applied in memory, journaled only when asked).
struct Driver {
  let device: DurableDevice
  var wall: Date { device.state.now(wall: t0) }

  func run(_ events: [DeviceEvent]) throws { try device.persist(events) }

  func grant(_ app: String, share: Set<SampleType>, read: Set<SampleType>, answer: PromptAnswer = .allowAll) throws {
    let outcome = try device.state.requestAuthorization(app, share: share, read: read, wall: wall)
    guard case .prompt(let prompt) = outcome else {
      Issue.record("expected a sheet for \(app)")
      return
    }
    try run(device.state.answerPrompt(id: prompt.id, bundleID: nil, answer: answer).events)
  }

  func save(_ app: String, _ inputs: [SampleInput]) throws { try run(device.state.save(app, inputs, wall: wall)) }
  func delete(_ app: String, _ ids: [UUID]) throws { try run(device.state.delete(app, ids, wall: wall)) }
  func lazyAck(_ seq: UInt64) { _ = device.state.receivePeerAck(seq) }
}

/// A phone history touching every durable field: apps installed and removed, answered, cancelled and changed
/// permissions, a strict policy's lock-outs, saves in and out of date order with metadata, deletions, peer
/// entries (new samples, conflicts, remote deletions, settings), acknowledgements journaled and lazy, a sync log
/// restart, a peer log adoption, clock changes.
func phoneHistory(_ d: Driver, part: Int) throws {
  let phoneSource = SampleSource(bundleID: waterApp.bundleID, device: .phone)
  let watchSource = SampleSource(bundleID: returnApp.bundleID, device: .watch)
  switch part {
  case 0:
    try d.run(d.device.state.setClock(t0))
    for app in [waterApp, returnApp, stepsApp, trackerApp] { try d.run(d.device.state.install(app)) }
    try d.run(d.device.state.setPolicy(DevicePolicy(reprompt: .strict, retention: nil)))
    try d.run(d.device.state.enableBackgroundDelivery(trackerApp.bundleID, water, .hourly))
    try d.run(d.device.state.enableBackgroundDelivery(trackerApp.bundleID, steps, .weekly))
    try d.grant(waterApp.bundleID, share: [water, steps], read: [water, steps])
    try d.grant(returnApp.bundleID, share: [mindful], read: [], answer: .choices([Permission(mindful, .share): true]))
    let request = try d.device.state.requestAuthorization(
      stepsApp.bundleID, share: [steps], read: [heartRate], wall: d.wall)
    if case .prompt(let p) = request {
      try d.run(d.device.state.answerPrompt(id: p.id, bundleID: nil, answer: .cancel).events)
    }
    // In date order, then a run out of order (a date index with an unsorted tail), metadata on some.
    try d.save(
      waterApp.bundleID,
      (0..<300).map { i in
        let metadata: Metadata = i % 10 == 0 ? ["n": .int(Int64(i)), "HKWasUserEntered": .bool(true)] : [:]
        return waterAt(Double(i) * 600, Double(i % 7) * 50 + 1, id: uuid(i), metadata: metadata)
      })
    try d.save(waterApp.bundleID, (300..<340).map { waterAt(Double(340 - $0) * 97 - 3600, 5, id: uuid($0)) })
    try d.save(
      waterApp.bundleID,
      (0..<50).map { i in
        input(steps, .quantity(Double(i * 10), unit: "count"), at: Double(i) * 3600, for: 1800, id: uuid(i, 1))
      })
    try d.save(
      returnApp.bundleID,
      (0..<10).map { i in
        input(mindful, .category(0), at: Double(i) * 7200, for: 600, id: uuid(i, 2))
      })
    try d.delete(waterApp.bundleID, (0..<30).map { uuid($0 * 3) })
    try d.run(d.device.state.changeSettings(waterApp.bundleID, .set(Permission(steps, .read), on: false)))
    try d.run(d.device.state.queueWatchSettings(returnApp.bundleID, .set(Permission(mindful, .share), on: true)))
    try d.run(d.device.state.adoptPeerLog(4242))
    // From the watch: new samples, one conflict (the same identifier, other contents), deletions, settings.
    let conflicting = sample(water, .quantity(999), at: 0, for: 0, id: uuid(1), from: phoneSource)
    let fromWatch = (0..<20).map { i in
      sample(mindful, .category(0), at: Double(i) * 60, for: 30, id: uuid(i, 3), from: watchSource)
    }
    let deletion = Tombstone(uuid: uuid(0, 3), type: mindful, source: watchSource, deletedAt: t0)
    let entries = [
      SyncEntry(seq: 1, payload: .samples(fromWatch + [conflicting])),
      SyncEntry(seq: 2, payload: .deletions([deletion])),
      SyncEntry(seq: 3, payload: .watchSettings(bundleID: returnApp.bundleID, change: .reset)),
    ]
    try d.run(d.device.state.receivePeerEntries(entries, wall: d.wall))
    try d.run(d.device.state.receivePeerAck(3))
    d.lazyAck(5)
  case 1:
    try d.run(d.device.state.restartSyncLog(logID: 0xABCDEF))
    d.lazyAck(2)
    try d.run(d.device.state.advanceClock(by: 86_400, wall: t0))
    try d.save(waterApp.bundleID, (400..<450).map { waterAt(Double($0) * 60 - 50_000, 3, id: uuid($0)) })
    try d.run(d.device.state.uninstall(stepsApp.bundleID).events)
    try d.run(d.device.state.changeSettings(returnApp.bundleID, .turnAllOff))
    d.lazyAck(4)
  default:
    try d.save(waterApp.bundleID, (500..<520).map { waterAt(Double($0) * -30, 7, id: uuid($0)) })
    try d.delete(waterApp.bundleID, [uuid(301), uuid(302), uuid(500)])
    let late = sample(mindful, .category(0), at: 0, for: 5, id: uuid(99, 3), from: watchSource)
    try d.run(d.device.state.receivePeerEntries([SyncEntry(seq: 4, payload: .samples([late]))], wall: d.wall))
    try d.run(d.device.state.setClock(nil))
  }
}

/// A watch history: a retention window that prunes (dead slots without tombstones), conflicts the phone wins
/// (the watch replaces its copy: two slots, one identifier), Watch-app settings applied.
func watchHistory(_ d: Driver, part: Int) throws {
  let phoneSource = SampleSource(bundleID: waterApp.bundleID, device: .phone)
  switch part {
  case 0:
    try d.run(d.device.state.setClock(t0))
    for app in [waterApp, returnApp] { try d.run(d.device.state.install(app)) }
    try d.grant(waterApp.bundleID, share: [water], read: [water])
    try d.save(waterApp.bundleID, (0..<100).map { waterAt(Double($0) * 3600, 10, id: uuid($0, 5)) })
    let theirs = sample(water, .quantity(77), at: 0, for: 0, id: uuid(7, 5), from: phoneSource)
    let readOff = SettingsChange.set(Permission(water, .read), on: false)
    let entries = [
      SyncEntry(seq: 1, payload: .samples([theirs])),
      SyncEntry(seq: 2, payload: .watchSettings(bundleID: waterApp.bundleID, change: readOff)),
    ]
    try d.run(d.device.state.receivePeerEntries(entries, wall: d.wall))
    try d.run(d.device.state.advanceClock(by: 10 * 86_400, wall: t0))
  case 1:
    try d.save(waterApp.bundleID, (200..<230).map { waterAt(10 * 86_400 + Double($0), 1, id: uuid($0, 5)) })
    d.lazyAck(1)
  default:
    try d.delete(waterApp.bundleID, [uuid(201, 5)])
    try d.run(d.device.state.setPolicy(DevicePolicy(reprompt: .standard, retention: 3 * 86_400)))
  }
}

/// Every query kind on every type for every app, and the sync and digest views: what must not change when the
/// state comes from a snapshot instead of a replay.
func observations(_ state: inout DeviceState) -> (values: [AnyHashable], answered: Int) {
  var out: [AnyHashable] = []
  var answered = 0
  let wall = t0
  for app in [waterApp.bundleID, returnApp.bundleID] {
    for type in [water, steps, mindful] {
      let ranges: [DateRange?] = [
        nil, DateRange(start: t0, end: t0.addingTimeInterval(86_400)),
        DateRange(start: t0.addingTimeInterval(-7200), end: nil, options: .strictStartDate),
      ]
      func note<T: Hashable>(_ body: () throws -> T) {
        let result = try? body()
        if result != nil { answered += 1 }
        out.append(AnyHashable(result))
      }
      for range in ranges {
        note { try state.sampleQuery(app, SampleQuery(type: type, range: range, limit: 0), wall: wall) }
        let latest = SampleQuery(type: type, range: range, limit: 7, sort: [SampleSort(.startDate, ascending: false)])
        note { try state.sampleQuery(app, latest, wall: wall) }
      }
      if type.isQuantity {
        let hourly = StatisticsQuery(type: type, options: .cumulativeSum, interval: 3600, anchor: t0)
        note { try state.statisticsCollection(app, hourly, wall: wall) }
      }
      for anchor in [0, state.store.changeCounter / 3, state.store.changeCounter - 1] {
        note { try state.anchoredQuery(app, type: type, anchor: anchor, range: nil, limit: 0, wall: wall) }
        note { try state.anchoredQuery(app, type: type, anchor: anchor, range: nil, limit: 5, wall: wall) }
      }
    }
  }
  out.append(state.outboundEntries(after: state.sync.peerAcked, maxItems: 100_000))
  out.append(state.store.dayDigests(from: Int64.min))
  out.append(state.snapshot(wall: wall))
  return (out, answered)
}

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
    try Posix.writeFileAtomically(snapshotPath, reframed(snapshot) { $0[8] = 2 })
    try expectFallback(path, state, "snapshot format version 2 is not supported")
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

@Suite("Snapshots carry companion authorization")
struct CompanionSnapshotTests {
  @Test func decisionStampsAndPendingDecisionsSurviveTheStateEncoding() throws {
    var state = DeviceState(device: .phone)
    _ = try state.setClock(t0)
    _ = try state.install(waterApp)
    var policy = state.policy
    policy.authorization = .companion
    policy.watchSettings = .iPhoneOnly
    _ = try state.setPolicy(policy)
    try allowAll(&state, share: [water], read: [water])
    _ = try state.changeSettings(waterApp.bundleID, .reset, wall: t0)
    #expect(!state.decisionStamps.isEmpty)
    #expect(state.sync.pendingEntries.contains { if case .authorization = $0.payload { true } else { false } })
    var writer = BinaryWriter()
    writer.deviceState(state) { (_: inout BinaryWriter) in }
    let restored = try writer.bytes.withUnsafeBytes { buffer throws(DecodeError) in
      var reader = BinaryReader(buffer)
      return try reader.deviceState()
    }
    #expect(restored.differences(from: state) == [])
    #expect(restored.policy.authorization == .companion && restored.policy.watchSettings == .iPhoneOnly)
  }

  @Test func theLockAndTheHealthAppsValuesAreCarried() throws {
    var state = DeviceState(device: .watch)
    _ = try state.setClock(t0)
    _ = try state.install(waterApp)
    _ = try state.setPolicy(DevicePolicy(reprompt: .strict, retention: 86_400 * 7, units: .metric))
    let water = SampleType.lookup(name: "dietaryWater")!
    let blood = SampleType.lookup(name: "bloodType")!
    let birth = SampleType.lookup(name: "dateOfBirth")!
    _ = try state.changeUserSetting(.characteristic(blood, .value(7)), wall: t0)
    _ = try state.changeUserSetting(.characteristic(birth, .dateOfBirth(year: 1990, month: 4, day: 2)), wall: t0)
    _ = try state.changeUserSetting(.preferredUnit(water, "L"), wall: t0)
    try allowAll(&state, share: [water], read: [])
    _ = state.lock(wall: t0)
    _ = try state.save(
      waterApp.bundleID, [SampleInput(uuid: UUID(), type: water, value: .quantity(1, unit: "L"), start: t0, end: t0)],
      wall: t0)
    #expect(state.isLocked && state.lockedJournal.count == 1 && state.userSettingStamps.count == 3)
    var writer = BinaryWriter()
    writer.deviceState(state) { (_: inout BinaryWriter) in }
    let restored = try writer.bytes.withUnsafeBytes { buffer throws(DecodeError) in
      var reader = BinaryReader(buffer)
      return try reader.deviceState()
    }
    #expect(restored.differences(from: state) == [])
    // A snapshot written before the lock existed ends after the store: unlocked, nothing set.
    var plain = DeviceState(device: .phone)
    _ = try plain.install(waterApp)
    var old = BinaryWriter()
    old.deviceState(plain) { (_: inout BinaryWriter) in }
    // The user section, then the (empty) background delivery and correlation sections after it (two empty arrays
    // each).
    let userSection = 1 + 4 + 4 + 4 + 4
    let backgroundSection = 4 + 4
    let correlationSection = 4 + 4
    let cut = Array(old.bytes.dropLast(userSection + backgroundSection + correlationSection))
    let restoredOld = try cut.withUnsafeBytes { buffer throws(DecodeError) in
      var reader = BinaryReader(buffer)
      return try reader.deviceState()
    }
    #expect(restoredOld.differences(from: plain) == [])
  }

  @Test func entitlementsAndBackgroundRegistrationsAreSnapshottedAndOlderSnapshotsStillRead() throws {
    var state = DeviceState(device: .phone)
    _ = try state.setClock(t0)
    _ = try state.install(waterApp)
    func encode(_ state: DeviceState) -> [UInt8] {
      var writer = BinaryWriter()
      writer.deviceState(state) { (_: inout BinaryWriter) in }
      return writer.bytes
    }
    func decode(_ bytes: [UInt8]) throws -> DeviceState {
      try bytes.withUnsafeBytes { buffer throws(DecodeError) in
        var reader = BinaryReader(buffer)
        let state = try reader.deviceState()
        try reader.expectEnd("state")
        return state
      }
    }
    // A snapshot written before background delivery ends where the two (empty) extra lists begin; one written
    // before correlations, where the two (empty) correlation lists begin.
    let plain = encode(state)
    #expect(try decode(Array(plain.dropLast(16))).differences(from: state) == [])
    #expect(try decode(Array(plain.dropLast(8))).differences(from: state) == [])
    _ = try state.install(trackerApp)
    _ = try state.enableBackgroundDelivery(trackerApp.bundleID, water, .daily)
    var policy = state.policy
    policy.background = BackgroundDeliveryModel(responseWindow: 10, retryDelay: 20)
    _ = try state.setPolicy(policy)
    let restored = try decode(encode(state))
    #expect(restored.differences(from: state) == [])
    #expect(restored.apps[trackerApp.bundleID]?.entitlements == [.backgroundDelivery])
    #expect(restored.policy.background.retryDelay == 20)
  }

  @Test(
    "A slot record whose change number or source index does not fit the packed slot is refused at the field",
    arguments: [(40, UInt64(1) << 48, "change number"), (52, UInt64(1) << 31, "source index")])
  func slotFieldsBeyondThePackedLimits(field: Int, value: UInt64, what: String) throws {
    var state = DeviceState(device: .phone)
    _ = try state.setClock(t0)
    _ = try state.install(waterApp)
    try allowAll(&state, share: [water], read: [])
    let id = UUID()
    _ = try state.save(
      waterApp.bundleID, [SampleInput(uuid: id, type: water, value: .quantity(1, unit: "L"), start: t0, end: t0)],
      wall: t0)
    var writer = BinaryWriter()
    writer.deviceState(state) { (_: inout BinaryWriter) in }
    var bytes = writer.bytes
    // The slot record starts with the identifier's bytes (nothing else in the state holds them).
    let idBytes = withUnsafeBytes(of: id.uuid) { Array($0) }
    let record = try #require((0...(bytes.count - 16)).first { Array(bytes[$0..<$0 + 16]) == idBytes })
    let width = field == 40 ? 8 : 4
    withUnsafeBytes(of: value.littleEndian) { for k in 0..<width { bytes[record + field + k] = $0[k] } }
    let outcome = bytes.withUnsafeBytes { buffer in
      Result { () throws(DecodeError) -> DeviceState in
        var reader = BinaryReader(buffer)
        return try reader.deviceState()
      }
    }
    guard case .failure(let error) = outcome else {
      Issue.record("expected the slot to be refused")
      return
    }
    #expect(error.offset == record + field)
    #expect(error.message.contains(what))
  }
}

/// Water asks for `share` and `read`, and the user allows all (the sheet must be shown).
private func allowAll(_ state: inout DeviceState, share: Set<SampleType>, read: Set<SampleType>) throws {
  let asked = try state.requestAuthorization(waterApp.bundleID, share: share, read: read, wall: t0)
  guard case .prompt(let prompt) = asked else {
    Issue.record("expected a sheet, got \(asked)")
    return
  }
  _ = try state.answerPrompt(id: prompt.id, bundleID: nil, answer: .allowAll, wall: t0)
}
