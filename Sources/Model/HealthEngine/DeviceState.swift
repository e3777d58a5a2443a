import FoundationEssentials
import HealthModel

/// One device's HealthKit: installed apps, per-app per-type per-direction authorization, permission sheets, the
/// sample store, the clock and the sync ledger.
///
/// A pure value with no I/O. Operations validate their input as HealthKit does, then produce ``DeviceEvent``s and
/// apply them with ``apply(_:)``, the same function journal replay uses; the daemon writes the returned events to
/// its journal before acknowledging. Time comes in as `wall` (the shell's real clock reading); when the virtual
/// clock is set it wins. Pending permission sheets and their history are runtime state, not journaled.
package struct DeviceState: Sendable {
  /// Which device this is.
  package let device: DeviceKind
  /// The device's configurable behaviour.
  package internal(set) var policy: DevicePolicy
  /// Installed apps by bundle identifier.
  package internal(set) var apps: [String: AppRecord] = [:]
  /// Recorded decisions; a missing key is "not determined".
  package internal(set) var decisions: [AuthorizationKey: Decision] = [:]
  /// Apps the strict re-prompt model will not prompt again.
  package internal(set) var lockedOut: Set<String> = []
  /// When and where each decision was made, for decisions made or received under the companion model (the later
  /// decision wins when the two devices' decisions meet).
  package internal(set) var decisionStamps: [AuthorizationKey: DecisionStamp] = [:]
  /// The sample store.
  package internal(set) var store = SampleStore()
  /// The correlations (blood pressure, food) whose members are in ``store`` (docs/behavior.md T8–T13).
  package internal(set) var correlationStore = CorrelationStore()
  /// Workouts, routes, heartbeat series and imported activity summaries (workouts.md §1).
  package internal(set) var workoutStore = WorkoutStore()
  /// Electrocardiograms and the other families stored apart from samples and workouts.
  package internal(set) var specialObjects = SpecialObjectStore()
  /// Workout sessions and live builders (not durable: ``LiveWorkouts``).
  package internal(set) var live: LiveWorkouts
  /// The virtual clock, or nil when the device follows the real clock.
  package internal(set) var virtualNow: Date?
  /// Sync bookkeeping.
  package internal(set) var sync = SyncLedger()
  /// Whether the device is locked (the watch: off the wrist): protected health data is unavailable to apps
  /// (docs/behavior.md L1).
  package internal(set) var isLocked = false
  /// Samples apps saved while the device was locked, oldest first: Apple's temporary journal file, merged into the
  /// store when the device unlocks (L3).
  package internal(set) var lockedJournal: [Sample] = []
  /// Workouts apps saved while the device was locked, oldest first, merged after the locked journal (E31).
  package internal(set) var lockedWorkouts: [Workout] = []
  /// The routes saved with ``lockedWorkouts``, oldest first.
  package internal(set) var lockedRoutes: [WorkoutRoute] = []
  /// The characteristic values the user set in the Health app (not set: absent; docs/behavior.md C2).
  package internal(set) var characteristics: [SampleType: CharacteristicValue] = [:]
  /// The display unit the user chose per quantity type (absent: the locale's default; R6).
  package internal(set) var preferredUnits: [SampleType: String] = [:]
  /// When and where each Health app value was last set, on this device or the other (the later change wins when
  /// the devices' changes meet; C4).
  package internal(set) var userSettingStamps: [UserSettingKey: DecisionStamp] = [:]
  /// The most recent sync conflicts (the same identifier saved with different contents on both devices), at most
  /// ``maxRecordedConflicts``, oldest first; ``syncConflictCount`` counts all of them.
  package internal(set) var syncConflicts: [SyncConflict] = []
  /// How many sync conflicts this device resolved.
  package internal(set) var syncConflictCount = 0
  /// How many conflicts ``syncConflicts`` keeps.
  package static let maxRecordedConflicts = 100
  /// Imports in progress by import identifier (see ``stageImport(_:_:)``). Rebuilt by journal replay; never in a
  /// snapshot (none is written while an import is staged).
  package internal(set) var stagedImports: [UInt64: StagedImport] = [:]
  /// What applying the last ``DeviceEvent/importCommitted(id:at:characteristics:)`` did.
  package internal(set) var lastImportOutcome: ImportOutcome?
  /// Sheets waiting for the user, first presented first.
  package internal(set) var prompts: [Prompt] = []
  /// Every sheet shown since the daemon started, with its outcome (newest last, at most 1,000).
  package internal(set) var promptHistory: [PromptRecord] = []
  var nextPromptID: UInt64 = 1
  /// The pending sheets' clinical bookkeeping: required-type checks and Health Records sheets (A25–A26).
  var clinicalSheets = ClinicalSheets()
  /// App extensions' requests waiting for their containing app to present them (ExtensionAuthorization.swift).
  package internal(set) var extensionRequests: [ExtensionRequest] = []
  /// Background delivery registrations: which apps asked to be woken for which types, at what frequency (durable).
  package internal(set) var backgroundRegistrations: [BackgroundKey: UpdateFrequency] = [:]
  /// Background delivery's runtime state: deliveries waiting for their completion handler, misses, counters.
  package internal(set) var background = BackgroundDeliveryRuntime()
  /// Sample changes applied since the last background step: per type, the bundle identifiers of the changed
  /// samples' sources (runtime; drained by ``backgroundStep(wall:)``).
  var changedSources: [SampleType: Set<String>] = [:]
  /// Samples the retention window pruned since the last background step, as ``changedSources``.
  var prunedSources: [SampleType: Set<String>] = [:]
  /// The change ``noteChange(_:_:pruned:)`` recorded last, while it is in ``changedSources``: a repeat is
  /// recognised without hashing (runtime, cleared with ``changedSources``).
  var lastNotedChange: (type: SampleType, bundleID: String)?

  /// Creates an empty device with its kind's default policy.
  package init(device: DeviceKind, policy: DevicePolicy? = nil) {
    self.device = device
    self.live = LiveWorkouts(device: device)
    self.policy = policy ?? .defaults(for: device)
  }

  /// Restores a device from a snapshot of its durable state (see ``DeviceState/differences(from:)`` for what that
  /// covers); the runtime state (pending sheets and their history) starts empty, as after journal replay.
  /// - Throws: ``StateRestoreError`` when an outbound sync entry refers to slots the store does not have, or too
  ///   many conflicts are listed.
  package init(
    restoring device: DeviceKind, policy: DevicePolicy, virtualNow: Date?, apps: [String: AppRecord],
    decisions: [AuthorizationKey: Decision], lockedOut: Set<String>, store: SampleStore, sync: SyncLedger,
    syncConflicts: [SyncConflict], syncConflictCount: Int, decisionStamps: [AuthorizationKey: DecisionStamp] = [:],
    userData: UserData = UserData(),
    backgroundRegistrations: [BackgroundKey: UpdateFrequency] = [:],
    correlations: CorrelationStore = CorrelationStore(), workouts: WorkoutStore = WorkoutStore(),
    specialObjects: SpecialObjectStore = SpecialObjectStore()
  ) throws(StateRestoreError) {
    for entry in sync.pendingEntries {
      guard case .slots(let start, let count) = entry.payload else { continue }
      guard start >= 0, count >= 0, Int(start) + Int(count) <= store.slots.count else {
        throw StateRestoreError("sync entry \(entry.seq) refers to slots \(start)+\(count) of \(store.slots.count)")
      }
    }
    guard syncConflicts.count <= Self.maxRecordedConflicts, syncConflictCount >= syncConflicts.count else {
      throw StateRestoreError("\(syncConflicts.count) recorded sync conflicts of \(syncConflictCount)")
    }
    // Prescriptions, CDA documents and clinical records are kept on the iPhone (V2, O1, F1); per-object choices
    // belong to its apps.
    let phoneOnly =
      specialObjects.visionPrescriptions.count + specialObjects.cdaDocuments.count
      + specialObjects.clinicalRecords.count + specialObjects.objectReadChoices.count
    guard device == .phone || phoneOnly == 0 else {
      throw StateRestoreError(
        "a watch holds no vision prescriptions, CDA documents, per-object choices or clinical records")
    }
    if let app = specialObjects.objectReadChoices.keys.sorted().first(where: { apps[$0] == nil }) {
      throw StateRestoreError("per-object choices of '\(app)', which is not installed")
    }
    self.device = device
    self.live = LiveWorkouts(device: device)
    self.policy = policy
    self.virtualNow = virtualNow
    self.apps = apps
    self.decisions = decisions
    self.lockedOut = lockedOut
    self.store = store
    self.sync = sync
    self.syncConflicts = syncConflicts
    self.syncConflictCount = syncConflictCount
    self.decisionStamps = decisionStamps
    let keys =
      Array(userData.stamps.keys) + userData.characteristics.keys.map { UserSettingKey.characteristic($0) }
      + userData.preferredUnits.keys.map { UserSettingKey.preferredUnit($0) }
    for key in keys {
      switch key {
      case .characteristic(let t) where !t.descriptor.isCharacteristic,
        .preferredUnit(let t) where !t.descriptor.isQuantity:
        throw StateRestoreError("\(key): the type is of the wrong kind")
      default: break
      }
    }
    self.isLocked = userData.isLocked
    self.lockedJournal = userData.lockedJournal
    self.lockedWorkouts = userData.lockedWorkouts
    self.lockedRoutes = userData.lockedRoutes
    self.characteristics = userData.characteristics
    self.preferredUnits = userData.preferredUnits
    self.userSettingStamps = userData.stamps
    self.backgroundRegistrations = backgroundRegistrations
    self.correlationStore = correlations
    self.workoutStore = workouts
    self.specialObjects = specialObjects
  }

  /// The durable state the lock and the Health app add to a device (what a snapshot carries besides the store and
  /// authorization).
  package struct UserData: Hashable, Sendable {
    /// ``DeviceState/isLocked``.
    package var isLocked = false
    /// ``DeviceState/lockedJournal``.
    package var lockedJournal: [Sample] = []
    /// ``DeviceState/lockedWorkouts``.
    package var lockedWorkouts: [Workout] = []
    /// ``DeviceState/lockedRoutes``.
    package var lockedRoutes: [WorkoutRoute] = []
    /// ``DeviceState/characteristics``.
    package var characteristics: [SampleType: CharacteristicValue] = [:]
    /// ``DeviceState/preferredUnits``.
    package var preferredUnits: [SampleType: String] = [:]
    /// ``DeviceState/userSettingStamps``.
    package var stamps: [UserSettingKey: DecisionStamp] = [:]

    /// Creates user data (empty by default: unlocked, nothing set).
    package init(
      isLocked: Bool = false, lockedJournal: [Sample] = [], characteristics: [SampleType: CharacteristicValue] = [:],
      preferredUnits: [SampleType: String] = [:], stamps: [UserSettingKey: DecisionStamp] = [:],
      lockedWorkouts: [Workout] = [], lockedRoutes: [WorkoutRoute] = []
    ) {
      self.isLocked = isLocked
      self.lockedJournal = lockedJournal
      self.lockedWorkouts = lockedWorkouts
      self.lockedRoutes = lockedRoutes
      self.characteristics = characteristics
      self.preferredUnits = preferredUnits
      self.stamps = stamps
    }
  }

  /// The lock and Health app state, as a snapshot stores it.
  package var userData: UserData {
    UserData(
      isLocked: isLocked, lockedJournal: lockedJournal, characteristics: characteristics,
      preferredUnits: preferredUnits, stamps: userSettingStamps, lockedWorkouts: lockedWorkouts,
      lockedRoutes: lockedRoutes)
  }

  // MARK: - Time

  /// The device's current time: the virtual clock if set, else `wall`.
  package func now(wall: Date) -> Date { virtualNow ?? wall }

  /// `earliestPermittedSampleDate()`: now − retention on a device with a retention window, else distant past.
  package func earliestPermittedSampleDate(wall: Date) -> Date {
    guard let retention = policy.retention else { return .distantPast }
    return now(wall: wall).addingTimeInterval(-retention)
  }

  func floor(wall: Date) -> Double {
    earliestPermittedSampleDate(wall: wall).timeIntervalSinceReferenceDate
  }

  // MARK: - Apply

  mutating func commit(_ events: [DeviceEvent]) -> [DeviceEvent] {
    for event in events { apply(event) }
    return events
  }

  /// Applies and returns `events` (for operations defined in other files).
  mutating func commitEvents(_ events: [DeviceEvent]) -> [DeviceEvent] { commit(events) }

  /// Notes a sample change for the next background step (consecutive repeats are skipped cheaply).
  mutating func noteChange(_ type: SampleType, _ bundleID: String, pruned: Bool = false) {
    if pruned { prunedSources[type, default: []].insert(bundleID) }
    if let last = lastNotedChange, last.type == type, last.bundleID == bundleID { return }
    if changedSources[type]?.contains(bundleID) != true { changedSources[type, default: []].insert(bundleID) }
    lastNotedChange = (type, bundleID)
  }

  /// Applies one event. The only place durable state changes; journal replay calls it for every record. Samples
  /// it inserted out of date order are sorted into the store's date index before it returns, so queries only read.
  package mutating func apply(_ event: DeviceEvent) {
    defer { store.settle() }
    switch event {
    case .appInstalled(let app):
      apps[app.bundleID] = app
    case .appUninstalled(let bundleID):
      apps[bundleID] = nil
      backgroundRegistrations = backgroundRegistrations.filter { $0.key.bundleID != bundleID }
      decisions = decisions.filter { $0.key.bundleID != bundleID }
      decisionStamps = decisionStamps.filter { $0.key.bundleID != bundleID }
      specialObjects.forgetChoices(of: bundleID)
      lockedOut.remove(bundleID)
    case .promptAnswered(let bundleID, let changes):
      for change in changes { decisions[AuthorizationKey(bundleID, change.permission)] = change.decision }
      if policy.reprompt == .strict, changes.contains(where: { $0.decision == .denied }) { lockedOut.insert(bundleID) }
    case .promptCancelled(let bundleID):
      if policy.reprompt == .strict { lockedOut.insert(bundleID) }
    case .settingsChanged(let bundleID, let change, _):
      applySettings(bundleID, change)
    case .watchSettingsQueued(let bundleID, let change):
      sync.appendWatchSettings(bundleID: bundleID, change: change)
    case .samplesSaved(let samples):
      let first = Int32(store.slots.count)
      var last: (SampleType, String)?
      for sample in samples {
        store.insert(sample)
        if last?.0 != sample.type || last?.1 != sample.source.bundleID {
          noteChange(sample.type, sample.source.bundleID)
          last = (sample.type, sample.source.bundleID)
        }
      }
      sync.appendSlots(start: first, count: Int32(samples.count))
    case .samplesDeleted(let tombstones):
      for tombstone in tombstones {
        _ = store.delete(tombstone.uuid, at: tombstone.deletedAt)
        noteChange(tombstone.type, tombstone.source.bundleID)
      }
      sync.appendDeletions(tombstones)
    case .peerEntriesApplied(let entries, let at):
      let floor = policy.retention.map { at.addingTimeInterval(-$0) }
      for entry in entries where entry.seq > sync.appliedFromPeer {
        applyPeerPayload(entry.payload, floor: floor)
        sync.markApplied(upTo: entry.seq)
      }
    case .peerAcknowledged(let seq):
      sync.acknowledge(upTo: seq)
    case .clockSet(let date):
      virtualNow = date
      pruneIfNeeded()
    case .policyChanged(let newPolicy):
      policy = newPolicy
      if newPolicy.reprompt == .standard { lockedOut.removeAll() }
      pruneIfNeeded()
    case .syncLogRestarted(let logID):
      sync.restart(
        logID: logID, liveRuns: store.liveRuns(), tombstones: store.tombstones.map(\.tombstone),
        userSettings: ownUserSettings, correlations: correlationStore, workouts: workoutStore,
        specialObjects: specialObjects)
    case .peerLogAdopted(let logID):
      sync.adoptPeerLog(logID)
    case .peerResendRequested:
      sync.requestResend()
    case .changeNumbersAdvanced(let mark):
      store.advanceChangeCounter(to: mark)
    case .peerResendAnswered(let logID):
      sync.adoptPeerLog(logID, answeringResend: true)
    case .authorizationShared(let bundleID, let shared, let at):
      for item in shared {
        decisionStamps[AuthorizationKey(bundleID, item.permission)] = DecisionStamp(at: at, device: device)
      }
      sync.appendAuthorization(bundleID: bundleID, decisions: shared, at: at)
    case .importStaged(let id, let samples):
      // The batch is kept as it came (no per-sample copy).
      stagedImports[id, default: StagedImport()].batches.append(samples)
      stagedImports[id]!.count += samples.count
    case .importCommitted(let id, let at, let characteristics):
      applyImport(id, at: at, characteristics: characteristics)
    case .importAbandoned(let id):
      stagedImports[id] = nil
    case .deviceLocked:
      isLocked = true
    case .deviceUnlocked:
      isLocked = false
      lockedJournal = []
      lockedWorkouts = []
      lockedRoutes = []
    case .samplesSavedWhileLocked(let samples):
      lockedJournal += samples
    case .workoutsSavedWhileLocked(let workouts, let routes):
      guard isLocked else { break }  // only a hostile journal: an unlock would never drain them
      lockedWorkouts += workouts
      lockedRoutes += routes
    case .userSettingChanged(let setting, let at):
      keep(setting)
      userSettingStamps[setting.key] = DecisionStamp(at: at, device: device)
      sync.appendUserSetting(setting, at: at)
    case .backgroundDeliveryChanged(let bundleID, let type, let frequency):
      if let type, let frequency {
        backgroundRegistrations[BackgroundKey(bundleID, type)] = frequency
      } else {
        let removed = backgroundRegistrations.keys.filter {
          $0.bundleID == bundleID && (type == nil || $0.type == type)
        }
        for key in removed {
          backgroundRegistrations[key] = nil
          background.trackers[key] = nil
        }
      }
    case .sourceOrderChanged(let type, let order):
      policy.sourceOrders[type] = order
      sync.appendSourceOrder(type, order)
    case .correlationsSaved(let correlations):
      for correlation in correlations { correlationStore.insert(correlation) }
      sync.appendCorrelations(correlations)
    case .correlationsDeleted(let tombstones):
      for tombstone in tombstones { correlationStore.delete(tombstone) }
      sync.appendCorrelationDeletions(tombstones)
    case .importCorrelationsStaged(let id, let correlations):
      stagedImports[id, default: StagedImport()].correlations += correlations
    case .workoutsSaved(let workouts):
      applyWorkoutsSaved(workouts)
    case .workoutSamplesAssociated(let workout, let samples):
      // Only a hostile journal names a workout that is not live: nothing to associate, nothing to send.
      guard workoutStore.workout(workout) != nil else { break }
      workoutStore.associate(samples, with: workout)
      sync.appendWorkoutAssociation(workout: workout, samples: samples)
    case .routesSaved(let routes):
      applyRoutesSaved(routes)
    case .heartbeatSeriesSaved(let series):
      applyHeartbeatSeriesSaved(series)
    case .workoutObjectsDeleted(let tombstones):
      applyWorkoutObjectsDeleted(tombstones)
    case .importWorkoutsStaged(let id, let workouts, let routes, let summaries):
      stagedImports[id, default: StagedImport()].workouts += workouts
      stagedImports[id, default: StagedImport()].routes += routes
      stagedImports[id, default: StagedImport()].summaries += summaries
    case .electrocardiogramsStored(let ecgs): applyShelvedHere(ecgs)
    case .importElectrocardiogramsStaged(let id, let ecgs):
      stagedImports[id, default: StagedImport()].electrocardiograms += ecgs
    case .audiogramsSaved(let audiograms): applyShelvedHere(audiograms)
    case .importAudiogramsStaged(let id, let audiograms):
      stagedImports[id, default: StagedImport()].audiograms += audiograms
    case .statesOfMindSaved(let states): applyShelvedHere(states)
    case .scoredAssessmentsSaved(let assessments): applyShelvedHere(assessments)
    // CDA documents are kept on the iPhone (O1): a watch's journal naming some is not applied.
    case .cdaDocumentsSaved(let documents) where device == .phone: applyShelvedHere(documents)
    case .cdaDocumentsSaved: break
    case .clinicalRecordsReceived(let records): applyShelvedHere(records)
    // Prescriptions are kept on the iPhone (V2): a watch's journal naming some is not applied.
    case .visionPrescriptionsSaved(let prescriptions) where device == .phone: applyShelvedHere(prescriptions)
    case .visionPrescriptionsSaved: break
    case .importVisionPrescriptionsStaged(let id, let prescriptions):
      stagedImports[id, default: StagedImport()].visionPrescriptions += device == .phone ? prescriptions : []
    case .importClinicalRecordsStaged(let id, let records):
      stagedImports[id, default: StagedImport()].clinicalRecords += device == .phone ? records : []
    case .objectReadChosen(let bundleID, let choices): specialObjects.choose(bundleID, choices)
    case .medicationsAdded(let medications): applyShelvedHere(medications)
    case .medicationDosesLogged(let doses): applyShelvedHere(doses)
    }
  }

  mutating func applySettings(_ bundleID: String, _ change: SettingsChange) {
    switch change {
    case .set(let permission, let on):
      let key = AuthorizationKey(bundleID, permission)
      if decisions[key] != nil { decisions[key] = on ? .authorized : .denied }
    case .turnAllOff:
      for key in decisions.keys where key.bundleID == bundleID { decisions[key] = .denied }
    case .reset:
      decisions = decisions.filter { $0.key.bundleID != bundleID }
    }
    lockedOut.remove(bundleID)
  }

  mutating func applyPeerPayload(_ payload: SyncPayload, floor: Date?) {
    switch payload {
    case .samples(let samples):
      var noted: (SampleType, String)?  // the change last noted: a run of one app's samples of a type notes it once
      for sample in samples {
        if store.isKnown(sample.uuid) {
          if let mine = store.liveSample(sample.uuid) {
            if mine != sample { resolveConflict(mine: mine, theirs: sample) }
            continue
          }
          // Pruned here, inside the window again (it widened, or the clock moved back): taken back (W9).
          guard store.wasPruned(sample.uuid) else { continue }
        }
        if let floor, sample.end < floor { continue }
        if specialObjects.isKnown(sample.uuid) { continue }  // only a hostile peer reuses another family's identifier
        store.insert(sample)
        if noted?.0 != sample.type || noted?.1 != sample.source.bundleID {
          noteChange(sample.type, sample.source.bundleID)
          noted = (sample.type, sample.source.bundleID)
        }
      }
    case .deletions(let tombstones):
      var noted: (SampleType, String)?
      for tombstone in tombstones {
        if !store.isTombstoned(tombstone.uuid), noted?.0 != tombstone.type || noted?.1 != tombstone.source.bundleID {
          noteChange(tombstone.type, tombstone.source.bundleID)
          noted = (tombstone.type, tombstone.source.bundleID)
        }
        store.applyRemoteDeletion(tombstone)
      }
    case .watchSettings(let bundleID, let change):
      if device == .watch, apps[bundleID] != nil { applySettings(bundleID, change) }
    case .authorization(let bundleID, let shared, let at):
      // Companion decisions: applied when this device is in the companion model too and has the app; per
      // permission the later decision wins (on a tie the iPhone's). Lockout is per device and stays as it is.
      guard policy.authorization == .companion, apps[bundleID] != nil else { return }
      let stamp = DecisionStamp(at: at, device: device.peer)
      for item in shared {
        let key = AuthorizationKey(bundleID, item.permission)
        // Skipped only when the local decision is strictly later: from the same device at the same instant,
        // the decision that arrives later was made later.
        if let local = decisionStamps[key], stamp < local { continue }
        decisions[key] = item.decision
        decisionStamps[key] = stamp
      }
    case .userSetting(let setting, let at):
      // The later change wins (on the same instant, the iPhone's), whichever order they arrive in (C4, R6).
      let stamp = DecisionStamp(at: at, device: device.peer)
      if let local = userSettingStamps[setting.key], stamp < local { return }
      keep(setting)
      userSettingStamps[setting.key] = stamp
    case .correlations(let correlations):
      // Their members came in an earlier entry of the same log; a correlation older than the retention window is
      // left out as its members were (W7).
      for correlation in correlations where !correlationStore.isKnown(correlation.uuid) {
        if let floor, correlation.end < floor { continue }
        correlationStore.insert(correlation)
        noteChange(correlation.type, correlation.source.bundleID)
      }
    case .correlationDeletions(let tombstones):
      for tombstone in tombstones where correlationStore.delete(tombstone) {
        noteChange(tombstone.type, tombstone.source.bundleID)
      }
    case .workouts(let workouts): applyPeerWorkouts(workouts, floor: floor)
    case .workoutAssociations(let workout, let samples): applyPeerAssociation(workout, samples)
    case .routes(let routes): applyPeerRoutes(routes, floor: floor)
    case .heartbeatSeries(let series): applyPeerHeartbeatSeries(series, floor: floor)
    case .workoutDeletions(let tombstones): applyPeerWorkoutDeletions(tombstones)
    case .electrocardiograms(let ecgs): applyPeerShelved(ecgs, floor: floor)
    case .audiograms(let audiograms): applyPeerShelved(audiograms, floor: floor)
    case .statesOfMind(let states): applyPeerShelved(states, floor: floor)
    case .scoredAssessments(let assessments): applyPeerShelved(assessments, floor: floor)
    case .medications(let medications): applyPeerShelved(medications, floor: nil)
    case .medicationDoses(let doses): applyPeerDoses(doses, floor: floor)
    case .sourceOrder(let type, let order):
      // The Health app's source orders sync between the devices (healthd's source-order sync entity); when the
      // two devices' orders meet, the later one wins (at the same instant the iPhone's).
      if let local = policy.sourceOrders[type], !order.supersedes(local) { return }
      policy.sourceOrders[type] = order
    }
  }
}
