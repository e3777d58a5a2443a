import Foundation
import TestSupport
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Wire

/// The wire format, pinned: one example of every request, reply, event and peer message, encoded as a frame and
/// compared byte for byte with `Fixtures/frames.txt`, then decoded from those checked-in bytes. A refactor that
/// changes a layout fails here even when round trips stay green; a deliberate change bumps
/// `WireProtocol.version` and refreshes the file with `HEALTHPAIR_UPDATE_FIXTURES=1 swift test --filter Pinned`.
///
/// The switches in `name(of:)` have no `default:`, so a new case does not compile until it has an example here.
@Suite("Pinned wire frames")
struct PinnedFrameTests {
  static let u1 = UUID(uuidString: "11111111-2222-4333-8444-555555555555")!
  static let u2 = UUID(uuidString: "AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE")!
  static let source = SampleSource(bundleID: "com.example.water", device: .phone)
  static let sample = Sample(
    uuid: u1, type: water, value: .quantity(250), start: t0, end: t0.addingTimeInterval(60),
    metadata: ["HKWasUserEntered": .bool(true), "n": .int(-3), "d": .double(0.5), "s": .string("é")], source: source)
  static let prompt = Prompt(id: 7, bundleID: "a", permissions: [Permission(water, .share)], shownAt: t0)
  static let tombstone = Tombstone(uuid: u2, type: water, source: source, deletedAt: t0)
  /// A sample as an import stages it: its source carries the details an Apple Health export gave it.
  static let imported = Sample(
    uuid: u2, type: water, value: .quantity(500), start: t0, end: t0, metadata: ["HKTimeZone": .string("UTC")],
    source: SampleSource(
      bundleID: "com.apple.health.1", device: .watch,
      details: SourceDetails(
        name: "W", version: "10.1",
        hardware: HardwareDetails(fields: [.init("model", "Watch"), .init("hardware", "Watch6,1")]))))

  /// Every request case, with fixed values.
  static let requests: [Request] =
    [
      .hello(version: 2, client: "pin"),
      .installApp(AppRecord(bundleID: "a", displayName: "A", writeUsageDescription: "w", readUsageDescription: nil)),
      .uninstallApp(bundleID: "a"),
      .requestAuthorization(bundleID: "a", share: [water], read: []),
      .requestAuthorizationFromExtension(bundleID: "a", share: [water], read: [water]),
      .handleAuthorizationForExtension(bundleID: "a"),
      .answerPrompt(promptID: 3, bundleID: nil, answer: .choices([Permission(water, .read): true])),
      .authorizationStatus(bundleID: "a", type: water),
      .requestStatus(bundleID: "a", share: [water], read: [water]),
      .save(
        bundleID: "a",
        samples: [
          SampleInput(
            uuid: u1, type: water, value: .quantity(1, unit: "cup_us"), start: t0, end: t0,
            metadata: ["k": .string("v")])
        ]),
      .delete(bundleID: "a", uuids: [u1, u2]),
      .deleteMatching(bundleID: "a", type: water, range: DateRange(start: t0, end: nil, options: .strictStartDate)),
      .sampleQuery(
        bundleID: "a",
        query: SampleQuery(
          type: water, range: DateRange(start: t0, end: nil, options: .strictEndDate), sources: ["a"], limit: 3,
          sort: [SampleSort(.endDate, ascending: false)])),
      .statistics(bundleID: "a", query: StatisticsQuery(type: water, options: [.cumulativeSum, .separateBySource])),
      .statisticsCollection(
        bundleID: "a",
        query: StatisticsQuery(
          type: water, range: DateRange(start: t0, end: t0), options: .cumulativeSum,
          interval: CalendarInterval(months: 1, days: 7, seconds: 1), anchor: t0)),
      .anchoredQuery(bundleID: "a", type: water, anchor: 9, range: nil, limit: 2, filter: .sources(["a"])),
      .changeSettings(bundleID: "a", change: .set(Permission(water, .share), on: false)),
      .watchSettings(bundleID: "a", change: .turnAllOff),
      .setClock(t0),
      .advanceClock(seconds: 60),
      .setPolicy(
        DevicePolicy(
          reprompt: .strict, retention: 3600, timeZone: try! TimeZoneRule(identifier: "Europe/Paris"),
          sourceOrders: [
            water: SourceOrder(sources: [SampleSource(bundleID: "a", device: .phone)], at: t0, device: .phone)
          ])),
      .dump,
      .storedSamples(type: nil, from: StoredCursor(sample: 7, tombstone: 1 << 40), limit: 100),
      .subscribe(.all),
      .earliestPermittedSampleDate,
      .link(.latency(0.25)),
      .ping,
      .setLocked(true),
      .readCharacteristic(bundleID: "a", type: SampleType.lookup(name: "dateOfBirth")!),
      .preferredUnits(bundleID: "a", types: [water]),
      .changeUserSetting(.characteristic(SampleType.lookup(name: "bloodType")!, .value(8))),
      .enableBackgroundDelivery(bundleID: "a", type: water, frequency: .hourly),
      .disableBackgroundDelivery(bundleID: "a", type: nil),
      .completeBackgroundDelivery(bundleID: "a", delivery: 9),
      .backgroundDeliveries(bundleID: "a"),
      .setSourceOrder(
        type: water,
        sources: [SampleSource(bundleID: "a", device: .watch), SampleSource(bundleID: "a", device: .phone)]),
      .importBatch(importID: 5, samples: [imported, sample]),
      .importCommit(importID: 5, characteristics: [SampleType.lookup(name: "bloodType")!: .value(8)]),
      .importAbort(importID: 5),
      .saveCorrelations(
        bundleID: "a",
        correlations: [
          CorrelationInput(
            uuid: u2, type: bloodPressure, start: t0, end: t0, metadata: ["HKWasUserEntered": .bool(true)],
            members: [
              SampleInput(uuid: u1, type: systolic, value: .quantity(120, unit: "mmHg"), start: t0, end: t0)
            ])
        ],
        samples: []),
      .correlationQuery(
        bundleID: "a",
        query: CorrelationQuery(
          base: SampleQuery(type: bloodPressure, range: DateRange(start: t0, end: nil), limit: 2),
          members: [CorrelationQuery.MemberCondition(type: systolic, filter: .value(.greaterThan, 140))])),
      .importCorrelations(importID: 5, correlations: [correlation]),
      .storedCorrelations(type: bloodPressure),
    ] + WorkoutExamples.requests + ObjectExamples.requests
  static let bloodPressure = SampleType.lookup(name: "bloodPressure")!
  static let systolic = SampleType.lookup(name: "bloodPressureSystolic")!
  static let correlation = Correlation(
    uuid: u2, type: bloodPressure, start: t0, end: t0, metadata: ["HKWasUserEntered": .bool(true)], source: source,
    members: [u1])

  /// Every reply case, with fixed values.
  static let replies: [Reply] = {
    var stats = Statistics(start: t0, end: t0.addingTimeInterval(86400))
    stats.sum = 750
    stats.sampleCount = 2
    stats.mostRecent = 3
    stats.mostRecentDates = t0...t0.addingTimeInterval(60)
    let sync = DeviceSnapshot.SyncStatus(
      lastSeq: 3, peerAcked: 2, appliedFromPeer: 1, pendingEntries: 1, pendingItems: 5)
    let link = LinkStatus(enabled: true, connected: false, holding: true, latency: 0.5, sync: sync)
    var snapshot = DeviceSnapshot(
      device: .watch, policy: .defaults(for: .watch), now: t0, virtualClock: true, earliestPermittedSampleDate: t0,
      apps: [], pendingPrompts: [prompt], promptHistory: [], sampleCounts: [water: 4], tombstoneCount: 1,
      changeCounter: 9, sync: sync)
    snapshot.waitingExtensionRequests = [prompt]
    return [
      .ok,
      .hello(HelloInfo(version: 2, device: .watch, pid: 123, software: "x")),
      .authorization(AuthorizationCallResult(success: false, error: .healthKit(.errorUserCanceled, "cancelled"))),
      .prompt(prompt),
      .status(.sharingDenied),
      .requestStatus(.unnecessary),
      .samples([sample]),
      .statistics(stats),
      .collection([stats], timeZone: "Europe/Paris"),
      .anchored(AnchoredResult(added: [sample], deleted: [tombstone], newAnchor: 5)),
      .snapshot(DaemonSnapshot(device: snapshot, link: link, pid: 9, clients: 2)),
      .stored(samples: [sample], tombstones: [tombstone], next: StoredCursor(sample: 3, tombstone: 9)),
      .date(t0),
      .link(link),
      .count(12),
      .characteristic(SampleType.lookup(name: "dateOfBirth")!, .dateOfBirth(year: 1990, month: 4, day: 2)),
      .units([water: "fl_oz_us"]),
      .backgroundDeliveries(
        [
          BackgroundDeliveryStatus(
            key: BackgroundKey("a", water), frequency: .immediate, effective: .hourly, stopped: false, waiting: 4,
            misses: 1, woken: 3, completed: 1, pending: true)
        ],
        history: [BackgroundDeliveryEvent(kind: .missed, id: 4, bundleID: "a", type: water, attempt: 2, at: t0)]),
      .imported(ImportOutcome(added: [water: 3], alreadyPresent: 2, beforeRetention: 1)),
      .correlations([CorrelationResult(correlation: correlation, objects: [sample])]),
    ] + WorkoutExamples.replies + ObjectExamples.replies
  }()

  /// Every pushed event case.
  static let events: [DaemonEvent] = [
    .promptShown(prompt), .promptClosed(promptID: 1, bundleID: "a", outcome: "cancelled"),
    .extensionRequestWaiting(prompt),
    .samplesChanged(types: [water], origin: .watch, added: 2, deleted: 1), .syncApplied(upTo: 9, items: 3),
    .peerAcknowledged(4), .linkChanged(connected: true), .protectedDataChanged(available: false),
    .backgroundDelivery(BackgroundDeliveryEvent(kind: .woken, id: 1, bundleID: "a", type: water, attempt: 1, at: t0)),
    .samplesPruned(type: water, apps: ["a", "b"]),
    WorkoutExamples.sessionEvents[0], WorkoutExamples.sessionEvents[7], WorkoutExamples.sessionEvents[11],
    WorkoutExamples.sessionEvents[13], WorkoutExamples.sessionEvents[14],
  ]

  /// Every peer message case.
  static let peerMessages: [PeerMessage] =
    [
      .challenge(version: 2, device: .phone, nonce: Array(repeating: 1, count: 32)),
      .proof(digest: Array(repeating: 2, count: 32), device: .watch, nonce: Array(repeating: 3, count: 32)),
      .accept(digest: Array(repeating: 4, count: 32)),
      .resume(appliedUpTo: 7, ofLog: 8, myLog: 9),
      .entries([
        SyncEntry(seq: 1, payload: .samples([sample])), SyncEntry(seq: 2, payload: .deletions([tombstone])),
        SyncEntry(seq: 3, payload: .watchSettings(bundleID: "a", change: .reset)),
        SyncEntry(seq: 5, payload: .userSetting(.preferredUnit(water, "mL"), at: t0)),
        SyncEntry(
          seq: 6,
          payload: .sourceOrder(
            water, SourceOrder(sources: [SampleSource(bundleID: "a", device: .watch)], at: t0, device: .phone))),
        SyncEntry(
          seq: 4,
          payload: .authorization(
            bundleID: "a", decisions: [SharedDecision(Permission(water, .read), .authorized)], at: t0)
        ),
      ]),
      .ack(3, ofLog: 8),
      .newLog(0x0123_4567_89AB_CDEF),
      .check(
        SyncCheck(
          cursors: SyncCursors(log: 1, lastSeq: 2, peerLog: 3, applied: 4), firstDay: 9_000,
          days: [SampleStore.DayDigest(day: 9_000, sum: 42, count: 1)])),
      .checkResult(
        SyncCheckResult(
          outcome: .mismatch, checked: SyncCursors(log: 5, lastSeq: 6, peerLog: 7, applied: 8), detail: "d")
      ),
      .resendAll,
    ] + WorkoutExamples.sessionPeerMessages.map(PeerMessage.session)

  /// A name per case; no `default:`, so a new case needs an example before this compiles.
  static func name(of request: Request) -> String {
    switch request {
    case .hello: "hello"
    case .installApp: "installApp"
    case .uninstallApp: "uninstallApp"
    case .requestAuthorization: "requestAuthorization"
    case .requestAuthorizationFromExtension: "requestAuthorizationFromExtension"
    case .handleAuthorizationForExtension: "handleAuthorizationForExtension"
    case .saveFamilies: "saveFamilies"
    case .answerPrompt: "answerPrompt"
    case .authorizationStatus: "authorizationStatus"
    case .requestStatus: "requestStatus"
    case .save: "save"
    case .delete: "delete"
    case .deleteMatching: "deleteMatching"
    case .sampleQuery: "sampleQuery"
    case .statistics: "statistics"
    case .statisticsCollection: "statisticsCollection"
    case .anchoredQuery: "anchoredQuery"
    case .changeSettings: "changeSettings"
    case .watchSettings: "watchSettings"
    case .setClock: "setClock"
    case .advanceClock: "advanceClock"
    case .setPolicy: "setPolicy"
    case .dump: "dump"
    case .storedSamples: "storedSamples"
    case .subscribe: "subscribe"
    case .earliestPermittedSampleDate: "earliestPermittedSampleDate"
    case .link: "link"
    case .ping: "ping"
    case .setLocked: "setLocked"
    case .readCharacteristic: "readCharacteristic"
    case .preferredUnits: "preferredUnits"
    case .changeUserSetting: "changeUserSetting"
    case .enableBackgroundDelivery: "enableBackgroundDelivery"
    case .disableBackgroundDelivery: "disableBackgroundDelivery"
    case .completeBackgroundDelivery: "completeBackgroundDelivery"
    case .backgroundDeliveries: "backgroundDeliveries"
    case .setSourceOrder: "setSourceOrder"
    case .importBatch: "importBatch"
    case .importCommit: "importCommit"
    case .importAbort: "importAbort"
    case .saveCorrelations: "saveCorrelations"
    case .correlationQuery: "correlationQuery"
    case .importCorrelations: "importCorrelations"
    case .storedCorrelations: "storedCorrelations"
    case .saveWorkout: "saveWorkout"
    case .saveObjects: "saveObjects"
    case .addSamplesToWorkout: "addSamplesToWorkout"
    case .saveRoute: "saveRoute"
    case .saveHeartbeatSeries: "saveHeartbeatSeries"
    case .workoutQuery: "workoutQuery"
    case .routeQuery: "routeQuery"
    case .heartbeatSeriesQuery: "heartbeatSeriesQuery"
    case .activitySummaryQuery: "activitySummaryQuery"
    case .anchoredWorkoutQuery: "anchoredWorkoutQuery"
    case .importWorkouts: "importWorkouts"
    case .importRoutes: "importRoutes"
    case .importActivitySummaries: "importActivitySummaries"
    case .storedWorkouts: "storedWorkouts"
    case .storedRoutes: "storedRoutes"
    case .storedActivitySummaries: "storedActivitySummaries"
    case .workoutSession: "workoutSession"
    case .recordElectrocardiogram: "recordElectrocardiogram"
    case .electrocardiogramQuery: "electrocardiogramQuery"
    case .electrocardiogramVoltages: "electrocardiogramVoltages"
    case .importElectrocardiograms: "importElectrocardiograms"
    case .storedElectrocardiograms: "storedElectrocardiograms"
    case .saveAudiograms: "saveAudiograms"
    case .audiogramQuery: "audiogramQuery"
    case .importAudiograms: "importAudiograms"
    case .storedAudiograms: "storedAudiograms"
    case .saveStatesOfMind: "saveStatesOfMind"
    case .stateOfMindQuery: "stateOfMindQuery"
    case .receiveClinicalRecords: "receiveClinicalRecords"
    case .clinicalRecordQuery: "clinicalRecordQuery"
    case .saveVisionPrescriptions: "saveVisionPrescriptions"
    case .visionPrescriptionQuery: "visionPrescriptionQuery"
    case .requestPerObjectRead: "requestPerObjectRead"
    case .importVisionPrescriptions: "importVisionPrescriptions"
    case .storedVisionPrescriptions: "storedVisionPrescriptions"
    case .importClinicalRecords: "importClinicalRecords"
    case .storedClinicalRecords: "storedClinicalRecords"
    case .saveScoredAssessments: "saveScoredAssessments"
    case .scoredAssessmentQuery: "scoredAssessmentQuery"
    case .saveCDADocuments: "saveCDADocuments"
    case .cdaDocumentQuery: "cdaDocumentQuery"
    case .addMedications: "addMedications"
    case .logMedicationDoses: "logMedicationDoses"
    case .medicationQuery: "medicationQuery"
    case .medicationDoseQuery: "medicationDoseQuery"
    }
  }

  static func name(of reply: Reply) -> String {
    switch reply {
    case .ok: "ok"
    case .hello: "hello"
    case .authorization: "authorization"
    case .prompt: "prompt"
    case .status: "status"
    case .requestStatus: "requestStatus"
    case .samples: "samples"
    case .statistics: "statistics"
    case .collection: "collection"
    case .anchored: "anchored"
    case .snapshot: "snapshot"
    case .stored: "stored"
    case .date: "date"
    case .link: "link"
    case .count: "count"
    case .characteristic: "characteristic"
    case .units: "units"
    case .backgroundDeliveries: "backgroundDeliveries"
    case .imported: "imported"
    case .correlations: "correlations"
    case .workouts: "workouts"
    case .routes: "routes"
    case .heartbeatSeries: "heartbeatSeries"
    case .activitySummaries: "activitySummaries"
    case .anchoredWorkouts: "anchoredWorkouts"
    case .sessionStatus: "sessionStatus"
    case .electrocardiograms: "electrocardiograms"
    case .voltages: "voltages"
    case .audiograms: "audiograms"
    case .statesOfMind: "statesOfMind"
    case .clinicalRecords: "clinicalRecords"
    case .electrocardiogramHeaders: "electrocardiogramHeaders"
    case .visionPrescriptions: "visionPrescriptions"
    case .scoredAssessments: "scoredAssessments"
    case .cdaDocuments: "cdaDocuments"
    case .medications: "medications"
    case .medicationDoses: "medicationDoses"
    }
  }

  static func name(of event: DaemonEvent) -> String {
    switch event {
    case .promptShown: "promptShown"
    case .promptClosed: "promptClosed"
    case .extensionRequestWaiting: "extensionRequestWaiting"
    case .samplesChanged: "samplesChanged"
    case .syncApplied: "syncApplied"
    case .peerAcknowledged: "peerAcknowledged"
    case .linkChanged: "linkChanged"
    case .protectedDataChanged: "protectedDataChanged"
    case .backgroundDelivery: "backgroundDelivery"
    case .samplesPruned: "samplesPruned"
    case .workoutSession: "workoutSession"
    case .workoutBuilder: "workoutBuilder"
    case .mirroringStarted: "mirroringStarted"
    case .workoutDataSent: "workoutDataSent"
    case .workoutConfigurationHandled: "workoutConfigurationHandled"
    }
  }

  static func name(of message: PeerMessage) -> String {
    switch message {
    case .challenge: "challenge"
    case .proof: "proof"
    case .accept: "accept"
    case .resume: "resume"
    case .entries: "entries"
    case .ack: "ack"
    case .newLog: "newLog"
    case .check: "check"
    case .checkResult: "checkResult"
    case .resendAll: "resendAll"
    case .session(let message): "session.\(message.name)"
    }
  }

  /// Every example as (fixture key, frame bytes).
  static var frames: [(key: String, bytes: [UInt8])] {
    var all: [(String, [UInt8])] = []
    for request in requests { all.append(("request.\(name(of: request))", Frame.request(id: 42, request).encoded())) }
    for reply in replies {
      all.append(("response.\(name(of: reply))", Frame.response(id: 1, .success(reply)).encoded()))
    }
    all.append(("interim.prompt", Frame.interim(id: 2, .prompt(prompt)).encoded()))
    all.append(("interim.objectPrompt", Frame.interim(id: 2, .prompt(ObjectExamples.objectPrompt)).encoded()))
    for (i, error) in [
      HealthError.healthKit(.errorAuthorizationNotDetermined, "Authorization not determined"),
      .invalidArgumentException("Must request authorization for at least one data type"),
      .simulator("no hello within 10 s"),
    ].enumerated() {
      all.append(("response.failure\(i)", Frame.response(id: 3, .failure(error)).encoded()))
    }
    for event in events { all.append(("event.\(name(of: event))", Frame.event(event).encoded())) }
    for message in peerMessages { all.append(("peer.\(name(of: message))", message.encoded())) }
    return all
  }

  static let fixtureURL = URL(fileURLWithPath: Repository.path("Tests/WireTests/Fixtures/frames.txt"))

  static func hex(_ bytes: [UInt8]) -> String { Hex.string(bytes) }

  @Test("Every case has an example (the exhaustive switches prove every case has a name)")
  func everyCaseHasAnExample() {
    #expect(Set(Self.requests.map(Self.name(of:))).count == Self.requests.count)
    // Complete, not just distinct: one example per opcode, named as the opcode is, and written as its first byte.
    #expect(Set(Self.requests.map(\.opcode)) == Set(RequestOpcode.allCases))
    for request in Self.requests {
      #expect(Self.name(of: request) == "\(request.opcode)")
      #expect(Frame.request(id: 1, request).encoded()[5] == request.opcode.rawValue)
    }
    #expect(Set(Self.replies.map(\.tag)) == Set(ReplyTag.allCases))
    for reply in Self.replies {
      #expect(Self.name(of: reply) == "\(reply.tag)")
      #expect(Frame.response(id: 1, .success(reply)).encoded()[6] == reply.tag.rawValue)
    }
    #expect(Set(Self.events.map(\.tag)) == Set(EventTag.allCases))
    for event in Self.events {
      #expect(Self.name(of: event) == "\(event.tag)")
      #expect(Frame.event(event).encoded()[5] == event.tag.rawValue)
    }
    #expect(Set(Self.replies.map(Self.name(of:))).count == Self.replies.count)
    #expect(Set(Self.events.map(Self.name(of:))).count == Self.events.count)
    #expect(Set(Self.peerMessages.map(Self.name(of:))).count == Self.peerMessages.count)
  }

  @Test("Each frame's bytes are the checked-in ones, and the checked-in bytes decode to the example")
  func framesMatchTheFixture() throws {
    let lines = Self.frames.map { "\($0.key) \(Self.hex($0.bytes))" }
    let text =
      "# Wire protocol version \(WireProtocol.version): one frame body per line (see PinnedFrameTests).\n"
      + lines.joined(separator: "\n") + "\n"
    if ProcessInfo.processInfo.environment["HEALTHPAIR_UPDATE_FIXTURES"] == "1" {
      try text.write(to: Self.fixtureURL, atomically: true, encoding: .utf8)
    }
    let pinned = try String(contentsOf: Self.fixtureURL, encoding: .utf8)
    var byKey: [String: String] = [:]
    for line in pinned.split(separator: "\n") where !line.hasPrefix("#") {
      let parts = line.split(separator: " ", maxSplits: 1)
      byKey[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
    }
    #expect(pinned.hasPrefix("# Wire protocol version \(WireProtocol.version):"), "bump the fixture with the version")
    for frame in Self.frames {
      #expect(byKey[frame.key] == Self.hex(frame.bytes), "\(frame.key) encodes differently from the pinned bytes")
    }
    #expect(byKey.count == Self.frames.count, "the fixture and the examples list different frames")
  }

  @Test("The pinned bytes decode to exactly the examples")
  func pinnedBytesDecode() throws {
    let pinned = try Self.pinned()
    for request in Self.requests {
      let bytes = try #require(pinned["request.\(Self.name(of: request))"])
      #expect(try Frame.decode(bytes) == .request(id: 42, request))
    }
    for reply in Self.replies {
      let bytes = try #require(pinned["response.\(Self.name(of: reply))"])
      #expect(try Frame.decode(bytes) == .response(id: 1, .success(reply)))
    }
    for event in Self.events {
      let bytes = try #require(pinned["event.\(Self.name(of: event))"])
      #expect(try Frame.decode(bytes) == .event(event))
    }
    for message in Self.peerMessages {
      let bytes = try #require(pinned["peer.\(Self.name(of: message))"])
      #expect(try PeerMessage.decode(bytes) == message)
    }
  }

  /// The checked-in frames by key, as bytes.
  static func pinned() throws -> [String: [UInt8]] {
    var result: [String: [UInt8]] = [:]
    for line in try String(contentsOf: fixtureURL, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
      let parts = line.split(separator: " ", maxSplits: 1)
      result[String(parts[0])] = Hex.bytes(parts.count > 1 ? parts[1] : "")
    }
    return result
  }
}

@Suite("Link commands in log lines")
struct LinkCommandDescriptionTests {
  @Test func theyPrintAsTheirCases() {
    let printed = [LinkCommand.connect, .disconnect, .hold, .release, .latency(0.25), .reconnectNow, .status].map {
      "\($0)"
    }
    #expect(printed == ["connect", "disconnect", "hold", "release", "latency(0.25)", "reconnectNow", "status"])
  }
}
