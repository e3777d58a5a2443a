import FoundationEssentials

@testable import HealthEngine
@testable import HealthModel

/// One example of every journal event kind, every sync entry payload and every snapshot outbound entry, with fixed
/// values: `Fixtures/events.txt` holds their bytes (``EventFixtureTests``). Some kinds have several examples, for
/// the variants of their fields' layouts (flags, optional parts).
enum EventFixture {
  static let bloodPressure = SampleType.lookup(name: "bloodPressure")!
  static let bloodType = SampleType.lookup(name: "bloodType")!
  static let dateOfBirth = SampleType.lookup(name: "dateOfBirth")!
  static let source = JournalFixture.phoneSource
  static let watchSource = SampleSource(bundleID: "com.example.return", device: .watch)
  /// A source as an Apple Health export gives it (bit 7 of its device byte).
  static let exportSource = SampleSource(
    bundleID: "com.apple.health.1", device: .watch,
    details: SourceDetails(
      name: "W", version: "10.1", hardware: HardwareDetails(fields: [.init("model", "Watch")])))
  static let sample = Sample(
    uuid: JournalFixture.savedID, type: water, value: .quantity(250), start: t0, end: t0.addingTimeInterval(60),
    metadata: [
      "s": .string("é"), "b": .bool(true), "i": .int(-3), "d": .double(0.5), "t": .date(t0),
      "q": .quantity(2, unit: "kg"),
    ], source: source)
  static let category = Sample(
    uuid: JournalFixture.sessionID, type: mindful, value: .category(0), start: t0, end: t0.addingTimeInterval(600),
    source: watchSource)
  static let imported = Sample(
    uuid: JournalFixture.sessionID, type: water, value: .quantity(500), start: t0, end: t0,
    metadata: ["HKTimeZone": .string("UTC")], source: exportSource)
  static let tombstone = Tombstone(uuid: JournalFixture.savedID, type: water, source: source, deletedAt: t0)
  /// A deletion that keeps the deleted object's sync identifier and version (bit 15 of its type).
  static let syncedTombstone = Tombstone(
    uuid: JournalFixture.sessionID, type: water, source: source, deletedAt: t0,
    metadata: ["HKMetadataKeySyncIdentifier": .string("s-1"), "HKMetadataKeySyncVersion": .int(2)])
  static let correlation = Correlation(
    uuid: UUID(uuidString: "C0000000-0000-4000-8000-000000000001")!, type: bloodPressure, start: t0, end: t0,
    metadata: ["HKWasUserEntered": .bool(true)], source: source,
    members: [JournalFixture.savedID, JournalFixture.sessionID])
  static let correlationTombstone = Tombstone(
    uuid: correlation.uuid, type: bloodPressure, source: source, deletedAt: t0)
  static let workoutType = SampleType.lookup(name: "workout")!
  static let routeType = SampleType.lookup(name: "workoutRoute")!
  static let activeEnergy = SampleType.lookup(name: "activeEnergyBurned")!
  /// A workout with every part: a pause and a resume, a lap, two activities with statistics, metadata and an
  /// associated sample.
  static let workout = Workout(
    uuid: UUID(uuidString: "D0000000-0000-4000-8000-000000000001")!, activityType: WorkoutActivityType(rawValue: 37),
    start: t0, end: t0.addingTimeInterval(1800), duration: 1500,
    events: [
      WorkoutEvent(type: .pause, start: t0.addingTimeInterval(600)),
      WorkoutEvent(type: .resume, start: t0.addingTimeInterval(900)),
      WorkoutEvent(
        type: .lap, start: t0.addingTimeInterval(900), end: t0.addingTimeInterval(1200), metadata: ["n": .int(2)]),
    ],
    activities: [
      WorkoutActivity(
        uuid: UUID(uuidString: "D0000000-0000-4000-8000-000000000002")!,
        configuration: WorkoutConfiguration(
          activityType: WorkoutActivityType(rawValue: 46), location: .indoor, swimmingLocation: .pool, lapLength: 25),
        start: t0, end: t0.addingTimeInterval(900), metadata: ["a": .bool(true)],
        statistics: [
          WorkoutStatistic(
            type: heartRate, start: t0, end: t0.addingTimeInterval(900), minimum: 1, maximum: 3, average: 2)
        ]),
      WorkoutActivity(
        uuid: UUID(uuidString: "D0000000-0000-4000-8000-000000000003")!,
        configuration: WorkoutConfiguration(activityType: WorkoutActivityType(rawValue: 37), location: .outdoor),
        start: t0.addingTimeInterval(900), end: t0.addingTimeInterval(1800)),
    ],
    statistics: [WorkoutStatistic(type: activeEnergy, start: t0, end: t0.addingTimeInterval(1800), sum: 310.5)],
    metadata: ["HKIndoorWorkout": .bool(false)], source: source, associated: [JournalFixture.savedID])
  static let route = WorkoutRoute(
    uuid: UUID(uuidString: "D0000000-0000-4000-8000-000000000004")!, workout: workout.uuid,
    locations: [
      RouteLocation(timestamp: t0, latitude: 48.85, longitude: 2.35, altitude: 35),
      RouteLocation(
        timestamp: t0.addingTimeInterval(3), latitude: 48.851, longitude: 2.351, altitude: 36, horizontalAccuracy: 4,
        verticalAccuracy: 3, speed: 2.5, speedAccuracy: 0.5, course: 90, courseAccuracy: 10),
    ], metadata: ["HKMetadataKeySyncIdentifier": .string("r-1")], source: source)
  static let heartbeats = HeartbeatSeries(
    uuid: UUID(uuidString: "D0000000-0000-4000-8000-000000000005")!, start: t0, end: t0.addingTimeInterval(60),
    beats: [Heartbeat(offset: 0.8), Heartbeat(offset: 1.7, precededByGap: true)], source: watchSource)
  static let summary = ActivitySummary(
    day: LocalDay(year: 2026, month: 1, day: 5), moveMode: .appleMoveTime, activeEnergy: 420, activeEnergyGoal: 500,
    moveTime: 35, moveTimeGoal: 30, exerciseTime: 31, exerciseTimeGoal: 30, standHours: 9, standHoursGoal: 12,
    isPaused: true)
  static let workoutTombstone = Tombstone(uuid: workout.uuid, type: workoutType, source: source, deletedAt: t0)
  static let routeTombstone = Tombstone(uuid: route.uuid, type: routeType, source: source, deletedAt: t0)
  static let entitledApp = AppRecord(
    bundleID: "com.example.tracker", displayName: "Tracker", writeUsageDescription: nil, readUsageDescription: "r",
    entitlements: [.backgroundDelivery])
  static let recordsApp = AppRecord(
    bundleID: "com.example.chart", displayName: "Chart", writeUsageDescription: nil, readUsageDescription: nil,
    entitlements: [.healthRecords],
    healthRecords: HealthRecordsInfo(
      usageDescription: "c",
      requiredTypes: ["HKClinicalTypeIdentifierAllergyRecord", "HKClinicalTypeIdentifierConditionRecord", "x"]))
  static let order = SourceOrder(sources: [source, watchSource], at: t0, device: .phone)
  static let decisions = [
    SharedDecision(Permission(water, .share), .authorized), SharedDecision(Permission(water, .read), nil),
  ]
  static let readOff = SettingsChange.set(Permission(water, .read), on: false)
  /// A policy with every optional part: strict, companion, iPhone-only settings, metric, a custom background model,
  /// a time zone and a source order.
  static let fullPolicy = DevicePolicy(
    reprompt: .strict, retention: 86_400, authorization: .companion, watchSettings: .iPhoneOnly, units: .metric,
    background: BackgroundDeliveryModel(responseWindow: 10, retryDelay: 20),
    timeZone: try! TimeZoneRule(identifier: "Europe/Paris"), sourceOrders: [water: order])

  /// Journal events, by fixture name: the tag's name, then `.variant` when a kind has more than one example.
  /// A four-measurement recording with every optional field set.
  static let ecg = Electrocardiogram(
    uuid: UUID(uuidString: "EC6EC6EC-0000-4000-8000-000000000001")!, start: t0, end: t0.addingTimeInterval(4.0 / 512),
    classification: .inconclusiveHighHeartRate, symptomsStatus: .present, averageHeartRate: 160,
    samplingFrequency: 512, voltages: [-48.673, 0, 812.5, -170.25],
    metadata: ["HKMetadataKeyAppleECGAlgorithmVersion": .int(2)],
    source: SampleSource(bundleID: Electrocardiogram.recorderBundleID, device: .watch))

  /// A two-point audiogram with a masked, a clamped and an unmasked test.
  static let audiogram = try! AudiogramInput(
    uuid: UUID(uuidString: "A0D10A0D-0000-4000-8000-000000000002")!, start: t0, end: t0.addingTimeInterval(600),
    points: [
      AudiogramPoint(
        frequency: 250,
        tests: [
          AudiogramTest(sensitivity: -5, side: .left), AudiogramTest(sensitivity: 30, side: .right, masked: true),
        ]),
      AudiogramPoint(frequency: 8_000, tests: [AudiogramTest(sensitivity: 70, side: .left, clampLower: 10)]),
    ], metadata: ["HKMetadataKeyDeviceName": .string("AirPods Pro")]
  ).validated(source: JournalFixture.phoneSource)

  /// A daily mood with labels, associations and metadata.
  static let stateOfMind = try! StateOfMindInput(
    uuid: UUID(uuidString: "50A0D000-0000-4000-8000-000000000003")!, date: t0, kind: 2, valence: -0.52,
    labels: [29, 32], associations: [17, 11], metadata: ["note": .string("deadline")]
  ).validated(source: JournalFixture.phoneSource)

  /// A PHQ-9 whose ninth answer is "prefer not to answer", with metadata.
  static let assessment = try! ScoredAssessmentInput(
    uuid: UUID(uuidString: "50A0D000-0000-4000-8000-000000000006")!, kind: 2, date: t0,
    answers: [3, 2, 1, 0, 3, 2, 1, 0, 4], metadata: ["clinic": .string("north")]
  ).validated(source: JournalFixture.phoneSource)

  /// A discharge summary with metadata.
  static let medication = Medication(
    conceptID: "rx-314076", displayText: "Lisinopril 10 mg", generalForm: "tablet",
    codings: [ClinicalCoding(system: ClinicalCoding.rxNormSystem, version: "2025", code: "314076")],
    nickname: "BP pill", hasSchedule: true, added: t0,
    source: SampleSource(bundleID: "com.apple.Health", device: .phone))
  static let dose = MedicationDoseEvent(
    uuid: UUID(uuidString: "50A0D000-0000-4000-8000-000000000008")!, conceptID: "rx-314076", date: t0,
    status: .taken, scheduledDate: t0, scheduledDose: 1, metadata: ["note": .string("with food")],
    source: SampleSource(bundleID: "com.apple.Health", device: .phone))

  static let document = CDADocument(
    uuid: UUID(uuidString: "50A0D000-0000-4000-8000-000000000007")!, start: t0, end: t0,
    data: Array("<ClinicalDocument><title>Discharge</title></ClinicalDocument>".utf8), title: "Discharge",
    patientName: "Jane Appleseed", authorName: "Anna Ortiz", custodianName: "Cupertino Clinic",
    metadata: ["ward": .string("3B")], source: JournalFixture.phoneSource)

  /// A glasses prescription with a prism on the right lens.
  static let prescription = VisionPrescription(
    uuid: UUID(uuidString: "9E55E500-0000-4000-8000-000000000005")!, kind: .glasses, specifiesLenses: true,
    dateIssued: t0, expirationDate: t0.addingTimeInterval(730 * 86_400),
    rightEye: LensSpecification(
      sphere: -2.25, cylinder: -0.5, axis: 90, addPower: 1.5, vertexDistance: 12,
      prism: VisionPrism(amount: 1, angle: 90, eye: .right), farPupillaryDistance: 32, nearPupillaryDistance: 30),
    leftEye: LensSpecification(sphere: -2), metadata: ["note": .string("reading")], source: JournalFixture.phoneSource)

  /// A lab result with a source URL.
  static let clinicalRecord = ClinicalRecord(
    uuid: UUID(uuidString: "C11C11C1-0000-4000-8000-000000000004")!, type: SampleType.lookup(name: "labResultRecord")!,
    date: t0, displayName: "Hemoglobin A1c", resourceType: "Observation", identifier: "obs-1", fhirVersion: "4.0.1",
    sourceURL: "https://fhir.example.org/Observation/obs-1", data: Array("{\"resourceType\":\"Observation\"}".utf8),
    source: SampleSource(
      bundleID: ClinicalRecord.downloaderBundleID, device: .phone, details: SourceDetails(name: "Cedar Clinic")))

  static let events: [(name: String, event: DeviceEvent)] = [
    ("appInstalled", .appInstalled(app)),
    ("appUninstalled", .appUninstalled(bundleID: app.bundleID)),
    (
      "promptAnswered",
      .promptAnswered(
        bundleID: app.bundleID,
        changes: [
          AuthorizationChange(Permission(water, .share), .authorized), .init(Permission(water, .read), .denied),
        ])
    ),
    ("promptCancelled", .promptCancelled(bundleID: app.bundleID)),
    ("settingsChanged", .settingsChanged(bundleID: app.bundleID, change: readOff, viaWatchApp: true)),
    ("settingsChanged.turnAllOff", .settingsChanged(bundleID: app.bundleID, change: .turnAllOff, viaWatchApp: false)),
    ("settingsChanged.reset", .settingsChanged(bundleID: app.bundleID, change: .reset, viaWatchApp: false)),
    ("watchSettingsQueued", .watchSettingsQueued(bundleID: app.bundleID, change: readOff)),
    ("samplesSaved", .samplesSaved([sample, category])),
    ("samplesSaved.exportSource", .samplesSaved([imported])),
    ("samplesDeleted", .samplesDeleted([tombstone, syncedTombstone])),
    (
      "peerEntriesApplied",
      .peerEntriesApplied(
        [
          SyncEntry(seq: 1, payload: .samples([sample])),
          SyncEntry(seq: 2, payload: .samples([imported])),
          SyncEntry(seq: 3, payload: .deletions([tombstone])),
          SyncEntry(seq: 4, payload: .watchSettings(bundleID: app.bundleID, change: .reset)),
          SyncEntry(seq: 5, payload: .authorization(bundleID: app.bundleID, decisions: decisions, at: t0)),
          SyncEntry(seq: 6, payload: .userSetting(.preferredUnit(water, "mL"), at: t0)),
          SyncEntry(seq: 7, payload: .sourceOrder(water, order)),
          SyncEntry(seq: 8, payload: .correlations([correlation])),
          SyncEntry(seq: 9, payload: .correlationDeletions([correlationTombstone])),
          SyncEntry(seq: 10, payload: .workouts([workout])),
          SyncEntry(seq: 11, payload: .workoutAssociations(workout: workout.uuid, samples: [JournalFixture.sessionID])),
          SyncEntry(seq: 12, payload: .routes([route])),
          SyncEntry(seq: 13, payload: .heartbeatSeries([heartbeats])),
          SyncEntry(seq: 14, payload: .workoutDeletions([workoutTombstone, routeTombstone])),
          SyncEntry(seq: 15, payload: .electrocardiograms([ecg])),
          SyncEntry(seq: 16, payload: .audiograms([audiogram])),
          SyncEntry(seq: 17, payload: .statesOfMind([stateOfMind])),
          SyncEntry(seq: 18, payload: .scoredAssessments([assessment])),
          SyncEntry(seq: 19, payload: .medications([medication])),
          SyncEntry(seq: 20, payload: .medicationDoses([dose])),
        ], at: t0)
    ),
    ("peerAcknowledged", .peerAcknowledged(41)),
    ("clockSet", .clockSet(t0)),
    ("clockSet.realClock", .clockSet(nil)),
    ("policyChanged", .policyChanged(DevicePolicy(reprompt: .standard, retention: nil))),
    ("policyChanged.everyPart", .policyChanged(fullPolicy)),
    ("syncLogRestarted", .syncLogRestarted(logID: 0xABCD_EF01)),
    ("peerLogAdopted", .peerLogAdopted(logID: 4242)),
    ("authorizationShared", .authorizationShared(bundleID: app.bundleID, decisions: decisions, at: t0)),
    ("appInstalledWithEntitlements", .appInstalled(entitledApp)),
    ("appInstalledWithHealthRecords", .appInstalled(recordsApp)),
    (
      "backgroundDeliveryChanged",
      .backgroundDeliveryChanged(bundleID: entitledApp.bundleID, type: water, frequency: .hourly)
    ),
    (
      "backgroundDeliveryChanged.disabledForType",
      .backgroundDeliveryChanged(bundleID: entitledApp.bundleID, type: water, frequency: nil)
    ),
    (
      "backgroundDeliveryChanged.disabledForAll",
      .backgroundDeliveryChanged(bundleID: entitledApp.bundleID, type: nil, frequency: nil)
    ),
    ("changeNumbersAdvanced", .changeNumbersAdvanced(to: 1 << 33)),
    ("importStaged", .importStaged(id: 9, samples: [imported, sample])),
    (
      "importCommitted",
      .importCommitted(
        id: 9, at: t0,
        characteristics: [bloodType: .value(2), dateOfBirth: .dateOfBirth(year: 1990, month: 4, day: 2)])
    ),
    ("importCommitted.noCharacteristics", .importCommitted(id: 9, at: t0)),
    ("importAbandoned", .importAbandoned(id: 9)),
    ("deviceLocked", .deviceLocked(at: t0)),
    ("deviceUnlocked", .deviceUnlocked(at: t0.addingTimeInterval(60))),
    ("samplesSavedWhileLocked", .samplesSavedWhileLocked([sample])),
    ("userSettingChanged", .userSettingChanged(.characteristic(bloodType, .value(2)), at: t0)),
    ("userSettingChanged.cleared", .userSettingChanged(.characteristic(dateOfBirth, nil), at: t0)),
    ("userSettingChanged.unit", .userSettingChanged(.preferredUnit(water, "mL"), at: t0)),
    ("userSettingChanged.unitCleared", .userSettingChanged(.preferredUnit(water, nil), at: t0)),
    ("sourceOrderChanged", .sourceOrderChanged(water, order)),
    ("peerResendRequested", .peerResendRequested),
    ("peerResendAnswered", .peerResendAnswered(logID: 77)),
    ("correlationsSaved", .correlationsSaved([correlation])),
    ("correlationsDeleted", .correlationsDeleted([correlationTombstone])),
    ("importCorrelationsStaged", .importCorrelationsStaged(id: 9, [correlation])),
    ("workoutsSaved", .workoutsSaved([workout])),
    ("workoutSamplesAssociated", .workoutSamplesAssociated(workout: workout.uuid, samples: [JournalFixture.sessionID])),
    ("routesSaved", .routesSaved([route])),
    ("heartbeatSeriesSaved", .heartbeatSeriesSaved([heartbeats])),
    ("workoutObjectsDeleted", .workoutObjectsDeleted([workoutTombstone, routeTombstone])),
    ("importWorkoutsStaged", .importWorkoutsStaged(id: 9, workouts: [workout], routes: [route], summaries: [summary])),
    ("workoutsSavedWhileLocked", .workoutsSavedWhileLocked(workouts: [workout], routes: [route])),
    ("electrocardiogramsStored", .electrocardiogramsStored([ecg])),
    ("importElectrocardiogramsStaged", .importElectrocardiogramsStaged(id: 9, [ecg])),
    ("audiogramsSaved", .audiogramsSaved([audiogram])),
    ("importAudiogramsStaged", .importAudiogramsStaged(id: 9, [audiogram])),
    ("statesOfMindSaved", .statesOfMindSaved([stateOfMind])),
    ("clinicalRecordsReceived", .clinicalRecordsReceived([clinicalRecord])),
    ("visionPrescriptionsSaved", .visionPrescriptionsSaved([prescription])),
    ("importVisionPrescriptionsStaged", .importVisionPrescriptionsStaged(id: 7, [prescription])),
    ("importClinicalRecordsStaged", .importClinicalRecordsStaged(id: 8, [clinicalRecord])),
    (
      "objectReadChosen",
      .objectReadChosen(bundleID: "com.example.water", choices: [prescription.uuid: true, clinicalRecord.uuid: false])
    ),
    ("scoredAssessmentsSaved", .scoredAssessmentsSaved([assessment])),
    ("cdaDocumentsSaved", .cdaDocumentsSaved([document])),
    ("medicationsAdded", .medicationsAdded([medication])),
    ("medicationDosesLogged", .medicationDosesLogged([dose])),
  ]

  /// A snapshot's outbound entries, by fixture name: the payload tag's name, then `.variant`.
  static let storedEntries: [(name: String, entry: SyncLedger.StoredEntry)] = [
    ("samples", .init(seq: 1, payload: .slots(start: 3, count: 4096))),
    ("deletions", .init(seq: 2, payload: .deletions([tombstone, syncedTombstone]))),
    ("watchSettings", .init(seq: 3, payload: .watchSettings(bundleID: app.bundleID, change: readOff))),
    ("authorization", .init(seq: 4, payload: .authorization(bundleID: app.bundleID, decisions: decisions, at: t0))),
    ("userSetting", .init(seq: 5, payload: .userSetting(.characteristic(bloodType, .value(2)), at: t0))),
    ("sourceOrder", .init(seq: 6, payload: .sourceOrder(water, order))),
    ("correlations", .init(seq: 7, payload: .correlations([correlation]))),
    ("correlationDeletions", .init(seq: 8, payload: .correlationDeletions([correlationTombstone]))),
    ("workouts", .init(seq: 9, payload: .workouts([workout]))),
    ("workoutAssociations", .init(seq: 10, payload: .workoutAssociations(workout: workout.uuid, samples: []))),
    ("routes", .init(seq: 11, payload: .routes([route]))),
    ("heartbeatSeries", .init(seq: 12, payload: .heartbeatSeries([heartbeats]))),
    ("workoutDeletions", .init(seq: 13, payload: .workoutDeletions([workoutTombstone]))),
    ("electrocardiograms", .init(seq: 14, payload: .electrocardiograms([ecg]))),
    ("audiograms", .init(seq: 15, payload: .audiograms([audiogram]))),
    ("statesOfMind", .init(seq: 16, payload: .statesOfMind([stateOfMind]))),
    ("scoredAssessments", .init(seq: 17, payload: .scoredAssessments([assessment]))),
    ("medications", .init(seq: 18, payload: .medications([medication]))),
    ("medicationDoses", .init(seq: 19, payload: .medicationDoses([dose]))),
  ]
}
