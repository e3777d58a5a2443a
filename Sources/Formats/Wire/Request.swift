import FoundationEssentials
import HealthEngine
import HealthModel

// What a client asks: every request and its opcode. Each request's layout, answer, name and log fields are its
// row in `RequestTable` (where `Request.opcode` maps each case to its opcode).

/// A request from a client to a device daemon. Every engine operation is reachable.
package enum Request: Hashable, Sendable {
  /// Opens a session; must be the first request. Carries the protocol version and a client name for logs.
  case hello(version: UInt16, client: String)
  /// Installs or updates an app.
  case installApp(AppRecord)
  /// Uninstalls an app.
  case uninstallApp(bundleID: String)
  /// `requestAuthorization(toShare:read:)`; answered by an interim `prompt` if a sheet is shown, then a final
  /// `authorization` once the user answers.
  case requestAuthorization(bundleID: String, share: [SampleType], read: [SampleType])
  /// The user answers (or cancels, or fails to see) a pending sheet.
  case answerPrompt(promptID: UInt64?, bundleID: String?, answer: PromptAnswer)
  /// `authorizationStatus(for:)`.
  case authorizationStatus(bundleID: String, type: SampleType)
  /// `getRequestStatusForAuthorization(toShare:read:)`.
  case requestStatus(bundleID: String, share: [SampleType], read: [SampleType])
  /// `save(_:)` of a batch.
  case save(bundleID: String, samples: [SampleInput])
  /// `delete(_:)` of a batch.
  case delete(bundleID: String, uuids: [UUID])
  /// `deleteObjects(of:predicate:)`: the app's own objects of a type in a date range (nil: every date).
  case deleteMatching(bundleID: String, type: SampleType, range: DateRange?)
  /// `HKSampleQuery`.
  case sampleQuery(bundleID: String, query: SampleQuery)
  /// `HKStatisticsQuery`.
  case statistics(bundleID: String, query: StatisticsQuery)
  /// `HKStatisticsCollectionQuery`.
  case statisticsCollection(bundleID: String, query: StatisticsQuery)
  /// `HKAnchoredObjectQuery`.
  case anchoredQuery(
    bundleID: String, type: SampleType, anchor: UInt64, range: DateRange?, limit: Int, filter: SampleFilter? = nil)
  /// Settings → Privacy → Health (phone only).
  case changeSettings(bundleID: String, change: SettingsChange)
  /// The iPhone's Watch app, for a watch app (phone only; applied by the watch over the link).
  case watchSettings(bundleID: String, change: SettingsChange)
  /// Sets the virtual clock (nil: back to the real clock).
  case setClock(Date?)
  /// Advances the virtual clock.
  case advanceClock(seconds: Double)
  /// Replaces the device policy.
  case setPolicy(DevicePolicy)
  /// The full state of the device and its link.
  case dump
  /// One page of the raw store: stored samples (optionally of one type) from `from`, then every tombstone; at most
  /// `limit` items (0: as many as fit the page size). Follow ``Reply/stored(samples:tombstones:next:)``'s `next`.
  case storedSamples(type: SampleType?, from: StoredCursor, limit: Int)
  /// Starts pushing events of the given kinds on this connection.
  case subscribe(EventMask)
  /// `earliestPermittedSampleDate()`.
  case earliestPermittedSampleDate
  /// Controls the peer link.
  case link(LinkCommand)
  /// Does nothing; answers `ok`.
  case ping
  /// Stages one batch of the import `importID` (samples already converted, with the sources the import gives
  /// them); nothing is visible until ``importCommit(importID:)``. The first batch opens the import on this
  /// connection: it belongs to the connection, and is given up if the connection closes before the commit.
  case importBatch(importID: UInt64, samples: [Sample])
  /// Makes every batch of the import visible and durable at once; answers ``Reply/imported(_:)``.
  /// The characteristics the export's `Me` set are applied in the same commit (an import may consist of them only).
  case importCommit(importID: UInt64, characteristics: [SampleType: CharacteristicValue] = [:])
  /// Gives the import up: its staged batches are dropped; answers `ok`.
  case importAbort(importID: UInt64)
  /// Locks (true) or unlocks (false) the device; the watch: taken off or put back on the wrist (behavior.md L1).
  case setLocked(Bool)
  /// An app reads a characteristic (`dateOfBirthComponents()`, `biologicalSex()`, …); answered by
  /// ``Reply/characteristic(_:_:)``.
  case readCharacteristic(bundleID: String, type: SampleType)
  /// `preferredUnits(for:)`; answered by ``Reply/units(_:)``.
  case preferredUnits(bundleID: String, types: [SampleType])
  /// The user changes a value in the Health app: a characteristic or a preferred unit.
  case changeUserSetting(UserSetting)
  /// `enableBackgroundDelivery(for:frequency:)`.
  case enableBackgroundDelivery(bundleID: String, type: SampleType, frequency: UpdateFrequency)
  /// `disableBackgroundDelivery(for:)`, or `disableAllBackgroundDelivery()` when `type` is nil.
  case disableBackgroundDelivery(bundleID: String, type: SampleType?)
  /// An observer query's completion handler, called for background delivery `delivery`.
  case completeBackgroundDelivery(bundleID: String, delivery: UInt64)
  /// The background delivery registrations of one app (or every app) and their recent events.
  case backgroundDeliveries(bundleID: String?)
  /// The user sets the Health app's data-source order of a type (phone only; it reaches the watch by sync).
  case setSourceOrder(type: SampleType, sources: [SampleSource])
  /// `save(_:)` of objects some of which are correlations: the correlations with their members and the plain
  /// samples, all or nothing (docs/behavior.md T10); answers `ok`.
  case saveCorrelations(bundleID: String, correlations: [CorrelationInput], samples: [SampleInput])
  /// `HKCorrelationQuery` (and `HKSampleQuery` of a correlation type); answered by ``Reply/correlations(_:)``.
  case correlationQuery(bundleID: String, query: CorrelationQuery)
  /// Stages correlations of the import `importID` (their members arrive as samples in its batches); visible with
  /// the rest at ``importCommit(importID:characteristics:)``; answers `ok`.
  case importCorrelations(importID: UInt64, correlations: [Correlation])
  /// Every live correlation stored on the device (of one type, or all), with its live members, whatever app saved
  /// it (for exports and tests, as ``storedSamples(type:from:limit:)``); answered by ``Reply/correlations(_:)``.
  case storedCorrelations(type: SampleType?)
  /// `save(_:)` of a workout (legacy `HKWorkout`, or a builder's `finishWorkout`): the workout (naming the stored
  /// samples associated with it) and the route saved with it (a builder's route series), all or nothing; answers
  /// `ok`.
  case saveWorkout(bundleID: String, workout: WorkoutInput, route: RouteInput?)
  /// `save(_:)` of an array holding workouts with correlations and samples: everything is checked before anything
  /// is stored, all or nothing; answers `ok`.
  case saveObjects(bundleID: String, correlations: [CorrelationInput], samples: [SampleInput], workouts: [WorkoutInput])
  /// `add(_:to:)`: new samples saved and associated with a saved workout, with samples already stored; answers `ok`.
  case addSamplesToWorkout(bundleID: String, workout: UUID, samples: [SampleInput], existing: [UUID])
  /// `HKWorkoutRouteBuilder.finishRoute(with:metadata:)`: a route of a saved workout; answers `ok`.
  case saveRoute(bundleID: String, workout: UUID, route: RouteInput)
  /// `HKHeartbeatSeriesBuilder.finishSeries`; answers `ok`.
  case saveHeartbeatSeries(bundleID: String, series: HeartbeatSeriesInput)
  /// `HKSampleQuery` of the workout type (its filter may hold the workout predicates); answered by
  /// ``Reply/workouts(_:)``.
  case workoutQuery(bundleID: String, query: SampleQuery)
  /// `HKWorkoutRouteQuery`'s routes, or `HKSampleQuery` of the route type (of one workout when `workout` is set:
  /// `predicateForObjects(from: workout)`); answered by ``Reply/routes(_:)`` with every location (the caller hands
  /// them out in batches).
  case routeQuery(bundleID: String, workout: UUID?, query: SampleQuery)
  /// `HKSampleQuery` of heartbeat series (and `HKHeartbeatSeriesQuery`'s series); answered by
  /// ``Reply/heartbeatSeries(_:)``.
  case heartbeatSeriesQuery(bundleID: String, query: SampleQuery)
  /// A call on a workout session or its live builder (``SessionCall``); answered by ``Reply/sessionStatus(_:)``.
  /// The delegates' callbacks follow as `workoutSession` and `workoutBuilder` events.
  case workoutSession(bundleID: String, call: SessionCall)
  /// The watch's ECG app records an electrocardiogram (the user's world; behavior.md G1); answers `ok`.
  case recordElectrocardiogram(ECGRecording)
  /// `HKSampleQuery` of `HKElectrocardiogramType`; answered by ``Reply/electrocardiograms(_:)`` (headers only).
  case electrocardiogramQuery(bundleID: String, query: SampleQuery)
  /// `HKElectrocardiogramQuery`: one recording's voltages; answered by ``Reply/voltages(_:)``.
  case electrocardiogramVoltages(bundleID: String, uuid: UUID)
  /// Stages electrocardiograms of the import `importID`; stored at its commit.
  case importElectrocardiograms(importID: UInt64, electrocardiograms: [Electrocardiogram])
  /// The stored electrocardiograms with their voltages, in store order from position `offset`, at most
  /// ``Request/storedElectrocardiogramPage`` (exports, tests); ``Reply/electrocardiograms(_:)`` (fewer: the last page).
  case storedElectrocardiograms(offset: Int)
  /// `save(_:)` of `HKAudiogramSample`s, all or nothing; answers `ok`.
  case saveAudiograms(bundleID: String, audiograms: [AudiogramInput])
  /// `HKSampleQuery` of `HKAudiogramSampleType`; answered by ``Reply/audiograms(_:)``.
  case audiogramQuery(bundleID: String, query: SampleQuery)
  /// Stages audiograms of the import `importID`; stored at its commit.
  case importAudiograms(importID: UInt64, audiograms: [Audiogram])
  /// Every audiogram stored on the device (exports, tests); ``Reply/audiograms(_:)``.
  case storedAudiograms
  /// `save(_:)` of `HKStateOfMind`s, all or nothing; answers `ok`.
  case saveStatesOfMind(bundleID: String, states: [StateOfMindInput])
  /// `HKSampleQuery` of `HKStateOfMindType`; answered by ``Reply/statesOfMind(_:)``.
  case stateOfMindQuery(bundleID: String, query: SampleQuery)
  /// A provider's clinical records arrive on the iPhone (the user's world; behavior.md F1); answers `ok`.
  case receiveClinicalRecords([ClinicalRecord])
  /// `HKSampleQuery` of an `HKClinicalType`; answered by ``Reply/clinicalRecords(_:)``.
  case clinicalRecordQuery(bundleID: String, query: SampleQuery)
  /// `save(_:)` of `HKVisionPrescription`s, all or nothing (the device sets their source); answers `ok`.
  case saveVisionPrescriptions(bundleID: String, prescriptions: [VisionPrescription])
  /// `HKSampleQuery` of `HKPrescriptionType`; answered by ``Reply/visionPrescriptions(_:)``.
  case visionPrescriptionQuery(bundleID: String, query: SampleQuery)
  /// `requestPerObjectReadAuthorization(for:predicate:)` of the query's type, listing the objects its range,
  /// sources and filter match; answered like ``requestAuthorization(bundleID:share:read:)`` (an interim `prompt`,
  /// then the sheet's `authorization`).
  case requestPerObjectRead(bundleID: String, query: SampleQuery)
  /// Stages vision prescriptions of the import `importID`; stored at its commit (left out by the watch).
  case importVisionPrescriptions(importID: UInt64, prescriptions: [VisionPrescription])
  /// Every vision prescription stored on the device (exports, tests); ``Reply/visionPrescriptions(_:)``.
  case storedVisionPrescriptions
  /// Stages clinical records of the import `importID`; stored at its commit (left out by the watch).
  case importClinicalRecords(importID: UInt64, records: [ClinicalRecord])
  /// Every clinical record stored on the device (exports, tests); ``Reply/clinicalRecords(_:)``.
  case storedClinicalRecords
  /// `save(_:)` of `HKGAD7Assessment`s and `HKPHQ9Assessment`s, all or nothing; answers `ok`.
  case saveScoredAssessments(bundleID: String, assessments: [ScoredAssessmentInput])
  /// `HKSampleQuery` of an `HKScoredAssessmentType`; answered by ``Reply/scoredAssessments(_:)``.
  case scoredAssessmentQuery(bundleID: String, query: SampleQuery)
  /// `save(_:)` of `HKCDADocumentSample`s, all or nothing (the device sets the source; refused on the watch);
  /// answers `ok`.
  case saveCDADocuments(bundleID: String, documents: [CDADocument])
  /// `HKDocumentQuery` (after its sheet) and `HKSampleQuery` of `HKDocumentType(.CDA)`: the documents the app may
  /// read; answered by ``Reply/cdaDocuments(_:)``.
  case cdaDocumentQuery(bundleID: String, query: SampleQuery)
  /// The user adds medications in the iPhone's Health app (the device sets the source); answers `ok`.
  case addMedications([Medication])
  /// The user logs medication doses on the device (the device sets the source); answers `ok`.
  case logMedicationDoses([MedicationDoseEvent])
  /// `HKUserAnnotatedMedicationQuery`: the medications the app may read; answered by ``Reply/medications(_:)``.
  case medicationQuery(bundleID: String, query: SampleQuery)
  /// `HKSampleQuery` of `HKMedicationDoseEventType`: the doses of the medications the app may read; answered by
  /// ``Reply/medicationDoses(_:)``.
  case medicationDoseQuery(bundleID: String, query: SampleQuery)
  /// `requestAuthorization(toShare:read:)` from an app extension of the app: waits, unanswered, until the app calls
  /// `handleAuthorizationForExtension` and the user answers its sheet (an interim `prompt` first, then a final
  /// `authorization`; none when nothing is undecided).
  case requestAuthorizationFromExtension(bundleID: String, share: [SampleType], read: [SampleType])
  /// `handleAuthorizationForExtension(completion:)`: presents the sheet of the app's waiting extension requests;
  /// answered like ``requestAuthorization(bundleID:share:read:)``.
  case handleAuthorizationForExtension(bundleID: String)
  /// `save(_:)` of an array mixing object families (samples, correlations and workouts; audiograms, States of Mind,
  /// vision prescriptions, scored assessments, CDA documents): all or nothing; answers `ok`.
  case saveFamilies(
    bundleID: String, samples: [SampleInput], correlations: [CorrelationInput], workouts: [WorkoutInput],
    audiograms: [AudiogramInput], statesOfMind: [StateOfMindInput], prescriptions: [VisionPrescription],
    assessments: [ScoredAssessmentInput], documents: [CDADocument])
  /// `HKActivitySummaryQuery`: the device's summaries of the days from `from` to `to` (inclusive; nil: unbounded);
  /// answered by ``Reply/activitySummaries(_:)``.
  case activitySummaryQuery(bundleID: String, from: LocalDay?, to: LocalDay?)
  /// `HKAnchoredObjectQuery` of workouts, routes or heartbeat series (`type`): what changed after `anchor` (0: nil
  /// anchor), at most `limit` objects (0: no limit), passing `filter` when set (`.associatedWith(workout)` on routes:
  /// that workout's routes); answered by ``Reply/anchoredWorkouts(_:)``.
  case anchoredWorkoutQuery(
    bundleID: String, type: SampleType, anchor: UInt64, range: DateRange?, limit: Int, filter: SampleFilter?)
  /// Stages workouts of the import `importID` (their samples arrive in its batches); visible at its commit.
  case importWorkouts(importID: UInt64, workouts: [Workout])
  /// Stages routes of the import `importID` (of workouts staged in it or stored); visible at its commit.
  case importRoutes(importID: UInt64, routes: [WorkoutRoute])
  /// Stages activity summaries of the import `importID`; visible at its commit.
  case importActivitySummaries(importID: UInt64, summaries: [ActivitySummary])
  /// Every live workout stored on the device, whatever app saved it (exports, tests); ``Reply/workouts(_:)``.
  case storedWorkouts
  /// Every live route stored on the device (of one workout, or all), whatever app saved it; ``Reply/routes(_:)``.
  case storedRoutes(workout: UUID?)
  /// Every activity summary stored or computed on the device; ``Reply/activitySummaries(_:)``.
  case storedActivitySummaries
}

/// Every client request's opcode: its first byte on the wire (docs/protocol.md). The list is exhaustive —
/// `Request.opcode`, the encoder and the decoder switch over it without a `default:` — so a request added to
/// `Request` and forgotten in the coding does not compile, and the pinned-frame tests walk `allCases`.
package enum RequestOpcode: UInt8, CaseIterable, Sendable {
  /// ``Request/hello``.
  case hello = 0
  /// ``Request/installApp``.
  case installApp = 1
  /// ``Request/uninstallApp``.
  case uninstallApp = 2
  /// ``Request/requestAuthorization``.
  case requestAuthorization = 3
  /// ``Request/answerPrompt``.
  case answerPrompt = 4
  /// ``Request/authorizationStatus``.
  case authorizationStatus = 5
  /// ``Request/requestStatus``.
  case requestStatus = 6
  /// ``Request/save``.
  case save = 7
  /// ``Request/delete``.
  case delete = 8
  /// ``Request/sampleQuery``.
  case sampleQuery = 9
  /// ``Request/statistics``.
  case statistics = 10
  /// ``Request/statisticsCollection``.
  case statisticsCollection = 11
  /// ``Request/anchoredQuery``.
  case anchoredQuery = 12
  /// ``Request/changeSettings``.
  case changeSettings = 13
  /// ``Request/watchSettings``.
  case watchSettings = 14
  /// ``Request/setClock``.
  case setClock = 15
  /// ``Request/advanceClock``.
  case advanceClock = 16
  /// ``Request/setPolicy``.
  case setPolicy = 17
  /// ``Request/dump``.
  case dump = 18
  /// ``Request/storedSamples``.
  case storedSamples = 19
  /// ``Request/subscribe``.
  case subscribe = 20
  /// ``Request/earliestPermittedSampleDate``.
  case earliestPermittedSampleDate = 21
  /// ``Request/link``.
  case link = 22
  /// ``Request/ping``.
  case ping = 23
  /// ``Request/deleteMatching``.
  case deleteMatching = 24
  /// ``Request/importBatch``.
  case importBatch = 30
  /// ``Request/importCommit``.
  case importCommit = 31
  /// ``Request/importAbort``.
  case importAbort = 32
  /// ``Request/setLocked``.
  case setLocked = 40
  /// ``Request/readCharacteristic``.
  case readCharacteristic = 41
  /// ``Request/preferredUnits``.
  case preferredUnits = 42
  /// ``Request/changeUserSetting``.
  case changeUserSetting = 43
  /// ``Request/enableBackgroundDelivery``.
  case enableBackgroundDelivery = 50
  /// ``Request/disableBackgroundDelivery``.
  case disableBackgroundDelivery = 51
  /// ``Request/completeBackgroundDelivery``.
  case completeBackgroundDelivery = 52
  /// ``Request/backgroundDeliveries``.
  case backgroundDeliveries = 53
  /// ``Request/setSourceOrder``.
  case setSourceOrder = 60
  /// ``Request/saveCorrelations``.
  case saveCorrelations = 85
  /// ``Request/correlationQuery``.
  case correlationQuery = 86
  /// ``Request/importCorrelations``.
  case importCorrelations = 87
  /// ``Request/storedCorrelations``.
  case storedCorrelations = 88
  /// ``Request/saveWorkout``.
  case saveWorkout = 90
  /// ``Request/addSamplesToWorkout``.
  case addSamplesToWorkout = 91
  /// ``Request/saveRoute``.
  case saveRoute = 92
  /// ``Request/saveHeartbeatSeries``.
  case saveHeartbeatSeries = 93
  /// ``Request/workoutQuery``.
  case workoutQuery = 94
  /// ``Request/routeQuery``.
  case routeQuery = 95
  /// ``Request/heartbeatSeriesQuery``.
  case heartbeatSeriesQuery = 96
  /// ``Request/activitySummaryQuery``.
  case activitySummaryQuery = 97
  /// ``Request/anchoredWorkoutQuery``.
  case anchoredWorkoutQuery = 98
  /// ``Request/saveObjects``.
  case saveObjects = 99
  /// ``Request/importWorkouts``.
  case importWorkouts = 100
  /// ``Request/importRoutes``.
  case importRoutes = 101
  /// ``Request/importActivitySummaries``.
  case importActivitySummaries = 102
  /// ``Request/storedWorkouts``.
  case storedWorkouts = 105
  /// ``Request/storedRoutes``.
  case storedRoutes = 106
  /// ``Request/storedActivitySummaries``.
  case storedActivitySummaries = 107
  /// ``Request/workoutSession``.
  case workoutSession = 110
  /// ``Request/recordElectrocardiogram``.
  case recordElectrocardiogram = 120
  /// ``Request/electrocardiogramQuery``.
  case electrocardiogramQuery = 121
  /// ``Request/electrocardiogramVoltages``.
  case electrocardiogramVoltages = 122
  /// ``Request/importElectrocardiograms``.
  case importElectrocardiograms = 123
  /// ``Request/storedElectrocardiograms``.
  case storedElectrocardiograms = 124
  /// ``Request/saveAudiograms``.
  case saveAudiograms = 125
  /// ``Request/audiogramQuery``.
  case audiogramQuery = 126
  /// ``Request/importAudiograms``.
  case importAudiograms = 127
  /// ``Request/storedAudiograms``.
  case storedAudiograms = 128
  /// ``Request/saveStatesOfMind``.
  case saveStatesOfMind = 129
  /// ``Request/stateOfMindQuery``.
  case stateOfMindQuery = 130
  /// ``Request/receiveClinicalRecords``.
  case receiveClinicalRecords = 131
  /// ``Request/clinicalRecordQuery``.
  case clinicalRecordQuery = 132
  /// ``Request/saveVisionPrescriptions``.
  case saveVisionPrescriptions = 133
  /// ``Request/visionPrescriptionQuery``.
  case visionPrescriptionQuery = 134
  /// ``Request/requestPerObjectRead``.
  case requestPerObjectRead = 135
  /// ``Request/importVisionPrescriptions``.
  case importVisionPrescriptions = 136
  /// ``Request/storedVisionPrescriptions``.
  case storedVisionPrescriptions = 137
  /// ``Request/importClinicalRecords``.
  case importClinicalRecords = 138
  /// ``Request/storedClinicalRecords``.
  case storedClinicalRecords = 139
  /// ``Request/saveScoredAssessments``.
  case saveScoredAssessments = 140
  /// ``Request/scoredAssessmentQuery``.
  case scoredAssessmentQuery = 141
  /// ``Request/saveCDADocuments``.
  case saveCDADocuments = 142
  /// ``Request/cdaDocumentQuery``.
  case cdaDocumentQuery = 143
  /// ``Request/addMedications``.
  case addMedications = 144
  /// ``Request/logMedicationDoses``.
  case logMedicationDoses = 145
  /// ``Request/medicationQuery``.
  case medicationQuery = 146
  /// ``Request/medicationDoseQuery``.
  case medicationDoseQuery = 147
  /// ``Request/requestAuthorizationFromExtension``.
  case requestAuthorizationFromExtension = 148
  /// ``Request/handleAuthorizationForExtension``.
  case handleAuthorizationForExtension = 149
  /// ``Request/saveFamilies``.
  case saveFamilies = 150
}

extension Request {
  /// The most recordings one `storedElectrocardiograms` answer holds (about 2 MB of 30-second recordings).
  package static let storedElectrocardiogramPage = 32

  /// The request's name for logs: its row's (``RequestTable``).
  package var name: String {
    var naming = NamingVisitor(request: self)
    return opcode.visitDefinition(&naming)
  }

  /// For an app's HealthKit call: the app and what the call asked, for the log (its row's). Nil for every other
  /// request (installs, Settings, clocks, dumps, subscriptions, link control, pings).
  package var appCall: AppCall? {
    var describing = AppCallVisitor(request: self)
    return opcode.visitDefinition(&describing)
  }
}
