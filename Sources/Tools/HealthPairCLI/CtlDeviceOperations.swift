import Dispatch
import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import Render
import Wire

/// `ctl` operations on the device: its clock, policy, lock, link, state and events.
extension CtlCommand {
  /// `clock set <date> | clock advance <duration> | clock real`.
  func clock(_ args: inout Arguments, _ client: DeviceClient) throws {
    let how = try args.required("'set', 'advance' or 'real'")
    let now: Date
    switch how {
    case "set":
      let text = try args.required("date")
      guard let d = parseDate(text) else { throw args.error("invalid date '\(text)'") }
      try args.finish()
      now = try client.setClock(d)
    case "advance":
      let d = try duration(try args.required("duration"), args)
      try args.finish()
      now = try client.advanceClock(seconds: d)
    case "real":
      try args.finish()
      now = try client.setClock(nil)
    default: throw args.error("unknown clock operation '\(how)': expected set, advance or real")
    }
    out("\(device) clock: \(formatDate(now))\n")
  }

  /// `policy [--reprompt …] [--retention …] [--authorization …] [--settings …] [--units …] [--time-zone <zone>]`:
  /// changes the parts given, keeps the rest.
  func policy(_ args: inout Arguments, _ client: DeviceClient) throws {
    let current = try client.dump().device.policy
    var policy = current
    if let r = try args.option("reprompt") {
      guard let p = RepromptPolicy(rawValue: r) else {
        throw args.error("invalid re-prompt policy '\(r)': expected standard or strict")
      }
      policy.reprompt = p
    }
    if let r = try args.option("retention") { policy.retention = r == "none" ? nil : try duration(r, args) }
    if let a = try args.option("authorization") {
      guard let model = AuthorizationModel.allCases.first(where: { $0.description == a }) else {
        throw args.error("invalid authorization model '\(a)': expected independent or companion")
      }
      policy.authorization = model
    }
    if let w = try args.option("settings") {
      guard let model = WatchSettingsModel.allCases.first(where: { $0.description == w }) else {
        throw args.error("invalid watch settings model '\(w)': expected on-watch or iphone-only")
      }
      policy.watchSettings = model
    }
    if let u = try args.option("units") {
      guard let units = UnitLocale(name: u) else {
        throw args.error("invalid unit locale '\(u)': expected us, metric or uk")
      }
      policy.units = units
    }
    if let z = try args.option("time-zone") {
      do { policy.timeZone = try TimeZoneRule(identifier: z) } catch { throw args.error("\(error)") }
    }
    try args.finish()
    try client.setPolicy(policy)
    out(
      "policy: reprompt=\(policy.reprompt.rawValue) retention=\(policy.retention.map(formatDuration) ?? "none") "
        + "units=\(policy.units) time-zone=\(policy.timeZone)\n")
  }

  /// `lock` / `unlock` (the watch: taken off, put back on the wrist).
  func lock(_ args: inout Arguments, _ client: DeviceClient) throws {
    try args.finish()
    try client.setLocked(operation == "lock")
    out("\(device) \(operation == "lock" ? "locked: protected health data unavailable" : "unlocked")\n")
  }

  /// `link connect|disconnect|hold|release|status`, `link latency <duration>`: `connect` waits until the link is up
  /// (`--timeout`, else 10 s).
  func link(_ args: inout Arguments, _ client: DeviceClient) throws {
    let how = try args.required("link operation")
    let command: LinkCommand?
    switch how {
    case "connect": command = .connect
    case "disconnect": command = .disconnect
    case "hold": command = .hold
    case "release": command = .release
    case "latency": command = .latency(try duration(try args.required("duration"), args))
    case "status": command = nil
    default: throw args.error("unknown link operation '\(how)'")
    }
    try args.finish()
    var status: LinkStatus
    if let command { status = try client.link(command) } else { status = try client.dump().link }
    if command == .connect && !status.connected {
      // Wait until linked (both sides must allow the link), on pushed link events, with a deadline.
      let gate = DispatchSemaphore(value: 0)
      let token = client.addListener { event in if case .linkChanged = event { gate.signal() } }
      defer { client.removeListener(token) }
      try client.subscribe(.link)
      let seconds = timeout ?? 10
      let deadline = DispatchTime.now() + seconds
      while true {
        status = try client.link(.reconnectNow)
        if status.connected { break }
        if gate.wait(timeout: deadline) == .timedOut, !(try client.link(.reconnectNow)).connected {
          err(
            "error: the link did not come up within \(formatSeconds(seconds)): is the \(device.peer) running, and "
              + "its side of the link connected ('healthpair ctl \(device.peer) link connect')?\n")
          throw CtlFailure()
        }
      }
    }
    out(
      "link \(status.connected ? "up" : "down") enabled=\(status.enabled) holding=\(status.holding) latency=\(formatDuration(status.latency)) pending=\(status.sync.pendingItems)\n"
    )
  }

  /// `dump [--json]`: the full device state.
  func dump(_ args: inout Arguments, _ client: DeviceClient) throws {
    let json = args.flag("json")
    try args.finish()
    let snapshot = try client.dump()
    out(json ? snapshot.json.render() + "\n" : snapshot.describe().joined(separator: "\n") + "\n")
  }

  /// `events`: prints pushed events until the daemon closes the connection (or `--timeout` passes).
  func events(_ args: inout Arguments, _ client: DeviceClient) throws {
    try args.finish()
    _ = client.addListener { event in out("\(event)\n") }
    try client.subscribe(.all)
    let until = timeout.map { " for \(formatSeconds($0))" } ?? " (Ctrl-C to stop)"
    out("listening for events on the \(device)\(until)\n")
    if client.waitUntilClosed(timeout: timeout) { out("the \(device) daemon closed the connection\n") }
  }
}
