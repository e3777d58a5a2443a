import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Journal
@testable import Posix

/// Applies `events` to the device's state and journals them, as the daemon does.
private func commit(_ device: DurableDevice, _ events: [DeviceEvent]) throws {
  for event in events { device.state.apply(event) }
  try device.persist(events)
}

private func waterSample(at offset: Double) -> Sample {
  Sample(
    uuid: UUID(), type: water, value: .quantity(250), start: t0.addingTimeInterval(offset),
    end: t0.addingTimeInterval(offset), source: SampleSource(bundleID: app.bundleID, device: .phone))
}

/// A phone journal with the app allowed to share and read water, and `count` samples saved one record each.
private func journalWithSamples(_ path: String, count: Int) throws -> (anchor: UInt64, samples: [Sample]) {
  let device = try DurableDevice(path: path, device: .phone)
  try commit(device, [.clockSet(t0), .appInstalled(app)])
  try commit(
    device,
    [
      .promptAnswered(
        bundleID: app.bundleID,
        changes: [
          AuthorizationChange(Permission(water, .share), .authorized),
          AuthorizationChange(Permission(water, .read), .authorized),
        ])
    ])
  var samples: [Sample] = []
  for i in 0..<count {
    let sample = waterSample(at: Double(i) * 60)
    samples.append(sample)
    try commit(device, [.samplesSaved([sample])])
  }
  let result = try device.state.anchoredQuery(app.bundleID, type: water, anchor: 0, range: nil, limit: 0, wall: t0)
  #expect(result.added.count == count)
  return (result.newAnchor, samples)
}

@Suite("Change numbers survive a journal that lost records")
struct ChangeMarkTests {
  @Test("after a cut, the next sample is numbered past the anchor an app holds, and its anchored query returns it")
  func anchorAfterCutStillSeesTheNextSample() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    let (anchor, _) = try journalWithSamples(path, count: 3)
    #expect(try JournalSurgery.dropLastRecords(path, count: 2) == 2)
    let reopened = try DurableDevice(path: path, device: .phone)
    #expect(reopened.state.storedSamples(wall: t0).count == 1, "the cut lost two samples")
    #expect(reopened.state.lastChangeNumber >= anchor, "change numbers never move back")
    #expect(reopened.changeNumbersSkipped == 2)
    let next = waterSample(at: 3600)
    try commit(reopened, [.samplesSaved([next])])
    let changes = try reopened.state.anchoredQuery(
      app.bundleID, type: water, anchor: anchor, range: nil, limit: 0, wall: t0)
    #expect(changes.added.map(\.uuid) == [next.uuid], "the sample saved after the cut is not missed")
    #expect(changes.newAnchor > anchor)
  }

  @Test("the advance is journaled: a later open, or a snapshot, numbers the same way")
  func theAdvanceSurvivesAnotherRestart() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    let (anchor, _) = try journalWithSamples(path, count: 4)
    try JournalSurgery.dropLastRecords(path, count: 3)
    do {
      let reopened = try DurableDevice(path: path, device: .phone)
      try commit(reopened, [.samplesSaved([waterSample(at: 7200)])])
      try reopened.writeSnapshot()
    }
    Posix.unlink(ChangeMarkFile.path(forJournal: path))  // the journal alone must now rebuild the same numbers
    let again = try DurableDevice(path: path, device: .phone, snapshots: false)
    #expect(again.state.lastChangeNumber == anchor + 1)
    let fromSnapshot = try DurableDevice(path: path, device: .phone)
    #expect(fromSnapshot.state.lastChangeNumber == anchor + 1)
  }

  @Test("an intact journal reopens without advancing anything")
  func intactJournalAppendsNothing() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    let (anchor, _) = try journalWithSamples(path, count: 2)
    let size = try Posix.readFile(path).count
    let reopened = try DurableDevice(path: path, device: .phone)
    #expect(reopened.state.lastChangeNumber == anchor)
    #expect(reopened.changeNumbersSkipped == 0)
    #expect(try Posix.readFile(path).count == size)
  }

  @Test("a damaged change mark is refused with its path and offset, nothing changed; --repair numbers past it")
  func damagedMarkIsRefusedThenRepaired() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    let (anchor, _) = try journalWithSamples(path, count: 2)
    let markPath = ChangeMarkFile.path(forJournal: path)
    var bytes = try Posix.readFile(markPath)
    bytes[9] ^= 0xFF
    try Posix.writeFileAtomically(markPath, bytes)
    let journalBefore = try Posix.readFile(path)
    #expect {
      try DurableDevice(path: path, device: .phone)
    } throws: { error in
      guard case .damagedChangeMark(let p, let problem) = error as? JournalError else { return false }
      return p == markPath && problem.offset == 16 && "\(error)".contains("--repair")
    }
    #expect(try Posix.readFile(path) == journalBefore)
    #expect(try Posix.readFile(markPath) == bytes)
    let repaired = try DurableDevice(path: path, device: .phone, repair: true)
    #expect(repaired.state.lastChangeNumber == anchor + DurableDevice.repairedMarkGap)
    #expect(ChangeMarkFile.decode(try Posix.readFile(markPath)) == .success(anchor + DurableDevice.repairedMarkGap))
  }

  @Test("the mark's encoding is pinned")
  func markBytesArePinned() {
    let bytes = ChangeMarkFile.encode(0x0102_0304_0506_0708)
    #expect(Array(bytes[0..<16]) == Array("HPCHANGE".utf8) + [8, 7, 6, 5, 4, 3, 2, 1])
    #expect(ChangeMarkFile.decode(bytes) == .success(0x0102_0304_0506_0708))
    let short = ChangeMarkFile.decode(Array(bytes.prefix(12)))
    #expect(short == .failure(ChangeMarkProblem(offset: 12, "12 bytes, not 20")))
  }
}
