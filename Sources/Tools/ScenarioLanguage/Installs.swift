import HealthModel

// Installs are static facts of a scenario: which app is installed on which device at each line follows from the
// `install` and `uninstall` steps above it (includes, `for` blocks and outline rows expanded in place). A step or an
// expectation that calls the daemon as an app on a device where it is not installed at that point can only be
// refused at run time, so it is an error of the file, reported at the app's name before anything runs.

extension ParseState {
  /// The error for `app` used on `devices` at the current line: nil when it is installed on each of them.
  func notInstalled(_ app: String, on devices: [DeviceKind]) -> ScenarioError? {
    let on = installed[app, default: []]
    guard let missing = devices.first(where: { !on.contains($0) }) else { return nil }
    return .appNotInstalled(
      app, device: missing, installedOn: DeviceKind.allCases.filter(on.contains),
      uninstalledAt: uninstalled[app]?[missing])
  }

  /// Records `install <app> on <devices>`.
  mutating func recordInstall(_ app: String, on devices: [DeviceKind]) {
    installed[app, default: []].formUnion(devices)
  }

  /// Records `uninstall <app> from <devices>` at `location`.
  mutating func recordUninstall(_ app: String, from devices: [DeviceKind], at location: SourceLocation) {
    for device in devices {
      installed[app]?.remove(device)
      uninstalled[app, default: [:]][device] = location
    }
  }

  /// Throws at the expectation's app name when the expectation queries the daemon as an app on a device it is not
  /// installed on there (such a query is refused as a misuse of the simulator, so it could never pass).
  func checkInstalled(_ expectation: Expectation, _ line: SourceLine) throws(Diagnostic) {
    let callers = Self.callers(of: expectation)
    guard !callers.isEmpty else { return }
    for (device, app) in callers {
      guard let error = notInstalled(app, on: [device]) else { continue }
      let colon = line.tokens.firstIndex { $0.text == ":" } ?? 0
      let token = line.tokens.indices.contains(colon + 1) ? line.tokens[colon + 1] : line.tokens[0]
      throw diagnostic(error, line, column: token.column, length: token.length)
    }
  }

  /// The (device, app) pairs an expectation queries the daemon as: the app calls a HealthKit API on that device.
  /// Expectations about what the runner recorded (last call, sheets shown, Settings changes) or about the raw
  /// store name no caller; neither do the sources a query filters by (`from <App>`), which may be uninstalled.
  static func callers(of expectation: Expectation) -> [(DeviceKind, String)] {
    switch expectation {
    case .shareStatus(let devices, let app, _, _), .requestStatus(let devices, let app, _, _, _),
      .seesTotal(let devices, let app, _, _, _, _):
      return devices.list.map { ($0, app) }
    case .seesCount(let devices, let spec, _), .seesCorrelations(let devices, let spec, _, _):
      return devices.list.map { ($0, spec.app) }
    case .seesWorkouts(let devices, let spec, _): return devices.list.map { ($0, spec.query.app) }
    case .seesHeartbeatSeries(let devices, let spec, _, _), .seesRoutes(let devices, let spec, _, _),
      .seesElectrocardiograms(let devices, let spec, _, _), .seesAudiograms(let devices, let spec, _, _),
      .seesStatesOfMind(let devices, let spec, _, _), .seesAssessments(let devices, let spec, _, _),
      .seesDocuments(let devices, let spec, _, _),
      .seesClinicalRecords(let devices, let spec, _, _),
      .seesPrescriptions(let devices, let spec, _), .seesDoses(let devices, let spec, _, _):
      return devices.list.map { ($0, spec.app) }
    case .activitySummary(let devices, let app, _, _), .seesMedications(let devices, let app, _, _):
      return devices.list.map { ($0, app) }
    case .workout(let device, let app, _, _), .activitySummaryQuery(let device, let app, _, _),
      .session(let device, let app, _, _), .recovers(let device, let app, _):
      return [(device, app)]
    case .seesSamples(let device, let spec, _), .sampleQuery(let device, let spec, _):
      return [(device, spec.app)]
    case .statistic(let device, let spec, _): return [(device, spec.app)]
    case .collection(let device, let spec, _): return [(device, spec.app)]
    case .changes(let device, let app, _, _, _), .queriesFail(let device, let app, _, _),
      .characteristic(let device, let app, _, _), .preferredUnit(let device, let app, _, _),
      .preferredUnitsFail(let device, let app, _, _):
      return [(device, app)]
    case .onBoth(let phone, let watch): return callers(of: phone) + callers(of: watch)
    default: return []
    }
  }
}

extension Cursor {
  /// An app name (as ``app(possessive:)``) that must be installed on each of `devices` at this line.
  mutating func app(installedOn devices: [DeviceKind]) throws(Diagnostic) -> AppDeclaration {
    let token = peek
    let app = try app()
    if let error = state.notInstalled(app.name, on: devices) { throw self.error(error, at: token) }
    return app
  }
}
