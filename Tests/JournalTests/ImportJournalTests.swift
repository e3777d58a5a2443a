import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Journal
@testable import Posix

/// Samples as an import gives them: a few sources with export details, shared by reference.
private func importedSamples(_ count: Int, start: Date = t0, step: Double = 60) -> [Sample] {
  let hardware = HardwareDetails(fields: [
    .init("name", "Apple Watch"), .init("manufacturer", "Apple Inc."), .init("model", "Watch"),
    .init("hardware", "Watch7,1"), .init("software", "11.2"),
  ])
  let watch = SampleSource(
    bundleID: "com.apple.health.5A1E0000-0000-4000-8000-000000000009", device: .watch,
    details: SourceDetails(name: "Robin’s Apple Watch", version: "11.2", hardware: hardware))
  let app = SampleSource(
    bundleID: "com.healthpair.imported.drink-track", device: .phone,
    details: SourceDetails(name: "Drink & Track", version: "4.2.0"))
  return (0..<count).map { i in
    let date = start.addingTimeInterval(Double(i) * step)
    return i % 3 == 2
      ? Sample(
        uuid: UUID(), type: water, value: .quantity(Double(100 + i)), start: date, end: date,
        metadata: ["HKWasUserEntered": .bool(true)], source: app)
      : Sample(
        uuid: UUID(), type: heartRate, value: .quantity(1 + Double(i % 40) / 60), start: date, end: date,
        source: watch)
  }
}

@Suite("Imports in the engine and the journal: staged, committed in one record, abandoned")
struct ImportJournalTests {
  /// A staged batch handed over already encoded (as the daemon does with the request's bytes) is framed as it is;
  /// the journal bytes are those of encoding every event here, and an index holding another kind of event is
  /// encoded, not replaced.
  @Test func preEncodedStagedBatchesAreFramedAsGiven() throws {
    let framing = JournalFormat.Framing.version2(device: 0, salt: 9)
    let samples = importedSamples(40)
    let events: [DeviceEvent] = [
      .importStaged(id: 3, samples: samples), .importCommitted(id: 3, at: t0), .importStaged(id: 4, samples: []),
    ]
    var payload = BinaryWriter()
    payload.event(events[0])
    var plain: [UInt8] = []
    DurableDevice.encode(events, framing: framing, into: &plain)
    var given: [UInt8] = []
    DurableDevice.encode(
      events, framing: framing, encoded: [0: payload.bytes[...], 1: [0xEE][...]], into: &given)
    #expect(given == plain)
  }

  @Test func stagedSamplesStayInvisibleUntilTheCommit() throws {
    var device = DeviceState(device: .phone)
    _ = try device.setClock(t0)
    let batch = importedSamples(10)
    _ = try device.stageImport(7, Array(batch[0..<6]))
    _ = try device.stageImport(7, Array(batch[6...]))
    #expect(device.store.liveCount == 0)
    #expect(device.sync.lastSeq == 0, "nothing is offered to the peer before the commit")
    let (events, outcome) = try device.commitImport(7, wall: t0)
    #expect(events == [.importCommitted(id: 7, at: t0)])
    #expect(outcome.addedCount == 10 && outcome.alreadyPresent == 0)
    #expect(device.store.liveCount == 10)
    #expect(device.stagedImports.isEmpty)
    #expect(device.sync.lastSeq == 1)
    // The same samples again: already present, nothing added.
    _ = try device.stageImport(8, batch)
    #expect(try device.commitImport(8, wall: t0).outcome == ImportOutcome(alreadyPresent: 10))
  }

  @Test func characteristicsAreSetInTheCommitAndTravelToTheOtherDevice() throws {
    let bloodType = SampleType.lookup(name: "bloodType")!
    let birth = SampleType.lookup(name: "dateOfBirth")!
    let me: [SampleType: CharacteristicValue] = [
      bloodType: .value(8), birth: .dateOfBirth(year: 1988, month: 6, day: 14),
    ]
    var phone = DeviceState(device: .phone)
    _ = try phone.setClock(t0)
    _ = try phone.stageImport(4, importedSamples(3))
    let (events, outcome) = try phone.commitImport(4, wall: t0, characteristics: me)
    #expect(events == [.importCommitted(id: 4, at: t0, characteristics: me)])
    #expect(outcome.addedCount == 3 && outcome.characteristicsSet == 2)
    #expect(phone.characteristics == me)
    #expect(phone.sync.lastSeq == 3, "each characteristic and the samples go to the other device")
    // An export with only Me imports too; values already set change nothing.
    _ = try phone.changeUserSetting(.characteristic(bloodType, .value(1)), wall: t0)
    let again = try phone.commitImport(5, wall: t0, characteristics: me)
    #expect(again.outcome.characteristicsSet == 1 && again.outcome.addedCount == 0)
    #expect(phone.characteristics[bloodType] == .value(8))
    #expect(throws: HealthError.self) { _ = try phone.commitImport(6, wall: t0, characteristics: [water: .value(1)]) }
    #expect(throws: HealthError.self) {
      _ = try phone.commitImport(6, wall: t0, characteristics: [bloodType: .value(42)])
    }
    // Replaying the journal gives the same values.
    var replayed = DeviceState(device: .phone)
    for event in events { replayed.apply(event) }
    #expect(replayed.characteristics == me)
  }

  @Test func aLockedDeviceRefusesImports() throws {
    var phone = DeviceState(device: .phone)
    _ = try phone.setClock(t0)
    _ = try phone.stageImport(4, importedSamples(3))
    _ = phone.lock(wall: t0)
    #expect(throws: HealthError.self) { _ = try phone.stageImport(4, importedSamples(3)) }
    #expect(throws: HealthError.self) { _ = try phone.commitImport(4, wall: t0) }
    #expect(phone.store.liveCount == 0 && phone.stagedImports[4]?.count == 3)
    _ = phone.unlock(wall: t0)
    #expect(try phone.commitImport(4, wall: t0).outcome.addedCount == 3)
  }

  @Test func theWatchLeavesOutWhatEndsBeforeItsRetentionWindow() throws {
    var watch = DeviceState(device: .watch)
    _ = try watch.setClock(t0)
    // 20 samples a day apart, the last ending at t0: 7 days' worth are kept (the floor is t0 − 7 d).
    let samples = importedSamples(20, start: t0.addingTimeInterval(-19 * 86_400), step: 86_400)
    _ = try watch.stageImport(1, samples)
    let outcome = try watch.commitImport(1, wall: t0).outcome
    #expect(outcome.addedCount == 8 && outcome.beforeRetention == 12)
  }

  @Test func badSamplesAreRefusedAndNothingIsStaged() throws {
    var device = DeviceState(device: .phone)
    var samples = importedSamples(3)
    samples[2].end = samples[2].start.addingTimeInterval(-1)
    #expect(throws: HealthError.self) { _ = try device.stageImport(3, samples) }
    #expect(device.stagedImports.isEmpty)
    samples = importedSamples(3)
    samples[1].value = .category(1)
    #expect(throws: HealthError.self) { _ = try device.stageImport(3, samples) }
    #expect(throws: HealthError.self) { _ = try device.stageImport(0, importedSamples(1)) }
    #expect(throws: HealthError.self) { _ = try device.commitImport(99, wall: t0) }
  }

  @Test func importEventsAndDetailedSourcesRoundTripThroughTheCodec() throws {
    let samples = importedSamples(5)
    let events: [DeviceEvent] = [
      .importStaged(id: 1, samples: samples), .importCommitted(id: 1, at: t0), .importAbandoned(id: 2),
      .importCommitted(
        id: 3, at: t0,
        characteristics: [
          SampleType.lookup(name: "dateOfBirth")!: .dateOfBirth(year: 1988, month: 6, day: 14),
          SampleType.lookup(name: "bloodType")!: .value(8),
        ]),
      .samplesSaved(samples),
      .peerEntriesApplied([SyncEntry(seq: 1, payload: .samples(samples))], at: t0),
    ]
    for event in events {
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
    // A staged batch lists its sources once: far smaller than the samples written one by one.
    var staged = BinaryWriter()
    staged.event(.importStaged(id: 1, samples: importedSamples(300)))
    var saved = BinaryWriter()
    saved.event(.samplesSaved(importedSamples(300)))
    #expect(staged.bytes.count * 2 < saved.bytes.count)
  }

  @Test func aSourceWithoutDetailsIsWrittenExactlyAsBefore() throws {
    var writer = BinaryWriter()
    writer.source(SampleSource(bundleID: "com.example.water", device: .watch))
    #expect(writer.bytes == [17, 0, 0, 0] + Array("com.example.water".utf8) + [1])
  }

  @Test func aCommittedImportSurvivesReopeningAndAnUnfinishedOneIsDiscardedDurably() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    do {
      let device = try DurableDevice(path: path, device: .phone)
      try device.persist(try device.state.setClock(t0))
      try device.persist(try device.state.stageImport(1, importedSamples(30)))
      try device.persist(try device.state.commitImport(1, wall: t0).events)
      // A second import staged and never committed: the daemon was killed here.
      try device.persist(try device.state.stageImport(2, importedSamples(12, start: t0.addingTimeInterval(7200))))
      #expect(device.snapshotDue(atShutdown: true) == false, "no snapshot while an import is staged")
      #expect(try device.writeSnapshot() == 0)
    }
    let reopened = try DurableDevice(path: path, device: .phone)
    #expect(reopened.state.store.liveCount == 30)
    #expect(reopened.state.stagedImports.isEmpty)
    #expect(reopened.abandonedImports.map(\.id) == [2] && reopened.abandonedImports.map(\.samples) == [12])
    let records = reopened.recovery.records
    // The abandonment was journaled: opening again finds nothing to discard.
    let again = try DurableDevice(path: path, device: .phone)
    #expect(again.abandonedImports.isEmpty)
    #expect(again.recovery.records == records + 1)
    expectSameState(again.state, reopened.state)
  }

  @Test func replayingTheJournalRebuildsTheSameStoreAndSyncLog() throws {
    var live = DeviceState(device: .phone)
    var events: [DeviceEvent] = try live.setClock(t0)
    events += try live.stageImport(5, importedSamples(50))
    events += try live.stageImport(5, importedSamples(25))
    events += try live.commitImport(5, wall: t0).events
    events += try live.stageImport(6, importedSamples(5))
    events += live.abandonImport(6)
    var replayed = DeviceState(device: .phone)
    for event in events { replayed.apply(event) }
    expectSameState(replayed, live)
    #expect(replayed.store.differences(from: live.store).isEmpty)
    #expect(replayed.store.liveCount == 75)
  }
}
