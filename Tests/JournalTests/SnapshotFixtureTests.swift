import FoundationEssentials
import TestSupport
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Journal
@testable import Posix

/// A snapshot's bytes, pinned: `Fixtures/snapshot.hex` is the snapshot this build writes after
/// ``everySectionHistory(_:)`` — a history that fills every section of the state (docs/journal.md, "What a snapshot
/// holds") — and `Fixtures/snapshot-journal.hex` the journal it covers. A change to the state encoding fails here
/// even when round trips stay green; a deliberate change is a snapshot version bump (docs/journal.md) and refreshes
/// both files with `HEALTHPAIR_UPDATE_FIXTURES=1 swift test --filter SnapshotFixtureTests`.
@Suite("Pinned snapshot")
struct SnapshotFixtureTests {
  static let snapshotPath = "Tests/JournalTests/Fixtures/snapshot.hex"
  static let journalPath = "Tests/JournalTests/Fixtures/snapshot-journal.hex"
  static let bpApp = AppRecord(
    bundleID: "com.example.bp", displayName: "BP", writeUsageDescription: "w", readUsageDescription: "r")
  static let systolic = SampleType.lookup(name: "bloodPressureSystolic")!
  static let diastolic = SampleType.lookup(name: "bloodPressureDiastolic")!

  /// The phone history of the snapshot tests (``phoneHistory(_:part:)``), then what it leaves out: companion
  /// decisions, Health app values, a source order, correlations saved and deleted, an unanswered re-send request,
  /// and a locked device holding a save. Nothing acknowledges the entries after the restart, so the snapshot's
  /// ledger holds an entry of every kind.
  static func everySectionHistory(_ d: Driver) throws {
    try phoneHistory(d, part: 0)
    try phoneHistory(d, part: 1)
    var policy = d.device.state.policy
    policy.authorization = .companion
    try d.run(d.device.state.setPolicy(policy))
    try d.run(d.device.state.install(bpApp))
    let share: Set<SampleType> = [systolic, diastolic]
    try d.grant(bpApp.bundleID, share: share, read: share)
    // A cancelled sheet under the strict policy: the app is locked out (part 1 uninstalled the one part 0 had).
    try d.run(d.device.state.install(stepsApp))
    let asked = try d.device.state.requestAuthorization(stepsApp.bundleID, share: [steps], read: [], wall: d.wall)
    if case .prompt(let p) = asked {
      try d.run(d.device.state.answerPrompt(id: p.id, bundleID: nil, answer: .cancel).events)
    }
    try d.run(d.device.state.changeUserSetting(.characteristic(EventFixture.bloodType, .value(2)), wall: d.wall))
    try d.run(d.device.state.changeUserSetting(.preferredUnit(water, "L"), wall: d.wall))
    let sources = [SampleSource(bundleID: bpApp.bundleID, device: .phone), JournalFixture.phoneSource]
    try d.run(d.device.state.setSourceOrder(water, sources, wall: d.wall))
    let readings = (0..<2).map { i in
      let at = t0.addingTimeInterval(Double(i) * 3600)
      return CorrelationInput(
        uuid: uuid(i, 7), type: EventFixture.bloodPressure, start: at, end: at, metadata: ["n": .int(Int64(i))],
        members: [
          SampleInput(uuid: uuid(i, 8), type: systolic, value: .quantity(120, unit: "mmHg"), start: at, end: at),
          SampleInput(uuid: uuid(i, 9), type: diastolic, value: .quantity(80, unit: "mmHg"), start: at, end: at),
        ])
    }
    try d.run(d.device.state.saveCorrelations(bpApp.bundleID, readings, samples: [], wall: d.wall))
    try d.delete(bpApp.bundleID, [uuid(0, 7)])
    try workoutHistory(d)
    // A deletion and a Watch-app change after the acknowledged part of the log.
    try d.delete(waterApp.bundleID, [uuid(400)])
    try d.run(d.device.state.queueWatchSettings(returnApp.bundleID, .set(Permission(mindful, .read), on: true)))
    try d.run(d.device.state.requestPeerResend())
    try d.run(d.device.state.lock(wall: d.wall).events)
    try d.save(waterApp.bundleID, [waterAt(30, 4, id: uuid(1, 10))])
  }

  /// Workouts (one deleted with its route), routes, an association, a heartbeat series, an imported workout with
  /// an activity summary, an imported electrocardiogram and a saved audiogram.
  static func workoutHistory(_ d: Driver) throws {
    try d.run(d.device.state.install(workoutApp))
    let types: Set<SampleType> = [EventFixture.workoutType, EventFixture.routeType, heartbeatSeriesType, heartRate]
    try d.grant(workoutApp.bundleID, share: types, read: types)
    try d.save(workoutApp.bundleID, [input(heartRate, .quantity(2, unit: "count/s"), at: 60, for: 0, id: uuid(1, 11))])
    for i in 0..<2 {
      let start = t0.addingTimeInterval(Double(i) * 7200)
      let workout = WorkoutInput(
        uuid: uuid(i, 12), activityType: WorkoutActivityType(rawValue: 37), start: start,
        end: start.addingTimeInterval(1800), events: [WorkoutEvent(type: .pause, start: start.addingTimeInterval(60))],
        associated: i == 0 ? [uuid(1, 11)] : [])
      let route = RouteInput(uuid: uuid(i, 13), locations: [RouteLocation(timestamp: start, latitude: 1, longitude: 2)])
      try d.run(d.device.state.saveWorkout(workoutApp.bundleID, workout, route: route, wall: d.wall))
    }
    try d.run(
      d.device.state.addSamples(
        workoutApp.bundleID, new: [input(heartRate, .quantity(3, unit: "count/s"), at: 120, for: 0, id: uuid(2, 11))],
        existing: [], to: uuid(1, 12), wall: d.wall))
    try d.delete(workoutApp.bundleID, [uuid(0, 12)])
    let series = HeartbeatSeriesInput(
      uuid: uuid(1, 14), start: t0, end: t0.addingTimeInterval(10), beats: [Heartbeat(offset: 1), Heartbeat(offset: 2)])
    try d.run(d.device.state.saveHeartbeatSeries(workoutApp.bundleID, series, wall: d.wall))
    try d.run(
      d.device.state.stageImportWorkouts(
        5, workouts: [EventFixture.workout], routes: [EventFixture.route], summaries: [EventFixture.summary]))
    try d.run(d.device.state.commitImport(5, wall: d.wall).events)
    try d.run(d.device.state.stageImportElectrocardiograms(6, [EventFixture.ecg]))
    try d.run(d.device.state.commitImport(6, wall: d.wall).events)
    try d.run(d.device.state.install(hearingApp))
    let audiogram: Set<SampleType> = [SpecialObjectStore.audiogramType]
    try d.grant(hearingApp.bundleID, share: audiogram, read: audiogram)
    let input = AudiogramInput(
      uuid: uuid(1, 15), start: t0, end: t0.addingTimeInterval(300), points: EventFixture.audiogram.points)
    try d.run(d.device.state.saveAudiograms(hearingApp.bundleID, [input], wall: d.wall))
    let mood: Set<SampleType> = [SpecialObjectStore.stateOfMindType]
    try d.grant(hearingApp.bundleID, share: mood, read: mood)
    var state = EventFixture.stateOfMind.input
    state.uuid = uuid(1, 16)
    try d.run(d.device.state.saveStatesOfMind(hearingApp.bundleID, [state], wall: d.wall))
    let assessments: Set<SampleType> = [SpecialObjectStore.phq9Type]
    try d.grant(hearingApp.bundleID, share: assessments, read: assessments)
    var assessment = EventFixture.assessment.input
    assessment.uuid = uuid(1, 19)
    try d.run(d.device.state.saveScoredAssessments(hearingApp.bundleID, [assessment], wall: d.wall))
    try d.grant(hearingApp.bundleID, share: [SpecialObjectStore.cdaType], read: [])
    var document = EventFixture.document
    document.uuid = uuid(1, 20)
    try d.run(d.device.state.saveCDADocuments(hearingApp.bundleID, [document], wall: d.wall))
    var record = EventFixture.clinicalRecord
    record.uuid = uuid(1, 17)
    try d.run(d.device.state.receiveClinicalRecords([record]))
    let prescriptions = SpecialObjectStore.visionPrescriptionType
    try d.grant(hearingApp.bundleID, share: [prescriptions], read: [])
    var prescription = EventFixture.prescription
    prescription.uuid = uuid(1, 18)
    try d.run(d.device.state.saveVisionPrescriptions(hearingApp.bundleID, [prescription], wall: d.wall))
    guard
      case .prompt(let sheet) = try d.device.state.requestPerObjectRead(
        workoutApp.bundleID, prescriptions, range: nil, filter: nil, wall: d.wall)
    else { throw HealthError.simulator("no per-object sheet") }
    try d.run(d.device.state.answerPrompt(id: sheet.id, bundleID: nil, answer: .allowAll).events)
    guard
      case .prompt(let documentSheet) = try d.device.state.requestPerObjectRead(
        workoutApp.bundleID, SpecialObjectStore.cdaType, range: nil, filter: nil, wall: d.wall)
    else { throw HealthError.simulator("no document sheet") }
    try d.run(d.device.state.answerPrompt(id: documentSheet.id, bundleID: nil, answer: .denyAll).events)
    try d.run(d.device.state.addMedications([EventFixture.medication], wall: d.wall))
    var dose = EventFixture.dose
    dose.uuid = uuid(1, 21)
    try d.run(d.device.state.logMedicationDoses([dose], wall: d.wall))
    guard
      case .prompt(let medicationSheet) = try d.device.state.requestPerObjectRead(
        workoutApp.bundleID, SpecialObjectStore.medicationType, range: nil, filter: nil, wall: d.wall)
    else { throw HealthError.simulator("no medication sheet") }
    try d.run(d.device.state.answerPrompt(id: medicationSheet.id, bundleID: nil, answer: .allowAll).events)
  }

  static let hearingApp = AppRecord(
    bundleID: "com.example.hearing", displayName: "Hearing", writeUsageDescription: "w", readUsageDescription: "r")

  static let workoutApp = AppRecord(
    bundleID: "com.example.workouts", displayName: "Workouts", writeUsageDescription: "w", readUsageDescription: "r")
  static let heartbeatSeriesType = SampleType.lookup(name: "heartbeatSeries")!

  /// The fixture journal's bytes, as `everySectionHistory` journals it under ``fixtureSalt``, with the snapshot
  /// this build writes at its end.
  static func written(in dir: TempDir) throws -> (journal: [UInt8], snapshot: [UInt8]) {
    let path = dir.file("phone.journal")
    try Posix.writeFileAtomically(path, JournalFormat.Framing.version2(device: 0, salt: fixtureSalt).fileHeader)
    let device = try DurableDevice(path: path, device: .phone)
    try everySectionHistory(Driver(device: device))
    #expect(try device.writeSnapshot() > 0)
    return (try Posix.readFile(path), try Posix.readFile(SnapshotFile.path(forJournal: path)))
  }

  /// Hex, 64 bytes a line, after a comment line.
  static func hexFile(_ bytes: [UInt8], _ comment: String) -> String {
    let hex = Hex.string(bytes)
    var lines = ["# \(comment)"]
    var at = hex.startIndex
    while at < hex.endIndex {
      let end = hex.index(at, offsetBy: 128, limitedBy: hex.endIndex) ?? hex.endIndex
      lines.append(String(hex[at..<end]))
      at = end
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// A checked-in hex file's bytes (comment lines left out).
  static func pinned(_ path: String) throws -> [UInt8] {
    Hex.bytes(try Repository.read(path).split(separator: "\n").filter { !$0.hasPrefix("#") }.joined())
  }

  /// A whole snapshot file's state and journal position.
  static func decode(_ file: [UInt8]) throws -> (DeviceState, JournalPosition) {
    try file.withUnsafeBytes { buffer throws -> (DeviceState, JournalPosition) in
      try SnapshotFile.decode(buffer, device: .phone, path: "snapshot.hex")
    }
  }

  @Test func theWriterStillProducesThePinnedJournalAndSnapshot() throws {
    let dir = try TempDir()
    let (journal, snapshot) = try Self.written(in: dir)
    if ProcessInfo.processInfo.environment["HEALTHPAIR_UPDATE_FIXTURES"] == "1" {
      let note = "(see SnapshotFixtureTests)"
      try Posix.writeFileAtomically(
        Repository.path(Self.journalPath), Array(Self.hexFile(journal, "A version-2 phone journal \(note)").utf8))
      let title = "Its snapshot, version \(SnapshotFile.version) \(note)"
      try Posix.writeFileAtomically(Repository.path(Self.snapshotPath), Array(Self.hexFile(snapshot, title).utf8))
    }
    expectBytes(journal, try Self.pinned(Self.journalPath))
    expectBytes(snapshot, try Self.pinned(Self.snapshotPath))
  }

  @Test func thePinnedSnapshotDecodesAndEncodesAgainByteForByte() throws {
    let fixture = try Self.pinned(Self.snapshotPath)
    let (state, position) = try Self.decode(fixture)
    var body = BinaryWriter()
    body.position(position)
    body.deviceState(state) { (_: inout BinaryWriter) in }
    expectBytes(SnapshotFile.file(header: SnapshotFile.header(device: .phone), body: body.bytes), fixture)
  }

  @Test func thePinnedSnapshotResumesItsJournalAsAFullReplayRebuildsIt() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    try Posix.writeFileAtomically(path, try Self.pinned(Self.journalPath))
    try Posix.writeFileAtomically(SnapshotFile.path(forJournal: path), try Self.pinned(Self.snapshotPath))
    let resumed = try DurableDevice(path: path, device: .phone)
    #expect(resumed.snapshotProblem == nil)
    #expect(resumed.recovery.resumedRecords == resumed.recovery.records && resumed.recovery.records > 0)
    let replayed = try DurableDevice(path: path, device: .phone, snapshots: false)
    #expect(resumed.state.differences(from: replayed.state) == [])
  }

  @Test("The pinned snapshot fills every section of the state, and its ledger holds every kind of entry")
  func thePinnedSnapshotHoldsEverySection() throws {
    let (state, _) = try Self.decode(try Self.pinned(Self.snapshotPath))
    let store = state.store.contents
    #expect(state.virtualNow != nil && !state.policy.sourceOrders.isEmpty && state.policy.authorization == .companion)
    #expect(state.apps.values.contains { !$0.entitlements.isEmpty } && !state.decisions.isEmpty)
    #expect(!state.lockedOut.isEmpty)
    #expect(!state.syncConflicts.isEmpty && !state.decisionStamps.isEmpty)
    #expect(state.sync.logID != 0 && state.sync.peerLogID != 0 && state.sync.peerAcked > 0)
    #expect(state.sync.appliedFromPeer > 0 && state.sync.resendRequested)
    #expect(!store.sources.isEmpty && !store.metadata.isEmpty && !store.tombstones.isEmpty)
    #expect(store.slots.contains { !$0.live } && !store.dayDigests.isEmpty && store.startOrders.count >= 3)
    #expect(state.userData.isLocked && !state.userData.lockedJournal.isEmpty)
    #expect(!state.userData.characteristics.isEmpty && !state.userData.preferredUnits.isEmpty)
    #expect(!state.backgroundRegistrations.isEmpty)
    #expect(!state.correlationStore.ordered.isEmpty && !state.correlationStore.orderedDeletions.isEmpty)
    let workouts = state.workoutStore
    #expect(!workouts.workouts.isEmpty && !workouts.routes.isEmpty && !workouts.series.isEmpty)
    #expect(!workouts.summaries.isEmpty && !workouts.deleted.isEmpty)
    #expect(workouts.workouts.values.contains { $0.value.associated.count == 1 })
    #expect(state.specialObjects.electrocardiograms.count == 1 && state.specialObjects.audiograms.count == 1)
    #expect(state.specialObjects.statesOfMind.count == 1 && state.specialObjects.clinicalRecords.count == 1)
    #expect(state.specialObjects.visionPrescriptions.count == 1 && state.specialObjects.scoredAssessments.count == 1)
    #expect(state.specialObjects.cdaDocuments.count == 1)
    #expect(state.specialObjects.medications.count == 1 && state.specialObjects.medicationDoses.count == 1)
    let choices = state.specialObjects.objectReadChoices[Self.workoutApp.bundleID] ?? [:]
    #expect(
      choices.values.sorted { !$0 && $1 } == [false, true, true],
      "a document turned off, a prescription and a medication on")
    var tags: Set<SyncPayloadTag> = []
    for entry in state.sync.pendingEntries {
      var w = BinaryWriter()
      w.storedEntry(entry)
      tags.insert(SyncPayloadTag(rawValue: w.bytes[8])!)
    }
    #expect(tags == Set(SyncPayloadTag.allCases).subtracting([.importedSamples]))
  }
}
