import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import ScenarioLanguage

/// Authorization checks: what an app's status calls return, how its requests and their sheets went, its last call,
/// the last Settings change.
extension RunContext {
  /// `<App> share <type> is <status>`: `authorizationStatus(for:)` as the app sees it.
  func checkShareStatus(
    _ devices: Devices, _ name: String, _ type: SampleType, _ expected: AuthorizationStatus, _ step: Step
  ) throws {
    for device in devices.list {
      let actual = try client(device).authorizationStatus(app(name).bundleID, type)
      if actual != expected {
        throw fail(step, "\(device): \(name) authorizationStatus(\(type)) = \(expected)", "\(actual)")
      }
    }
  }

  /// `<App> read <type> is authorized|denied|undecided`: the hidden read decision (nil: undecided).
  func checkHiddenRead(
    _ devices: Devices, _ name: String, _ type: SampleType, _ expected: Decision?, _ step: Step
  ) throws {
    for device in devices.list {
      let actual = try client(device).dump().device.app(app(name).bundleID)?.decision(Permission(type, .read))
      if actual != expected {
        throw fail(
          step, "\(device): \(name)'s hidden read decision for \(type) = \(expected?.description ?? "undecided")",
          actual?.description ?? "undecided")
      }
    }
  }

  /// `<App> request status [for] [share <types>] [read <types>] is <status>` / `would terminate the app [with "…"]`
  /// (nil lists: the types the app declares on the device asked).
  func checkRequestStatus(
    _ devices: Devices, _ name: String, share: [SampleType]?, read: [SampleType]?, _ expected: RequestStatusOutcome,
    _ step: Step
  ) throws {
    for device in devices.list {
      let declared = declared(name, on: device)
      let bundle = declared.bundleID
      let (share, read) = (share ?? declared.share, read ?? declared.read)
      let client = client(device)
      let result = attempt({ () throws(ClientError) in try client.requestStatus(bundle, share: share, read: read) })
      let met: Bool
      switch (expected, result) {
      case (.status(let status), .success(let actual)): met = actual == status
      case (.wouldTerminate(let fragments), .failure(let e)):
        met = e.healthError.map { $0.kind == .wouldTerminate && contains($0.message, fragments) } ?? false
      default: met = false
      }
      if met { continue }
      let wanted =
        switch expected {
        case .status(let status): "\(status)"
        case .wouldTerminate(let fragments): "would terminate the app" + fragments.map { " with \"\($0)\"" }.joined()
        }
      let actual: String
      switch result {
      case .success(let status): actual = "\(status)"
      case .failure(let e): actual = e.healthError.map { "an error: \($0)" } ?? "\(e)"
      }
      throw fail(step, "\(device): request status \(wanted)", actual)
    }
  }

  /// `<App>'s last call succeeded|failed …|would terminate the app …`, `<App>'s request is pending`.
  mutating func checkLastCall(_ device: DeviceKind, _ name: String, _ expected: CallExpectation, _ step: Step) throws {
    settle(device)
    guard let call = lastCall[key(device, name)] else {
      throw fail(step, "\(name) to have made a call on the \(device)", "no call yet")
    }
    // What the call ended with: pending, success, or an error (a request's success = false included).
    let ok: Bool
    switch (expected, call.ending) {
    case (.pending, .pending): ok = true
    case (.succeeded, .succeeded): ok = true
    case (.failed(let code, let fragments), .failed(let error)):
      ok =
        error.map { $0.kind == .healthKit && (code == nil || $0.code == code) && contains($0.message, fragments) }
        ?? (code == nil && fragments.isEmpty)
    case (.wouldTerminate(let fragments), .failed(let error?)):
      ok = error.kind == .wouldTerminate && contains(error.message, fragments)
    default: ok = false
    }
    if !ok { throw fail(step, "\(name)'s last call on the \(device) \(describe(expected))", call.outcome) }
  }

  /// `<App>'s request showed a sheet [listing <permission>…]` (nil listing: any sheet).
  func checkSheetShown(_ device: DeviceKind, _ name: String, _ listing: [Permission]?, _ step: Step) throws {
    guard case .request(_, let sheet)? = lastCall[key(device, name)] else {
      throw fail(step, "\(name)'s last request on the \(device) showed a sheet", "\(name) made no request")
    }
    guard let sheet else { throw fail(step, "\(name)'s request showed a sheet", "no sheet was shown") }
    if let listing, Set(listing) != Set(sheet.permissions) {
      throw fail(
        step, "a sheet listing \(listing.sorted().map(\.description).joined(separator: ", "))",
        "a sheet listing \(sheet.permissions.map(\.description).joined(separator: ", "))")
    }
  }

  /// `<App>'s request showed no sheet`.
  func checkNoSheet(_ device: DeviceKind, _ name: String, _ step: Step) throws {
    guard case .request(_, let sheet)? = lastCall[key(device, name)] else {
      throw fail(step, "\(name)'s last request on the \(device) showed no sheet", "\(name) made no request")
    }
    if let sheet {
      throw fail(step, "no sheet", "a sheet listing \(sheet.permissions.map(\.description).joined(separator: ", "))")
    }
  }

  /// `<n> sheets pending` / `no sheet pending`.
  func checkPendingSheets(_ device: DeviceKind, _ expected: Int, _ step: Step) throws {
    let prompts = try client(device).dump().device.pendingPrompts
    if prompts.count != expected {
      throw fail(
        step, "\(expected) sheet\(expected == 1 ? "" : "s") pending on the \(device)",
        "\(prompts.count)"
          + (prompts.isEmpty ? "" : ": " + prompts.map { "#\($0.id) \($0.bundleID)" }.joined(separator: ", ")))
    }
  }

  /// `<App> is locked out` / `<App> is not locked out`: the strict re-prompt model's lockout.
  func checkLockedOut(_ devices: Devices, _ name: String, _ expected: Bool, _ step: Step) throws {
    for device in devices.list {
      let actual = try client(device).dump().device.app(app(name).bundleID)?.lockedOut ?? false
      if actual != expected {
        throw fail(
          step, "\(name) \(expected ? "locked out" : "not locked out") on the \(device)",
          actual ? "locked out" : "not locked out")
      }
    }
  }

  /// `<App>'s requests showed <n> sheets, answered <n>, cancelled <n>, <n> presentations failed`: the counts the
  /// expectation names, from the trace so far.
  func checkSheetHistory(_ device: DeviceKind, _ name: String, _ counts: SheetCounts, _ step: Step) throws {
    let wanted = describe(counts, counts)
    let actual = describe(sheetCounts(device, name), counts)
    if wanted != actual { throw fail(step, "\(name)'s requests on the \(device): \(wanted)", actual) }
  }

  /// `the last settings change was refused|applied`.
  func checkSettingsRefused(_ device: DeviceKind, _ refused: Bool, _ step: Step) throws {
    guard let result = settingsResult[device] else {
      throw fail(step, "a Settings change on the \(device)", "none was made")
    }
    switch (refused, result) {
    case (true, .failure), (false, .success): break
    case (true, .success): throw fail(step, "the change to be refused", "it was applied")
    case (false, .failure(let e)): throw fail(step, "the change to be applied", "refused: \(e)")
    }
  }

  /// A last-call expectation as the report shows it.
  private func describe(_ expected: CallExpectation) -> String {
    func quoted(_ fragments: [String]) -> String {
      fragments.isEmpty ? "" : " with a message containing " + fragments.map { "\"\($0)\"" }.joined(separator: " and ")
    }
    switch expected {
    case .succeeded: return "succeeded with no error"
    case .failed(let code?, let fragments): return "failed with \(code) (\(code.rawValue))" + quoted(fragments)
    case .failed(nil, let fragments): return "failed" + quoted(fragments)
    case .wouldTerminate(let fragments): return "would terminate the app" + quoted(fragments)
    case .pending: return "pending (a sheet is up)"
    }
  }

  /// How the app's sheets on `device` went, from the trace so far.
  private func sheetCounts(_ device: DeviceKind, _ name: String) -> SheetCounts {
    var counts = SheetCounts()
    counts.shown = 0
    counts.answered = 0
    counts.cancelled = 0
    counts.failed = 0
    for entry in trace where entry.lane == Lane(device) {
      switch entry.kind {
      case .sheetShown(let app, _, _) where app == name: counts.shown! += 1
      case .sheetClosed(let app, _, let outcome) where app == name:
        if outcome.hasPrefix("answered") { counts.answered! += 1 }
        if outcome.hasPrefix("cancelled") { counts.cancelled! += 1 }
        if outcome.hasPrefix("failed to present") { counts.failed! += 1 }
      default: break
      }
    }
    return counts
  }

  /// The counts `like` asks about, as the report shows them.
  private func describe(_ counts: SheetCounts, _ like: SheetCounts) -> String {
    var parts: [String] = []
    if like.shown != nil { parts.append("showed \(counts.shown ?? 0) sheet\(counts.shown == 1 ? "" : "s")") }
    if like.answered != nil { parts.append("answered \(counts.answered ?? 0)") }
    if like.cancelled != nil { parts.append("cancelled \(counts.cancelled ?? 0)") }
    if like.failed != nil {
      parts.append("\(counts.failed ?? 0) presentation\(counts.failed == 1 ? "" : "s") failed")
    }
    return parts.joined(separator: ", ")
  }
}
