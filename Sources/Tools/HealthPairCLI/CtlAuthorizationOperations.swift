import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import Posix
import Render
import Wire

/// `ctl` operations on apps and their authorization: install, uninstall, request and answer, the status calls,
/// Settings and the Watch app.
extension CtlCommand {
  /// `install <app> [--name <name>] [--write-usage <text>] [--read-usage <text>] [--health-records-usage <text>]
  /// [--required-type <identifier>]… [--entitlement <e>]…`.
  func install(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    var entitlements: Set<Entitlement> = []
    for name in try args.options("entitlement") {
      guard let entitlement = Entitlement(name: name) else {
        throw args.error("unknown entitlement '\(name)': expected background-delivery or health-records")
      }
      entitlements.insert(entitlement)
    }
    let app = AppRecord(
      bundleID: bundle, displayName: try args.option("name") ?? bundle,
      writeUsageDescription: try args.option("write-usage"),
      readUsageDescription: try args.option("read-usage"), entitlements: entitlements,
      healthRecords: HealthRecordsInfo(
        usageDescription: try args.option("health-records-usage"), requiredTypes: try args.options("required-type")))
    try args.finish()
    try client.installApp(app)
    out("installed \(bundle) on the \(device)\n")
  }

  /// `uninstall <app>`.
  func uninstall(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    try args.finish()
    try client.uninstallApp(bundle)
    out("uninstalled \(bundle) from the \(device)\n")
  }

  /// `request <app> [--share <t,t>] [--read <t,t>] [--no-wait]`: prints the sheet if one is presented, then waits
  /// for the user's answer (`--timeout`, else ``defaultAnswerTimeout``).
  func request(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    let share = try types(try args.option("share"), args)
    let read = try types(try args.option("read"), args)
    let noWait = args.flag("no-wait")
    try args.finish()
    let request = try client.beginAuthorization(bundle, share: share, read: read)
    switch try request.waitFirst(timeout: client.timeout) {
    case .final(let result):
      out("completed without a sheet: \(describeAuthorization(result))\n")
      // Say why when it is the watch's lockout rather than decisions already made (W1).
      if let app = try client.dump().device.app(bundle), app.lockedOut {
        out(
          "note: no sheet because the \(device)'s strict re-prompt model locked \(bundle) out after a denial or "
            + "cancel; change its permissions in Settings or the iPhone's Watch app to ask again\n")
      }
    case .sheet(let prompt):
      // A Health Records sheet comes first when the request mixes clinical and other types (A26): it is presented
      // just before, so its identifier is the one before.
      if let ahead = try client.dump().device.pendingPrompts.first(where: {
        $0.bundleID == bundle && $0.id + 1 == prompt.id && $0.isHealthRecordsSheet
      }) {
        out(
          "Health Records sheet presented (#\(ahead.id)) listing "
            + "\(ahead.permissions.map(\.description).joined(separator: ", ")); answer it first\n")
      }
      out(
        "sheet presented (#\(prompt.id)) listing \(prompt.permissions.map(\.description).joined(separator: ", "))\n")
      if noWait { return }
      out("waiting for the user (healthpair ctl \(device) answer allow|deny|cancel|fail)…\n")
      let seconds = timeout ?? Self.defaultAnswerTimeout
      switch catching({ () throws(ClientError) in try request.wait(timeout: seconds) }) {
      case .success(let final): out("completed: \(describeAuthorization(final))\n")
      case .failure(.timeout):
        err(
          "error: nobody answered the sheet within \(formatSeconds(seconds)); it is still up — answer it with "
            + "'healthpair ctl \(device) answer allow|deny|cancel|fail', or wait longer with --timeout <seconds>\n")
        throw CtlFailure()
      case .failure(let error): throw error
      }
    }
  }

  /// `answer <allow|deny|cancel|leave|fail|fail-silently> [--app <app>] [--prompt <id>]`, `answer choose --on …`.
  func answer(_ args: inout Arguments, _ client: DeviceClient) throws {
    let how = try args.required("answer")
    let bundle = try args.option("app")
    let prompt = try args.intOption("prompt", range: 1...Int(Int32.max)).map { UInt64($0) }
    let answer: PromptAnswer
    switch how {
    case "allow": answer = .allowAll
    case "deny": answer = .denyAll
    case "cancel": answer = .cancel
    case "fail": answer = .failToPresent(.error)
    case "fail-silently": answer = .failToPresent(.silent)
    case "leave": answer = .leaveApp
    case "choose":
      var choices: [Permission: Bool] = [:]
      for (flag, on) in [("on", true), ("off", false)] {
        for list in try args.options(flag) {
          for item in list.split(separator: ",") {
            let parts = item.split(separator: ":")
            guard parts.count == 2,
              let direction = parts[0] == "share" ? Direction.share : parts[0] == "read" ? .read : nil
            else {
              throw args.error("invalid choice '\(item)': expected share:<type> or read:<type>")
            }
            choices[Permission(try type(String(parts[1]), args), direction)] = on
          }
        }
      }
      answer = .choices(choices)
    default: throw args.error("unknown answer '\(how)': expected allow, deny, cancel, fail, fail-silently or choose")
    }
    try args.finish()
    try client.answerPrompt(answer, promptID: prompt, bundleID: bundle)
    out("answered\n")
  }

  /// `status <app> <type>`: `authorizationStatus(for:)`.
  func status(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    let t = try type(try args.required("type"), args)
    try args.finish()
    let status = try client.authorizationStatus(bundle, t)
    out("\(status) (\(status.rawValue))\n")
  }

  /// `request-status <app> [--share <t,t>] [--read <t,t>]`.
  func requestStatus(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    let share = try types(try args.option("share"), args)
    let read = try types(try args.option("read"), args)
    try args.finish()
    let status = try client.requestStatus(bundle, share: share, read: read)
    out("\(status) (\(status.rawValue))\n")
  }

  /// `settings <app> …` (phone: Settings → Privacy → Health), `watch-settings <app> …` (the iPhone's Watch app, for
  /// the watch).
  func changeSettings(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.required("app")
    let change = try settingsChange(&args)
    try args.finish()
    if operation == "settings" {
      try client.changeSettings(bundle, change)
    } else {
      try client.watchSettings(bundle, change)
    }
    out(operation == "settings" ? "changed\n" : "queued for the watch\n")
  }

  /// The change a `settings` or `watch-settings` line names: `share|read <type> on|off`, `all-off`, `reset`.
  func settingsChange(_ args: inout Arguments) throws(UsageError) -> SettingsChange {
    let first = try args.required("'share', 'read', 'all-off' or 'reset'")
    switch first {
    case "all-off": return .turnAllOff
    case "reset": return .reset
    case "share", "read":
      let t = try type(try args.required("type"), args)
      let state = try args.required("'on' or 'off'")
      guard state == "on" || state == "off" else { throw args.error("expected 'on' or 'off', got '\(state)'") }
      return .set(Permission(t, first == "share" ? .share : .read), on: state == "on")
    default: throw args.error("unknown settings change '\(first)': expected share, read, all-off or reset")
    }
  }

  /// A request's result as `ctl` prints it.
  func describeAuthorization(_ result: AuthorizationCallResult) -> String {
    "success=\(result.success)" + (result.error.map { " error=\($0)" } ?? "")
  }
}
