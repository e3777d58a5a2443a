import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Journal
@testable import Posix

let water = SampleType.lookup(name: "dietaryWater")!
let mindful = SampleType.lookup(name: "mindfulSession")!
let t0 = parseDate("2026-01-05T08:00:00Z")!
let app = AppRecord(
  bundleID: "com.example.water", displayName: "Water", writeUsageDescription: "w", readUsageDescription: "r")

/// A temporary directory removed when the test ends.
final class TempDir {
  let path: String
  init() throws { path = try Posix.makeTemporaryDirectory(prefix: "hp-journal") }
  deinit { Posix.removeTree(path) }
  func file(_ name: String) -> String { path + "/" + name }
}

/// Events that exercise every record kind.
func sampleEvents() -> [DeviceEvent] {
  let sample = Sample(
    uuid: UUID(), type: water, value: .quantity(250), start: t0, end: t0,
    metadata: [
      "HKWasUserEntered": .bool(true), "n": .int(-3), "d": .double(1.5), "s": .string("é"), "t": .date(t0),
      "q": .quantity(2, unit: "kg"),
    ],
    source: SampleSource(bundleID: app.bundleID, device: .phone))
  let tombstone = Tombstone(uuid: sample.uuid, type: water, source: sample.source, deletedAt: t0)
  let peerSample = Sample(
    uuid: UUID(), type: mindful, value: .category(0), start: t0, end: t0.addingTimeInterval(600),
    source: SampleSource(bundleID: "com.example.return", device: .watch))
  return [
    .clockSet(t0),
    .appInstalled(app),
    .appInstalled(
      AppRecord(
        bundleID: "com.example.return", displayName: "Return", writeUsageDescription: "w", readUsageDescription: nil)),
    .promptAnswered(
      bundleID: app.bundleID,
      changes: [
        AuthorizationChange(Permission(water, .share), .authorized),
        AuthorizationChange(Permission(water, .read), .denied),
      ]),
    .promptCancelled(bundleID: "com.example.return"),
    .settingsChanged(bundleID: app.bundleID, change: .set(Permission(water, .read), on: true), viaWatchApp: false),
    .watchSettingsQueued(bundleID: "com.example.return", change: .turnAllOff),
    .samplesSaved([sample]),
    .peerEntriesApplied(
      [
        SyncEntry(seq: 1, payload: .samples([peerSample])),
        SyncEntry(seq: 2, payload: .watchSettings(bundleID: "x", change: .reset)),
      ], at: t0),
    .samplesDeleted([tombstone]),
    .peerAcknowledged(1),
    .policyChanged(DevicePolicy(reprompt: .strict, retention: 86400)),
    .clockSet(nil),
    .appUninstalled(bundleID: "com.example.return"),
    // Background delivery: an app installed with entitlements (its own tag), registrations, a custom model.
    .appInstalled(
      AppRecord(
        bundleID: "com.example.tracker", displayName: "Tracker", writeUsageDescription: nil, readUsageDescription: "r",
        entitlements: [.backgroundDelivery, .healthRecords])),
    // Clinical records: an app with Health Records Info.plist keys (tag 19, snapshot section 7).
    .appInstalled(
      AppRecord(
        bundleID: "com.example.chart", displayName: "Chart", writeUsageDescription: nil, readUsageDescription: nil,
        entitlements: [.healthRecords],
        healthRecords: HealthRecordsInfo(
          usageDescription: "Shows your records.",
          requiredTypes: ["HKClinicalTypeIdentifierAllergyRecord", "HKClinicalTypeIdentifierConditionRecord", "x"]))),
    .backgroundDeliveryChanged(bundleID: "com.example.tracker", type: water, frequency: .hourly),
    .backgroundDeliveryChanged(bundleID: "com.example.tracker", type: water, frequency: nil),
    .backgroundDeliveryChanged(bundleID: "com.example.tracker", type: nil, frequency: nil),
    .policyChanged(
      DevicePolicy(
        reprompt: .standard, retention: nil, background: BackgroundDeliveryModel(responseWindow: 5, retryDelay: 7))),
  ]
}

func stateAfter(_ events: ArraySlice<DeviceEvent>) -> DeviceState {
  var state = DeviceState(device: .phone)
  for e in events { state.apply(e) }
  return state
}

func expectSameState(_ a: DeviceState, _ b: DeviceState, sourceLocation: SourceLocation = #_sourceLocation) {
  let wall = t0
  #expect(a.snapshot(wall: wall) == b.snapshot(wall: wall), sourceLocation: sourceLocation)
  #expect(a.storedSamples(wall: wall) == b.storedSamples(wall: wall), sourceLocation: sourceLocation)
  #expect(a.storedTombstones == b.storedTombstones, sourceLocation: sourceLocation)
  #expect(a.sync == b.sync, sourceLocation: sourceLocation)
}

/// Writes `events` one record each and returns the file bytes and each record's start offset.
func writeJournal(_ path: String, _ events: [DeviceEvent]) throws -> (bytes: [UInt8], recordStarts: [Int]) {
  let device = try DurableDevice(path: path, device: .phone)
  var starts: [Int] = []
  for event in events {
    starts.append(device.journal.size)
    try device.persist([event])
  }
  return (try Posix.readFile(path), starts)
}

/// The error opening `path` throws, or nil when it opens.
func openError(_ path: String) -> JournalError? {
  do {
    _ = try DurableDevice(path: path, device: .phone)
    return nil
  } catch {
    return error
  }
}

@Suite("Journal")
struct JournalTests {
  @Test func everyEventKindRoundTripsThroughTheCodec() throws {
    for event in sampleEvents() {
      var writer = BinaryWriter()
      writer.event(event)
      let decoded = try writer.bytes.withUnsafeBytes { buffer in
        var reader = BinaryReader(buffer)
        let e = try reader.event()
        try reader.expectEnd("event")
        return e
      }
      #expect(decoded == event)
    }
  }

  @Test func reopeningRebuildsExactlyTheSameState() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    let events = sampleEvents()
    _ = try writeJournal(path, events)
    let reopened = try DurableDevice(path: path, device: .phone)
    #expect(reopened.recovery.records == events.count)
    #expect(reopened.recovery.truncated == nil)
    expectSameState(reopened.state, stateAfter(events[...]))
  }

  @Test func aTornTailIsCutAtEveryByteOffsetOfTheLastRecord() throws {
    let dir = try TempDir()
    let events = sampleEvents()
    let (bytes, starts) = try writeJournal(dir.file("full"), events)
    let lastStart = starts.last!
    let expected = stateAfter(events.dropLast())
    for cut in lastStart..<bytes.count {
      let path = dir.file("cut-\(cut)")
      try Posix.writeFileAtomically(path, Array(bytes[0..<cut]))
      let device = try DurableDevice(path: path, device: .phone)
      #expect(device.recovery.records == events.count - 1)
      if cut == lastStart {
        #expect(device.recovery.truncated == nil)
      } else {
        let truncated = try #require(device.recovery.truncated, "cut at \(cut)")
        #expect(truncated.damage.isTail)
        #expect(truncated.damage.offset == lastStart)
        #expect(truncated.droppedBytes == cut - lastStart)
      }
      expectSameState(device.state, expected)
      // The file was cut back, and appending continues cleanly.
      #expect(try Posix.readFile(path).count == lastStart)
      try device.persist([events.last!])
      let again = try DurableDevice(path: path, device: .phone)
      #expect(again.recovery.records == events.count)
    }
  }

  @Test func aFlippedByteInTheLastRecordIsCutAndReported() throws {
    let dir = try TempDir()
    let events = sampleEvents()
    let (bytes, starts) = try writeJournal(dir.file("full"), events)
    let lastStart = starts.last!
    for position in lastStart..<bytes.count {
      var damaged = bytes
      damaged[position] ^= 0x5A
      let path = dir.file("flip-\(position)")
      try Posix.writeFileAtomically(path, damaged)
      let device = try DurableDevice(path: path, device: .phone)
      #expect(device.recovery.records == events.count - 1, "flip at \(position)")
      #expect(device.recovery.truncated?.damage.offset == lastStart)
      expectSameState(device.state, stateAfter(events.dropLast()))
    }
  }

  @Test func aFlippedByteInsideTheJournalRefusesToOpenAndChangesNothing() throws {
    let dir = try TempDir()
    let events = sampleEvents()
    let (bytes, starts) = try writeJournal(dir.file("full"), events)
    // Every byte of the third record (header and payload).
    for position in starts[2]..<starts[3] {
      var damaged = bytes
      damaged[position] ^= 0x01
      let path = dir.file("inner-\(position)")
      try Posix.writeFileAtomically(path, damaged)
      let error = openError(path)
      if case .corrupt(_, let damage, let after)? = error {
        #expect(damage.offset == starts[2])
        #expect(!damage.isTail)
        #expect(after == bytes.count - starts[2])
        #expect(error!.description.contains("--repair"))
      } else {
        Issue.record("flip at \(position) must refuse to open, got \(String(describing: error))")
      }
      #expect(try Posix.readFile(path) == damaged, "nothing stored is changed")
      // --repair keeps every record before the damage.
      let repaired = try DurableDevice(path: path, device: .phone, repair: true)
      #expect(repaired.recovery.records == 2)
      expectSameState(repaired.state, stateAfter(events[0..<2]))
    }
  }

  @Test func zeroFilledTailIsTreatedAsTorn() throws {
    let dir = try TempDir()
    let events = sampleEvents()
    let (bytes, _) = try writeJournal(dir.file("full"), events)
    let path = dir.file("zeros")
    try Posix.writeFileAtomically(path, bytes + [UInt8](repeating: 0, count: 4096))
    let device = try DurableDevice(path: path, device: .phone)
    #expect(device.recovery.records == events.count)
    #expect(device.recovery.truncated?.droppedBytes == 4096)
  }

  @Test func headerProblems() throws {
    let dir = try TempDir()
    let (bytes, _) = try writeJournal(dir.file("full"), Array(sampleEvents().prefix(2)))
    func open(_ content: [UInt8], device: DeviceKind = .phone) throws -> JournalError? {
      let path = dir.file("h-\(UUID())")
      try Posix.writeFileAtomically(path, content)
      do {
        _ = try DurableDevice(path: path, device: device)
        return nil
      } catch { return error }
    }
    var badMagic = bytes
    badMagic[0] = UInt8(ascii: "X")
    guard case .header(_, .badMagic) = try open(badMagic) else {
      Issue.record("bad magic")
      return
    }
    var newer = bytes
    newer[8] = 3
    guard case .header(_, .unsupportedVersion(3)) = try open(newer) else {
      Issue.record("version")
      return
    }
    #expect(JournalError.header(path: "p", .unsupportedVersion(3)).description.contains("reads versions 1 to 2"))
    guard case .header(_, .tooShort(5)) = try open(Array(bytes[0..<5])) else {
      Issue.record("short")
      return
    }
    guard case .header(_, .tooShort(20)) = try open(Array(bytes[0..<20])) else {
      Issue.record("short v2")
      return
    }
    guard case .wrongDevice(_, 1, 0) = try open(bytes, device: .watch) else {
      Issue.record("device")
      return
    }
    // A damaged salt would fail every record's checksum and make the whole journal look like a torn tail: the
    // file header's own checksum refuses it instead, and nothing is cut.
    for position in 12..<28 {
      var damaged = bytes
      damaged[position] ^= 0x10
      guard case .header(_, .checksumMismatch)? = try open(damaged) else {
        Issue.record("a flipped header byte at \(position) must be refused")
        return
      }
    }
  }

  @Test func anUndecodableRecordIsReportedWithItsOffset() throws {
    let dir = try TempDir()
    let framing = JournalFormat.Framing.version2(device: 0, salt: 42)
    var bytes = framing.fileHeader
    [UInt8]([0xEE, 1, 2]).withUnsafeBytes { framing.appendRecord($0, to: &bytes) }
    let path = dir.file("garbage")
    try Posix.writeFileAtomically(path, bytes)
    if case .undecodable(_, let offset, let message)? = openError(path) {
      #expect(offset == JournalFormat.version2HeaderSize + JournalFormat.recordHeaderSize + 1)
      #expect(message.contains("unknown journal event tag 238"))
    } else {
      Issue.record("expected an undecodable-record error")
    }
  }

  /// Issue 10 item 1: an older build journaled `inf mL` and infinite clocks; they are refused where they sit.
  @Test func aRecordCarryingANonFiniteValueIsRefusedWithItsOffset() throws {
    let dir = try TempDir()
    let source = SampleSource(bundleID: app.bundleID, device: .phone)
    let base = Sample(uuid: UUID(), type: water, value: .quantity(250), start: t0, end: t0, source: source)
    var infinite = base
    infinite.value = .quantity(.infinity)
    let nanDate = Date(timeIntervalSinceReferenceDate: .nan)
    var nanStart = base
    nanStart.start = nanDate
    var nanMetadata = base
    nanMetadata.metadata = ["d": .double(.nan)]
    var infiniteMetadataQuantity = base
    infiniteMetadataQuantity.metadata = ["q": .quantity(-.infinity, unit: "kg")]
    let cases: [(DeviceEvent, String)] = [
      (.samplesSaved([infinite]), "quantity inf is not finite"),
      (.samplesSaved([nanStart]), "start date nan is not finite"),
      (.samplesSaved([nanMetadata]), "metadata number nan is not finite"),
      (.samplesSaved([infiniteMetadataQuantity]), "metadata quantity -inf is not finite"),
      (.clockSet(Date(timeIntervalSinceReferenceDate: .infinity)), "clock inf is not finite"),
      (.policyChanged(DevicePolicy(reprompt: .strict, retention: .nan)), "retention nan is not finite"),
      (
        .samplesDeleted([Tombstone(uuid: base.uuid, type: water, source: source, deletedAt: nanDate)]),
        "deletion date nan is not finite"
      ),
      (.peerEntriesApplied([SyncEntry(seq: 1, payload: .samples([infinite]))], at: t0), "quantity inf is not finite"),
    ]
    for (event, message) in cases {
      let path = dir.file("old-\(UUID())")
      let framing = JournalFormat.Framing.version2(device: 0, salt: 7)
      var bytes = framing.fileHeader
      var good = BinaryWriter()
      good.event(.clockSet(t0))
      good.bytes.withUnsafeBytes { framing.appendRecord($0, to: &bytes) }
      let recordStart = bytes.count
      var writer = BinaryWriter()
      writer.event(event)
      writer.bytes.withUnsafeBytes { framing.appendRecord($0, to: &bytes) }
      try Posix.writeFileAtomically(path, bytes)
      guard case .undecodable(_, let offset, let text)? = openError(path) else {
        Issue.record("\(event) must be refused, got \(String(describing: openError(path)))")
        continue
      }
      #expect(text == message)
      #expect(offset > recordStart + JournalFormat.recordHeaderSize && offset < bytes.count, "\(text) at \(offset)")
      // The f64 the offset names holds the non-finite value.
      let bits = bytes[offset..<offset + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      #expect(!Double(bitPattern: bits).isFinite, "\(text) at \(offset)")
      #expect(try Posix.readFile(path) == bytes, "nothing was changed")
    }
  }

  @Test func aSyncEntryCarryingANonFiniteValueIsRefusedOnDecode() throws {
    var sample = Sample(
      uuid: UUID(), type: water, value: .quantity(1), start: t0, end: t0,
      source: SampleSource(bundleID: app.bundleID, device: .watch))
    sample.end = Date(timeIntervalSinceReferenceDate: .infinity)
    var writer = BinaryWriter()
    writer.syncEntry(SyncEntry(seq: 3, payload: .samples([sample])))
    let error = writer.bytes.withUnsafeBytes { buffer -> DecodeError? in
      var reader = BinaryReader(buffer, reportBase: 100)
      do throws(DecodeError) {
        _ = try reader.syncEntry()
        return nil
      } catch { return error }
    }
    #expect(error?.message == "end date inf is not finite")
    // seq u64, tag u8, count u32, uuid 16, type u16, value tag u8 + f64, start f64: the end date follows.
    #expect(error?.offset == 100 + 8 + 1 + 4 + 16 + 2 + 9 + 8)
  }

  @Test func aFailedWriteLeavesTheJournalAsItWas() throws {
    let dir = try TempDir()
    let path = dir.file("enospc.journal")
    let device = try DurableDevice(path: path, device: .phone)
    let events = sampleEvents()
    try device.persist(Array(events.prefix(3)))
    let before = try Posix.readFile(path)
    Posix.injectFault("write", .noSpace, subjectContains: "enospc.journal")
    let failure: JournalError? = {
      do throws(JournalError) {
        try device.persist([events[3]])
        return nil
      } catch { return error }
    }()
    if case .io(let e)? = failure {
      #expect(e.errno == .noSpace)
    } else {
      Issue.record("expected ENOSPC, got \(String(describing: failure))")
    }
    #expect(try Posix.readFile(path) == before)
    let reopened = try DurableDevice(path: path, device: .phone)
    #expect(reopened.recovery.records == 3)
    #expect(reopened.recovery.truncated == nil)
  }

  @Test("A symbolic link at the journal's path is refused, dangling or not, and nothing is created through it")
  func aSymbolicLinkIsRefusedNotFollowed() throws {
    let dir = try TempDir()
    let outside = try TempDir()
    let existing = outside.file("existing")
    try Posix.writeFileAtomically(existing, Array("keep me".utf8))
    for target in [outside.file("missing"), existing] {
      let path = dir.file("phone.journal")
      Posix.unlink(path)
      try Posix.makeSymbolicLink(path, to: target)
      guard case .io(let e)? = openError(path) else {
        Issue.record("expected the link to be refused (target \(target))")
        continue
      }
      #expect(e.errno == .symbolicLink)
      #expect(e.description.contains(path) && e.description.contains("symbolic link"), "\(e)")
    }
    #expect(!Posix.exists(outside.file("missing")), "the dangling link's target was created")
    #expect(try Posix.readFile(existing) == Array("keep me".utf8))
  }

  @Test func syncEachCommitWritesAndFsyncs() throws {
    let dir = try TempDir()
    let path = dir.file("fsync.journal")
    let device = try DurableDevice(path: path, device: .phone, syncEachCommit: true)
    Posix.injectFault("fsync", .noSpace, subjectContains: "fsync.journal")
    let error = #expect(throws: JournalError.self) { try device.persist([.clockSet(t0)]) }
    guard case .io(let failure)? = error else {
      Issue.record("expected the fsync failure, got \(String(describing: error))")
      return
    }
    #expect(failure == SystemError("fsync", path, .noSpace))
    try device.persist([.clockSet(t0)])
    #expect(try DurableDevice(path: path, device: .phone).recovery.records == 1)
  }
}
