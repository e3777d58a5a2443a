import FoundationEssentials
import HealthEngine
import HealthModel

// Every journal event kind defined once, in `EventTable`: its tag, its fields in the order they are written and
// the `DeviceEvent` built from them (docs/journal.md, "Events", lists the same layouts). The journal, the
// simulator's journal bytes and the fuzz targets all write and read events through `BinaryWriter.event(_:)` and
// `BinaryReader.event()` below; the sync payloads that carry the same changes reuse these rows' fields
// (SyncPayloadTable.swift). `EventFixtureTests` pins every tag's bytes.

/// The tag byte of each kind of journal event (docs/journal.md, "Events"). Tags 30–39 belong to imports, 40–49 to
/// the device lock and the Health app, 50–59 to statistics settings, 70–74 to sync requests, 75–79 to
/// correlations, 80–89 to workouts; 20–29 are free. A tag is never reused for another layout.
package enum DeviceEventTag: UInt8, CaseIterable, Sendable {
  /// An app without entitlements was installed.
  case appInstalled = 1
  /// An app was uninstalled.
  case appUninstalled = 2
  /// A permission sheet was answered.
  case promptAnswered = 3
  /// A permission sheet was cancelled.
  case promptCancelled = 4
  /// A settings change was applied here.
  case settingsChanged = 5
  /// A Watch-app settings change was queued for the watch.
  case watchSettingsQueued = 6
  /// Apps saved samples.
  case samplesSaved = 7
  /// Apps deleted samples.
  case samplesDeleted = 8
  /// Entries from the peer were applied.
  case peerEntriesApplied = 9
  /// The peer acknowledged outbound entries.
  case peerAcknowledged = 10
  /// The virtual clock was set or cleared.
  case clockSet = 11
  /// The policy changed.
  case policyChanged = 12
  /// The outbound sync log restarted.
  case syncLogRestarted = 13
  /// The peer's log was adopted.
  case peerLogAdopted = 14
  /// Companion decisions were made here.
  case authorizationShared = 15
  /// An app with entitlements was installed (tag 1 keeps its layout for apps without).
  case appInstalledWithEntitlements = 16
  /// Background delivery was enabled or disabled.
  case backgroundDeliveryChanged = 17
  /// The change counter moved past numbers a lost record handed out.
  case changeNumbersAdvanced = 18
  /// An app with clinical-record Info.plist keys was installed (tags 1 and 16 keep their layouts for apps without).
  case appInstalledWithHealthRecords = 19
  /// One batch of an import was staged.
  case importStaged = 30
  /// An import was committed.
  case importCommitted = 31
  /// An import was given up.
  case importAbandoned = 32
  /// The device was locked.
  case deviceLocked = 40
  /// The device was unlocked.
  case deviceUnlocked = 41
  /// Samples were saved while locked.
  case samplesSavedWhileLocked = 42
  /// The user changed a Health app value here.
  case userSettingChanged = 43
  /// The user ordered a type's data sources here.
  case sourceOrderChanged = 50
  /// This device asks the peer to re-send everything.
  case peerResendRequested = 70
  /// The peer's new log answers the re-send request.
  case peerResendAnswered = 71
  /// Apps saved correlations.
  case correlationsSaved = 75
  /// Apps deleted correlations.
  case correlationsDeleted = 76
  /// An import's correlations were staged.
  case importCorrelationsStaged = 77
  /// Apps saved workouts.
  case workoutsSaved = 80
  /// An app associated samples with a workout.
  case workoutSamplesAssociated = 81
  /// Apps saved workout routes.
  case routesSaved = 82
  /// Apps saved heartbeat series.
  case heartbeatSeriesSaved = 83
  /// Apps deleted workouts, routes or heartbeat series.
  case workoutObjectsDeleted = 84
  /// An import's workouts, routes and activity summaries were staged.
  case importWorkoutsStaged = 85
  /// Workouts and their routes were saved while the device was locked.
  case workoutsSavedWhileLocked = 86
  /// The watch's ECG app recorded electrocardiograms.
  case electrocardiogramsStored = 90
  /// An import's electrocardiograms were staged.
  case importElectrocardiogramsStaged = 91
  /// Apps saved audiograms.
  case audiogramsSaved = 92
  /// An import's audiograms were staged.
  case importAudiogramsStaged = 93
  /// Apps saved States of Mind.
  case statesOfMindSaved = 94
  /// A provider's clinical records arrived.
  case clinicalRecordsReceived = 95
  /// Apps saved vision prescriptions.
  case visionPrescriptionsSaved = 96
  /// The user answered a per-object read sheet.
  case objectReadChosen = 97
  /// An import's vision prescriptions were staged.
  case importVisionPrescriptionsStaged = 98
  /// An import's clinical records were staged.
  case importClinicalRecordsStaged = 99
  /// Apps saved scored assessments.
  case scoredAssessmentsSaved = 100
  /// Apps saved CDA documents.
  case cdaDocumentsSaved = 101
  /// The user added medications.
  case medicationsAdded = 102
  /// The user logged medication doses.
  case medicationDosesLogged = 103
}

/// One kind of journal event.
typealias EventDefinition<Fields> = RecordDefinition<DeviceEventTag, DeviceEvent, Fields>

/// Every journal event kind, by family: its tag, its fields in order, the event built from them.
enum EventTable {
  // MARK: Apps and authorization (tags 1–6, 15–17)

  /// 1: app.
  static let appInstalled = EventDefinition(.appInstalled, Fields.app, make: DeviceEvent.appInstalled)
  /// 16: app, entitlements.
  static let appInstalledWithEntitlements = EventDefinition(
    .appInstalledWithEntitlements, Fields.app, Fields.entitlements,
    make: { app, entitlements in
      var app = app
      app.entitlements = entitlements
      return .appInstalled(app)
    })
  /// 19: app, entitlements, health-records info.
  static let appInstalledWithHealthRecords = EventDefinition(
    .appInstalledWithHealthRecords, Fields.app, Fields.entitlements, Fields.healthRecordsInfo,
    make: { app, entitlements, info in
      var app = app
      app.entitlements = entitlements
      app.healthRecords = info
      return .appInstalled(app)
    })
  /// 2: bundleID.
  static let appUninstalled = EventDefinition(.appUninstalled, Fields.bundleID, make: DeviceEvent.appUninstalled)
  /// 3: bundleID, [change].
  static let promptAnswered = EventDefinition(
    .promptAnswered, Fields.bundleID, Fields.changes, make: DeviceEvent.promptAnswered)
  /// 4: bundleID.
  static let promptCancelled = EventDefinition(.promptCancelled, Fields.bundleID, make: DeviceEvent.promptCancelled)
  /// 5: bundleID, settings-change, viaWatchApp bool.
  static let settingsChanged = EventDefinition(
    .settingsChanged, Fields.bundleID, Fields.settingsChange, Fields.bool, make: DeviceEvent.settingsChanged)
  /// 6: bundleID, settings-change.
  static let watchSettingsQueued = EventDefinition(
    .watchSettingsQueued, Fields.bundleID, Fields.settingsChange, make: DeviceEvent.watchSettingsQueued)
  /// 15: bundleID, [shared-decision], at date.
  static let authorizationShared = EventDefinition(
    .authorizationShared, Fields.bundleID, Fields.sharedDecisions, Fields.finiteDate("decision time"),
    make: DeviceEvent.authorizationShared)
  /// 17: bundleID, type?, frequency? (a frequency needs a type).
  static let backgroundDeliveryChanged = EventDefinition(
    .backgroundDeliveryChanged, Fields.bundleID, Fields.backgroundTarget,
    make: { .backgroundDeliveryChanged(bundleID: $0, type: $1.type, frequency: $1.frequency) })

  // MARK: Samples and the change counter (tags 7, 8, 18)

  /// 7: [sample].
  static let samplesSaved = EventDefinition(.samplesSaved, Fields.samples, make: DeviceEvent.samplesSaved)
  /// 8: [tombstone].
  static let samplesDeleted = EventDefinition(.samplesDeleted, Fields.tombstones, make: DeviceEvent.samplesDeleted)
  /// 18: to u64.
  static let changeNumbersAdvanced = EventDefinition(
    .changeNumbersAdvanced, Fields.u64, make: DeviceEvent.changeNumbersAdvanced)

  // MARK: Sync (tags 9, 10, 13, 14, 70, 71)

  /// 9: at date, [sync-entry] (the date first).
  static let peerEntriesApplied = EventDefinition(
    .peerEntriesApplied, Fields.finiteDate("application date"), Fields.syncEntries,
    make: { at, entries in .peerEntriesApplied(entries, at: at) })
  /// 10: seq u64.
  static let peerAcknowledged = EventDefinition(.peerAcknowledged, Fields.u64, make: DeviceEvent.peerAcknowledged)
  /// 13: logID u64 (never 0).
  static let syncLogRestarted = EventDefinition(
    .syncLogRestarted, Fields.logIdentity, make: DeviceEvent.syncLogRestarted)
  /// 14: logID u64 (never 0).
  static let peerLogAdopted = EventDefinition(.peerLogAdopted, Fields.logIdentity, make: DeviceEvent.peerLogAdopted)
  /// 70: no fields.
  static let peerResendRequested = EventDefinition(.peerResendRequested, make: { DeviceEvent.peerResendRequested })
  /// 71: logID u64 (never 0).
  static let peerResendAnswered = EventDefinition(
    .peerResendAnswered, Fields.logIdentity, make: DeviceEvent.peerResendAnswered)

  // MARK: Clock and policy (tags 11, 12)

  /// 11: date? (absent: the real clock).
  static let clockSet = EventDefinition(.clockSet, Fields.optionalFiniteDate("clock"), make: DeviceEvent.clockSet)
  /// 12: policy.
  static let policyChanged = EventDefinition(.policyChanged, Fields.policy, make: DeviceEvent.policyChanged)

  // MARK: Imports (tags 30–32, 77)

  /// 30: importID u64 (never 0), import-samples.
  static let importStaged = EventDefinition(
    .importStaged, Fields.importIdentity, Fields.importSamples, make: DeviceEvent.importStaged)
  /// 31: importID u64, at date, characteristics.
  static let importCommitted = EventDefinition(
    .importCommitted, Fields.importIdentity, Fields.finiteDate("import commit date"), Fields.characteristics,
    make: DeviceEvent.importCommitted)
  /// 32: importID u64.
  static let importAbandoned = EventDefinition(
    .importAbandoned, Fields.importIdentity, make: DeviceEvent.importAbandoned)
  /// 77: importID u64, [correlation].
  static let importCorrelationsStaged = EventDefinition(
    .importCorrelationsStaged, Fields.importIdentity, Fields.correlations, make: DeviceEvent.importCorrelationsStaged)

  // MARK: The device lock and the Health app (tags 40–43)

  /// 40: at date.
  static let deviceLocked = EventDefinition(
    .deviceLocked, Fields.finiteDate("lock time"), make: DeviceEvent.deviceLocked)
  /// 41: at date.
  static let deviceUnlocked = EventDefinition(
    .deviceUnlocked, Fields.finiteDate("unlock time"), make: DeviceEvent.deviceUnlocked)
  /// 42: [sample].
  static let samplesSavedWhileLocked = EventDefinition(
    .samplesSavedWhileLocked, Fields.samples, make: DeviceEvent.samplesSavedWhileLocked)
  /// 43: user-setting, at date.
  static let userSettingChanged = EventDefinition(
    .userSettingChanged, Fields.userSetting, Fields.finiteDate("setting time"), make: DeviceEvent.userSettingChanged)

  // MARK: Statistics settings (tag 50)

  /// 50: type, source-order.
  static let sourceOrderChanged = EventDefinition(
    .sourceOrderChanged, Fields.sampleType, Fields.sourceOrder, make: DeviceEvent.sourceOrderChanged)

  // MARK: Correlations (tags 75, 76)

  /// 75: [correlation].
  static let correlationsSaved = EventDefinition(
    .correlationsSaved, Fields.correlations, make: DeviceEvent.correlationsSaved)
  /// 76: [tombstone].
  static let correlationsDeleted = EventDefinition(
    .correlationsDeleted, Fields.tombstones, make: DeviceEvent.correlationsDeleted)

  // MARK: Workouts (tags 80–86)

  /// 80: [workout].
  static let workoutsSaved = EventDefinition(.workoutsSaved, Fields.workouts, make: DeviceEvent.workoutsSaved)
  /// 81: workout uuid, [uuid] samples.
  static let workoutSamplesAssociated = EventDefinition(
    .workoutSamplesAssociated, Fields.uuid, Fields.uuids, make: DeviceEvent.workoutSamplesAssociated)
  /// 82: [route].
  static let routesSaved = EventDefinition(.routesSaved, Fields.routes, make: DeviceEvent.routesSaved)
  /// 83: [heartbeat-series].
  static let heartbeatSeriesSaved = EventDefinition(
    .heartbeatSeriesSaved, Fields.heartbeatSeries, make: DeviceEvent.heartbeatSeriesSaved)
  /// 84: [tombstone].
  static let workoutObjectsDeleted = EventDefinition(
    .workoutObjectsDeleted, Fields.tombstones, make: DeviceEvent.workoutObjectsDeleted)
  /// 85: importID u64, [workout], [route], [activity-summary].
  static let importWorkoutsStaged = EventDefinition(
    .importWorkoutsStaged, Fields.importIdentity, Fields.workouts, Fields.importedRoutesAndSummaries,
    make: { id, workouts, rest in
      DeviceEvent.importWorkoutsStaged(id: id, workouts: workouts, routes: rest.0, summaries: rest.1)
    })
  /// 86: [workout], [route].
  static let workoutsSavedWhileLocked = EventDefinition(
    .workoutsSavedWhileLocked, Fields.workouts, Fields.routes,
    make: { DeviceEvent.workoutsSavedWhileLocked(workouts: $0, routes: $1) })

  // MARK: Special objects (tags 90–95)

  /// 90: [ecg].
  static let electrocardiogramsStored = EventDefinition(
    .electrocardiogramsStored, Fields.electrocardiograms, make: DeviceEvent.electrocardiogramsStored)
  /// 91: importID u64, [ecg].
  static let importElectrocardiogramsStaged = EventDefinition(
    .importElectrocardiogramsStaged, Fields.importIdentity, Fields.electrocardiograms,
    make: { DeviceEvent.importElectrocardiogramsStaged(id: $0, $1) })
  /// 92: [audiogram].
  static let audiogramsSaved = EventDefinition(.audiogramsSaved, Fields.audiograms, make: DeviceEvent.audiogramsSaved)
  /// 93: importID u64, [audiogram].
  static let importAudiogramsStaged = EventDefinition(
    .importAudiogramsStaged, Fields.importIdentity, Fields.audiograms,
    make: { DeviceEvent.importAudiogramsStaged(id: $0, $1) })
  /// 94: [state-of-mind].
  static let statesOfMindSaved = EventDefinition(
    .statesOfMindSaved, Fields.statesOfMind, make: DeviceEvent.statesOfMindSaved)
  /// 95: [clinical-record].
  static let clinicalRecordsReceived = EventDefinition(
    .clinicalRecordsReceived, Fields.clinicalRecords, make: DeviceEvent.clinicalRecordsReceived)
  /// 96: [prescription].
  static let visionPrescriptionsSaved = EventDefinition(
    .visionPrescriptionsSaved, Fields.visionPrescriptions, make: DeviceEvent.visionPrescriptionsSaved)
  /// 99: importID u64, [clinical-record].
  static let importClinicalRecordsStaged = EventDefinition(
    .importClinicalRecordsStaged, Fields.importIdentity, Fields.clinicalRecords,
    make: { DeviceEvent.importClinicalRecordsStaged(id: $0, $1) })
  /// 98: importID u64, [prescription].
  static let importVisionPrescriptionsStaged = EventDefinition(
    .importVisionPrescriptionsStaged, Fields.importIdentity, Fields.visionPrescriptions,
    make: { DeviceEvent.importVisionPrescriptionsStaged(id: $0, $1) })
  /// 97: bundleID string, choices.
  static let objectReadChosen = EventDefinition(
    .objectReadChosen, Fields.bundleID, Fields.objectChoices,
    make: { DeviceEvent.objectReadChosen(bundleID: $0, choices: $1) })
  /// 100: [assessment].
  static let scoredAssessmentsSaved = EventDefinition(
    .scoredAssessmentsSaved, Fields.scoredAssessments, make: DeviceEvent.scoredAssessmentsSaved)
  /// 101: [cda-document].
  static let cdaDocumentsSaved = EventDefinition(
    .cdaDocumentsSaved, Fields.cdaDocuments, make: DeviceEvent.cdaDocumentsSaved)
  /// 102: [medication].
  static let medicationsAdded = EventDefinition(
    .medicationsAdded, Fields.medications, make: DeviceEvent.medicationsAdded)
  /// 103: [dose].
  static let medicationDosesLogged = EventDefinition(
    .medicationDosesLogged, Fields.medicationDoses, make: DeviceEvent.medicationDosesLogged)
}

extension BinaryWriter {
  /// Encodes a journal event: `u8` tag then its fields, as its ``EventTable`` row lays them out.
  package mutating func event(_ e: DeviceEvent) {
    switch e {
    case .appInstalled(let a) where !a.healthRecords.isEmpty:
      EventTable.appInstalledWithHealthRecords.write((a, a.entitlements, a.healthRecords), into: &self)
    case .appInstalled(let a) where a.entitlements.isEmpty: EventTable.appInstalled.write(a, into: &self)
    case .appInstalled(let a): EventTable.appInstalledWithEntitlements.write((a, a.entitlements), into: &self)
    case .appUninstalled(let id): EventTable.appUninstalled.write(id, into: &self)
    case .promptAnswered(let id, let changes): EventTable.promptAnswered.write((id, changes), into: &self)
    case .promptCancelled(let id): EventTable.promptCancelled.write(id, into: &self)
    case .settingsChanged(let id, let c, let viaWatch):
      EventTable.settingsChanged.write((id, c, viaWatch), into: &self)
    case .watchSettingsQueued(let id, let c): EventTable.watchSettingsQueued.write((id, c), into: &self)
    case .authorizationShared(let id, let decisions, let at):
      EventTable.authorizationShared.write((id, decisions, at), into: &self)
    case .backgroundDeliveryChanged(let id, let type, let frequency):
      EventTable.backgroundDeliveryChanged.write((id, (type, frequency)), into: &self)
    case .samplesSaved(let s): EventTable.samplesSaved.write(s, into: &self)
    case .samplesDeleted(let t): EventTable.samplesDeleted.write(t, into: &self)
    case .changeNumbersAdvanced(let mark): EventTable.changeNumbersAdvanced.write(mark, into: &self)
    case .peerEntriesApplied(let entries, let at): EventTable.peerEntriesApplied.write((at, entries), into: &self)
    case .peerAcknowledged(let seq): EventTable.peerAcknowledged.write(seq, into: &self)
    case .syncLogRestarted(let id): EventTable.syncLogRestarted.write(id, into: &self)
    case .peerLogAdopted(let id): EventTable.peerLogAdopted.write(id, into: &self)
    case .peerResendRequested: EventTable.peerResendRequested.write((), into: &self)
    case .peerResendAnswered(let id): EventTable.peerResendAnswered.write(id, into: &self)
    case .clockSet(let d): EventTable.clockSet.write(d, into: &self)
    case .policyChanged(let p): EventTable.policyChanged.write(p, into: &self)
    case .importStaged(let id, let samples): EventTable.importStaged.write((id, samples), into: &self)
    case .importCommitted(let id, let at, let characteristics):
      EventTable.importCommitted.write((id, at, characteristics), into: &self)
    case .importAbandoned(let id): EventTable.importAbandoned.write(id, into: &self)
    case .importCorrelationsStaged(let id, let c): EventTable.importCorrelationsStaged.write((id, c), into: &self)
    case .deviceLocked(let at): EventTable.deviceLocked.write(at, into: &self)
    case .deviceUnlocked(let at): EventTable.deviceUnlocked.write(at, into: &self)
    case .samplesSavedWhileLocked(let s): EventTable.samplesSavedWhileLocked.write(s, into: &self)
    case .userSettingChanged(let setting, let at): EventTable.userSettingChanged.write((setting, at), into: &self)
    case .sourceOrderChanged(let type, let order): EventTable.sourceOrderChanged.write((type, order), into: &self)
    case .correlationsSaved(let c): EventTable.correlationsSaved.write(c, into: &self)
    case .correlationsDeleted(let t): EventTable.correlationsDeleted.write(t, into: &self)
    case .workoutsSaved(let w): EventTable.workoutsSaved.write(w, into: &self)
    case .workoutSamplesAssociated(let w, let s): EventTable.workoutSamplesAssociated.write((w, s), into: &self)
    case .routesSaved(let r): EventTable.routesSaved.write(r, into: &self)
    case .heartbeatSeriesSaved(let s): EventTable.heartbeatSeriesSaved.write(s, into: &self)
    case .workoutObjectsDeleted(let t): EventTable.workoutObjectsDeleted.write(t, into: &self)
    case .importWorkoutsStaged(let id, let w, let r, let s):
      EventTable.importWorkoutsStaged.write((id, w, (r, s)), into: &self)
    case .workoutsSavedWhileLocked(let w, let r): EventTable.workoutsSavedWhileLocked.write((w, r), into: &self)
    case .electrocardiogramsStored(let e): EventTable.electrocardiogramsStored.write(e, into: &self)
    case .importElectrocardiogramsStaged(let id, let e):
      EventTable.importElectrocardiogramsStaged.write((id, e), into: &self)
    case .audiogramsSaved(let a): EventTable.audiogramsSaved.write(a, into: &self)
    case .importAudiogramsStaged(let id, let a): EventTable.importAudiogramsStaged.write((id, a), into: &self)
    case .statesOfMindSaved(let s): EventTable.statesOfMindSaved.write(s, into: &self)
    case .clinicalRecordsReceived(let r): EventTable.clinicalRecordsReceived.write(r, into: &self)
    case .visionPrescriptionsSaved(let p): EventTable.visionPrescriptionsSaved.write(p, into: &self)
    case .objectReadChosen(let id, let c): EventTable.objectReadChosen.write((id, c), into: &self)
    case .scoredAssessmentsSaved(let a): EventTable.scoredAssessmentsSaved.write(a, into: &self)
    case .cdaDocumentsSaved(let d): EventTable.cdaDocumentsSaved.write(d, into: &self)
    case .medicationsAdded(let m): EventTable.medicationsAdded.write(m, into: &self)
    case .medicationDosesLogged(let d): EventTable.medicationDosesLogged.write(d, into: &self)
    case .importVisionPrescriptionsStaged(let id, let p):
      EventTable.importVisionPrescriptionsStaged.write((id, p), into: &self)
    case .importClinicalRecordsStaged(let id, let r): EventTable.importClinicalRecordsStaged.write((id, r), into: &self)
    }
  }
}

extension BinaryReader {
  /// Decodes a journal event with its tag's ``EventTable`` row.
  /// - Throws: ``DecodeError`` for an unknown tag or at the first bad byte of its fields.
  package mutating func event() throws(DecodeError) -> DeviceEvent {
    let raw = try u8()
    guard let tag = DeviceEventTag(rawValue: raw) else { throw error("unknown journal event tag \(raw)") }
    switch tag {
    case .appInstalled: return try EventTable.appInstalled.read(from: &self)
    case .appInstalledWithEntitlements: return try EventTable.appInstalledWithEntitlements.read(from: &self)
    case .appInstalledWithHealthRecords: return try EventTable.appInstalledWithHealthRecords.read(from: &self)
    case .appUninstalled: return try EventTable.appUninstalled.read(from: &self)
    case .promptAnswered: return try EventTable.promptAnswered.read(from: &self)
    case .promptCancelled: return try EventTable.promptCancelled.read(from: &self)
    case .settingsChanged: return try EventTable.settingsChanged.read(from: &self)
    case .watchSettingsQueued: return try EventTable.watchSettingsQueued.read(from: &self)
    case .authorizationShared: return try EventTable.authorizationShared.read(from: &self)
    case .backgroundDeliveryChanged: return try EventTable.backgroundDeliveryChanged.read(from: &self)
    case .samplesSaved: return try EventTable.samplesSaved.read(from: &self)
    case .samplesDeleted: return try EventTable.samplesDeleted.read(from: &self)
    case .changeNumbersAdvanced: return try EventTable.changeNumbersAdvanced.read(from: &self)
    case .peerEntriesApplied: return try EventTable.peerEntriesApplied.read(from: &self)
    case .peerAcknowledged: return try EventTable.peerAcknowledged.read(from: &self)
    case .syncLogRestarted: return try EventTable.syncLogRestarted.read(from: &self)
    case .peerLogAdopted: return try EventTable.peerLogAdopted.read(from: &self)
    case .peerResendRequested: return try EventTable.peerResendRequested.read(from: &self)
    case .peerResendAnswered: return try EventTable.peerResendAnswered.read(from: &self)
    case .clockSet: return try EventTable.clockSet.read(from: &self)
    case .policyChanged: return try EventTable.policyChanged.read(from: &self)
    case .importStaged: return try EventTable.importStaged.read(from: &self)
    case .importCommitted: return try EventTable.importCommitted.read(from: &self)
    case .importAbandoned: return try EventTable.importAbandoned.read(from: &self)
    case .importCorrelationsStaged: return try EventTable.importCorrelationsStaged.read(from: &self)
    case .deviceLocked: return try EventTable.deviceLocked.read(from: &self)
    case .deviceUnlocked: return try EventTable.deviceUnlocked.read(from: &self)
    case .samplesSavedWhileLocked: return try EventTable.samplesSavedWhileLocked.read(from: &self)
    case .userSettingChanged: return try EventTable.userSettingChanged.read(from: &self)
    case .sourceOrderChanged: return try EventTable.sourceOrderChanged.read(from: &self)
    case .correlationsSaved: return try EventTable.correlationsSaved.read(from: &self)
    case .correlationsDeleted: return try EventTable.correlationsDeleted.read(from: &self)
    case .workoutsSaved: return try EventTable.workoutsSaved.read(from: &self)
    case .workoutSamplesAssociated: return try EventTable.workoutSamplesAssociated.read(from: &self)
    case .routesSaved: return try EventTable.routesSaved.read(from: &self)
    case .heartbeatSeriesSaved: return try EventTable.heartbeatSeriesSaved.read(from: &self)
    case .workoutObjectsDeleted: return try EventTable.workoutObjectsDeleted.read(from: &self)
    case .importWorkoutsStaged: return try EventTable.importWorkoutsStaged.read(from: &self)
    case .workoutsSavedWhileLocked: return try EventTable.workoutsSavedWhileLocked.read(from: &self)
    case .electrocardiogramsStored: return try EventTable.electrocardiogramsStored.read(from: &self)
    case .importElectrocardiogramsStaged: return try EventTable.importElectrocardiogramsStaged.read(from: &self)
    case .audiogramsSaved: return try EventTable.audiogramsSaved.read(from: &self)
    case .importAudiogramsStaged: return try EventTable.importAudiogramsStaged.read(from: &self)
    case .statesOfMindSaved: return try EventTable.statesOfMindSaved.read(from: &self)
    case .clinicalRecordsReceived: return try EventTable.clinicalRecordsReceived.read(from: &self)
    case .visionPrescriptionsSaved: return try EventTable.visionPrescriptionsSaved.read(from: &self)
    case .objectReadChosen: return try EventTable.objectReadChosen.read(from: &self)
    case .scoredAssessmentsSaved: return try EventTable.scoredAssessmentsSaved.read(from: &self)
    case .cdaDocumentsSaved: return try EventTable.cdaDocumentsSaved.read(from: &self)
    case .medicationsAdded: return try EventTable.medicationsAdded.read(from: &self)
    case .medicationDosesLogged: return try EventTable.medicationDosesLogged.read(from: &self)
    case .importVisionPrescriptionsStaged: return try EventTable.importVisionPrescriptionsStaged.read(from: &self)
    case .importClinicalRecordsStaged: return try EventTable.importClinicalRecordsStaged.read(from: &self)
    }
  }
}
