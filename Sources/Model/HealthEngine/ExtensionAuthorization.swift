import FoundationEssentials
import HealthModel

/// An app extension's `requestAuthorization(toShare:read:)` waiting for its containing app: the permissions it
/// asks for (as a prompt no one sees yet), and the containing app's sheet that presents it once the app calls
/// `handleAuthorizationForExtension`.
package struct ExtensionRequest: Hashable, Sendable {
  /// The request, its `bundleID` the containing app's: an extension is authorized as its app.
  package var prompt: Prompt
  /// The containing app's sheet that lists it (nil until the app handles it).
  package var sheet: UInt64?
  /// Whether it reads a clinical type: its success then checks the app's required types (A25).
  package var readsClinical = false
}

/// `DeviceState`: authorization requested by an app extension (behavior.md A23). An extension cannot present a
/// sheet: its request waits until the containing app calls `handleAuthorizationForExtension`, whose sheet lists
/// what the extension asked for; answering that sheet completes both calls. The extension reads and writes with its
/// containing app's permissions.
extension DeviceState {
  /// The most extension requests that may wait on a device at once (a dump lists them all).
  package static let maxExtensionRequests = 64

  /// An app extension of `bundleID` calls `requestAuthorization`: validated as the app's request; completes at once
  /// when nothing is undecided (or the app is locked out on a strict device), else waits for the app.
  /// - Throws: a simulator error on the watch (extensions there are not modelled), for an app not installed or past
  ///   ``maxExtensionRequests``; the termination errors of ``requestAuthorization(_:share:read:wall:)``.
  package mutating func requestAuthorizationFromExtension(
    _ bundleID: String, share: Set<SampleType>, read: Set<SampleType>, wall: Date
  ) throws(HealthError) -> RequestOutcome {
    guard device == .phone else {
      throw .simulator("app extensions are simulated on the iPhone; a watch app asks with its own sheet")
    }
    let app = try installedApp(bundleID)
    try validateRequest(app, share: share, read: read)
    let listed = undecided(bundleID, share: share, read: read)
    if listed.isEmpty || (policy.reprompt == .strict && lockedOut.contains(bundleID)) {
      return .completed(requiredTypesResult(bundleID, readsClinical: Self.readsClinical(read)))
    }
    guard extensionRequests.count < Self.maxExtensionRequests else {
      throw .simulator(
        "\(Self.maxExtensionRequests) extension requests already wait on the \(device): handle them first")
    }
    let prompt = Prompt(id: nextPromptID, bundleID: bundleID, permissions: listed, shownAt: now(wall: wall))
    nextPromptID += 1
    extensionRequests.append(ExtensionRequest(prompt: prompt, sheet: nil, readsClinical: Self.readsClinical(read)))
    return .prompt(prompt)
  }

  /// The containing app calls `handleAuthorizationForExtension`: a sheet listing what its waiting extension
  /// requests ask and is still undecided, on which the app's call waits; with nothing to ask it completes at once
  /// (success true), as do the waiting requests. On a locked iPhone the sheet cannot show: the call and the waiting
  /// requests complete as a dismissed sheet's (A17), the requests then wait no longer.
  /// - Returns: the call's outcome, and the extension requests it completed.
  /// - Throws: a simulator error on the watch (the method is unavailable on watchOS) or for an app not installed.
  package mutating func handleAuthorizationForExtension(_ bundleID: String, wall: Date) throws(HealthError)
    -> (outcome: RequestOutcome, completions: [PromptCompletion])
  {
    guard device == .phone else {
      throw .simulator("handleAuthorizationForExtension(completion:) is unavailable on watchOS")
    }
    _ = try installedApp(bundleID)
    var completions = completeDecidedExtensionRequests()
    let waiting = extensionRequests.filter { $0.prompt.bundleID == bundleID && $0.sheet == nil }
    let open = Set(waiting.flatMap(\.prompt.permissions)).filter {
      decisions[AuthorizationKey(bundleID, $0)] == nil
    }.sorted()
    if open.isEmpty || (policy.reprompt == .strict && lockedOut.contains(bundleID)) {
      return (.completed(.succeeded), completions + closeExtensionRequests(of: bundleID, sheet: nil, .succeeded))
    }
    if isLocked {
      let result = Self.dismissedResult(because: "the \(device) is locked")
      return (.completed(result), completions + closeExtensionRequests(of: bundleID, sheet: nil, result))
    }
    let prompt = Prompt(id: nextPromptID, bundleID: bundleID, permissions: open, shownAt: now(wall: wall))
    nextPromptID += 1
    prompts.append(prompt)
    promptHistory.append(PromptRecord(prompt: prompt, outcome: .pending))
    if promptHistory.count > 1000 { promptHistory.removeFirst(promptHistory.count - 1000) }
    for index in extensionRequests.indices
    where extensionRequests[index].prompt.bundleID == bundleID && extensionRequests[index].sheet == nil {
      extensionRequests[index].sheet = prompt.id
    }
    return (.prompt(prompt), completions)
  }

  /// After `sheet` closed with `result`: the extension requests it presented complete with the same result (a
  /// success checked against the required types unless `checkingRequiredTypes` is false), and every other waiting
  /// request with nothing left undecided completes with success.
  mutating func extensionCompletions(
    after sheet: Prompt, _ result: AuthorizationCallResult, checkingRequiredTypes: Bool = true
  ) -> [PromptCompletion] {
    closeExtensionRequests(of: sheet.bundleID, sheet: sheet.id, result, checked: checkingRequiredTypes)
      + completeDecidedExtensionRequests()
  }

  /// Withdraws the extension requests of `bundleID` (every app's when nil); returns their prompts.
  mutating func withdrawExtensionRequests(of bundleID: String?) -> [Prompt] {
    let withdrawn = extensionRequests.filter { bundleID == nil || $0.prompt.bundleID == bundleID }.map(\.prompt)
    extensionRequests.removeAll { bundleID == nil || $0.prompt.bundleID == bundleID }
    return withdrawn
  }

  /// Completes the waiting requests of `bundleID` listed on `sheet` (nil: not yet presented) with `result` (a success
  /// checked against the app's required types for a request reading clinical types, A25).
  private mutating func closeExtensionRequests(
    of bundleID: String, sheet: UInt64?, _ result: AuthorizationCallResult, checked: Bool = true
  ) -> [PromptCompletion] {
    let closing = extensionRequests.filter { $0.prompt.bundleID == bundleID && $0.sheet == sheet }
    extensionRequests.removeAll { $0.prompt.bundleID == bundleID && $0.sheet == sheet }
    return closing.map { request in
      PromptCompletion(
        prompt: request.prompt,
        result: result.success && checked ? requiredTypesResult(bundleID, readsClinical: request.readsClinical) : result
      )
    }
  }

  /// Completes, with success (or `errorRequiredAuthorizationDenied`, A25), the waiting requests whose permissions are
  /// all decided by now (by another sheet, or in Settings), whose app is locked out on a strict device, or whose
  /// sheet is no longer up (it closed answered).
  private mutating func completeDecidedExtensionRequests() -> [PromptCompletion] {
    let decided = extensionRequests.filter { request in
      let bundleID = request.prompt.bundleID
      return request.prompt.permissions.allSatisfy { decisions[AuthorizationKey(bundleID, $0)] != nil }
        || (policy.reprompt == .strict && lockedOut.contains(bundleID))
        || request.sheet.map { sheet in !prompts.contains { $0.id == sheet } } ?? false
    }
    extensionRequests.removeAll { decided.contains($0) }
    return decided.map { request in
      PromptCompletion(
        prompt: request.prompt,
        result: requiredTypesResult(request.prompt.bundleID, readsClinical: request.readsClinical))
    }
  }
}
