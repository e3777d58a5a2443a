import FoundationEssentials
import HealthModel

/// A durable change to one device's state: what the journal stores and what replay re-applies.
///
/// Every event carries all the data its application needs (timestamps included), so applying the same events in
/// the same order always rebuilds the same state. Events are produced by ``DeviceState``'s operations, which apply
/// them immediately; the daemon appends them to the journal before it acknowledges the operation.
package enum DeviceEvent: Hashable, Sendable {
  /// An app was installed (or updated: its descriptions replaced, its authorization kept).
  case appInstalled(AppRecord)
  /// An app was uninstalled: its authorization on this device is forgotten; its samples stay.
  case appUninstalled(bundleID: String)
  /// The user answered a permission sheet.
  case promptAnswered(bundleID: String, changes: [AuthorizationChange])
  /// The user cancelled a permission sheet (recorded for the watch lockout model).
  case promptCancelled(bundleID: String)
  /// A settings change was applied on this device; `viaWatchApp` when it came from the iPhone's Watch app.
  case settingsChanged(bundleID: String, change: SettingsChange, viaWatchApp: Bool)
  /// The phone recorded a Watch-app settings change for a watch app; it travels to the watch over the link.
  case watchSettingsQueued(bundleID: String, change: SettingsChange)
  /// Apps on this device saved samples (already validated and converted).
  case samplesSaved([Sample])
  /// Apps on this device deleted samples.
  case samplesDeleted([Tombstone])
  /// Entries received from the peer were applied at `at` (device clock; decides the retention floor).
  case peerEntriesApplied([SyncEntry], at: Date)
  /// The peer acknowledged every outbound entry up to this sequence number.
  case peerAcknowledged(UInt64)
  /// The virtual clock was set; nil switches back to the real clock.
  case clockSet(Date?)
  /// The device policy changed.
  case policyChanged(DevicePolicy)
  /// The outbound sync log restarted under a new identity, re-sending every live sample and deletion (see
  /// ``SyncLedger/restart(logID:liveRuns:tombstones:)``).
  case syncLogRestarted(logID: UInt64)
  /// The peer's outbound log has a new identity: the cursor into it starts again from 0.
  case peerLogAdopted(logID: UInt64)
  /// Under the companion model, decisions made here at `at` (device clock) go to the other device.
  case authorizationShared(bundleID: String, decisions: [SharedDecision], at: Date)
  /// One batch of an import in progress (already validated and converted): staged, invisible to queries and sync
  /// until ``importCommitted(id:at:characteristics:)`` names the same import. A journal that ends before the
  /// commit (the daemon was killed mid-import) leaves the store exactly as it was.
  case importStaged(id: UInt64, samples: [Sample])
  /// Every batch staged under `id` becomes visible and durable at once, at `at` (device clock; decides the
  /// retention floor): samples whose identifier the store already knows, and on a device with a retention window
  /// samples that end before it, are left out (see ``DeviceState/commitImport(_:wall:characteristics:)``).
  /// The characteristics the export's `Me` set are part of the same commit (only those that change a value): they
  /// are kept, stamped and sent to the other device as the user's Health app changes are.
  case importCommitted(id: UInt64, at: Date, characteristics: [SampleType: CharacteristicValue] = [:])
  /// The import `id` was given up (its client went away, or it was found unfinished at start-up): its staged
  /// batches are dropped.
  case importAbandoned(id: UInt64)
  /// The device was locked at `at` (device clock; the watch: taken off the wrist): protected health data is
  /// unavailable until ``deviceUnlocked(at:)`` (docs/behavior.md L1).
  case deviceLocked(at: Date)
  /// The device was unlocked at `at`: its locked journal is emptied; the samples it held follow as ``samplesSaved(_:)``
  /// (and ``samplesDeleted(_:)`` for the sync-identifier replacements they make) in the same commit (L3).
  case deviceUnlocked(at: Date)
  /// Apps saved these samples while the device was locked: they wait in its locked journal (Apple's temporary file)
  /// and reach the store, queries and the other device when it unlocks (L3).
  case samplesSavedWhileLocked([Sample])
  /// An app saved these workouts, with these routes of theirs, while the device was locked (a workout builder's
  /// `finishWorkout()` then hands back nil, workouts.md §5.1): they wait beside the locked journal and reach the
  /// store, queries and the other device when it unlocks, after the samples they name (behavior.md E31).
  case workoutsSavedWhileLocked(workouts: [Workout], routes: [WorkoutRoute])
  /// The user changed a value in the Health app here at `at` (device clock): a characteristic or a preferred unit.
  /// It goes to the other device, where the later change wins (docs/behavior.md C4, R6).
  case userSettingChanged(UserSetting, at: Date)
  /// An app enabled background delivery of `type` at `frequency`, or disabled it (`frequency` nil) for `type`,
  /// or for every type (`type` nil too).
  case backgroundDeliveryChanged(bundleID: String, type: SampleType?, frequency: UpdateFrequency?)
  /// The user set the Health app's data-source order of a type on this device (it travels to the other device).
  case sourceOrderChanged(SampleType, SourceOrder)
  /// Change numbers up to `to` were handed out before (by records a journal cut lost): the counter moves up to it,
  /// so the next change is numbered above every number an app's anchor may hold (docs/journal.md, "Change
  /// numbers").
  case changeNumbersAdvanced(to: UInt64)
  /// This device's journal lost records the peer may hold (a deletion it applied is in no log): the link asks the
  /// peer to re-send everything it holds until the peer answers with a new log (``SyncLedger/resendRequested``).
  case peerResendRequested
  /// The peer started a new log in answer to ``peerResendRequested``: the cursor into it starts from 0 and the
  /// request is answered.
  case peerResendAnswered(logID: UInt64)
  /// Apps on this device saved correlations; their members are saved by a ``samplesSaved(_:)`` earlier in the same
  /// commit (docs/behavior.md T10).
  case correlationsSaved([Correlation])
  /// Apps on this device deleted correlations (their members stay; T12).
  case correlationsDeleted([Tombstone])
  /// Correlations of the import `id`, staged like its batches (their members are in them) and made visible by its
  /// ``importCommitted(id:at:characteristics:)`` (docs/behavior.md I13).
  case importCorrelationsStaged(id: UInt64, [Correlation])
  /// Apps on this device saved workouts (validated: events sorted, at least one activity, duration set); the
  /// samples they name were stored before, or by a ``samplesSaved(_:)`` earlier in the same commit (workouts.md §1).
  case workoutsSaved([Workout])
  /// An app associated samples with a saved workout (`add(_:to:)`); new ones were saved by a ``samplesSaved(_:)``
  /// earlier in the same commit. The workout's totals and duration do not change (workouts.md §1.7).
  case workoutSamplesAssociated(workout: UUID, samples: [UUID])
  /// Apps on this device saved routes; each route's workout is stored (saved earlier, or by a
  /// ``workoutsSaved(_:)`` earlier in the same commit).
  case routesSaved([WorkoutRoute])
  /// Apps on this device saved heartbeat series.
  case heartbeatSeriesSaved([HeartbeatSeries])
  /// Apps on this device deleted workouts, routes or heartbeat series (a workout's routes are deleted with it; its
  /// associated samples stay).
  case workoutObjectsDeleted([Tombstone])
  /// Workouts, routes and activity summaries of the import `id`, staged like its batches and made visible by its
  /// ``importCommitted(id:at:characteristics:)``.
  case importWorkoutsStaged(id: UInt64, workouts: [Workout], routes: [WorkoutRoute], summaries: [ActivitySummary])
  /// The watch's ECG app recorded electrocardiograms (behavior.md G1).
  case electrocardiogramsStored([Electrocardiogram])
  /// Electrocardiograms of the import `id`, staged like its batches and stored by its commit.
  case importElectrocardiogramsStaged(id: UInt64, [Electrocardiogram])
  /// Apps on this device saved audiograms (behavior.md H1).
  case audiogramsSaved([Audiogram])
  /// Audiograms of the import `id`, staged like its batches and stored by its commit.
  case importAudiogramsStaged(id: UInt64, [Audiogram])
  /// Apps on this device saved States of Mind (behavior.md M1).
  case statesOfMindSaved([StateOfMind])
  /// Apps on this device saved scored assessments (behavior.md N1).
  case scoredAssessmentsSaved([ScoredAssessment])
  /// Apps on this iPhone saved CDA documents (behavior.md O1).
  case cdaDocumentsSaved([CDADocument])
  /// A provider's clinical records arrived on this iPhone (behavior.md F1).
  case clinicalRecordsReceived([ClinicalRecord])
  /// Apps on this iPhone saved vision prescriptions (behavior.md V1).
  case visionPrescriptionsSaved([VisionPrescription])
  /// Clinical records of the import `id`, staged like its batches and stored by its commit (F3).
  case importClinicalRecordsStaged(id: UInt64, [ClinicalRecord])
  /// Vision prescriptions of the import `id`, staged like its batches and stored by its commit (V6).
  case importVisionPrescriptionsStaged(id: UInt64, [VisionPrescription])
  /// The user answered a per-object read sheet: each listed object on (true) or off (false) for the app (V3).
  case objectReadChosen(bundleID: String, choices: [UUID: Bool])
  /// The user added medications in this iPhone's Health app (behavior.md section Z).
  case medicationsAdded([Medication])
  /// The user logged medication doses on this device (behavior.md section Z).
  case medicationDosesLogged([MedicationDoseEvent])
}

/// One entry of a device's outbound sync log.
package struct SyncEntry: Hashable, Sendable {
  /// The sequence number, assigned by the origin device; contiguous from 1.
  package var seq: UInt64
  /// What travels.
  package var payload: SyncPayload

  /// Creates an entry.
  package init(seq: UInt64, payload: SyncPayload) {
    self.seq = seq
    self.payload = payload
  }
}

/// What crosses the peer link: samples, deletions, Watch-app settings, Health app values, data-source orders and
/// companion decisions (authorization crosses only under the companion model).
package enum SyncPayload: Hashable, Sendable {
  /// Samples saved on the origin device.
  case samples([Sample])
  /// Deletions made on the origin device.
  case deletions([Tombstone])
  /// A settings change for a watch app, made in the iPhone's Watch app (phone → watch only).
  case watchSettings(bundleID: String, change: SettingsChange)
  /// Companion decisions made on the origin device at `at` (its clock).
  case authorization(bundleID: String, decisions: [SharedDecision], at: Date)
  /// A Health app value the user changed on the origin device at `at` (its clock).
  case userSetting(UserSetting, at: Date)
  /// The data-source order of a type, set on the origin device (docs/behavior.md P2).
  case sourceOrder(SampleType, SourceOrder)
  /// Correlations saved on the origin device (their members travel in an earlier ``samples(_:)`` entry).
  case correlations([Correlation])
  /// Correlations deleted on the origin device.
  case correlationDeletions([Tombstone])
  /// Workouts saved on the origin device (the samples they name travel in earlier ``samples(_:)`` entries).
  case workouts([Workout])
  /// Samples associated with a workout on the origin device (`add(_:to:)`), after the entries of the samples.
  case workoutAssociations(workout: UUID, samples: [UUID])
  /// Routes saved on the origin device (their workouts travel in earlier ``workouts(_:)`` entries).
  case routes([WorkoutRoute])
  /// Heartbeat series saved on the origin device.
  case heartbeatSeries([HeartbeatSeries])
  /// Workouts, routes and heartbeat series deleted on the origin device.
  case workoutDeletions([Tombstone])
  /// Electrocardiograms recorded or imported on the origin device, with their voltages.
  case electrocardiograms([Electrocardiogram])
  /// Audiograms saved or imported on the origin device.
  case audiograms([Audiogram])
  /// States of Mind saved on the origin device.
  case statesOfMind([StateOfMind])
  /// Scored assessments saved on the origin device.
  case scoredAssessments([ScoredAssessment])
  /// Medications added on the origin device.
  case medications([Medication])
  /// Medication doses logged on the origin device.
  case medicationDoses([MedicationDoseEvent])

  /// How many items the payload carries (samples, tombstones or 1).
  package var itemCount: Int {
    switch self {
    case .samples(let s): s.count
    case .deletions(let t): t.count
    case .correlations(let c): c.count
    case .correlationDeletions(let t): t.count
    case .workouts(let w): w.count
    case .workoutAssociations(_, let s): max(1, s.count)
    case .routes(let r): r.count
    case .heartbeatSeries(let s): s.count
    case .workoutDeletions(let t): t.count
    case .electrocardiograms(let e): e.count
    case .audiograms(let a): a.count
    case .statesOfMind(let s): s.count
    case .scoredAssessments(let a): a.count
    case .medications(let m): m.count
    case .medicationDoses(let d): d.count
    case .watchSettings, .authorization, .userSetting, .sourceOrder: 1
    }
  }
}
