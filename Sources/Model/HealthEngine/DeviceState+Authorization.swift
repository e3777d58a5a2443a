import FoundationEssentials
import HealthModel

/// `DeviceState`: apps, authorization requests and permission sheets, and the user's privacy settings.
extension DeviceState {
  // MARK: - Apps

  /// The installed app's record.
  /// - Throws: a simulator error when it is not installed.
  func installedAppRecord(_ bundleID: String) throws(HealthError) -> AppRecord { try installedApp(bundleID) }

  func installedApp(_ bundleID: String) throws(HealthError) -> AppRecord {
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
      (
        "NSHealthClinicalHealthRecordsShareUsageDescription", app.healthRecords.usageDescription ?? "",
        StoredLimits.description
      ),
    ] + app.healthRecords.requiredTypes.map({ ("required clinical type", $0, StoredLimits.identifier) })
    where text.utf8.count > limit {
      throw .simulator("the app's \(what) is \(text.utf8.count) bytes long; at most \(limit) are accepted")
    }
    guard app.healthRecords.requiredTypes.count <= HealthRecordsInfo.maxRequiredTypes else {
      throw .simulator(
        "NSHealthRequiredReadAuthorizationTypeIdentifiers lists \(app.healthRecords.requiredTypes.count) entries; at "
          + "most \(HealthRecordsInfo.maxRequiredTypes) are accepted")
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
    let extensions = withdrawExtensionRequests(of: bundleID)
    return (commit([.appUninstalled(bundleID: bundleID)]), withdrawn + extensions)
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

  func validateRequest(_ app: AppRecord, share: Set<SampleType>, read: Set<SampleType>) throws(HealthError) {
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
    // HealthKit checks the required clinical types on every request, then the purpose strings: the clinical one
    // for clinical types, NSHealthShareUsageDescription for the others (behavior.md A24–A25).
    try app.healthRecords.validate()
    let clinical = read.filter { $0.descriptor.objectKind == .clinicalRecord }
    if !clinical.isEmpty, app.healthRecords.usageDescription?.trimmingWhitespace().isEmpty ?? true {
      throw .invalidArgumentException(
        "NSHealthClinicalHealthRecordsShareUsageDescription must be set in the app's Info.plist in order to request "
          + "read authorization for the following types: "
          + clinical.sorted().map(\.identifier).joined(separator: ", "))
    }
    let nonClinical = read.subtracting(clinical)
    if !share.isEmpty, app.writeUsageDescription?.trimmingWhitespace().isEmpty ?? true {
      throw .invalidArgumentException(
        "NSHealthUpdateUsageDescription must be set in the app's Info.plist in order to request write "
          + "authorization for the following types: " + share.sorted().map(\.identifier).joined(separator: ", "))
    }
    if !nonClinical.isEmpty, app.readUsageDescription?.trimmingWhitespace().isEmpty ?? true {
      throw .invalidArgumentException(
        "NSHealthShareUsageDescription must be set in the app's Info.plist in order to request read "
          + "authorization for the following types: "
          + nonClinical.sorted().map(\.identifier).joined(separator: ", "))
    }
  }

  func undecided(_ bundleID: String, share: Set<SampleType>, read: Set<SampleType>) -> [Permission] {
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
    let readsClinical = Self.readsClinical(read)
    if listed.isEmpty || (policy.reprompt == .strict && lockedOut.contains(bundleID)) {
      return .completed(requiredTypesResult(bundleID, readsClinical: readsClinical))
    }
    // A locked device runs no app in the foreground: the sheet cannot be presented, and fails as a sheet dismissed
    // by leaving the app does (behavior.md L5, A17). Nothing is recorded.
    if isLocked { return .completed(Self.dismissedResult(because: "the \(device) is locked")) }
    // Clinical types are presented on the Health Records sheet, before the sheet of the other types (A26); the
    // call waits on the last sheet.
    let records = listed.filter { $0.type.descriptor.objectKind == .clinicalRecord }
    let ahead = records.isEmpty || records.count == listed.count ? nil : present(bundleID, records, wall: wall)
    let prompt = present(bundleID, ahead == nil ? listed : listed.filter { !records.contains($0) }, wall: wall)
    if let ahead { clinicalSheets.ahead[prompt.id] = ahead.id }
    if readsClinical { clinicalSheets.readsClinical.insert(prompt.id) }
    return .prompt(prompt)
  }

  /// Presents a sheet of `permissions` for `bundleID`: queued after the pending ones and recorded in the history.
  mutating func present(_ bundleID: String, _ permissions: [Permission], wall: Date) -> Prompt {
    let prompt = Prompt(id: nextPromptID, bundleID: bundleID, permissions: permissions, shownAt: now(wall: wall))
    nextPromptID += 1
    prompts.append(prompt)
    promptHistory.append(PromptRecord(prompt: prompt, outcome: .pending))
    if promptHistory.count > 1000 { promptHistory.removeFirst(promptHistory.count - 1000) }
    return prompt
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
    if prompt.objects != nil { return try answerObjectPrompt(prompt, answer) }
    if let ahead = sheetAhead(of: prompt.id) {
      throw .simulator(
        "the Health Records sheet (#\(ahead.id)) for '\(prompt.bundleID)' comes before this one: answer it first")
    }
    var events: [DeviceEvent] = []
    var result: AuthorizationCallResult
    let readsClinical = clinicalSheets.readsClinical.contains(prompt.id)
    let following = prompts.first { clinicalSheets.ahead[$0.id] == prompt.id }
    var answeredClinical = false
    switch answer {
    case .objects:
      throw .simulator(
        "the sheet for '\(prompt.bundleID)' lists types, not objects: answer it with allows all, doesn't allow or "
          + "per-type choices")
    case .allowAll, .denyAll, .choices:
      var changes: [AuthorizationChange] = []
      if case .choices(let choices) = answer {
        let unknown = choices.keys.filter { !prompt.permissions.contains($0) }.sorted()
        if !unknown.isEmpty {
          let which = following == nil ? "the sheet" : "the Health Records sheet (the other types are on the next)"
          throw .simulator(
            "\(which) for '\(prompt.bundleID)' does not list \(unknown.map(\.description).joined(separator: ", ")); "
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
      answeredClinical = readsClinical
    case .cancel:
      events.append(.promptCancelled(bundleID: prompt.bundleID))
      finish(prompt, .cancelled)
      result = Self.cancelledResult
      if let following { finish(following, .cancelled) }
    case .leaveApp, .failToPresent:
      result = unshown(prompt, answer)
      if let following { _ = unshown(following, answer) }
    }
    let before = appDecisions(prompt.bundleID)
    _ = commit(events)
    events += shareIfCompanion(prompt.bundleID, before: before, wall: wall)
    if answeredClinical { result = requiredTypesResult(prompt.bundleID, readsClinical: true) }
    var completions = [PromptCompletion(prompt: prompt, result: result)]
    // A Health Records sheet the user did not answer ends the request's other sheet the same way.
    if let following, !prompts.contains(following) {
      completions.append(PromptCompletion(prompt: following, result: result))
    }
    // Queued sheets that no longer have anything to ask complete without being shown (once their Health Records
    // sheet, if any, is answered).
    for queued in prompts where queued.objects == nil && sheetAhead(of: queued.id) == nil {
      let open = queued.permissions.filter { decisions[AuthorizationKey(queued.bundleID, $0)] == nil }
      // A lockout does not close the second sheet of a presentation the user is answering (A26).
      let locked =
        policy.reprompt == .strict && lockedOut.contains(queued.bundleID) && clinicalSheets.ahead[queued.id] == nil
      if open.isEmpty || locked {
        let readsClinical = clinicalSheets.readsClinical.contains(queued.id)
        finish(queued, .answered([]))
        completions.append(
          PromptCompletion(prompt: queued, result: requiredTypesResult(queued.bundleID, readsClinical: readsClinical)))
        completions += extensionCompletions(after: queued, .succeeded)
      }
    }
    // A sheet that failed to present silently reports success unchecked (A8, A25), to its extensions' requests too.
    let silent = if case .failToPresent = answer { true } else { false }
    completions += extensionCompletions(after: prompt, result, checkingRequiredTypes: !silent)
    return (completions, events)
  }

  /// What a request whose sheet the user cancelled completes with: `errorUserCanceled` (7).
  static let cancelledResult = AuthorizationCallResult(
    success: false, error: .healthKit(.errorUserCanceled, "The user canceled the authorization request"))

  /// Closes a sheet the user left (`leaveApp`) or that failed to present: nothing is recorded; returns what its
  /// caller receives (A17, A5–A6).
  mutating func unshown(_ prompt: Prompt, _ answer: PromptAnswer) -> AuthorizationCallResult {
    guard case .failToPresent(let mode) = answer else {
      finish(prompt, .dismissed)
      return Self.dismissedResult(because: "the app went to the background")
    }
    finish(prompt, .failedToPresent(mode))
    return mode == .silent
      ? .succeeded
      : AuthorizationCallResult(
        success: false,
        error: .healthKit(.unknownError, "The authorization sheet could not be presented (transient failure)"))
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
    return all + withdrawExtensionRequests(of: nil)
  }

  mutating func finish(_ prompt: Prompt, _ outcome: PromptOutcome) {
    prompts.removeAll { $0.id == prompt.id }
    clinicalSheets.finished(prompt.id)
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
  func appDecisions(_ bundleID: String) -> [Permission: Decision] {
    var result: [Permission: Decision] = [:]
    for (key, decision) in decisions where key.bundleID == bundleID { result[key.permission] = decision }
    return result
  }

  /// Under the companion model, the decisions that changed since `before` go to the other device, stamped with
  /// this device's clock (behavior.md A18).
  mutating func shareIfCompanion(_ bundleID: String, before: [Permission: Decision], wall: Date)
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
}
