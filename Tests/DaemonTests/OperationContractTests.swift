import Daemon
import DeviceCore
import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import Wire

/// The client's definition of each request (``DeviceOperation``: which reply it expects, what its caller gets) and
/// the daemon's pure request core agree: every operation, run through ``RequestCore`` on a phone the operations
/// before it set up, is answered with the reply case the operation expects, and its caller's value can be taken from
/// that reply. A request whose reply the core changed (or an operation expecting the wrong one) fails here rather
/// than as a `protocolViolation` at run time.
@Suite("Operations and the request core")
struct OperationContractTests {
  /// An operation with its value type erased, so operations of every kind fit one list.
  struct Erased: Sendable {
    let request: Request
    let expects: ReplyTag
    let accepts: @Sendable (Reply) -> Bool

    init<Value>(_ operation: DeviceOperation<Value>) {
      request = operation.request
      expects = operation.expects
      accepts = { operation.accepts($0) }
    }
  }

  static let app = AppRecord(
    bundleID: "com.example.contract", displayName: "Contract", writeUsageDescription: "w",
    readUsageDescription: "r", entitlements: [.backgroundDelivery])
  static let bundle = app.bundleID
  static let biologicalSex = SampleType.lookup(name: "biologicalSex")!
  static let bloodPressure = SampleType.lookup(name: "bloodPressure")!
  static let pressures = ["bloodPressureSystolic", "bloodPressureDiastolic"].map { SampleType.lookup(name: $0)! }
  static let kept = UUID(uuidString: "11111111-2222-4333-8444-555555555555")!
  static let removed = UUID(uuidString: "AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE")!
  static let imported = Sample(
    uuid: UUID(uuidString: "00000000-1111-4222-8333-444444444444")!, type: water, value: .quantity(500),
    start: t0.addingTimeInterval(-7200), end: t0.addingTimeInterval(-7200), metadata: [:],
    source: SampleSource(bundleID: "com.apple.health.1", device: .phone))

  static let workoutFamily = ["workout", "workoutRoute", "heartbeatSeries", "heartRate"].map {
    SampleType.lookup(name: $0)!
  }
  static let heartRate = workoutFamily[3]
  static let activitySummary = SampleType.lookup(name: "activitySummary")!
  static let workoutInput = WorkoutInput(
    uuid: UUID(), activityType: .running, start: t0.addingTimeInterval(-3_600), end: t0.addingTimeInterval(-1_800))
  static let location = RouteLocation(timestamp: t0.addingTimeInterval(-3_000), latitude: 48.85, longitude: 2.35)
  static let importedWorkout = try! WorkoutInput(
    uuid: UUID(), activityType: .cycling, start: t0.addingTimeInterval(-9_000), end: t0.addingTimeInterval(-8_000)
  ).validated(source: imported.source)

  /// Every request's operation, in an order in which each can succeed on a phone: the app is installed and granted
  /// before it saves, a sample is saved before it is deleted, an import is staged before it is committed.
  static let operations: [Erased] = [
    Erased(.hello(client: "contract")),
    Erased(.setClock(t0)),
    Erased(.advanceClock(seconds: 1)),
    Erased(.setPolicy(DevicePolicy(reprompt: .standard, retention: nil))),
    Erased(.installApp(app)),
    Erased(.requestAuthorization(bundle, share: [water], read: [water, biologicalSex] + pressures)),
    Erased(.answerPrompt(.allowAll, bundleID: bundle)),
    Erased(.authorizationStatus(bundle, water)),
    Erased(.requestStatus(bundle, share: [water], read: [water])),
    Erased(.save(bundle, [waterSample(250, at: t0.addingTimeInterval(-60), uuid: kept)])),
    Erased(.save(bundle, [waterSample(100, at: t0.addingTimeInterval(-30), uuid: removed)])),
    Erased(.sampleQuery(bundle, SampleQuery(type: water))),
    Erased(.statistics(bundle, StatisticsQuery(type: water, options: .cumulativeSum))),
    Erased(
      .statisticsCollection(
        bundle,
        StatisticsQuery(type: water, options: .cumulativeSum, interval: 3600, anchor: t0.addingTimeInterval(-7200)))),
    Erased(.anchoredQuery(bundle, type: water, anchor: 0)),
    Erased(.saveCorrelations(bundle, [], samples: [waterSample(50, at: t0.addingTimeInterval(-20))])),
    Erased(.correlationQuery(bundle, CorrelationQuery(base: SampleQuery(type: bloodPressure)))),
    Erased(.storedCorrelations()),
    Erased(.requestAuthorization(bundle, share: workoutFamily, read: workoutFamily + [activitySummary])),
    Erased(.answerPrompt(.allowAll, bundleID: bundle)),
    Erased(.saveWorkout(bundle, workoutInput)),
    Erased(
      .saveObjects(
        bundle, correlations: [], samples: [],
        workouts: [
          WorkoutInput(
            uuid: UUID(), activityType: .running, start: t0.addingTimeInterval(-7_200),
            end: t0.addingTimeInterval(-6_000))
        ])),
    Erased(
      .addSamplesToWorkout(
        bundle, workout: workoutInput.uuid,
        samples: [
          SampleInput(
            uuid: UUID(), type: heartRate, value: .quantity(150, unit: "count/min"), start: workoutInput.start,
            end: workoutInput.start)
        ])),
    Erased(.saveRoute(bundle, workout: workoutInput.uuid, RouteInput(uuid: UUID(), locations: [location]))),
    Erased(
      .saveHeartbeatSeries(
        bundle,
        HeartbeatSeriesInput(
          uuid: UUID(), start: workoutInput.start, end: workoutInput.start.addingTimeInterval(2),
          beats: [Heartbeat(offset: 0), Heartbeat(offset: 1)]))),
    Erased(.workoutQuery(bundle, SampleQuery(type: workoutFamily[0]))),
    Erased(.routeQuery(bundle, workout: workoutInput.uuid, SampleQuery(type: workoutFamily[1]))),
    Erased(.heartbeatSeriesQuery(bundle, SampleQuery(type: workoutFamily[2]))),
    Erased(.activitySummaryQuery(bundle, from: LocalDay(year: 2026, month: 1, day: 1))),
    Erased(.anchoredWorkoutQuery(bundle, type: workoutFamily[0], anchor: 0)),
    Erased(.storedWorkouts),
    Erased(.storedRoutes()),
    Erased(.storedActivitySummaries),
    Erased(
      .workoutSession(
        bundle, .create(uuid: kept, configuration: WorkoutConfiguration(activityType: .running, location: .outdoor)))),
    Erased(.delete(bundle, [removed])),
    Erased(.deleteMatching(bundle, type: water, range: DateRange(start: t0, end: t0.addingTimeInterval(60)))),
    Erased(.readCharacteristic(bundle, biologicalSex)),
    Erased(.preferredUnits(bundle, [water])),
    Erased(.changeUserSetting(.preferredUnit(water, "L"))),
    Erased(.enableBackgroundDelivery(bundle, water, frequency: .immediate)),
    Erased(.backgroundDeliveries(bundle)),
    Erased(.completeBackgroundDelivery(bundle, delivery: 1)),
    Erased(.disableBackgroundDelivery(bundle, nil)),
    Erased(.setSourceOrder(water, [SampleSource(bundleID: bundle, device: .phone)])),
    Erased(.changeSettings(bundle, .set(Permission(water, .read), on: true))),
    Erased(.watchSettings(bundle, .set(Permission(water, .read), on: true))),
    Erased(.earliestPermittedSampleDate),
    Erased(.importBatch(9, [imported])),
    Erased(.importCorrelations(9, [])),
    Erased(.importWorkouts(9, [importedWorkout])),
    Erased(
      .importRoutes(
        9,
        [WorkoutRoute(uuid: UUID(), workout: importedWorkout.uuid, locations: [location], source: imported.source)]
      )),
    Erased(
      .importActivitySummaries(9, [ActivitySummary(day: LocalDay(year: 2026, month: 1, day: 4), activeEnergy: 200)])),
    Erased(.importCommit(9)),
    Erased(.importAbort(10)),
    Erased(.dump),
    Erased(.storedSamples(from: .start)),
    Erased(.subscribe(.samples)),
    Erased(.link(.hold)),
    Erased(.ping),
    Erased(.setLocked(true)),
    Erased(.setLocked(false)),
    Erased(.uninstallApp(bundle)),
  ]

  static let ecgType = SampleType.lookup(name: "electrocardiogram")!
  static let recording = ECGRecording(uuid: UUID(), start: t0.addingTimeInterval(-60), classification: .sinusRhythm)
  static let importedECG = try! ECGRecording(
    uuid: UUID(), start: t0.addingTimeInterval(-9_000), classification: .atrialFibrillation
  ).recorded(on: .phone)

  /// The operations only a watch answers (its ECG app records), in an order in which each can succeed there.
  static let watchOperations: [Erased] = [
    Erased(.setClock(t0)),
    Erased(.installApp(app)),
    Erased(.requestAuthorization(bundle, share: [], read: [ecgType])),
    Erased(.answerPrompt(.allowAll, bundleID: bundle)),
    Erased(.recordElectrocardiogram(recording)),
    Erased(.electrocardiogramQuery(bundle, SampleQuery(type: ecgType))),
    Erased(.electrocardiogramVoltages(bundle, recording.uuid)),
    Erased(.importElectrocardiograms(11, [importedECG])),
    Erased(.importCommit(11)),
    Erased(.storedElectrocardiograms(offset: 0)),
    Erased(.requestAuthorization(bundle, share: [audiogramType], read: [audiogramType])),
    Erased(.answerPrompt(.allowAll, bundleID: bundle)),
    Erased(.saveAudiograms(bundle, [audiogram])),
    Erased(.audiogramQuery(bundle, SampleQuery(type: audiogramType))),
    Erased(.importAudiograms(12, [importedAudiogram])),
    Erased(.importCommit(12)),
    Erased(.storedAudiograms),
    Erased(.requestAuthorization(bundle, share: [stateOfMindType], read: [stateOfMindType])),
    Erased(.answerPrompt(.allowAll, bundleID: bundle)),
    Erased(
      .saveStatesOfMind(
        bundle, [StateOfMindInput(uuid: UUID(), date: t0.addingTimeInterval(-60), kind: 1, valence: 0.3)])),
    Erased(.stateOfMindQuery(bundle, SampleQuery(type: stateOfMindType))),
    Erased(
      .saveFamilies(
        bundle, statesOfMind: [StateOfMindInput(uuid: UUID(), date: t0.addingTimeInterval(-50), kind: 1, valence: 0.1)])
    ),
    Erased(.requestAuthorization(bundle, share: [gad7Type], read: [gad7Type])),
    Erased(.answerPrompt(.allowAll, bundleID: bundle)),
    Erased(
      .saveScoredAssessments(
        bundle,
        [
          ScoredAssessmentInput(
            uuid: UUID(), kind: 1, date: t0.addingTimeInterval(-60), answers: [1, 1, 1, 1, 1, 1, 1])
        ]
      )),
    Erased(.scoredAssessmentQuery(bundle, SampleQuery(type: gad7Type))),
  ]

  /// The operations only an iPhone answers besides every phone operation (a provider's records arrive there).
  static let phoneOnlyOperations: [Erased] = [
    Erased(.installApp(recordsApp)),
    Erased(.requestAuthorization(recordsApp.bundleID, share: [], read: [allergyType])),
    Erased(.answerPrompt(.allowAll, bundleID: recordsApp.bundleID)),
    Erased(
      .receiveClinicalRecords([
        ClinicalRecord(
          uuid: UUID(), type: allergyType, date: t0, displayName: "Latex", resourceType: "AllergyIntolerance",
          identifier: "x", fhirVersion: "4.0.1", sourceURL: nil, data: Array("{}".utf8),
          source: SampleSource(bundleID: ClinicalRecord.downloaderBundleID, device: .phone))
      ])),
    Erased(.clinicalRecordQuery(recordsApp.bundleID, SampleQuery(type: allergyType))),
    Erased(.installApp(clinicApp)),
    Erased(.requestAuthorization(clinicApp.bundleID, share: [cdaType], read: [])),
    Erased(.answerPrompt(.allowAll, bundleID: clinicApp.bundleID)),
    Erased(
      .saveCDADocuments(
        clinicApp.bundleID,
        [
          CDADocument(
            uuid: UUID(), start: t0.addingTimeInterval(-60), end: t0.addingTimeInterval(-60),
            data: Array("<ClinicalDocument/>".utf8), title: "Visit", patientName: "P", authorName: "A",
            custodianName: "C", source: SampleSource(bundleID: "", device: .phone))
        ])),
    Erased(.cdaDocumentQuery(clinicApp.bundleID, SampleQuery(type: cdaType))),
    Erased(
      .addMedications([
        Medication(
          conceptID: "rx-1", displayText: "Lisinopril", added: t0,
          source: SampleSource(bundleID: "", device: .phone))
      ])),
    Erased(
      .logMedicationDoses([
        MedicationDoseEvent(
          uuid: UUID(), conceptID: "rx-1", date: t0.addingTimeInterval(-30), status: .taken,
          source: SampleSource(bundleID: "", device: .phone))
      ])),
    Erased(
      .medicationQuery(clinicApp.bundleID, SampleQuery(type: SampleType.lookup(name: "userAnnotatedMedication")!))),
    Erased(
      .medicationDoseQuery(clinicApp.bundleID, SampleQuery(type: SampleType.lookup(name: "medicationDoseEvent")!))),
    Erased(.installApp(opticianApp)),
    Erased(.requestAuthorization(opticianApp.bundleID, share: [prescriptionType], read: [])),
    Erased(.answerPrompt(.allowAll, bundleID: opticianApp.bundleID)),
    Erased(.requestAuthorizationFromExtension(opticianApp.bundleID, share: [prescriptionType], read: [])),
    Erased(.handleAuthorizationForExtension(opticianApp.bundleID)),
    Erased(
      .saveVisionPrescriptions(
        opticianApp.bundleID,
        [
          VisionPrescription(
            uuid: UUID(), kind: .contacts, specifiesLenses: true, dateIssued: t0.addingTimeInterval(-60),
            expirationDate: nil, rightEye: LensSpecification(sphere: -1.5), brand: "B",
            source: SampleSource(bundleID: "", device: .phone))
        ])),
    Erased(.visionPrescriptionQuery(opticianApp.bundleID, SampleQuery(type: prescriptionType))),
    Erased(.requestPerObjectRead(recordsApp.bundleID, SampleQuery(type: prescriptionType))),
    Erased(.answerPrompt(.allowAll, bundleID: recordsApp.bundleID)),
    Erased(
      .importVisionPrescriptions(
        14,
        [
          VisionPrescription(
            uuid: UUID(), kind: .glasses, specifiesLenses: true, dateIssued: t0.addingTimeInterval(-600),
            expirationDate: nil, leftEye: LensSpecification(sphere: 1), source: imported.source)
        ])),
    Erased(.importCommit(14)),
    Erased(.storedVisionPrescriptions),
    Erased(
      .importClinicalRecords(
        15,
        [
          ClinicalRecord(
            uuid: UUID(), type: allergyType, date: t0, displayName: "Pollen", resourceType: "AllergyIntolerance",
            identifier: "y", fhirVersion: "4.0.1", sourceURL: nil, data: Array("{}".utf8),
            source: SampleSource(bundleID: ClinicalRecord.downloaderBundleID, device: .phone))
        ])),
    Erased(.importCommit(15)),
    Erased(.storedClinicalRecords),
  ]
  static let prescriptionType = SampleType.lookup(name: "visionPrescription")!
  static let clinicApp = AppRecord(
    bundleID: "com.example.clinic", displayName: "Clinic", writeUsageDescription: "w", readUsageDescription: "r")
  static let opticianApp = AppRecord(
    bundleID: "com.example.optician", displayName: "Optician", writeUsageDescription: "w", readUsageDescription: "r")
  static let allergyType = SampleType.lookup(name: "allergyRecord")!
  static let recordsApp = AppRecord(
    bundleID: "com.example.records", displayName: "Records", writeUsageDescription: nil, readUsageDescription: "r",
    entitlements: [.healthRecords], healthRecords: HealthRecordsInfo(usageDescription: "c"))
  static let stateOfMindType = SampleType.lookup(name: "stateOfMind")!
  static let gad7Type = SampleType.lookup(name: "GAD7")!
  static let cdaType = SampleType.lookup(name: "CDA")!
  static let audiogramType = SampleType.lookup(name: "audiogram")!
  static let importedAudiogram: Audiogram = {
    var copy = try! audiogram.validated(source: imported.source)
    copy.uuid = UUID()
    return copy
  }()
  static let audiogram = AudiogramInput(
    uuid: UUID(), start: t0.addingTimeInterval(-600), end: t0.addingTimeInterval(-300),
    points: [AudiogramPoint(frequency: 1_000, tests: [AudiogramTest(sensitivity: 10, side: .left)])])

  @Test func everyRequestHasItsOperationInTheContract() {
    let covered = Set((Self.operations + Self.watchOperations + Self.phoneOnlyOperations).map(\.request.opcode))
    #expect(covered == Set(RequestOpcode.allCases), "missing: \(Set(RequestOpcode.allCases).subtracting(covered))")
  }

  @Test func theCoreAnswersEveryOperationWithTheReplyItExpects() {
    Self.check(Self.operations, on: .phone)
  }

  @Test func theWatchAnswersItsOwnOperationsWithTheReplyTheyExpect() {
    Self.check(Self.watchOperations, on: .watch)
  }

  @Test func theIPhoneAnswersTheHealthRecordsOperations() {
    Self.check(Self.phoneOnlyOperations, on: .phone)
  }

  /// Runs `operations` in order on a fresh `device`, checking each succeeds with the reply its operation expects.
  static func check(_ operations: [Erased], on device: DeviceKind) {
    var state = DeviceState(device: device)
    let context = RequestCore.Context(
      wall: t0, hasPeer: true,
      link: LinkStatus(
        enabled: true, connected: false, holding: false, latency: 0,
        sync: DeviceSnapshot.SyncStatus(
          lastSeq: 0, peerAcked: 0, appliedFromPeer: 0, pendingEntries: 0, pendingItems: 0)),
      pid: 1, clients: 1)
    var waiting: [Erased] = []
    var checked = 0
    for operation in operations {
      let name = operation.request.name
      // `hello` is answered by the connection, before any request reaches the device.
      if operation.request.opcode == .hello {
        #expect(operation.expects == .hello)
        continue
      }
      let (answer, effects) = RequestCore.handle(operation.request, state: &state, context: context)
      switch answer {
      case .reply(.success(let reply)):
        #expect(reply.tag == operation.expects, "\(name)")
        #expect(operation.accepts(reply), "\(name): its value cannot be taken from \(reply)")
        checked += 1
      case .reply(.failure(let error)):
        Issue.record("\(name) was refused, so its reply went unchecked: \(error)")
      case .pending:
        // A sheet is up: the final answer comes when it closes (below, as a completion).
        waiting.append(operation)
      case .link:
        // The daemon performs the command on its sync machine, then replies with the link's status.
        #expect(operation.expects == .link, "\(name)")
        checked += 1
      case .subscribe:
        // The daemon records the connection's subscriptions, then replies `ok`.
        #expect(operation.expects == .ok, "\(name)")
        checked += 1
      }
      for completion in effects.completions {
        guard !waiting.isEmpty else {
          Issue.record("a sheet closed that no operation here opened")
          continue
        }
        let opened = waiting.removeFirst()
        switch completion.result {
        case .success(let reply):
          #expect(reply.tag == opened.expects, "\(opened.request.name)")
          #expect(opened.accepts(reply), "\(opened.request.name): its value cannot be taken from \(reply)")
          checked += 1
        case .failure(let error):
          Issue.record("\(opened.request.name) completed with an error: \(error)")
        }
      }
    }
    #expect(waiting.isEmpty, "a sheet never closed")
    #expect(checked == operations.count - operations.filter { $0.request.opcode == .hello }.count)
  }

  @Test func anOperationRefusesAReplyOfAnotherKind() {
    let query = DeviceOperation.sampleQuery(Self.bundle, SampleQuery(type: water))
    #expect(!query.accepts(.ok))
    #expect(query.accepts(.samples([])))
    #expect(throws: ClientError.self) { _ = try query.value(from: .count(3)) }
    do {
      _ = try query.value(from: .count(3))
    } catch {
      guard case .protocolViolation(let why) = error else {
        Issue.record("expected a protocol violation, got \(error)")
        return
      }
      #expect(why.contains("expected samples"))
    }
    // An acknowledged operation expects `ok`, nothing else.
    #expect(DeviceOperation.ping.accepts(.ok))
    #expect(!DeviceOperation.ping.accepts(.count(0)))
  }
}
