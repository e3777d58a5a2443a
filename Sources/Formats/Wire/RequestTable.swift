import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// Every client request defined once, in `RequestTable`: its opcode, the codecs of its fields in wire order, the
// reply it answers with, how the `Request` case is built from the fields and taken apart into them, its name in
// logs and, for an app's HealthKit call, what its log line says. The frame encoder and decoder (FrameCoding.swift),
// the logs (`Request.name`, `Request.appCall`), the client's operations (HealthPairClient's `DeviceOperation`) and
// the debug-build check of the daemon's dispatch all read this table; nothing else lists a request's fields.

/// Every request, defined once (docs/protocol.md describes the same layouts in prose). A row names the opcode, the
/// codecs of the fields in wire order, the answer, the `Request` case and its inverse.
package enum RequestTable {
  /// Opens a session: the protocol version and a client name for logs.
  package static let hello = RequestDefinition(
    .hello, Codec.U16.self, Codec.ClientName.self, answer: ReplyTable.hello, make: Request.hello,
    match: { if case .hello(let v, let c) = $0 { (v, c) } else { nil } })
  /// Installs or updates an app (its record, its entitlements, then its clinical-record Info.plist keys).
  package static let installApp = RequestDefinition(
    .installApp, Codec.App.self, Codec.Entitlements.self, Codec.HealthRecordsInfo.self, answer: ReplyTable.ok,
    make: { app, entitlements, records in
      var app = app
      app.entitlements = entitlements
      app.healthRecords = records
      return .installApp(app)
    },
    match: { if case .installApp(let a) = $0 { (a, a.entitlements, a.healthRecords) } else { nil } })
  /// Uninstalls an app.
  package static let uninstallApp = RequestDefinition(
    .uninstallApp, Codec.Bundle.self, answer: ReplyTable.ok, make: Request.uninstallApp,
    match: { if case .uninstallApp(let b) = $0 { b } else { nil } })
  /// `requestAuthorization(toShare:read:)`.
  package static let requestAuthorization = RequestDefinition(
    .requestAuthorization, Codec.Bundle.self, Codec.Many<Codec.SampleTypeCode>.self,
    Codec.Many<Codec.SampleTypeCode>.self, answer: ReplyTable.authorization, make: Request.requestAuthorization,
    match: { if case .requestAuthorization(let b, let s, let r) = $0 { (b, s, r) } else { nil } },
    call: { b, share, read in AppCall(b, [LogField("share", names(share)), LogField("read", names(read))]) })
  /// `requestAuthorization(toShare:read:)` from an app extension of the app.
  package static let requestAuthorizationFromExtension = RequestDefinition(
    .requestAuthorizationFromExtension, Codec.Bundle.self, Codec.Many<Codec.SampleTypeCode>.self,
    Codec.Many<Codec.SampleTypeCode>.self, answer: ReplyTable.authorization,
    make: Request.requestAuthorizationFromExtension,
    match: { if case .requestAuthorizationFromExtension(let b, let s, let r) = $0 { (b, s, r) } else { nil } },
    call: { b, share, read in
      AppCall(b, [LogField("share", names(share)), LogField("read", names(read)), LogField("from", "extension")])
    })
  /// `handleAuthorizationForExtension(completion:)`.
  package static let handleAuthorizationForExtension = RequestDefinition(
    .handleAuthorizationForExtension, Codec.Bundle.self, answer: ReplyTable.authorization,
    make: Request.handleAuthorizationForExtension,
    match: { if case .handleAuthorizationForExtension(let b) = $0 { b } else { nil } },
    call: { b in AppCall(b, []) })
  /// The user answers a sheet (a given one, an app's, or the frontmost).
  package static let answerPrompt = RequestDefinition(
    .answerPrompt, Codec.Optional<Codec.U64>.self, Codec.Optional<Codec.Bundle>.self, Codec.Answer.self,
    answer: ReplyTable.ok, make: Request.answerPrompt,
    match: { if case .answerPrompt(let p, let b, let a) = $0 { (p, b, a) } else { nil } })
  /// `authorizationStatus(for:)`.
  package static let authorizationStatus = RequestDefinition(
    .authorizationStatus, Codec.Bundle.self, Codec.SampleTypeCode.self, answer: ReplyTable.status,
    make: Request.authorizationStatus,
    match: { if case .authorizationStatus(let b, let t) = $0 { (b, t) } else { nil } },
    call: { b, t in AppCall(b, [LogField("type", t.name)]) })
  /// `getRequestStatusForAuthorization(toShare:read:)`.
  package static let requestStatus = RequestDefinition(
    .requestStatus, Codec.Bundle.self, Codec.Many<Codec.SampleTypeCode>.self, Codec.Many<Codec.SampleTypeCode>.self,
    answer: ReplyTable.requestStatus, make: Request.requestStatus,
    match: { if case .requestStatus(let b, let s, let r) = $0 { (b, s, r) } else { nil } },
    call: { b, _, _ in AppCall(b) })
  /// Saves samples, all or nothing.
  package static let save = RequestDefinition(
    .save, Codec.Bundle.self, Codec.Many<Codec.NewSample>.self, answer: ReplyTable.ok, make: Request.save,
    match: { if case .save(let b, let s) = $0 { (b, s) } else { nil } },
    call: { b, s in AppCall(b, [LogField("samples", "\(s.count)")]) })
  /// Deletes the app's objects, all or nothing.
  package static let delete = RequestDefinition(
    .delete, Codec.Bundle.self, Codec.Many<Codec.Identifier>.self, answer: ReplyTable.ok, make: Request.delete,
    match: { if case .delete(let b, let u) = $0 { (b, u) } else { nil } },
    call: { b, u in AppCall(b, [LogField("uuids", "\(u.count)")]) })
  /// Deletes the app's objects of a type in a date range; answers how many.
  package static let deleteMatching = RequestDefinition(
    .deleteMatching, Codec.Bundle.self, Codec.SampleTypeCode.self, Codec.Optional<Codec.Range>.self,
    answer: ReplyTable.count, make: Request.deleteMatching,
    match: { if case .deleteMatching(let b, let t, let r) = $0 { (b, t, r) } else { nil } })
  /// Stages a batch of an import.
  package static let importBatch = RequestDefinition(
    .importBatch, Codec.ImportID.self, Codec.ImportedSamples.self, answer: ReplyTable.ok, make: Request.importBatch,
    match: { if case .importBatch(let i, let s) = $0 { (i, s) } else { nil } })
  /// Commits an import with its characteristics.
  package static let importCommit = RequestDefinition(
    .importCommit, Codec.ImportID.self, Codec.Characteristics.self, answer: ReplyTable.imported,
    make: Request.importCommit,
    match: { if case .importCommit(let i, let c) = $0 { (i, c) } else { nil } })
  /// Gives an import up.
  package static let importAbort = RequestDefinition(
    .importAbort, Codec.ImportID.self, answer: ReplyTable.ok, make: Request.importAbort,
    match: { if case .importAbort(let i) = $0 { i } else { nil } })
  /// `HKSampleQuery`.
  package static let sampleQuery = RequestDefinition(
    .sampleQuery, Codec.Bundle.self, Codec.Query.self, answer: ReplyTable.samples, make: Request.sampleQuery,
    match: { if case .sampleQuery(let b, let q) = $0 { (b, q) } else { nil } },
    call: { b, q in AppCall(b, [LogField("type", q.type.name)]) })
  /// `HKStatisticsQuery`.
  package static let statistics = RequestDefinition(
    .statistics, Codec.Bundle.self, Codec.StatisticsRequest.self, answer: ReplyTable.statistics,
    make: Request.statistics,
    match: { if case .statistics(let b, let q) = $0 { (b, q) } else { nil } },
    call: { b, q in AppCall(b, [LogField("type", q.type.name)]) })
  /// `HKStatisticsCollectionQuery`.
  package static let statisticsCollection = RequestDefinition(
    .statisticsCollection, Codec.Bundle.self, Codec.StatisticsRequest.self, answer: ReplyTable.collection,
    make: Request.statisticsCollection,
    match: { if case .statisticsCollection(let b, let q) = $0 { (b, q) } else { nil } },
    call: { b, q in AppCall(b, [LogField("type", q.type.name)]) })
  /// `HKAnchoredObjectQuery`, the rest of its predicate applied before the limit.
  package static let anchoredQuery = RequestDefinition(
    .anchoredQuery, Codec.Bundle.self, Codec.SampleTypeCode.self, Codec.U64.self, Codec.Optional<Codec.Range>.self,
    Codec.Count.self, Codec.Optional<Codec.Filter>.self, answer: ReplyTable.anchored, make: Request.anchoredQuery,
    match: {
      if case .anchoredQuery(let b, let t, let a, let r, let l, let f) = $0 { (b, t, a, r, l, f) } else { nil }
    },
    call: { b, t, a, _, _, _ in AppCall(b, [LogField("type", t.name), LogField("anchor", "\(a)")]) })
  /// Settings → Privacy → Health.
  package static let changeSettings = RequestDefinition(
    .changeSettings, Codec.Bundle.self, Codec.Settings.self, answer: ReplyTable.ok, make: Request.changeSettings,
    match: { if case .changeSettings(let b, let c) = $0 { (b, c) } else { nil } })
  /// The iPhone's Watch app.
  package static let watchSettings = RequestDefinition(
    .watchSettings, Codec.Bundle.self, Codec.Settings.self, answer: ReplyTable.ok, make: Request.watchSettings,
    match: { if case .watchSettings(let b, let c) = $0 { (b, c) } else { nil } })
  /// Sets (or clears) the virtual clock.
  package static let setClock = RequestDefinition(
    .setClock, Codec.Optional<Codec.Instant>.self, answer: ReplyTable.date, make: Request.setClock,
    match: { if case .setClock(let d) = $0 { d } else { nil } })
  /// Advances the virtual clock.
  package static let advanceClock = RequestDefinition(
    .advanceClock, Codec.F64.self, answer: ReplyTable.date, make: Request.advanceClock,
    match: { if case .advanceClock(let s) = $0 { s } else { nil } })
  /// Replaces the device policy.
  package static let setPolicy = RequestDefinition(
    .setPolicy, Codec.Policy.self, answer: ReplyTable.ok, make: Request.setPolicy,
    match: { if case .setPolicy(let p) = $0 { p } else { nil } })
  /// The daemon's full state.
  package static let dump = RequestDefinition(
    .dump, answer: ReplyTable.snapshot, make: { Request.dump }, match: { if case .dump = $0 { () } else { nil } })
  /// A page of the raw store.
  package static let storedSamples = RequestDefinition(
    .storedSamples, Codec.Optional<Codec.SampleTypeCode>.self, Codec.Cursor.self, Codec.Count.self,
    answer: ReplyTable.stored, make: Request.storedSamples,
    match: { if case .storedSamples(let t, let f, let l) = $0 { (t, f, l) } else { nil } })
  /// Chooses the events the connection receives.
  package static let subscribe = RequestDefinition(
    .subscribe, Codec.Events.self, answer: ReplyTable.ok, make: Request.subscribe,
    match: { if case .subscribe(let m) = $0 { m } else { nil } })
  /// `earliestPermittedSampleDate()`.
  package static let earliestPermittedSampleDate = RequestDefinition(
    .earliestPermittedSampleDate, answer: ReplyTable.date, make: { Request.earliestPermittedSampleDate },
    match: { if case .earliestPermittedSampleDate = $0 { () } else { nil } })
  /// Controls the peer link.
  package static let link = RequestDefinition(
    .link, Codec.Link.self, answer: ReplyTable.link, make: Request.link,
    match: { if case .link(let c) = $0 { c } else { nil } })
  /// A round trip that changes nothing.
  package static let ping = RequestDefinition(
    .ping, answer: ReplyTable.ok, make: { Request.ping }, match: { if case .ping = $0 { () } else { nil } })
  /// Locks or unlocks the device (the watch: off or on the wrist).
  package static let setLocked = RequestDefinition(
    .setLocked, Codec.Flag.self, answer: ReplyTable.ok, make: Request.setLocked,
    match: { if case .setLocked(let l) = $0 { l } else { nil } },
    name: { locked in locked ? "lock" : "unlock" })
  /// An app reads a characteristic.
  package static let readCharacteristic = RequestDefinition(
    .readCharacteristic, Codec.Bundle.self, Codec.SampleTypeCode.self,
    answer: ReplyTable.characteristic.projected { $0.value },
    make: Request.readCharacteristic,
    match: { if case .readCharacteristic(let b, let t) = $0 { (b, t) } else { nil } },
    call: { b, t in AppCall(b, [LogField("type", t.name)]) })
  /// `preferredUnits(for:)`.
  package static let preferredUnits = RequestDefinition(
    .preferredUnits, Codec.Bundle.self, Codec.Many<Codec.SampleTypeCode>.self, answer: ReplyTable.units,
    make: Request.preferredUnits,
    match: { if case .preferredUnits(let b, let t) = $0 { (b, t) } else { nil } },
    call: { b, t in AppCall(b, [LogField("types", names(t))]) })
  /// The user changes a value in the Health app.
  package static let changeUserSetting = RequestDefinition(
    .changeUserSetting, Codec.Setting.self, answer: ReplyTable.ok, make: Request.changeUserSetting,
    match: { if case .changeUserSetting(let s) = $0 { s } else { nil } })
  /// `enableBackgroundDelivery(for:frequency:)`.
  package static let enableBackgroundDelivery = RequestDefinition(
    .enableBackgroundDelivery, Codec.Bundle.self, Codec.SampleTypeCode.self, Codec.Frequency.self,
    answer: ReplyTable.ok,
    make: Request.enableBackgroundDelivery,
    match: { if case .enableBackgroundDelivery(let b, let t, let f) = $0 { (b, t, f) } else { nil } },
    call: { b, t, f in AppCall(b, [LogField("type", t.name), LogField("frequency", "\(f)")]) })
  /// `disableBackgroundDelivery(for:)`; every type when the type is absent.
  package static let disableBackgroundDelivery = RequestDefinition(
    .disableBackgroundDelivery, Codec.Bundle.self, Codec.Optional<Codec.SampleTypeCode>.self, answer: ReplyTable.ok,
    make: Request.disableBackgroundDelivery,
    match: { if case .disableBackgroundDelivery(let b, let t) = $0 { (b, t) } else { nil } },
    call: { b, t in AppCall(b, [LogField("type", t?.name ?? "all")]) })
  /// An observer query's completion handler.
  package static let completeBackgroundDelivery = RequestDefinition(
    .completeBackgroundDelivery, Codec.Bundle.self, Codec.U64.self, answer: ReplyTable.ok,
    make: Request.completeBackgroundDelivery,
    match: { if case .completeBackgroundDelivery(let b, let d) = $0 { (b, d) } else { nil } },
    call: { b, d in AppCall(b, [LogField("delivery", "\(d)")]) })
  /// The background delivery registrations and recent events.
  package static let backgroundDeliveries = RequestDefinition(
    .backgroundDeliveries, Codec.Optional<Codec.Bundle>.self, answer: ReplyTable.backgroundDeliveries,
    make: Request.backgroundDeliveries,
    match: { if case .backgroundDeliveries(let b) = $0 { b } else { nil } })
  /// The user orders a type's data sources.
  package static let setSourceOrder = RequestDefinition(
    .setSourceOrder, Codec.SampleTypeCode.self, Codec.Many<Codec.Source>.self, answer: ReplyTable.ok,
    make: Request.setSourceOrder,
    match: { if case .setSourceOrder(let t, let s) = $0 { (t, s) } else { nil } })
  /// Saves correlations with their members, and plain samples, all or nothing.
  package static let saveCorrelations = RequestDefinition(
    .saveCorrelations, Codec.Bundle.self, Codec.Many<Codec.NewCorrelation>.self, Codec.Many<Codec.NewSample>.self,
    answer: ReplyTable.ok, make: Request.saveCorrelations,
    match: { if case .saveCorrelations(let b, let c, let s) = $0 { (b, c, s) } else { nil } },
    call: { b, c, s in AppCall(b, [LogField("correlations", "\(c.count)"), LogField("samples", "\(s.count)")]) })
  /// `HKCorrelationQuery`.
  package static let correlationQuery = RequestDefinition(
    .correlationQuery, Codec.Bundle.self, Codec.CorrelationRequest.self, answer: ReplyTable.correlations,
    make: Request.correlationQuery,
    match: { if case .correlationQuery(let b, let q) = $0 { (b, q) } else { nil } },
    call: { b, q in AppCall(b, [LogField("type", q.base.type.name)]) })
  /// Stages correlations of an import.
  package static let importCorrelations = RequestDefinition(
    .importCorrelations, Codec.ImportID.self, Codec.Many<Codec.StoredCorrelation>.self, answer: ReplyTable.ok,
    make: Request.importCorrelations,
    match: { if case .importCorrelations(let i, let c) = $0 { (i, c) } else { nil } })
  /// Every live correlation on the device.
  package static let storedCorrelations = RequestDefinition(
    .storedCorrelations, Codec.Optional<Codec.SampleTypeCode>.self, answer: ReplyTable.correlations,
    make: Request.storedCorrelations,
    match: { if case .storedCorrelations(let t) = $0 { t } else { nil } })
}

/// The names of `types`, comma-separated, for a log field.
private func names(_ types: [SampleType]) -> String { types.map(\.name).joined(separator: ",") }

extension RequestOpcode {
  /// Calls `visitor` with the definition of the request with this opcode, at its concrete type (exhaustive: a new
  /// opcode does not compile without one).
  package func visitDefinition<V: RequestDefinitionVisitor>(_ visitor: inout V) -> V.Outcome {
    switch self {
    case .hello: visitor.visit(RequestTable.hello)
    case .installApp: visitor.visit(RequestTable.installApp)
    case .uninstallApp: visitor.visit(RequestTable.uninstallApp)
    case .requestAuthorization: visitor.visit(RequestTable.requestAuthorization)
    case .requestAuthorizationFromExtension: visitor.visit(RequestTable.requestAuthorizationFromExtension)
    case .handleAuthorizationForExtension: visitor.visit(RequestTable.handleAuthorizationForExtension)
    case .saveFamilies: visitor.visit(RequestTable.saveFamilies)
    case .answerPrompt: visitor.visit(RequestTable.answerPrompt)
    case .authorizationStatus: visitor.visit(RequestTable.authorizationStatus)
    case .requestStatus: visitor.visit(RequestTable.requestStatus)
    case .save: visitor.visit(RequestTable.save)
    case .delete: visitor.visit(RequestTable.delete)
    case .deleteMatching: visitor.visit(RequestTable.deleteMatching)
    case .importBatch: visitor.visit(RequestTable.importBatch)
    case .importCommit: visitor.visit(RequestTable.importCommit)
    case .importAbort: visitor.visit(RequestTable.importAbort)
    case .sampleQuery: visitor.visit(RequestTable.sampleQuery)
    case .statistics: visitor.visit(RequestTable.statistics)
    case .statisticsCollection: visitor.visit(RequestTable.statisticsCollection)
    case .anchoredQuery: visitor.visit(RequestTable.anchoredQuery)
    case .changeSettings: visitor.visit(RequestTable.changeSettings)
    case .watchSettings: visitor.visit(RequestTable.watchSettings)
    case .setClock: visitor.visit(RequestTable.setClock)
    case .advanceClock: visitor.visit(RequestTable.advanceClock)
    case .setPolicy: visitor.visit(RequestTable.setPolicy)
    case .dump: visitor.visit(RequestTable.dump)
    case .storedSamples: visitor.visit(RequestTable.storedSamples)
    case .subscribe: visitor.visit(RequestTable.subscribe)
    case .earliestPermittedSampleDate: visitor.visit(RequestTable.earliestPermittedSampleDate)
    case .link: visitor.visit(RequestTable.link)
    case .ping: visitor.visit(RequestTable.ping)
    case .setLocked: visitor.visit(RequestTable.setLocked)
    case .readCharacteristic: visitor.visit(RequestTable.readCharacteristic)
    case .preferredUnits: visitor.visit(RequestTable.preferredUnits)
    case .changeUserSetting: visitor.visit(RequestTable.changeUserSetting)
    case .enableBackgroundDelivery: visitor.visit(RequestTable.enableBackgroundDelivery)
    case .disableBackgroundDelivery: visitor.visit(RequestTable.disableBackgroundDelivery)
    case .completeBackgroundDelivery: visitor.visit(RequestTable.completeBackgroundDelivery)
    case .backgroundDeliveries: visitor.visit(RequestTable.backgroundDeliveries)
    case .setSourceOrder: visitor.visit(RequestTable.setSourceOrder)
    case .saveCorrelations: visitor.visit(RequestTable.saveCorrelations)
    case .correlationQuery: visitor.visit(RequestTable.correlationQuery)
    case .importCorrelations: visitor.visit(RequestTable.importCorrelations)
    case .storedCorrelations: visitor.visit(RequestTable.storedCorrelations)
    case .saveWorkout: visitor.visit(RequestTable.saveWorkout)
    case .saveObjects: visitor.visit(RequestTable.saveObjects)
    case .addSamplesToWorkout: visitor.visit(RequestTable.addSamplesToWorkout)
    case .saveRoute: visitor.visit(RequestTable.saveRoute)
    case .saveHeartbeatSeries: visitor.visit(RequestTable.saveHeartbeatSeries)
    case .workoutQuery: visitor.visit(RequestTable.workoutQuery)
    case .routeQuery: visitor.visit(RequestTable.routeQuery)
    case .heartbeatSeriesQuery: visitor.visit(RequestTable.heartbeatSeriesQuery)
    case .activitySummaryQuery: visitor.visit(RequestTable.activitySummaryQuery)
    case .anchoredWorkoutQuery: visitor.visit(RequestTable.anchoredWorkoutQuery)
    case .importWorkouts: visitor.visit(RequestTable.importWorkouts)
    case .importRoutes: visitor.visit(RequestTable.importRoutes)
    case .importActivitySummaries: visitor.visit(RequestTable.importActivitySummaries)
    case .storedWorkouts: visitor.visit(RequestTable.storedWorkouts)
    case .storedRoutes: visitor.visit(RequestTable.storedRoutes)
    case .storedActivitySummaries: visitor.visit(RequestTable.storedActivitySummaries)
    case .workoutSession: visitor.visit(RequestTable.workoutSession)
    case .recordElectrocardiogram: visitor.visit(RequestTable.recordElectrocardiogram)
    case .electrocardiogramQuery: visitor.visit(RequestTable.electrocardiogramQuery)
    case .electrocardiogramVoltages: visitor.visit(RequestTable.electrocardiogramVoltages)
    case .importElectrocardiograms: visitor.visit(RequestTable.importElectrocardiograms)
    case .storedElectrocardiograms: visitor.visit(RequestTable.storedElectrocardiograms)
    case .saveAudiograms: visitor.visit(RequestTable.saveAudiograms)
    case .audiogramQuery: visitor.visit(RequestTable.audiogramQuery)
    case .importAudiograms: visitor.visit(RequestTable.importAudiograms)
    case .storedAudiograms: visitor.visit(RequestTable.storedAudiograms)
    case .saveStatesOfMind: visitor.visit(RequestTable.saveStatesOfMind)
    case .stateOfMindQuery: visitor.visit(RequestTable.stateOfMindQuery)
    case .receiveClinicalRecords: visitor.visit(RequestTable.receiveClinicalRecords)
    case .clinicalRecordQuery: visitor.visit(RequestTable.clinicalRecordQuery)
    case .saveVisionPrescriptions: visitor.visit(RequestTable.saveVisionPrescriptions)
    case .visionPrescriptionQuery: visitor.visit(RequestTable.visionPrescriptionQuery)
    case .requestPerObjectRead: visitor.visit(RequestTable.requestPerObjectRead)
    case .importVisionPrescriptions: visitor.visit(RequestTable.importVisionPrescriptions)
    case .storedVisionPrescriptions: visitor.visit(RequestTable.storedVisionPrescriptions)
    case .importClinicalRecords: visitor.visit(RequestTable.importClinicalRecords)
    case .storedClinicalRecords: visitor.visit(RequestTable.storedClinicalRecords)
    case .saveScoredAssessments: visitor.visit(RequestTable.saveScoredAssessments)
    case .scoredAssessmentQuery: visitor.visit(RequestTable.scoredAssessmentQuery)
    case .saveCDADocuments: visitor.visit(RequestTable.saveCDADocuments)
    case .cdaDocumentQuery: visitor.visit(RequestTable.cdaDocumentQuery)
    case .addMedications: visitor.visit(RequestTable.addMedications)
    case .logMedicationDoses: visitor.visit(RequestTable.logMedicationDoses)
    case .medicationQuery: visitor.visit(RequestTable.medicationQuery)
    case .medicationDoseQuery: visitor.visit(RequestTable.medicationDoseQuery)
    }
  }
}

extension Request {
  /// The request's opcode.
  package var opcode: RequestOpcode {
    switch self {
    case .hello: .hello
    case .installApp: .installApp
    case .uninstallApp: .uninstallApp
    case .requestAuthorization: .requestAuthorization
    case .answerPrompt: .answerPrompt
    case .authorizationStatus: .authorizationStatus
    case .requestStatus: .requestStatus
    case .save: .save
    case .delete: .delete
    case .deleteMatching: .deleteMatching
    case .importBatch: .importBatch
    case .importCommit: .importCommit
    case .importAbort: .importAbort
    case .sampleQuery: .sampleQuery
    case .statistics: .statistics
    case .statisticsCollection: .statisticsCollection
    case .anchoredQuery: .anchoredQuery
    case .changeSettings: .changeSettings
    case .watchSettings: .watchSettings
    case .setClock: .setClock
    case .advanceClock: .advanceClock
    case .setPolicy: .setPolicy
    case .dump: .dump
    case .storedSamples: .storedSamples
    case .subscribe: .subscribe
    case .earliestPermittedSampleDate: .earliestPermittedSampleDate
    case .link: .link
    case .ping: .ping
    case .setLocked: .setLocked
    case .readCharacteristic: .readCharacteristic
    case .preferredUnits: .preferredUnits
    case .changeUserSetting: .changeUserSetting
    case .enableBackgroundDelivery: .enableBackgroundDelivery
    case .disableBackgroundDelivery: .disableBackgroundDelivery
    case .completeBackgroundDelivery: .completeBackgroundDelivery
    case .backgroundDeliveries: .backgroundDeliveries
    case .setSourceOrder: .setSourceOrder
    case .saveCorrelations: .saveCorrelations
    case .correlationQuery: .correlationQuery
    case .importCorrelations: .importCorrelations
    case .storedCorrelations: .storedCorrelations
    case .saveWorkout: .saveWorkout
    case .saveObjects: .saveObjects
    case .addSamplesToWorkout: .addSamplesToWorkout
    case .saveRoute: .saveRoute
    case .saveHeartbeatSeries: .saveHeartbeatSeries
    case .workoutQuery: .workoutQuery
    case .routeQuery: .routeQuery
    case .heartbeatSeriesQuery: .heartbeatSeriesQuery
    case .activitySummaryQuery: .activitySummaryQuery
    case .anchoredWorkoutQuery: .anchoredWorkoutQuery
    case .importWorkouts: .importWorkouts
    case .importRoutes: .importRoutes
    case .importActivitySummaries: .importActivitySummaries
    case .storedWorkouts: .storedWorkouts
    case .storedRoutes: .storedRoutes
    case .storedActivitySummaries: .storedActivitySummaries
    case .workoutSession: .workoutSession
    case .recordElectrocardiogram: .recordElectrocardiogram
    case .electrocardiogramQuery: .electrocardiogramQuery
    case .electrocardiogramVoltages: .electrocardiogramVoltages
    case .importElectrocardiograms: .importElectrocardiograms
    case .storedElectrocardiograms: .storedElectrocardiograms
    case .saveAudiograms: .saveAudiograms
    case .audiogramQuery: .audiogramQuery
    case .importAudiograms: .importAudiograms
    case .storedAudiograms: .storedAudiograms
    case .saveStatesOfMind: .saveStatesOfMind
    case .stateOfMindQuery: .stateOfMindQuery
    case .receiveClinicalRecords: .receiveClinicalRecords
    case .clinicalRecordQuery: .clinicalRecordQuery
    case .saveVisionPrescriptions: .saveVisionPrescriptions
    case .visionPrescriptionQuery: .visionPrescriptionQuery
    case .requestPerObjectRead: .requestPerObjectRead
    case .importVisionPrescriptions: .importVisionPrescriptions
    case .storedVisionPrescriptions: .storedVisionPrescriptions
    case .importClinicalRecords: .importClinicalRecords
    case .storedClinicalRecords: .storedClinicalRecords
    case .saveScoredAssessments: .saveScoredAssessments
    case .scoredAssessmentQuery: .scoredAssessmentQuery
    case .saveCDADocuments: .saveCDADocuments
    case .cdaDocumentQuery: .cdaDocumentQuery
    case .addMedications: .addMedications
    case .logMedicationDoses: .logMedicationDoses
    case .medicationQuery: .medicationQuery
    case .medicationDoseQuery: .medicationDoseQuery
    case .requestAuthorizationFromExtension: .requestAuthorizationFromExtension
    case .handleAuthorizationForExtension: .handleAuthorizationForExtension
    case .saveFamilies: .saveFamilies
    }
  }
}
