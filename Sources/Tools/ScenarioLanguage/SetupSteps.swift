import HealthEngine
import HealthModel

/// Set-up: `install`, `uninstall`, `lock` / `unlock`.
extension ParseState {
  /// `install <App> [as <bundle>] on <devices> [share <types>] [read <types>] [without … description] [with …]
  /// [requiring <clinical types>]`.
  mutating func parseInstall(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    let nameToken = try c.word("an app name")
    guard !nameToken.text.hasSuffix(":") else {
      throw c.error(.expected("an app name", found: nameToken.text), at: nameToken)
    }
    var bundle = "com.example." + nameToken.text.lowercased().split(separator: " ").joined(separator: "-")
    if c.take("as") { bundle = try c.word("a bundle identifier").text }
    var app = AppDeclaration(
      name: nameToken.text, bundleID: bundle, share: [], read: [], hasWriteDescription: true, hasReadDescription: true)
    if let existing = apps[app.name], existing.bundleID != app.bundleID {
      throw c.error(.conflictingApp(app.name), at: nameToken)
    }
    // Declared as soon as it is named, so an error in the rest of the line (its devices, a clause) does not cascade
    // into every later line that uses the app.
    if apps[app.name] == nil { apps[app.name] = app }
    try c.expect("on")
    // Installed everywhere while its devices are read, so an error there does not cascade into later lines.
    let before = installed[app.name, default: []]
    recordInstall(app.name, on: DeviceKind.allCases)
    let devices = try c.devices()
    installed[app.name] = before
    recordInstall(app.name, on: devices.list)
    while let t = c.peek {
      let clauses: Set<String> = ["share", "read", "without", "with", "requiring"]
      if c.take("share") || c.take("writes") {
        app.share = try c.types(stoppingAt: clauses)
      } else if c.take("read") || c.take("reads") {
        app.read = try c.types(stoppingAt: clauses)
      } else if c.take("requiring") {
        app.requiredTypes = try c.types(stoppingAt: clauses).map(\.identifier)
      } else if c.take("without") {
        if c.take("health", "records") {
          try c.expect("description")
          app.hasHealthRecordsDescription = false
          continue
        }
        let direction = try c.direction()
        try c.expect("description")
        if direction == .share { app.hasWriteDescription = false } else { app.hasReadDescription = false }
      } else if c.take("with") {
        repeat {
          if c.take("background", "delivery") || c.take("background-delivery") {
            app.entitlements.insert(.backgroundDelivery)
          } else if c.take("health", "records") || c.take("health-records") {
            app.entitlements.insert(.healthRecords)
          } else {
            throw c.error(.expected("'background delivery' or 'health records'", found: c.peek?.text))
          }
        } while c.take("and")
      } else {
        throw c.error(.expected("'share', 'read', 'without', 'with' or 'requiring'", found: t.text), at: t)
      }
    }
    apps[app.name] = app
    return .install(app, devices)
  }

  /// `uninstall <App> from <devices>`: an error when the app is not installed there.
  mutating func parseUninstall(_ c: inout Cursor, _ step: StepLine) throws(Diagnostic) -> StepKind {
    let appToken = c.peek
    let app = try c.app()
    try c.expect("from")
    let devices = try c.devices()
    try c.finish()
    if let e = notInstalled(app.name, on: devices.list) { throw c.error(e, at: appToken) }
    recordUninstall(app.name, from: devices.list, at: step.location)
    return .uninstall(app: app.name, devices)
  }

  /// `lock <devices>` / `unlock <devices>`: the device locks (the watch: off the wrist) and protected health data
  /// becomes unavailable until it unlocks (behavior.md L1).
  func parseLock(_ c: inout Cursor, _ step: StepLine) throws(Diagnostic) -> StepKind {
    let devices = try c.devices()
    try c.finish()
    return .lock(devices, locked: step.first.keyword == "lock")
  }
}
