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
  package private(set) var policy: DevicePolicy
  /// Installed apps by bundle identifier.
  package private(set) var apps: [String: AppRecord] = [:]
  /// Recorded decisions; a missing key is "not determined".
  package private(set) var decisions: [AuthorizationKey: Decision] = [:]
  /// Apps the strict re-prompt model will not prompt again.
  package private(set) var lockedOut: Set<String> = []
  /// When and where each decision was made, for decisions made or received under the companion model (the later
  /// decision wins when the two devices' decisions meet).
  package private(set) var decisionStamps: [AuthorizationKey: DecisionStamp] = [:]
  /// The sample store.
  package internal(set) var store = SampleStore()
  /// The virtual clock, or nil when the device follows the real clock.
  package private(set) var virtualNow: Date?
  /// Sync bookkeeping.
  package private(set) var sync = SyncLedger()
  /// Whether the device is locked (the watch: off the wrist): protected health data is unavailable to apps
  /// (docs/behavior.md L1).
  package private(set) var isLocked = false
  /// Samples apps saved while the device was locked, oldest first: Apple's temporary journal file, merged into the
  /// store when the device unlocks (L3).
  package private(set) var lockedJournal: [Sample] = []
  /// The characteristic values the user set in the Health app (not set: absent; docs/behavior.md C2).
  package private(set) var characteristics: [SampleType: CharacteristicValue] = [:]
  /// The display unit the user chose per quantity type (absent: the locale's default; R6).
  package private(set) var preferredUnits: [SampleType: String] = [:]
  /// When and where each Health app value was last set, on this device or the other (the later change wins when
  /// the devices' changes meet; C4).
  package private(set) var userSettingStamps: [UserSettingKey: DecisionStamp] = [:]
  /// The most recent sync conflicts (the same identifier saved with different contents on both devices), at most
  /// ``maxRecordedConflicts``, oldest first; ``syncConflictCount`` counts all of them.
  package private(set) var syncConflicts: [SyncConflict] = []
  /// How many sync conflicts this device resolved.
  package private(set) var syncConflictCount = 0
  /// How many conflicts ``syncConflicts`` keeps.
  package static let maxRecordedConflicts = 100
  /// Imports in progress by import identifier (see ``stageImport(_:_:)``). Rebuilt by journal replay; never in a
  /// snapshot (none is written while an import is staged).
  package private(set) var stagedImports: [UInt64: StagedImport] = [:]
  /// What applying the last ``DeviceEvent/importCommitted(id:at:characteristics:)`` did.
  package private(set) var lastImportOutcome: ImportOutcome?
  /// Sheets waiting for the user, first presented first.
  package private(set) var prompts: [Prompt] = []
  /// Every sheet shown since the daemon started, with its outcome (newest last, at most 1,000).
  package private(set) var promptHistory: [PromptRecord] = []
  private var nextPromptID: UInt64 = 1
  /// Background delivery registrations: which apps asked to be woken for which types, at what frequency (durable).
  package internal(set) var backgroundRegistrations: [BackgroundKey: UpdateFrequency] = [:]
  /// Background delivery's runtime state: deliveries waiting for their completion handler, misses, counters.
  package internal(set) var background = BackgroundDeliveryRuntime()
  /// Sample changes applied since the last background step: per type, the bundle identifiers of the changed
  /// samples' sources (runtime; drained by ``backgroundStep(wall:)``).
  var changedSources: [SampleType: Set<String>] = [:]
  /// Samples the retention window pruned since the last background step, as ``changedSources``.
  var prunedSources: [SampleType: Set<String>] = [:]

  /// Creates an empty device with its kind's default policy.
  package init(device: DeviceKind, policy: DevicePolicy? = nil) {
    self.device = device
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
    backgroundRegistrations: [BackgroundKey: UpdateFrequency] = [:]
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
    self.device = device
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
    self.characteristics = userData.characteristics
    self.preferredUnits = userData.preferredUnits
    self.userSettingStamps = userData.stamps
    self.backgroundRegistrations = backgroundRegistrations
  }

  /// The durable state the lock and the Health app add to a device (what a snapshot carries besides the store and
  /// authorization).
  package struct UserData: Hashable, Sendable {
    /// ``DeviceState/isLocked``.
    package var isLocked = false
    /// ``DeviceState/lockedJournal``.
    package var lockedJournal: [Sample] = []
    /// ``DeviceState/characteristics``.
    package var characteristics: [SampleType: CharacteristicValue] = [:]
    /// ``DeviceState/preferredUnits``.
    package var preferredUnits: [SampleType: String] = [:]
    /// ``DeviceState/userSettingStamps``.
    package var stamps: [UserSettingKey: DecisionStamp] = [:]

    /// Creates user data (empty by default: unlocked, nothing set).
    package init(
      isLocked: Bool = false, lockedJournal: [Sample] = [], characteristics: [SampleType: CharacteristicValue] = [:],
      preferredUnits: [SampleType: String] = [:], stamps: [UserSettingKey: DecisionStamp] = [:]
    ) {
      self.isLocked = isLocked
      self.lockedJournal = lockedJournal
      self.characteristics = characteristics
      self.preferredUnits = preferredUnits
      self.stamps = stamps
    }
  }

  /// The lock and Health app state, as a snapshot stores it.
  package var userData: UserData {
    UserData(
      isLocked: isLocked, lockedJournal: lockedJournal, characteristics: characteristics,
      preferredUnits: preferredUnits, stamps: userSettingStamps)
  }

  // MARK: - Time

  /// The device's current time: the virtual clock if set, else `wall`.
  package func now(wall: Date) -> Date { virtualNow ?? wall }

  /// `earliestPermittedSampleDate()`: now − retention on a device with a retention window, else distant past.
  package func earliestPermittedSampleDate(wall: Date) -> Date {
    guard let retention = policy.retention else { return .distantPast }
    return now(wall: wall).addingTimeInterval(-retention)
  }

  private func floor(wall: Date) -> Double {
    earliestPermittedSampleDate(wall: wall).timeIntervalSinceReferenceDate
  }

  // MARK: - Apps

  /// The installed app's record.
  /// - Throws: a simulator error when it is not installed.
  func installedAppRecord(_ bundleID: String) throws(HealthError) -> AppRecord { try installedApp(bundleID) }

  private func installedApp(_ bundleID: String) throws(HealthError) -> AppRecord {
    guard let app = apps[bundleID] else {
      throw .simulator("app '\(bundleID)' is not installed on the \(device)")
    }
    return app
  }

  /// Installs (or updates) an app.
  package mutating func install(_ app: AppRecord) throws(HealthError) -> [DeviceEvent] {
    guard !app.bundleID.isEmpty, !app.bundleID.contains(where: \.isWhitespace) else {
      throw .simulator("bundle identifier '\(app.bundleID)' is not valid")
    }
    for (what, text, limit) in [
      ("bundle identifier", app.bundleID, StoredLimits.identifier),
      ("display name", app.displayName, StoredLimits.identifier),
      ("NSHealthUpdateUsageDescription", app.writeUsageDescription ?? "", StoredLimits.description),
      ("NSHealthShareUsageDescription", app.readUsageDescription ?? "", StoredLimits.description),
    ] where text.utf8.count > limit {
      throw .simulator("the app's \(what) is \(text.utf8.count) bytes long; at most \(limit) are accepted")
    }
    return commit([.appInstalled(app)])
  }

  /// Uninstalls an app: its authorization on this device is forgotten, its samples stay, its pending sheets are
  /// withdrawn (returned so the caller can fail the waiting requests).
  package mutating func uninstall(_ bundleID: String) throws(HealthError) -> (
    events: [DeviceEvent], withdrawn: [Prompt]
  ) {
    _ = try installedApp(bundleID)
    let withdrawn = prompts.filter { $0.bundleID == bundleID }
    for prompt in withdrawn { finish(prompt, .withdrawn) }
    return (commit([.appUninstalled(bundleID: bundleID)]), withdrawn)
  }

  // MARK: - Authorization

  /// `authorizationStatus(for:)`: the share state only.
  ///
  /// A type whose share permission was never asked reports `sharingDenied` once its read permission has been
  /// answered (observed on devices), and `notDetermined` otherwise. Correlation types always report
  /// `notDetermined`.
  package func authorizationStatus(_ bundleID: String, _ type: SampleType) throws(HealthError) -> AuthorizationStatus {
    _ = try installedApp(bundleID)
    if type.descriptor.isCorrelation { return .notDetermined }
    switch decisions[AuthorizationKey(bundleID, Permission(type, .share))] {
    case .authorized: return .sharingAuthorized
    case .denied: return .sharingDenied
    case nil:
      return decisions[AuthorizationKey(bundleID, Permission(type, .read))] != nil ? .sharingDenied : .notDetermined
    }
  }

  /// The recorded decision for one permission (the hidden read state included): for Settings and test
  /// assertions only, never for the app.
  package func decision(_ bundleID: String, _ permission: Permission) -> Decision? {
    decisions[AuthorizationKey(bundleID, permission)]
  }

  private func validateRequest(_ app: AppRecord, share: Set<SampleType>, read: Set<SampleType>) throws(HealthError) {
    if share.isEmpty && read.isEmpty {
      throw .invalidArgumentException("Must request authorization for at least one data type")
    }
    let disallowedShare = share.filter { !$0.descriptor.appsMayShare }.sorted()
    if !disallowedShare.isEmpty {
      throw .invalidArgumentException(
        "Authorization to share the following types is disallowed: "
          + disallowedShare.map(\.identifier).joined(separator: ", "))
    }
    // Correlation types, types read only through per-object authorization (vision prescriptions) and clinical types
    // without the Health Records entitlement raise the same exception (behavior.md A11, A20, A21).
    let disallowedRead = read.filter { type in
      let descriptor = type.descriptor
      return descriptor.isCorrelation || descriptor.requiresPerObjectAuthorization
        || descriptor.readEntitlement.map { !app.entitlements.contains($0) } ?? false
    }.sorted()
    if !disallowedRead.isEmpty {
      throw .invalidArgumentException(
        "Authorization to read the following types is disallowed: "
          + disallowedRead.map(\.identifier).joined(separator: ", "))
    }
    if !share.isEmpty, app.writeUsageDescription?.trimmingWhitespace().isEmpty ?? true {
      throw .invalidArgumentException(
        "NSHealthUpdateUsageDescription must be set in the app's Info.plist in order to request write "
          + "authorization for the following types: " + share.sorted().map(\.identifier).joined(separator: ", "))
    }
    if !read.isEmpty, app.readUsageDescription?.trimmingWhitespace().isEmpty ?? true {
      throw .invalidArgumentException(
        "NSHealthShareUsageDescription must be set in the app's Info.plist in order to request read "
          + "authorization for the following types: " + read.sorted().map(\.identifier).joined(separator: ", "))
    }
  }

  private func undecided(_ bundleID: String, share: Set<SampleType>, read: Set<SampleType>) -> [Permission] {
    let requested = share.map { Permission($0, .share) } + read.map { Permission($0, .read) }
    return requested.filter { decisions[AuthorizationKey(bundleID, $0)] == nil }.sorted()
  }

  /// `getRequestStatusForAuthorization(toShare:read:)`: would a request for these types present a sheet?
  package func requestStatus(_ bundleID: String, share: Set<SampleType>, read: Set<SampleType>) throws(HealthError)
    -> AuthorizationRequestStatus
  {
    let app = try installedApp(bundleID)
    try validateRequest(app, share: share, read: read)
    if undecided(bundleID, share: share, read: read).isEmpty { return .unnecessary }
    if policy.reprompt == .strict && lockedOut.contains(bundleID) { return .unnecessary }
    return .shouldRequest
  }

  /// The outcome of `requestAuthorization`: completed at once, or waiting on a sheet.
  package enum RequestOutcome: Hashable, Sendable {
    /// Completed without a sheet.
    case completed(AuthorizationCallResult)
    /// A sheet is presented; the call completes when the user answers it.
    case prompt(Prompt)
  }

  /// `requestAuthorization(toShare:read:)`: validates, then completes at once when every requested permission is
  /// decided (or the app is locked out on a strict device), else presents a sheet listing the undecided ones.
  package mutating func requestAuthorization(
    _ bundleID: String, share: Set<SampleType>, read: Set<SampleType>, wall: Date
  ) throws(HealthError) -> RequestOutcome {
    let app = try installedApp(bundleID)
    try validateRequest(app, share: share, read: read)
    let listed = undecided(bundleID, share: share, read: read)
    if listed.isEmpty { return .completed(.succeeded) }
    if policy.reprompt == .strict && lockedOut.contains(bundleID) { return .completed(.succeeded) }
    // A locked device runs no app in the foreground: the sheet cannot be presented, and fails as a sheet dismissed
    // by leaving the app does (behavior.md L5, A17). Nothing is recorded.
    if isLocked { return .completed(Self.dismissedResult(because: "the \(device) is locked")) }
    let prompt = Prompt(id: nextPromptID, bundleID: bundleID, permissions: listed, shownAt: now(wall: wall))
    nextPromptID += 1
    prompts.append(prompt)
    promptHistory.append(PromptRecord(prompt: prompt, outcome: .pending))
    if promptHistory.count > 1000 { promptHistory.removeFirst(promptHistory.count - 1000) }
    return .prompt(prompt)
  }

  /// A completed permission sheet: the prompt, what its caller receives.
  package struct PromptCompletion: Hashable, Sendable {
    /// The prompt that completed.
    package var prompt: Prompt
    /// What the waiting `requestAuthorization` call receives.
    package var result: AuthorizationCallResult
  }

  /// The user answers, cancels, or fails to see a pending sheet.
  ///
  /// `promptID` picks a sheet; else the first sheet of `bundleID`; else the first sheet. Answering may complete
  /// other queued sheets whose permissions are now all decided (or whose app is now locked out): they are
  /// returned after the answered one.
  package mutating func answerPrompt(
    id promptID: UInt64?, bundleID: String?, answer: PromptAnswer, wall: Date = Date(timeIntervalSinceReferenceDate: 0)
  ) throws(HealthError) -> (completions: [PromptCompletion], events: [DeviceEvent]) {
    guard
      let prompt = prompts.first(where: { p in
        if let promptID { return p.id == promptID }
        if let bundleID { return p.bundleID == bundleID }
        return true
      })
    else {
      let which = promptID.map { " with id \($0)" } ?? bundleID.map { " for '\($0)'" } ?? ""
      throw .simulator("no permission sheet\(which) is pending on the \(device)")
    }
    var events: [DeviceEvent] = []
    let result: AuthorizationCallResult
    switch answer {
    case .allowAll, .denyAll, .choices:
      var changes: [AuthorizationChange] = []
      if case .choices(let choices) = answer {
        let unknown = choices.keys.filter { !prompt.permissions.contains($0) }.sorted()
        if !unknown.isEmpty {
          throw .simulator(
            "the sheet for '\(prompt.bundleID)' does not list \(unknown.map(\.description).joined(separator: ", ")); "
              + "it lists \(prompt.permissions.map(\.description).joined(separator: ", "))")
        }
        changes = prompt.permissions.map { AuthorizationChange($0, choices[$0] == true ? .authorized : .denied) }
      } else {
        let decision: Decision = answer == .allowAll ? .authorized : .denied
        changes = prompt.permissions.map { AuthorizationChange($0, decision) }
      }
      events.append(.promptAnswered(bundleID: prompt.bundleID, changes: changes))
      finish(prompt, .answered(changes))
      result = .succeeded
    case .cancel:
      events.append(.promptCancelled(bundleID: prompt.bundleID))
      finish(prompt, .cancelled)
      result = AuthorizationCallResult(
        success: false, error: .healthKit(.errorUserCanceled, "The user canceled the authorization request"))
    case .leaveApp:
      finish(prompt, .dismissed)
      result = Self.dismissedResult(because: "the app went to the background")
    case .failToPresent(let mode):
      finish(prompt, .failedToPresent(mode))
      result =
        mode == .silent
        ? .succeeded
        : AuthorizationCallResult(
          success: false,
          error: .healthKit(.unknownError, "The authorization sheet could not be presented (transient failure)"))
    }
    let before = appDecisions(prompt.bundleID)
    _ = commit(events)
    events += shareIfCompanion(prompt.bundleID, before: before, wall: wall)
    var completions = [PromptCompletion(prompt: prompt, result: result)]
    // Queued sheets that no longer have anything to ask complete without being shown.
    for queued in prompts {
      let open = queued.permissions.filter { decisions[AuthorizationKey(queued.bundleID, $0)] == nil }
      let locked = policy.reprompt == .strict && lockedOut.contains(queued.bundleID)
      if open.isEmpty || locked {
        finish(queued, .answered([]))
        completions.append(PromptCompletion(prompt: queued, result: .succeeded))
      }
    }
    return (completions, events)
  }

  /// What a request whose sheet is dismissed (or cannot be presented) completes with: success = false and
  /// `errorAuthorizationNotDetermined` (behavior.md A17, L5).
  static func dismissedResult(because reason: String) -> AuthorizationCallResult {
    AuthorizationCallResult(
      success: false,
      error: .healthKit(
        .errorAuthorizationNotDetermined, "The authorization sheet was dismissed because \(reason)"))
  }

  /// Withdraws every pending sheet (the daemon is stopping); returns them.
  package mutating func withdrawAllPrompts() -> [Prompt] {
    let all = prompts
    for prompt in all { finish(prompt, .withdrawn) }
    return all
  }

  private mutating func finish(_ prompt: Prompt, _ outcome: PromptOutcome) {
    prompts.removeAll { $0.id == prompt.id }
    if let index = promptHistory.lastIndex(where: { $0.prompt.id == prompt.id }) {
      promptHistory[index].outcome = outcome
    }
  }

  // MARK: - Settings

  /// A change in Settings → Privacy → Health on this device. The watch has no such surface and refuses.
  package mutating func changeSettings(
    _ bundleID: String, _ change: SettingsChange, wall: Date = Date(timeIntervalSinceReferenceDate: 0)
  ) throws(HealthError) -> [DeviceEvent] {
    try requireUnlockedForUser("change Settings → Privacy → Health")
    guard device == .phone || policy.watchSettings == .onWatch else {
      throw .simulator(
        "the watch has no Health settings of its own in the 'iphone-only' model: change a watch app's permissions "
          + "from the iPhone's Watch app (a watch-settings change sent to the phone)")
    }
    _ = try installedApp(bundleID)
    if case .set(let permission, _) = change, decisions[AuthorizationKey(bundleID, permission)] == nil {
      throw .simulator(
        "Settings does not list '\(permission)' for '\(bundleID)': the app never requested it or the user never "
          + "answered a sheet for it")
    }
    let before = appDecisions(bundleID)
    let events = commit([.settingsChanged(bundleID: bundleID, change: change, viaWatchApp: false)])
    return events + shareIfCompanion(bundleID, before: before, wall: wall)
  }

  /// An app's recorded decisions by permission.
  private func appDecisions(_ bundleID: String) -> [Permission: Decision] {
    var result: [Permission: Decision] = [:]
    for (key, decision) in decisions where key.bundleID == bundleID { result[key.permission] = decision }
    return result
  }

  /// Under the companion model, the decisions that changed since `before` go to the other device, stamped with
  /// this device's clock (behavior.md A18).
  private mutating func shareIfCompanion(_ bundleID: String, before: [Permission: Decision], wall: Date)
    -> [DeviceEvent]
  {
    guard policy.authorization == .companion else { return [] }
    let after = appDecisions(bundleID)
    let changed = Set(before.keys).union(after.keys).sorted().filter { before[$0] != after[$0] }
    guard !changed.isEmpty else { return [] }
    let shared = changed.map { SharedDecision($0, after[$0]) }
    return commit([.authorizationShared(bundleID: bundleID, decisions: shared, at: now(wall: wall))])
  }

  /// A change made in the iPhone's Watch app for a watch app: recorded on the phone, applied by the watch when it
  /// arrives over the link.
  package mutating func queueWatchSettings(_ bundleID: String, _ change: SettingsChange) throws(HealthError)
    -> [DeviceEvent]
  {
    guard device == .phone else { throw .simulator("the iPhone's Watch app exists only on the phone") }
    try requireUnlockedForUser("use the iPhone's Watch app")
    guard !bundleID.isEmpty, bundleID.utf8.count <= StoredLimits.identifier else {
      throw .simulator(
        "bundle identifier of \(bundleID.utf8.count) bytes: 1 to \(StoredLimits.identifier) are accepted")
    }
    return commit([.watchSettingsQueued(bundleID: bundleID, change: change)])
  }

  // MARK: - Save and delete

  private func requireShare(_ bundleID: String, _ type: SampleType, verb: String) throws(HealthError) {
    switch decisions[AuthorizationKey(bundleID, Permission(type, .share))] {
    case .authorized: return
    case .denied:
      throw .healthKit(
        .errorAuthorizationDenied, "Not authorized to \(verb) \(type.identifier) (share permission is off)")
    case nil:
      throw .healthKit(
        .errorAuthorizationNotDetermined,
        "Authorization to share \(type.identifier) has not been requested "
          + "(the app must request it before it can \(verb))"
      )
    }
  }

  /// `save(_:)`: validates every object, then checks authorization, identifiers and the retention window; all or
  /// nothing.
  package mutating func save(_ bundleID: String, _ inputs: [SampleInput], wall: Date) throws(HealthError)
    -> [DeviceEvent]
  {
    _ = try installedApp(bundleID)
    guard !inputs.isEmpty else { throw .healthKit(.errorInvalidArgument, "Saving an empty array of objects fails") }
    let source = SampleSource(bundleID: bundleID, device: device)
    var samples: [Sample] = []
    samples.reserveCapacity(inputs.count)
    for input in inputs { samples.append(try input.validated(source: source)) }
    var checked: Set<SampleType> = []
    for sample in samples where checked.insert(sample.type).inserted {
      try requireShare(bundleID, sample.type, verb: "save")
    }
    var seen: Set<UUID> = Set(lockedJournal.map(\.uuid))
    seen.reserveCapacity(lockedJournal.count + samples.count)
    for sample in samples {
      if store.isKnown(sample.uuid) || !seen.insert(sample.uuid).inserted {
        throw .healthKit(.errorInvalidArgument, "An object with UUID \(sample.uuid) is already stored")
      }
    }
    if policy.retention != nil {
      let earliest = earliestPermittedSampleDate(wall: wall)
      if let old = samples.first(where: { $0.end < earliest }) {
        throw .healthKit(
          .errorInvalidArgument,
          "Sample \(old.uuid) ends at \(formatDate(old.end)), before earliestPermittedSampleDate "
            + "\(formatDate(earliest)) on the \(device)")
      }
    }
    // Locked: the samples wait in the locked journal; sync identifiers are resolved when they merge (L3).
    if isLocked { return commit([.samplesSavedWhileLocked(samples)]) }
    let (kept, replaced) = applySyncVersions(samples, source: source, at: now(wall: wall))
    var events: [DeviceEvent] = []
    if !replaced.isEmpty { events.append(.samplesDeleted(replaced)) }
    if !kept.isEmpty { events.append(.samplesSaved(kept)) }
    return commit(events)
  }

  /// Sync identifiers (behavior.md D10): an object whose `HKMetadataKeySyncIdentifier` matches one this app
  /// already saved on this device replaces it when its `HKMetadataKeySyncVersion` is greater (the old one is
  /// deleted, so anchored queries and the other device see a deletion and an addition); an equal or lower version
  /// is not stored (the save still succeeds). Within one batch the greatest version of an identifier wins.
  private func applySyncVersions(
    _ samples: [Sample], source: SampleSource, at date: Date
  ) -> (kept: [Sample], replaced: [Tombstone]) {
    var kept: [Sample] = []
    var replaced: [Tombstone] = []
    var inBatch: [String: Int] = [:]
    for sample in samples {
      guard let identifier = sample.metadata.syncIdentifier else {
        kept.append(sample)
        continue
      }
      let version = sample.metadata.syncVersion
      if let earlier = inBatch[identifier] {
        if version > kept[earlier].metadata.syncVersion { kept[earlier] = sample }
        continue
      }
      if let existing = store.liveSample(syncIdentifier: identifier, source: source) {
        guard version > existing.metadata.syncVersion else { continue }
        replaced.append(Tombstone(uuid: existing.uuid, type: existing.type, source: existing.source, deletedAt: date))
      }
      inBatch[identifier] = kept.count
      kept.append(sample)
    }
    return (kept, replaced)
  }

  /// `delete(_:)`: only the app's own samples, with share permission; unknown identifiers fail; all or nothing.
  package mutating func delete(_ bundleID: String, _ uuids: [UUID], wall: Date) throws(HealthError) -> [DeviceEvent] {
    _ = try installedApp(bundleID)
    guard !uuids.isEmpty else { throw .healthKit(.errorInvalidArgument, "Deleting an empty array of objects fails") }
    // Finding the objects needs the protected store (L2).
    try requireProtectedData()
    let at = now(wall: wall)
    var tombstones: [Tombstone] = []
    var seen: Set<UUID> = []
    for uuid in uuids where seen.insert(uuid).inserted {
      // healthd looks for the objects among the app's own sources only: another app's object and one that does
      // not exist fail alike, so an app cannot probe for other apps' data (behavior.md D6).
      guard let sample = store.liveSample(uuid), sample.end.timeIntervalSinceReferenceDate >= floor(wall: wall),
        sample.source.bundleID == bundleID
      else {
        throw .healthKit(.errorInvalidArgument, "Failed to find some objects for deletion")
      }
      try requireShare(bundleID, sample.type, verb: "delete")
      tombstones.append(Tombstone(uuid: uuid, type: sample.type, source: sample.source, deletedAt: at))
    }
    return commit([.samplesDeleted(tombstones)])
  }

  /// `deleteObjects(of:predicate:)`: deletes the app's own live objects of `type` whose dates pass `range`; the
  /// others' are not touched (healthd restricts deletes to the app's sources) and matching nothing succeeds
  /// with 0 (behavior.md D11).
  package mutating func deleteMatching(
    _ bundleID: String, type: SampleType, range: DateRange?, wall: Date
  ) throws(HealthError) -> [DeviceEvent] {
    _ = try installedApp(bundleID)
    try requireShare(bundleID, type, verb: "delete")
    for date in [range?.start, range?.end].compactMap({ $0 }) where !date.timeIntervalSinceReferenceDate.isFinite {
      throw .healthKit(.errorInvalidArgument, "The predicate's dates must be finite")
    }
    try requireProtectedData()
    let at = now(wall: wall)
    var matches: [(uuid: UUID, index: Int)] = []
    store.scanSlots(type: type, range: range, floor: floor(wall: wall), visibility: .own(bundleID: bundleID)) {
      index, slot in
      matches.append((slot.uuid, index))
    }
    let tombstones = matches.map {
      Tombstone(uuid: $0.uuid, type: type, source: store.source(ofSlot: $0.index), deletedAt: at)
    }
    guard !tombstones.isEmpty else { return [] }
    return commit([.samplesDeleted(tombstones)])
  }

  // MARK: - Import

  /// The most samples one import may stage (a 1 GB export holds about 3 million).
  package static let maxImportSamples = 50_000_000

  /// Stages one batch of an import: the samples are checked as `save` checks an app's objects (``Sample/check()``:
  /// dates, values in the type's canonical unit, category values, required metadata, finite metadata) and kept out
  /// of sight until ``commitImport(_:wall:characteristics:)``. Samples keep the source the import gave them; no app needs to be
  /// installed and no authorization applies (the import is the user's, like the Health app's own data).
  /// - Throws: a simulator error for identifier 0, a source that could not be stored, an import past
  ///   ``maxImportSamples``, or a locked device (L5); the errors of ``Sample/check()`` for a bad sample. Nothing is
  ///   staged when any sample of the batch is refused.
  package mutating func stageImport(_ id: UInt64, _ samples: [Sample]) throws(HealthError) -> [DeviceEvent] {
    guard id != 0 else { throw .simulator("import identifier 0 is reserved") }
    try requireUnlockedForUser("import an Apple Health export")
    let staged = stagedImports[id]?.count ?? 0
    guard staged + samples.count <= Self.maxImportSamples else {
      throw .simulator("an import may stage at most \(Self.maxImportSamples) samples")
    }
    // A batch has a few sources, shared by reference: compared, not hashed.
    var checkedSources: [SampleSource] = []
    var lastSource: SampleSource?
    for (index, sample) in samples.enumerated() {
      // Consecutive samples mostly share a source: compared with the last one first.
      if sample.source != lastSource, !checkedSources.contains(sample.source) {
        try Self.checkImportSource(sample.source)
        checkedSources.append(sample.source)
      }
      lastSource = sample.source
      do { try sample.check() } catch {
        throw HealthError(
          kind: error.kind, code: error.code, message: "imported sample \(index) (\(sample.uuid)): \(error.message)",
          exception: error.exception)
      }
    }
    return commit([.importStaged(id: id, samples: samples)])
  }

  /// Checks a source an import gives its samples: a bundle identifier and details the journal can hold.
  private static func checkImportSource(_ source: SampleSource) throws(HealthError) {
    guard !source.bundleID.isEmpty, !source.bundleID.contains(where: \.isWhitespace),
      source.bundleID.utf8.count <= StoredLimits.identifier
    else { throw .simulator("imported source bundle identifier '\(source.bundleID)' is not valid") }
    guard let details = source.details else { return }
    let texts =
      [details.name, details.version ?? ""] + (details.hardware?.fields.flatMap { [$0.key, $0.value] } ?? [])
    guard texts.allSatisfy({ $0.utf8.count <= StoredLimits.identifier }),
      (details.hardware?.fields.count ?? 0) <= HardwareDetails.maxFields
    else {
      throw .simulator(
        "imported source '\(details.name.prefix(64))': names, versions and hardware fields may have at most "
          + "\(StoredLimits.identifier) bytes, and hardware at most \(HardwareDetails.maxFields) fields")
    }
  }

  /// Makes every batch staged under `id` visible and durable at once (one journal record): samples whose
  /// identifier the store already knows (imported before, or the same record twice) and, on a device with a
  /// retention window, samples that end before it are left out and counted. The export's characteristics
  /// (`Me`) are set in the same record, those that change a value only. Outbound sync carries what was added and
  /// set (docs/behavior.md I7, I11).
  /// - Throws: a simulator error when nothing is staged under `id` and no characteristic is given, for a value
  ///   that is not a characteristic's, or while the device is locked (L5: the user cannot use the Health app).
  package mutating func commitImport(
    _ id: UInt64, wall: Date, characteristics: [SampleType: CharacteristicValue] = [:]
  ) throws(HealthError) -> (events: [DeviceEvent], outcome: ImportOutcome) {
    guard id != 0 else { throw .simulator("import identifier 0 is reserved") }
    guard stagedImports[id] != nil || !characteristics.isEmpty else {
      throw .simulator("no import \(id) is staged on the \(device)")
    }
    try requireUnlockedForUser("import an Apple Health export")
    var changed: [SampleType: CharacteristicValue] = [:]
    for (type, value) in characteristics {
      guard type.descriptor.isCharacteristic else {
        throw .simulator("\(type.name) is not a characteristic type (dateOfBirth, biologicalSex, bloodType, …)")
      }
      try value.validated(for: type)
      if self.characteristics[type] != value { changed[type] = value }
    }
    let events = commit([.importCommitted(id: id, at: now(wall: wall), characteristics: changed)])
    return (events, lastImportOutcome ?? ImportOutcome())
  }

  /// Gives up the import `id`: its staged samples are dropped. Nothing happens when none is staged.
  package mutating func abandonImport(_ id: UInt64) -> [DeviceEvent] {
    guard stagedImports[id] != nil else { return [] }
    return commit([.importAbandoned(id: id)])
  }

  /// Applies a committed import: the staged samples in order, minus known identifiers and (with a retention
  /// window) those ending before `at` − retention.
  private mutating func applyImport(_ id: UInt64, at: Date, characteristics: [SampleType: CharacteristicValue]) {
    var outcome = ImportOutcome()
    // The user's Health app values, as `userSettingChanged` applies them (kept, stamped, sent to the other device).
    for (type, value) in characteristics.sorted(by: { $0.key < $1.key }) {
      let setting = UserSetting.characteristic(type, value)
      keep(setting)
      userSettingStamps[setting.key] = DecisionStamp(at: at, device: device)
      sync.appendUserSetting(setting, at: at)
      outcome.characteristicsSet += 1
    }
    guard var staged = stagedImports.removeValue(forKey: id) else {
      lastImportOutcome = outcome
      return
    }
    let floor = policy.retention.map { at.addingTimeInterval(-$0) }
    let first = Int32(store.slots.count)
    // Counted by type code, folded into the outcome at the end (not a dictionary update per sample).
    var addedByCode: [Int] = []
    for index in staged.batches.indices {
      // Each batch is released once stored: the staged samples and the store do not both peak at once.
      var batch: [Sample] = []
      swap(&batch, &staged.batches[index])
      for sample in batch {
        if store.isKnown(sample.uuid) {
          outcome.alreadyPresent += 1
          continue
        }
        if let floor, sample.end < floor {
          outcome.beforeRetention += 1
          continue
        }
        store.insert(sample)
        let code = Int(sample.type.code)
        if code >= addedByCode.count { addedByCode += [Int](repeating: 0, count: code + 1 - addedByCode.count) }
        addedByCode[code] += 1
      }
    }
    for (code, added) in addedByCode.enumerated() where added > 0 {
      outcome.added[SampleType(unchecked: UInt16(code)), default: 0] += added
    }
    let count = Int32(store.slots.count) - first
    if count > 0 { sync.appendSlots(start: first, count: count) }
    lastImportOutcome = outcome
  }

  // MARK: - Queries

  /// What an app's query of `type` may see (WWDC16-209): read granted → all; share granted → own; else nothing.
  package func visibility(_ bundleID: String, _ type: SampleType) -> Visibility {
    if decisions[AuthorizationKey(bundleID, Permission(type, .read))] == .authorized { return .all }
    if decisions[AuthorizationKey(bundleID, Permission(type, .share))] == .authorized {
      return .own(bundleID: bundleID)
    }
    return .none
  }

  /// healthd validates a query's configuration before running it: a type whose read permission the app never
  /// had decided (never requested, or its sheet never answered) fails with code 5, whatever the share decision
  /// (docs/behavior.md R5). A decided read — granted or denied — runs, with R1–R4's visibility. Dates in the
  /// predicate and the anchor must be finite.
  func queryable(_ bundleID: String, _ type: SampleType, range: DateRange?, anchor: Date? = nil)
    throws(HealthError)
  {
    _ = try installedApp(bundleID)
    if type.descriptor.isCorrelation {
      throw .healthKit(
        .errorInvalidArgument, "HealthPair does not support queries of correlation type \(type.identifier)")
    }
    if type.descriptor.isCharacteristic {
      // HKSampleQuery and its kin take an HKSampleType; a characteristic type is not one (behavior.md C1).
      throw .healthKit(
        .errorInvalidArgument,
        "\(type.identifier) is a characteristic type, not a sample type: read it with the HKHealthStore method for "
          + "it (dateOfBirthComponents(), biologicalSex(), …)")
    }
    guard decisions[AuthorizationKey(bundleID, Permission(type, .read))] != nil else {
      throw .healthKit(.errorAuthorizationNotDetermined, "Authorization not determined")
    }
    // Authorization records are readable while locked; the samples are not (behavior.md L2).
    try requireProtectedData()
    // A NaN or infinite date would turn sums into NaN and bucket numbers into garbage.
    let dates = [
      (range?.start, "predicate's start date"), (range?.end, "predicate's end date"), (anchor, "anchorDate"),
    ]
    for (date, name) in dates {
      if let date, !date.timeIntervalSinceReferenceDate.isFinite {
        throw .healthKit(.errorInvalidArgument, "The \(name) must be a finite date (was \(formatDate(date)))")
      }
    }
  }

  /// `HKSampleQuery`: the samples the app may see, filtered, sorted and limited. A denied read is an empty (or
  /// own-only) result, never an error; a read never decided fails with code 5.
  package mutating func sampleQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError)
    -> [Sample]
  {
    try queryable(bundleID, query.type, range: query.range)
    guard query.limit >= 0 else { throw .healthKit(.errorInvalidArgument, "limit must not be negative") }
    let floor = floor(wall: wall)
    let visibility = visibility(bundleID, query.type)
    let allowed = passing(query.filter, query.type, query.range, floor, visibility, query.sources)
    var matches: [Int] = []
    if query.sort.count == 1 {
      // One sort key (the usual case): collect (key, change, index) while each slot is loaded, then order that
      // compact array; "the latest 50" selects without sorting everything.
      let field = query.sort[0].field
      let ascending = query.sort[0].ascending
      var keyed: [SortKey] = []
      store.scanSlots(
        type: query.type, range: query.range, floor: floor, visibility: visibility, sources: query.sources
      ) { index, slot in
        if let allowed, !allowed.contains(index) { return }
        let date = field == .startDate ? slot.start : slot.end
        keyed.append(SortKey(key: ascending ? date : -date, change: slot.change, index: Int32(index)))
      }
      let ordered = query.limit > 0 ? keyed.smallest(query.limit, key: { $0.key }, by: <) : keyed.sorted(by: <)
      matches = ordered.map { Int($0.index) }
    } else {
      store.scan(type: query.type, range: query.range, floor: floor, visibility: visibility, sources: query.sources) {
        if allowed?.contains($0) ?? true { matches.append($0) }
      }
      if !query.sort.isEmpty {
        let slots = store.slots
        let sort = query.sort
        matches.sort { a, b in
          for key in sort {
            let va = key.field == .startDate ? slots[a].start : slots[a].end
            let vb = key.field == .startDate ? slots[b].start : slots[b].end
            if va != vb { return key.ascending ? va < vb : va > vb }
          }
          return slots[a].change < slots[b].change
        }
      }
    }
    if query.limit > 0 && matches.count > query.limit { matches.removeLast(matches.count - query.limit) }
    return matches.map { store.materialize($0) }
  }

  /// The visible slots of `type` that pass `filter`, or nil when there is no filter (everything passes). A separate
  /// pass, so the scans that follow stay as they are: the cost is paid only by queries with such a predicate.
  mutating func passing(
    _ filter: SampleFilter?, _ type: SampleType, _ range: DateRange?, _ floor: Double, _ visibility: Visibility,
    _ sources: Set<String>?
  ) -> Set<Int>? {
    guard let filter else { return nil }
    var candidates: [Int] = []
    store.scan(type: type, range: range, floor: floor, visibility: visibility, sources: sources) {
      candidates.append($0)
    }
    return Set(candidates.filter { filter.matches(store.materialize($0)) })
  }

  /// One sample's position in a single-key sort: the key (negated for descending), then the change number.
  private struct SortKey: Comparable {
    var key: Double
    var change: UInt64
    var index: Int32
    static func < (a: SortKey, b: SortKey) -> Bool { a.key != b.key ? a.key < b.key : a.change < b.change }
  }

  /// The number of samples of `type` the app may see in `range` (no materialisation).
  package mutating func visibleCount(_ bundleID: String, _ type: SampleType, range: DateRange?, wall: Date)
    throws(HealthError) -> Int
  {
    try queryable(bundleID, type, range: range)
    var count = 0
    store.scan(type: type, range: range, floor: floor(wall: wall), visibility: visibility(bundleID, type)) { _ in
      count += 1
    }
    return count
  }

  /// `HKAnchoredObjectQuery`: visible samples added and deletions recorded since `anchor` (0 = nil anchor, which
  /// returns every current sample and no deletions), at most `limit` changes (0 = no limit).
  package func anchoredQuery(
    _ bundleID: String, type: SampleType, anchor: UInt64, range: DateRange?, limit: Int, wall: Date
  ) throws(HealthError) -> AnchoredResult {
    try queryable(bundleID, type, range: range)
    let visibility = visibility(bundleID, type)
    let floor = floor(wall: wall)
    func visible(_ source: SampleSource) -> Bool {
      switch visibility {
      case .all: true
      case .own(let app): source.bundleID == app
      case .none: false
      }
    }
    var added: [(UInt64, Int)] = []
    let matcher = (range ?? DateRange(start: nil, end: nil)).matcher
    for slotIndex in store.slotsChanged(type: type, after: anchor) {
      let slot = store.slots[Int(slotIndex)]
      guard slot.live, slot.end >= floor, visible(store.source(ofSlot: Int(slotIndex))) else { continue }
      if !matcher.matches(start: slot.start, end: slot.end) { continue }
      added.append((slot.change, Int(slotIndex)))
    }
    var deleted: [(UInt64, Tombstone)] = []
    if anchor > 0 {
      for stored in store.tombstonesChanged(type: type, after: anchor) where visible(stored.tombstone.source) {
        deleted.append((stored.change, stored.tombstone))
      }
    }
    var newAnchor = store.changeCounter
    if limit > 0 && added.count + deleted.count > limit {
      let cutoff = (added.map(\.0) + deleted.map(\.0)).sorted()[limit - 1]
      added.removeAll { $0.0 > cutoff }
      deleted.removeAll { $0.0 > cutoff }
      newAnchor = cutoff
    }
    return AnchoredResult(
      added: added.map { store.materialize($0.1) }, deleted: deleted.map(\.1), newAnchor: max(newAnchor, anchor))
  }

  // MARK: - Device lock

  /// Queries, deletions and Health app reads need the protected store (behavior.md L2).
  private func requireProtectedData() throws(HealthError) {
    guard !isLocked else {
      throw .healthKit(
        .errorDatabaseInaccessible, "Protected health data is inaccessible (the \(device) is locked)")
    }
  }

  /// What the user does in Settings or the Health app needs an unlocked device.
  private func requireUnlockedForUser(_ what: String) throws(HealthError) {
    guard !isLocked else { throw .simulator("the \(device) is locked: unlock it before the user can \(what)") }
  }

  /// Locks the device (the watch: taken off the wrist). Protected health data becomes unavailable (L1, L2); a
  /// sheet that is up is dismissed, as when the app goes to the background (A17): its call completes with
  /// success = false and `errorAuthorizationNotDetermined`, nothing recorded. Locking a locked device does nothing.
  package mutating func lock(wall: Date) -> (events: [DeviceEvent], dismissed: [PromptCompletion]) {
    guard !isLocked else { return ([], []) }
    let shown = prompts
    var dismissed: [PromptCompletion] = []
    for prompt in shown {
      finish(prompt, .dismissed)
      dismissed.append(PromptCompletion(prompt: prompt, result: Self.dismissedResult(because: "the \(device) locked")))
    }
    return (commit([.deviceLocked(at: now(wall: wall))]), dismissed)
  }

  /// Unlocks the device: protected data is available again and the samples saved while it was locked merge into the
  /// store, in the order they were saved — sync identifiers are resolved then (D10), samples that ended before the
  /// retention window by now are dropped — so queries, observers and the other device see them from now on (L3).
  /// Unlocking an unlocked device does nothing.
  package mutating func unlock(wall: Date) -> [DeviceEvent] {
    guard isLocked else { return [] }
    let at = now(wall: wall)
    let floor = policy.retention.map { at.addingTimeInterval(-$0) }
    var kept: [Sample] = []
    var replaced: [Tombstone] = []
    var keptBySyncIdentifier: [String: Int] = [:]
    var seen: Set<UUID> = []
    for sample in lockedJournal {
      if let floor, sample.end < floor { continue }
      guard !store.isKnown(sample.uuid), seen.insert(sample.uuid).inserted else { continue }
      guard let identifier = sample.metadata.syncIdentifier else {
        kept.append(sample)
        continue
      }
      let key = sample.source.bundleID + "\u{0}" + identifier
      let version = sample.metadata.syncVersion
      if let earlier = keptBySyncIdentifier[key] {
        if version > kept[earlier].metadata.syncVersion { kept[earlier] = sample }
        continue
      }
      if let existing = store.liveSample(syncIdentifier: identifier, source: sample.source) {
        guard version > existing.metadata.syncVersion else { continue }
        replaced.append(Tombstone(uuid: existing.uuid, type: existing.type, source: existing.source, deletedAt: at))
      }
      keptBySyncIdentifier[key] = kept.count
      kept.append(sample)
    }
    var events: [DeviceEvent] = [.deviceUnlocked(at: at)]
    if !replaced.isEmpty { events.append(.samplesDeleted(replaced)) }
    if !kept.isEmpty { events.append(.samplesSaved(kept)) }
    return commit(events)
  }

  // MARK: - The Health app: characteristics and preferred units

  /// The user changes a value in the Health app on this device (a characteristic set or cleared, a preferred unit
  /// chosen or reset); it travels to the other device (C4, R6).
  /// - Throws: a simulator error on a locked device, for a type of the wrong kind, a value that does not fit the
  ///   characteristic, or a unit that does not parse or measure the type.
  package mutating func changeUserSetting(_ setting: UserSetting, wall: Date) throws(HealthError) -> [DeviceEvent] {
    try requireUnlockedForUser("change \(setting.key) in the Health app")
    switch setting {
    case .characteristic(let type, let value):
      guard type.descriptor.isCharacteristic else {
        throw .simulator("\(type.name) is not a characteristic type (dateOfBirth, biologicalSex, bloodType, …)")
      }
      try value?.validated(for: type)
    case .preferredUnit(let type, let unitText):
      guard let canonical = type.descriptor.canonicalUnit else {
        throw .simulator("\(type.name) is not a quantity type: only quantity types have a preferred unit")
      }
      if let unitText {
        guard unitText.utf8.count <= StoredLimits.unit, let unit = try? HealthUnit(parsing: unitText) else {
          throw .simulator("'\(unitText)' is not a unit HKUnit(from:) parses")
        }
        guard unit.isCompatible(with: canonical) else {
          throw .simulator("\(unitText) does not measure \(type.name) (its canonical unit is \(canonical))")
        }
      }
    }
    return commit([.userSettingChanged(setting, at: now(wall: wall))])
  }

  /// Reads a characteristic for an app (`dateOfBirthComponents()`, `biologicalSex()`, …): nil is not set.
  ///
  /// A read permission never decided fails with `errorAuthorizationNotDetermined` (C3); a denied one reads as not
  /// set, so the app cannot tell denial from absence (C2); a locked device fails with `errorDatabaseInaccessible`
  /// (L2).
  package func readCharacteristic(_ bundleID: String, _ type: SampleType) throws(HealthError) -> CharacteristicValue? {
    _ = try installedApp(bundleID)
    guard type.descriptor.isCharacteristic else {
      throw .healthKit(.errorInvalidArgument, "\(type.identifier) is not a characteristic type")
    }
    // The move mode has no "not set" case: unset (or unreadable) is the default move mode (HealthPair model, C5).
    let unset: CharacteristicValue? = type.name == "activityMoveMode" ? .value(1) : nil
    switch decisions[AuthorizationKey(bundleID, Permission(type, .read))] {
    case nil: throw .healthKit(.errorAuthorizationNotDetermined, "Authorization not determined")
    case .denied:
      try requireProtectedData()
      return unset
    case .authorized:
      try requireProtectedData()
      return characteristics[type] ?? unset
    }
  }

  /// `preferredUnits(for:)`: for each type, the unit the user chose in the Health app, else the locale's default
  /// (``DevicePolicy/units``) — the default only, whatever the user chose, when the app was granted neither read nor
  /// share for the type. Fails with `errorAuthorizationNotDetermined` when any type was never decided in either
  /// direction, with `errorDatabaseInaccessible` on a locked device, with `errorInvalidArgument` for a type that is
  /// not a quantity type (behavior.md R6).
  package func preferredUnits(_ bundleID: String, _ types: [SampleType]) throws(HealthError)
    -> [(type: SampleType, unit: String)]
  {
    _ = try installedApp(bundleID)
    let types = Array(Set(types)).sorted()
    if let other = types.first(where: { !$0.descriptor.isQuantity }) {
      throw .healthKit(.errorInvalidArgument, "Object (\(other.identifier)) is not of class HKQuantityType")
    }
    func decision(_ type: SampleType, _ direction: Direction) -> Decision? {
      decisions[AuthorizationKey(bundleID, Permission(type, direction))]
    }
    if types.contains(where: { decision($0, .read) == nil && decision($0, .share) == nil }) {
      throw .healthKit(
        .errorAuthorizationNotDetermined, "Authorization status is not determined for all types provided.")
    }
    try requireProtectedData()
    return types.map { type in
      let granted = decision(type, .read) == .authorized || decision(type, .share) == .authorized
      let chosen = granted ? preferredUnits[type] : nil
      return (type, chosen ?? policy.units.defaultUnit(for: type)!)
    }
  }

  /// The values this device set itself, with when: what a restarted sync log re-sends.
  private var ownUserSettings: [(setting: UserSetting, at: Date)] {
    userSettingStamps.filter { $0.value.device == device }.sorted { $0.key < $1.key }.map { key, stamp in
      switch key {
      case .characteristic(let t): (.characteristic(t, characteristics[t]), stamp.at)
      case .preferredUnit(let t): (.preferredUnit(t, preferredUnits[t]), stamp.at)
      }
    }
  }

  private mutating func keep(_ setting: UserSetting) {
    switch setting {
    case .characteristic(let t, let v): characteristics[t] = v
    case .preferredUnit(let t, let u): preferredUnits[t] = u
    }
  }

  // MARK: - Clock and policy

  /// The dates the virtual clock may show: those a sample may carry, 0001-01-01 up to (not including)
  /// 3000-01-01, so "now" and the dates derived from it always format, encode and compare.
  package static let clockRange = earliestSampleDate..<latestSampleDate

  /// The longest retention window a policy may set, and the longest statistics interval: 10^12 s (about 31,700
  /// years), the bound ``parseDuration(_:)`` puts on every duration a scenario can write.
  package static let longestDuration = 1e12

  private static func checkClock(_ date: Date, _ context: String) throws(HealthError) {
    guard date.timeIntervalSinceReferenceDate.isFinite, clockRange.contains(date) else {
      throw .simulator(
        "the clock must stay between 0001-01-01 and 3000-01-01: \(context) would set it to \(formatDate(date))")
    }
  }

  /// Sets the virtual clock (nil returns to the real clock).
  /// - Throws: a simulator error for a date outside ``clockRange`` (NaN and infinity included).
  package mutating func setClock(_ date: Date?) throws(HealthError) -> [DeviceEvent] {
    if let date { try Self.checkClock(date, "setting the clock") }
    return commit([.clockSet(date)])
  }

  /// Advances the virtual clock (starting it from the real time when it was not set).
  /// - Throws: a simulator error for a negative or non-finite step, or one that leaves ``clockRange``.
  package mutating func advanceClock(by seconds: Double, wall: Date) throws(HealthError) -> [DeviceEvent] {
    guard seconds >= 0, seconds.isFinite else { throw .simulator("the clock can only move forward (got \(seconds) s)") }
    let from = now(wall: wall)
    let target = from.addingTimeInterval(seconds)
    try Self.checkClock(target, "advancing \(formatDuration(seconds)) from \(formatDate(from))")
    return commit([.clockSet(target)])
  }

  /// Replaces the device policy.
  /// - Throws: a simulator error for a retention window that is not a positive duration of at most
  ///   ``longestDuration``.
  package mutating func setPolicy(_ policy: DevicePolicy) throws(HealthError) -> [DeviceEvent] {
    if let retention = policy.retention, !(retention > 0 && retention <= Self.longestDuration) {
      throw .simulator("retention must be a positive duration of at most 1e12 s (got \(retention) s)")
    }
    guard policy.background.isValid else {
      throw .simulator(
        "the background response window and retry delay must be positive durations of at most 1 day (got "
          + "\(policy.background.responseWindow) s and \(policy.background.retryDelay) s)")
    }
    return commit([.policyChanged(policy)])
  }

  /// The user sets the Health app's data-source order of `type` (Data Sources & Access → Edit): `sources` first,
  /// in that order; the others follow in the default order (docs/behavior.md P2, P3). An empty list returns to the
  /// default order. The order is stamped with this device's clock and travels to the other device, where the
  /// later order wins.
  /// - Throws: a simulator error on the watch (the Health app's source list is on the iPhone), for a correlation
  ///   type, a repeated source or more than ``SourceOrder/maxSources``.
  package mutating func setSourceOrder(_ type: SampleType, _ sources: [SampleSource], wall: Date) throws(HealthError)
    -> [DeviceEvent]
  {
    guard device == .phone else {
      throw .simulator(
        "the watch has no Health app data sources to reorder: set the order on the iPhone, it reaches the watch")
    }
    guard !type.descriptor.isCorrelation else {
      throw .simulator("\(type.identifier) is a correlation type: the Health app orders the sources of its parts")
    }
    guard sources.count <= SourceOrder.maxSources else {
      throw .simulator("a source order lists at most \(SourceOrder.maxSources) sources (got \(sources.count))")
    }
    var seen: Set<SampleSource> = []
    for source in sources {
      guard !source.bundleID.isEmpty, source.bundleID.utf8.count <= StoredLimits.identifier else {
        throw .simulator("bundle identifier of \(source.bundleID.utf8.count) bytes in a source order")
      }
      guard seen.insert(source).inserted else { throw .simulator("\(source) is listed twice in the source order") }
    }
    return commit([.sourceOrderChanged(type, SourceOrder(sources: sources, at: now(wall: wall), device: device))])
  }

  // MARK: - Sync

  /// Outbound entries after `seq`, up to `maxItems` items, with their samples read back from the store.
  package func outboundEntries(after seq: UInt64, maxItems: Int) -> [SyncEntry] {
    sync.storedEntries(after: seq, maxItems: maxItems).map { stored in
      switch stored.payload {
      case .slots(let start, let count):
        SyncEntry(seq: stored.seq, payload: .samples((Int(start)..<Int(start + count)).map { store.materialize($0) }))
      case .deletions(let tombstones):
        SyncEntry(seq: stored.seq, payload: .deletions(tombstones))
      case .watchSettings(let bundleID, let change):
        SyncEntry(seq: stored.seq, payload: .watchSettings(bundleID: bundleID, change: change))
      case .authorization(let bundleID, let decisions, let at):
        SyncEntry(seq: stored.seq, payload: .authorization(bundleID: bundleID, decisions: decisions, at: at))
      case .sourceOrder(let type, let order):
        SyncEntry(seq: stored.seq, payload: .sourceOrder(type, order))
      case .userSetting(let setting, let at):
        SyncEntry(seq: stored.seq, payload: .userSetting(setting, at: at))
      }
    }
  }

  /// Applies entries received from the peer (the contiguous run after what is already applied); returns the
  /// events to journal, empty when everything was a re-delivery.
  package mutating func receivePeerEntries(_ entries: [SyncEntry], wall: Date) -> [DeviceEvent] {
    guard sync.appliedFromPeer < UInt64.max else { return [] }
    var expected = sync.appliedFromPeer + 1
    var fresh: [SyncEntry] = []
    let at = now(wall: wall)
    let floor = policy.retention.map { at.addingTimeInterval(-$0) }
    for entry in entries where entry.seq >= expected {
      guard entry.seq == expected, expected < UInt64.max else { break }
      fresh.append(SyncEntry(seq: entry.seq, payload: effective(entry.payload, floor: floor)))
      expected += 1
    }
    if fresh.isEmpty { return [] }
    return commit([.peerEntriesApplied(fresh, at: at)])
  }

  /// Restarts the outbound sync log under `logID` (a fresh random identity from the shell), re-sending every live
  /// sample and deletion. Nothing happens for 0, which is reserved.
  package mutating func restartSyncLog(logID: UInt64) -> [DeviceEvent] {
    guard logID != 0 else { return [] }
    return commit([.syncLogRestarted(logID: logID)])
  }

  /// Adopts the peer's new log identity: the cursor into its log starts from 0 again.
  package mutating func adoptPeerLog(_ logID: UInt64) -> [DeviceEvent] {
    guard logID != 0, logID != sync.peerLogID else { return [] }
    return commit([.peerLogAdopted(logID: logID)])
  }

  /// The first UTC day a sync check compares on this device: the first whole day inside its retention window, or
  /// every day when it keeps everything.
  package func syncCheckFirstDay(wall: Date) -> Int64 {
    guard let retention = policy.retention else { return Int64.min }
    let floor = now(wall: wall).addingTimeInterval(-retention).timeIntervalSinceReferenceDate
    return SampleStore.day(of: floor) &+ 1
  }

  /// Compares the peer's day digests (from its first compared day on) with this store's, over the days both
  /// devices hold in full. Nil when they agree; else a description of the first differing day.
  package func compareDigests(_ theirs: [SampleStore.DayDigest], firstDay: Int64, wall: Date) -> String? {
    let from = max(firstDay, syncCheckFirstDay(wall: wall))
    let mine = store.dayDigests(from: from)
    let other = theirs.filter { $0.day >= from }
    guard mine != other else { return nil }
    var byDay: [Int64: (mine: UInt64, theirs: UInt64)] = [:]
    for d in mine { byDay[d.day, default: (0, 0)].mine = d.count }
    for d in other { byDay[d.day, default: (0, 0)].theirs = d.count }
    let day = Set(mine).symmetricDifference(Set(other)).map(\.day).min() ?? from
    let counts = byDay[day] ?? (0, 0)
    let date = Date(timeIntervalSinceReferenceDate: Double(day) * 86_400)
    return
      "stores differ on \(formatDate(date).prefix(10)): \(counts.mine) samples here, "
      + "\(counts.theirs) on the \(device.peer)"
  }

  /// The part of a received payload that changes something here: items already stored identically (re-sends
  /// after a log restart), already deleted, or older than the retention floor are left out, so a re-sent store
  /// costs the journal nothing for what it already holds. The entry keeps its sequence number.
  private func effective(_ payload: SyncPayload, floor: Date?) -> SyncPayload {
    switch payload {
    case .samples(let samples):
      let changing = samples.filter { sample in
        if store.isKnown(sample.uuid) { return store.liveSample(sample.uuid).map { $0 != sample } ?? false }
        return floor.map { sample.end >= $0 } ?? true
      }
      return changing.count == samples.count ? payload : .samples(changing)
    case .deletions(let tombstones):
      let changing = tombstones.filter { !store.isTombstoned($0.uuid) }
      return changing.count == tombstones.count ? payload : .deletions(changing)
    case .watchSettings, .authorization, .userSetting, .sourceOrder:
      return payload
    }
  }

  /// Records the peer's acknowledgement of our outbound entries.
  package mutating func receivePeerAck(_ seq: UInt64) -> [DeviceEvent] {
    guard seq > sync.peerAcked, seq <= sync.lastSeq else { return [] }
    return commit([.peerAcknowledged(seq)])
  }

  // MARK: - Apply

  private mutating func commit(_ events: [DeviceEvent]) -> [DeviceEvent] {
    for event in events { apply(event) }
    return events
  }

  /// Applies and returns `events` (for operations defined in other files).
  mutating func commitEvents(_ events: [DeviceEvent]) -> [DeviceEvent] { commit(events) }

  /// Notes a sample change for the next background step (consecutive repeats are skipped cheaply).
  private mutating func noteChange(_ type: SampleType, _ bundleID: String, pruned: Bool = false) {
    if pruned { prunedSources[type, default: []].insert(bundleID) }
    if changedSources[type]?.contains(bundleID) != true { changedSources[type, default: []].insert(bundleID) }
  }

  /// Applies one event. The only place durable state changes; journal replay calls it for every record.
  package mutating func apply(_ event: DeviceEvent) {
    switch event {
    case .appInstalled(let app):
      apps[app.bundleID] = app
    case .appUninstalled(let bundleID):
      apps[bundleID] = nil
      backgroundRegistrations = backgroundRegistrations.filter { $0.key.bundleID != bundleID }
      decisions = decisions.filter { $0.key.bundleID != bundleID }
      decisionStamps = decisionStamps.filter { $0.key.bundleID != bundleID }
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
        userSettings: ownUserSettings)
    case .peerLogAdopted(let logID):
      sync.adoptPeerLog(logID)
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
    case .samplesSavedWhileLocked(let samples):
      lockedJournal += samples
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
    }
  }

  private mutating func pruneIfNeeded() {
    if let retention = policy.retention, let now = virtualNow {
      for (type, sources) in store.prune(endingBefore: now.addingTimeInterval(-retention)) {
        for source in sources { noteChange(type, source, pruned: true) }
      }
    }
  }

  /// The same identifier arrived with different contents: the iPhone's copy wins on both devices (HealthPair
  /// model B-SYNC-CONFLICT), and both record the conflict.
  private mutating func resolveConflict(mine: Sample, theirs: Sample) {
    if device == .watch { store.replaceLive(with: theirs) }
    syncConflictCount += 1
    syncConflicts.append(SyncConflict(uuid: mine.uuid, type: mine.type, kept: .phone))
    if syncConflicts.count > Self.maxRecordedConflicts { syncConflicts.removeFirst() }
  }

  private mutating func applySettings(_ bundleID: String, _ change: SettingsChange) {
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

  private mutating func applyPeerPayload(_ payload: SyncPayload, floor: Date?) {
    switch payload {
    case .samples(let samples):
      for sample in samples {
        if store.isKnown(sample.uuid) {
          if let mine = store.liveSample(sample.uuid), mine != sample { resolveConflict(mine: mine, theirs: sample) }
          continue
        }
        if let floor, sample.end < floor { continue }
        store.insert(sample)
        noteChange(sample.type, sample.source.bundleID)
      }
    case .deletions(let tombstones):
      for tombstone in tombstones {
        if !store.isTombstoned(tombstone.uuid) { noteChange(tombstone.type, tombstone.source.bundleID) }
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
    case .sourceOrder(let type, let order):
      // The Health app's source orders sync between the devices (healthd's source-order sync entity); when the
      // two devices' orders meet, the later one wins (at the same instant the iPhone's).
      if let local = policy.sourceOrders[type], !order.supersedes(local) { return }
      policy.sourceOrders[type] = order
    }
  }
}

/// An import in progress: its staged batches, as they arrived.
package struct StagedImport: Sendable {
  /// The batches, in order.
  package var batches: [[Sample]] = []
  /// How many samples they hold.
  package var count = 0
}

/// What committing an import did (``DeviceState/commitImport(_:wall:characteristics:)``).
package struct ImportOutcome: Hashable, Sendable {
  /// Samples added, by type.
  package var added: [SampleType: Int] = [:]
  /// Samples left out because the store already knew their identifier (imported before, or twice in one file).
  package var alreadyPresent = 0
  /// Samples left out because they end before the device's retention window (the watch).
  package var beforeRetention = 0

  /// Creates an outcome.
  package init(added: [SampleType: Int] = [:], alreadyPresent: Int = 0, beforeRetention: Int = 0) {
    self.added = added
    self.alreadyPresent = alreadyPresent
    self.beforeRetention = beforeRetention
  }

  /// Characteristics the export's `Me` set that changed the device's values.
  package var characteristicsSet = 0

  /// Samples added, all types.
  package var addedCount: Int { added.values.reduce(0, +) }
}

/// The same sample identifier was saved with different contents on the two devices.
package struct SyncConflict: Hashable, Sendable {
  /// The identifier.
  package var uuid: UUID
  /// The type of this device's copy.
  package var type: SampleType
  /// Whose copy both devices kept.
  package var kept: DeviceKind

  /// Creates a conflict record.
  package init(uuid: UUID, type: SampleType, kept: DeviceKind) {
    self.uuid = uuid
    self.type = type
    self.kept = kept
  }
}

extension String {
  /// The string without leading and trailing whitespace.
  package func trimmingWhitespace() -> String {
    var s = Substring(self)
    while let c = s.first, c.isWhitespace { s.removeFirst() }
    while let c = s.last, c.isWhitespace { s.removeLast() }
    return String(s)
  }
}
