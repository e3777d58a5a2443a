import Foundation
import HealthEngine
import HealthKitSim
import HealthModel
import HealthPairClient

/// The person holding a device: waits for the permission sheet an app presents, then answers it.
///
/// Every answer first waits for a sheet (of `app` if given) to be up, until `timeout` (the pair's default when nil),
/// so a test can start the app's request and answer it without racing. Each action has a blocking form (XCTest,
/// synchronous tests) and an async form that blocks no thread.
public struct SimulatedUser: Sendable {
  let device: HealthDevice

  // MARK: - Blocking

  /// Waits until a sheet is up and returns it.
  /// - Throws: ``HealthPairTestingError/timeout(waitingFor:seconds:)``.
  @discardableResult
  public func waitForSheet(
    app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) throws(HealthPairTestingError) -> PermissionSheet {
    let device = self.device
    do {
      return try device.waiter.wait(for: what(app), timeout: timeout ?? device.timeout) {
        try Self.pending(device, app)
      }
    } catch {
      throw located(.from(error, device: device.kind, operation: "waitForSheet"), app, fileID, line)
    }
  }

  /// "Turn On All", then "Allow".
  public func allowAll(
    app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) throws(HealthPairTestingError) {
    try answer({ _ in .allowAll }, app, timeout, fileID, line)
  }

  /// "Don't Allow": every listed permission is denied; the app's call still succeeds.
  public func dontAllow(
    app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) throws(HealthPairTestingError) {
    try answer({ _ in .denyAll }, app, timeout, fileID, line)
  }

  /// Dismisses the sheet: nothing is recorded; the app's call fails with `errorUserCanceled`.
  public func cancel(
    app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) throws(HealthPairTestingError) {
    try answer({ _ in .cancel }, app, timeout, fileID, line)
  }

  /// The sheet never appears (the article's transient failure): nothing is recorded; the app's call fails with
  /// `unknownError`, or succeeds when `silently`.
  public func failToPresent(
    silently: Bool = false, app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) throws(HealthPairTestingError) {
    try answer({ _ in .failToPresent(silently ? .silent : .error) }, app, timeout, fileID, line)
  }

  /// The user leaves the app while the sheet is up (home, the app switcher, a call): the sheet is dismissed,
  /// nothing is recorded, and the app's call fails with `errorAuthorizationNotDetermined`.
  public func leaveApp(
    app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) throws(HealthPairTestingError) {
    try answer({ _ in .leaveApp }, app, timeout, fileID, line)
  }

  /// Turns on exactly these toggles (share for `share`, read for `read`); every other listed toggle stays off.
  public func choose(
    share: [HKSampleType] = [], read: [HKObjectType] = [], app: String? = nil, timeout: Double? = nil,
    fileID: String = #fileID, line: Int = #line
  ) throws(HealthPairTestingError) {
    let choices = try Self.choices(share: share, read: read)
    try answer({ sheet in Self.answer(sheet, choices) }, app, timeout, fileID, line)
  }

  /// On a per-object sheet, turns on exactly these objects (by UUID); every other listed object is turned off.
  public func choose(
    objects: [UUID], app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) throws(HealthPairTestingError) {
    try answer({ _ in .objects(Set(objects)) }, app, timeout, fileID, line)
  }

  /// On a medications sheet, turns on exactly these medications (by concept); every other listed one is turned off.
  public func choose(
    medications: [HKHealthConceptIdentifier], app: String? = nil, timeout: Double? = nil, fileID: String = #fileID,
    line: Int = #line
  ) throws(HealthPairTestingError) {
    try choose(objects: Self.objects(medications), app: app, timeout: timeout, fileID: fileID, line: line)
  }

  // MARK: - Async

  /// Awaits a sheet and returns it.
  /// - Throws: ``HealthPairTestingError/timeout(waitingFor:seconds:)``.
  @discardableResult
  public func waitForSheet(
    app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) async throws(HealthPairTestingError) -> PermissionSheet {
    let device = self.device
    do {
      return try await device.waiter.wait(for: what(app), timeout: timeout ?? device.timeout) {
        try Self.pending(device, app)
      }
    } catch {
      throw located(.from(error, device: device.kind, operation: "waitForSheet"), app, fileID, line)
    }
  }

  /// "Turn On All", then "Allow".
  public func allowAll(
    app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) async throws(HealthPairTestingError) {
    try await answer({ _ in .allowAll }, app, timeout, fileID, line)
  }

  /// "Don't Allow": every listed permission is denied; the app's call still succeeds.
  public func dontAllow(
    app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) async throws(HealthPairTestingError) {
    try await answer({ _ in .denyAll }, app, timeout, fileID, line)
  }

  /// Dismisses the sheet: nothing is recorded; the app's call fails with `errorUserCanceled`.
  public func cancel(
    app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) async throws(HealthPairTestingError) {
    try await answer({ _ in .cancel }, app, timeout, fileID, line)
  }

  /// The sheet never appears: nothing is recorded; the app's call fails with `unknownError`, or succeeds when
  /// `silently`.
  public func failToPresent(
    silently: Bool = false, app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) async throws(HealthPairTestingError) {
    try await answer({ _ in .failToPresent(silently ? .silent : .error) }, app, timeout, fileID, line)
  }

  /// The user leaves the app while the sheet is up: the sheet is dismissed, nothing is recorded, and the app's
  /// call fails with `errorAuthorizationNotDetermined`.
  public func leaveApp(
    app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) async throws(HealthPairTestingError) {
    try await answer({ _ in .leaveApp }, app, timeout, fileID, line)
  }

  /// Turns on exactly these toggles (share for `share`, read for `read`); every other listed toggle stays off.
  public func choose(
    share: [HKSampleType] = [], read: [HKObjectType] = [], app: String? = nil, timeout: Double? = nil,
    fileID: String = #fileID, line: Int = #line
  ) async throws(HealthPairTestingError) {
    let choices = try Self.choices(share: share, read: read)
    try await answer({ sheet in Self.answer(sheet, choices) }, app, timeout, fileID, line)
  }

  /// On a per-object sheet, turns on exactly these objects (by UUID); every other listed object is turned off.
  public func choose(
    objects: [UUID], app: String? = nil, timeout: Double? = nil, fileID: String = #fileID, line: Int = #line
  ) async throws(HealthPairTestingError) {
    try await answer({ _ in .objects(Set(objects)) }, app, timeout, fileID, line)
  }

  /// On a medications sheet, turns on exactly these medications (by concept); every other listed one is turned off.
  public func choose(
    medications: [HKHealthConceptIdentifier], app: String? = nil, timeout: Double? = nil, fileID: String = #fileID,
    line: Int = #line
  ) async throws(HealthPairTestingError) {
    try await choose(objects: Self.objects(medications), app: app, timeout: timeout, fileID: fileID, line: line)
  }

  /// The sheet's identifiers of `medications` (``PermissionSheet/objects`` lists medications by these).
  public static func objects(_ medications: [HKHealthConceptIdentifier]) -> [UUID] {
    medications.map { Medication.identifier(for: $0.underlying) }
  }

  // MARK: - Implementation

  /// A wait for a sheet that timed out or was refused, told where the test asked and — when the other device has a
  /// sheet up that would have matched — that the app asked there.
  private func located(_ error: HealthPairTestingError, _ app: String?, _ fileID: String, _ line: Int)
    -> HealthPairTestingError
  {
    if case .deviceRefused(let device, let operation, let reason) = error {
      return .deviceRefused(device: device, operation: "\(operation) (waited for at \(fileID):\(line))", reason: reason)
    }
    guard case .timeout(let what, let seconds) = error else { return error }
    var text = "\(what) (asked at \(fileID):\(line))"
    let other: HealthDeviceKind = device.kind == .phone ? .watch : .phone
    let elsewhere = try? device.pair.client(other.simulated).dump().device.pendingPrompts.first {
      app == nil || $0.bundleID == app
    }
    if let elsewhere {
      text += "; a sheet for \(elsewhere.bundleID) is up on the \(other): answer it with pair.\(other).user"
    }
    return .timeout(waitingFor: text, seconds: seconds)
  }

  private func what(_ app: String?) -> String {
    "a permission sheet\(app.map { " for \($0)" } ?? "") on the \(device.kind)"
  }

  /// The sheet that is up (of `app` when given), or nil to keep waiting.
  /// - Throws: ``HealthPairTestingError/deviceRefused(device:operation:reason:)`` when no sheet is up and the
  ///   device already refused the latest request (of `app`) made through HealthKitSim: no sheet can come. Each
  ///   refusal fails one wait.
  private static func pending(_ device: HealthDevice, _ app: String?) throws -> PermissionSheet? {
    let sheet = try device.client.dump().device.pendingPrompts.first { app == nil || $0.bundleID == app }.map {
      PermissionSheet($0, outcome: .pending)
    }
    let log = AuthorizationRequestLog.shared
    if sheet == nil, let refusal = log.takeRefusal(socketPath: device.socketPath, bundleID: app) {
      throw HealthPairTestingError.deviceRefused(
        device: device.kind, operation: "\(refusal.bundleID)'s \(refusal.api), so no permission sheet will come",
        reason: refusal.reason)
    }
    return sheet
  }

  private static func choices(share: [HKSampleType], read: [HKObjectType]) throws(HealthPairTestingError)
    -> Set<Permission>
  {
    var on: Set<Permission> = []
    for (types, direction) in [(share.map { $0 as HKObjectType }, Direction.share), (read, .read)] {
      for type in types {
        do { on.insert(Permission(try type.simulatedType(), direction)) } catch {
          throw .unsupportedType(type.identifier)
        }
      }
    }
    return on
  }

  /// Per-type choices for a sheet: each toggle the sheet lists, on if chosen. A chosen permission the sheet does not
  /// list is passed on, so the device refuses it with a message naming what the sheet lists.
  private static func answer(_ sheet: PermissionSheet, _ on: Set<Permission>) -> PromptAnswer {
    var choices: [Permission: Bool] = [:]
    for type in sheet.share { if let t = try? type.simulatedType() { choices[Permission(t, .share)] = false } }
    for type in sheet.read { if let t = try? type.simulatedType() { choices[Permission(t, .read)] = false } }
    for permission in on { choices[permission] = true }
    return .choices(choices)
  }

  private func answer(
    _ make: (PermissionSheet) -> PromptAnswer, _ app: String?, _ timeout: Double?, _ fileID: String, _ line: Int
  ) throws(HealthPairTestingError) {
    let sheet = try waitForSheet(app: app, timeout: timeout, fileID: fileID, line: line)
    let answer = make(sheet)
    try device.control("answering \(sheet)") { try $0.answerPrompt(answer, promptID: sheet.id) }
  }

  private func answer(
    _ make: (PermissionSheet) -> PromptAnswer, _ app: String?, _ timeout: Double?, _ fileID: String, _ line: Int
  ) async throws(HealthPairTestingError) {
    let sheet = try await waitForSheet(app: app, timeout: timeout, fileID: fileID, line: line)
    let answer = make(sheet)
    try device.control("answering \(sheet)") { try $0.answerPrompt(answer, promptID: sheet.id) }
  }
}
