import Foundation
import HealthEngine
import HealthExport
import HealthKitSim
import HealthModel
import HealthPairClient
import PairProcesses
import Wire

/// One device of a ``HealthPair``: install apps, bind HealthKitSim to it, play its user, change its settings,
/// move its clock, and look inside it (including what apps never see).
public final class HealthDevice: Sendable {
  /// Which device this is.
  public let kind: HealthDeviceKind
  let pair: Pair
  let waiter: EventWaiter
  let watchdog: SheetWatchdog
  /// The default deadline of waits, in seconds.
  let timeout: Double

  init(_ kind: HealthDeviceKind, pair: Pair, waiter: EventWaiter, watchdog: SheetWatchdog, timeout: Double) {
    self.kind = kind
    self.pair = pair
    self.waiter = waiter
    self.watchdog = watchdog
    self.timeout = timeout
  }

  /// The device's control connection (the current one, after a restart).
  var client: DeviceClient { pair.client(kind.simulated) }

  /// Runs a control operation, mapping its errors.
  @discardableResult
  func control<T>(_ operation: String, _ body: (DeviceClient) throws -> T) throws(HealthPairTestingError) -> T {
    do { return try body(client) } catch { throw .from(error, device: kind, operation: operation) }
  }

  /// The daemon's client socket, for ``HealthKitSim/Target``.
  public var socketPath: String { pair.layout.socket(kind.simulated) }

  // MARK: - Apps

  /// Installs an app with its Info.plist usage descriptions: `writeUsage` is `NSHealthUpdateUsageDescription`
  /// (needed to request share permission), `readUsage` is `NSHealthShareUsageDescription` (needed to request read
  /// of any type but the clinical ones), `healthRecordsUsage` is `NSHealthClinicalHealthRecordsShareUsageDescription`
  /// (needed to request read of a clinical type) and `requiredHealthRecordTypes` is
  /// `NSHealthRequiredReadAuthorizationTypeIdentifiers` as written in the Info.plist (clinical type identifiers,
  /// at least three, or none) — and the HealthKit entitlements it is signed with (background delivery, health
  /// records).
  /// - Throws: ``HealthPairTestingError``.
  public func install(
    app bundleIdentifier: String, name: String? = nil, writeUsage: String? = nil, readUsage: String? = nil,
    healthRecordsUsage: String? = nil, requiredHealthRecordTypes: [String] = [],
    entitlements: Set<HealthEntitlement> = []
  )
    throws(HealthPairTestingError)
  {
    let record = AppRecord(
      bundleID: bundleIdentifier, displayName: name ?? bundleIdentifier, writeUsageDescription: writeUsage,
      readUsageDescription: readUsage, entitlements: Set(entitlements.map(\.simulated)),
      healthRecords: HealthRecordsInfo(usageDescription: healthRecordsUsage, requiredTypes: requiredHealthRecordTypes))
    try control("install(app: \(bundleIdentifier))") { try $0.installApp(record) }
    AuthorizationRequestLog.shared.forget(socketPath: socketPath, bundleID: bundleIdentifier)
  }

  /// Uninstalls an app: its authorization on this device is forgotten; its samples stay.
  /// - Throws: ``HealthPairTestingError``.
  public func uninstall(app bundleIdentifier: String) throws(HealthPairTestingError) {
    try control("uninstall(app: \(bundleIdentifier))") { try $0.uninstallApp(bundleIdentifier) }
    AuthorizationRequestLog.shared.forget(socketPath: socketPath, bundleID: bundleIdentifier)
  }

  // MARK: - Binding HealthKitSim

  /// The HealthKitSim target for `app` on this device.
  public func target(app bundleIdentifier: String) -> HealthKitSim.Target {
    HealthKitSim.Target(socketPath: socketPath, bundleIdentifier: bundleIdentifier)
  }

  /// Runs `body` with every `HKHealthStore` call inside it (this task and its child tasks) made by `app` on this
  /// device. Parallel tests stay apart.
  @discardableResult
  public func use<R>(app bundleIdentifier: String, _ body: () throws -> R) rethrows -> R {
    try HealthKitSim.withTarget(target(app: bundleIdentifier), operation: body)
  }

  /// Awaits `body` with every `HKHealthStore` call inside it (this task and its child tasks) made by `app` on this
  /// device; `body` keeps the caller's actor. Parallel tests stay apart.
  @discardableResult
  public func use<R>(
    app bundleIdentifier: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
  ) async rethrows -> R {
    try await HealthKitSim.withTarget(target(app: bundleIdentifier), isolation: isolation, operation: body)
  }

  /// Awaits `body` with every `HKHealthStore` call inside it made by the app extension `extensionIdentifier` of
  /// `app` (installed on this device): it reads and saves with the app's permissions, and its
  /// `requestAuthorization` waits until the app calls `handleAuthorizationForExtension` (behavior.md A23).
  @discardableResult
  public func use<R>(
    extension extensionIdentifier: String, of bundleIdentifier: String, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> R
  ) async rethrows -> R {
    let target = HealthKitSim.Target(
      socketPath: socketPath, bundleIdentifier: bundleIdentifier, extensionIdentifier: extensionIdentifier)
    return try await HealthKitSim.withTarget(target, isolation: isolation, operation: body)
  }

  /// Points HealthKitSim's process-wide target at `app` on this device (for code that runs outside the test's task,
  /// such as threads the app starts). Cleared when the pair shuts down. Not for tests that run in parallel.
  public func useGlobally(app bundleIdentifier: String) {
    HealthKitSim.configure(target(app: bundleIdentifier))
  }

  // MARK: - The user

  /// The person holding this device: answers permission sheets.
  public var user: SimulatedUser { SimulatedUser(device: self) }

  /// The permission settings of this device's apps: Settings → Privacy → Health on the iPhone; for the watch, the
  /// iPhone's Watch app (My Watch → Privacy → Health), whose changes reach the watch over the link.
  public var settings: HealthSettings { HealthSettings(device: self) }

  /// The Health app on this device: the user's health details (characteristics) and preferred units.
  public var healthApp: HealthApp { HealthApp(device: self) }

  // MARK: - Device lock

  /// Locks the device — for the watch, takes it off the wrist (docs/behavior.md L1–L6). Until ``unlock()``, apps'
  /// queries, deletions, characteristic reads and `preferredUnits(for:)` fail with `HKError.errorDatabaseInaccessible`;
  /// saves succeed but wait in the device's locked journal; observer queries hold their deliveries; a sheet that is
  /// up is dismissed (its request completes with `errorAuthorizationNotDetermined`). Locking a locked device does
  /// nothing.
  /// - Throws: ``HealthPairTestingError``.
  public func lock() throws(HealthPairTestingError) {
    try control("lock") { try $0.setLocked(true) }
  }

  /// Unlocks the device — for the watch, puts it back on the wrist: saves made while locked merge into the store
  /// (and then sync), and observer queries get the deliveries they were owed.
  /// - Throws: ``HealthPairTestingError``.
  public func unlock() throws(HealthPairTestingError) {
    try control("unlock") { try $0.setLocked(false) }
  }

  /// Whether the device is locked.
  /// - Throws: ``HealthPairTestingError``.
  public func isLocked() throws(HealthPairTestingError) -> Bool {
    try control("isLocked") { try $0.dump().device.locked }
  }

  // MARK: - Clock and policy

  /// Sets the device's virtual clock.
  /// - Throws: ``HealthPairTestingError``.
  public func setClock(_ date: Date) throws(HealthPairTestingError) {
    try control("setClock") { try $0.setClock(date) }
  }

  /// Moves the device's virtual clock forward (from the real time if it was not set).
  /// - Throws: ``HealthPairTestingError``.
  public func advanceClock(by seconds: TimeInterval) throws(HealthPairTestingError) {
    try control("advanceClock") { try $0.advanceClock(seconds: seconds) }
  }

  /// The device's current time (virtual or real).
  /// - Throws: ``HealthPairTestingError``.
  public func now() throws(HealthPairTestingError) -> Date {
    try control("now") { try $0.dump().device.now }
  }

  /// Shares an app's decisions with the other device (`companion`, behavior.md A18) or keeps them here
  /// (`independent`, the default). Set it on both devices: decisions travel only between companion devices.
  public func setAuthorizationModel(companion: Bool) throws(HealthPairTestingError) {
    try control("setPolicy") { client in
      var policy = try client.dump().device.policy
      policy.authorization = companion ? .companion : .independent
      try client.setPolicy(policy)
    }
  }

  /// Chooses the locale model behind `preferredUnits(for:)`'s defaults (`us` unless set).
  /// - Throws: ``HealthPairTestingError``.
  public func setUnitLocale(_ locale: HealthUnitLocale) throws(HealthPairTestingError) {
    try control("setPolicy") { client in
      var policy = try client.dump().device.policy
      policy.units = locale.simulated
      try client.setPolicy(policy)
    }
  }

  /// Replaces the device's re-prompt policy and retention window (nil keeps every sample); the rest of its
  /// policy (authorization model, unit locale, time zone, source orders) stays.
  /// - Throws: ``HealthPairTestingError``.
  public func setPolicy(reprompt: RepromptPolicy, retention: TimeInterval?) throws(HealthPairTestingError) {
    try control("setPolicy") { client in
      var policy = try client.dump().device.policy
      policy.reprompt = reprompt.simulated
      policy.retention = retention
      try client.setPolicy(policy)
    }
  }

  // MARK: - Time zone

  /// Sets the device's time zone — what its local days, "today" and statistics collections' calendar intervals
  /// follow (behavior.md K1): `UTC`, a fixed offset such as `UTC+05:30`, or a named zone such as `Europe/Paris`
  /// (HealthPair's table, docs/behavior.md K1). A device travels by changing it; ``HealthPair/setTimeZone(_:)``
  /// sets both, as a paired watch follows its iPhone.
  /// - Throws: ``HealthPairTestingError/deviceRefused(device:operation:reason:)`` for a zone HealthPair does not
  ///   know (naming the nearest).
  public func setTimeZone(_ identifier: String) throws(HealthPairTestingError) {
    let zone: TimeZoneRule
    do { zone = try TimeZoneRule(identifier: identifier) } catch {
      throw .deviceRefused(device: kind, operation: "setTimeZone(\(identifier))", reason: error.description)
    }
    try control("setTimeZone(\(identifier))") { try $0.setTimeZone(zone) }
  }

  /// The device's time zone identifier (`UTC` until set).
  /// - Throws: ``HealthPairTestingError``.
  public func timeZoneIdentifier() throws(HealthPairTestingError) -> String {
    try control("timeZone") { try $0.dump().device.policy.timeZone.identifier }
  }

  /// A Gregorian `Calendar` in the device's time zone, for a test's own "today" and day arithmetic (the app's
  /// `Calendar.current` is the test process's). Foundation's time-zone database backs it; the device computes with
  /// HealthPair's fixed rules, which agree for today's dates.
  /// - Throws: ``HealthPairTestingError``.
  public func calendar() throws(HealthPairTestingError) -> Calendar {
    let zone = try control("calendar") { try $0.dump().device.policy.timeZone }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone =
      TimeZone(identifier: zone.identifier) ?? TimeZone(secondsFromGMT: zone.standardOffset) ?? TimeZone(
        secondsFromGMT: 0)!
    return calendar
  }

  // MARK: - Inspection

  private func app(_ bundleIdentifier: String, _ operation: String) throws(HealthPairTestingError)
    -> DeviceSnapshot.AppState?
  {
    try control(operation) { try $0.dump().device.app(bundleIdentifier) }
  }

  private func permission(_ type: HKObjectType, _ direction: Direction) throws(HealthPairTestingError) -> Permission {
    do { return Permission(try type.simulatedType(), direction) } catch { throw .unsupportedType(type.identifier) }
  }

  /// The user's recorded choice for `app` to save `type`.
  /// - Throws: ``HealthPairTestingError``.
  public func decision(app bundleIdentifier: String, share type: HKObjectType) throws(HealthPairTestingError)
    -> PermissionDecision
  {
    let permission = try permission(type, .share)
    return PermissionDecision(try app(bundleIdentifier, "decision")?.decision(permission))
  }

  /// The user's recorded choice for `app` to read `type`: the decision HealthKit hides from the app.
  /// - Throws: ``HealthPairTestingError``.
  public func decision(app bundleIdentifier: String, read type: HKObjectType) throws(HealthPairTestingError)
    -> PermissionDecision
  {
    let permission = try permission(type, .read)
    return PermissionDecision(try app(bundleIdentifier, "decision")?.decision(permission))
  }

  /// Whether the strict re-prompt policy (the watch's) keeps `app` from presenting sheets.
  /// - Throws: ``HealthPairTestingError``.
  public func isLockedOut(app bundleIdentifier: String) throws(HealthPairTestingError) -> Bool {
    try app(bundleIdentifier, "isLockedOut")?.lockedOut ?? false
  }

  /// The sheets presented on this device since its daemon started (optionally for one app), oldest first.
  /// - Throws: ``HealthPairTestingError``.
  public func sheets(app bundleIdentifier: String? = nil) throws(HealthPairTestingError) -> [PermissionSheet] {
    try control("sheets") { client in
      try client.dump().device.promptHistory
        .filter { bundleIdentifier == nil || $0.prompt.bundleID == bundleIdentifier }
        .map { PermissionSheet($0.prompt, outcome: $0.outcome) }
    }
  }

  /// Every sample stored on the device (optionally of one type), whoever saved it and whatever any app may read:
  /// what the Health app shows. Sorted by start date.
  /// - Throws: ``HealthPairTestingError``.
  public func storedSamples(of type: HKSampleType? = nil) throws(HealthPairTestingError) -> [HKSample] {
    let simulated: SampleType?
    do { simulated = try type?.simulatedType() } catch { throw .unsupportedType(type?.identifier ?? "") }
    return try control("storedSamples") { HKSample.make(try $0.storedSamples(type: simulated).samples) }
  }

  /// How many samples the device stores (optionally of one type), whoever saved them.
  /// - Throws: ``HealthPairTestingError``.
  public func sampleCount(of type: HKSampleType? = nil) throws(HealthPairTestingError) -> Int {
    let simulated: SampleType?
    do { simulated = try type?.simulatedType() } catch { throw .unsupportedType(type?.identifier ?? "") }
    let counts = try control("sampleCount") { try $0.dump().device.sampleCounts }
    return simulated.map { counts[$0] ?? 0 } ?? counts.values.reduce(0, +)
  }

  /// The device's `earliestPermittedSampleDate()`.
  /// - Throws: ``HealthPairTestingError``.
  public func earliestPermittedSampleDate() throws(HealthPairTestingError) -> Date {
    try control("earliestPermittedSampleDate") { try $0.earliestPermittedSampleDate() }
  }

  // MARK: - Apple Health exports

  /// Imports an Apple Health export (`export.zip` or `export.xml`) into this device, all or nothing: every `Record`
  /// of a type HealthKitSim simulates becomes a stored sample with its source (name, version, device), dates, value
  /// and metadata; Apple's sources are marked as such; each `Audiogram` becomes a stored audiogram with its
  /// sensitivity points; each electrocardiogram CSV file under `electrocardiograms/` becomes a stored recording (one
  /// already stored, by identifier or by start and voltages, is left out). Imported
  /// into the phone, the watch receives what sync and its retention window give it. `sources` gives export source
  /// names a bundle identifier (so `app` finds its own history: `["MyFitnessPal": "com.example.app"]`). See
  /// docs/import-export.md.
  /// - Throws: ``HealthPairTestingError/importFailed(device:reason:)`` with the located error; the store is unchanged.
  @discardableResult
  public func importHealthExport(at path: String, sources: [String: String] = [:]) throws(HealthPairTestingError)
    -> HealthExportImport
  {
    var options = ExportImportOptions()
    options.mapping = SourceMapping(overrides: sources)
    options.timeout = max(timeout, 60)
    do {
      return HealthExportImport(try HealthExportFiles.importExport(path: path, into: client, options: options))
    } catch {
      throw .importFailed(device: kind, reason: "\(error)")
    }
  }

  /// Writes this device's samples as an Apple Health export at `path` (`export.xml`, or a zip archive holding
  /// `apple_health_export/export.xml` when the name ends in `.zip`) — its audiograms as `Audiogram` elements in it —
  /// with its workouts' routes under
  /// `workout-routes/` and one CSV file per electrocardiogram under `electrocardiograms/`, beside export.xml or in
  /// the archive; returns how many records export.xml holds.
  /// - Throws: ``HealthPairTestingError``.
  @discardableResult
  public func exportHealthData(to path: String) throws(HealthPairTestingError) -> Int {
    try control("exportHealthData") { try HealthExportFiles.exportStore(from: $0, to: path) }
  }

  // MARK: - Lifecycle

  /// Kills the device's daemon with SIGKILL (no chance to flush), as a crash would.
  public func kill() {
    pair.kill(kind.simulated)
    // HealthKitSim's connections to the dead daemon are dropped now rather than when their reader threads notice.
    Connections.shared.forget(socketPath)
  }

  /// Restarts the device's daemon and waits for the link; its journal restores its state. A daemon that is running
  /// is stopped first (SIGTERM, as `healthpair restart` does); after ``kill()`` it is only started.
  /// - Throws: ``HealthPairTestingError/deviceUnreachable(device:reason:)`` when the running daemon does not stop
  ///   within 10 s or the new one does not start.
  public func restart() throws(HealthPairTestingError) {
    if let process = pair.process(kind.simulated), process.exitStatus == nil {
      if pair.stop(kind.simulated) == nil, process.exitStatus == nil {
        throw .deviceUnreachable(device: kind, reason: "the running daemon did not stop within 10 s of SIGTERM")
      }
      Connections.shared.forget(socketPath)
    }
    do { try pair.restart(kind.simulated) } catch { throw .deviceUnreachable(device: kind, reason: error.description) }
    watchdog.reconnect(kind)
  }
}
