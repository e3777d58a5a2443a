import Foundation
import HealthEngine
import HealthModel
import HealthPairClient

extension HKHealthStore {
  /// Asks the user for permission to save `typesToShare` and read `typesToRead`.
  ///
  /// From an app extension (``HealthKitSim/Target/extensionIdentifier``) no sheet is shown: the call waits until
  /// the containing app calls ``handleAuthorizationForExtension(completion:)`` and the user answers its sheet.
  /// Presents the device's permission sheet when any requested (type, direction) is undecided, and returns once the
  /// user answers; completes at once when everything was decided. Returning normally never means "granted": check
  /// ``authorizationStatus(for:)``. Like Apple's async form it throws when `success` would be false: cancelled
  /// (`HKError.errorUserCanceled`), the sheet failed to present (`HKError.unknownError`).
  ///
  /// A task cancelled before the request is sent gets `CancellationError` and no sheet is shown; cancelled while the
  /// sheet is up, the wait ends with `CancellationError` and the sheet stays up: the user's answer is still recorded
  /// (docs/healthkit-api.md, "Cancellation").
  /// - Throws: ``HKError``; ``HKSimulatedTermination`` where a device would terminate the app (both sets empty, a
  ///   missing usage description, a read-only or correlation type to share); ``HealthKitSimError``;
  ///   `CancellationError`.
  public func requestAuthorization(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>)
    async throws
  {
    try await awaitSheet(api: "HKHealthStore.requestAuthorization(toShare:read:)") { session in
      try self.authorizationOperation(session, typesToShare, typesToRead)
    }
  }

  /// Asks the user for permission; `completion` receives HealthKit's `success` (never "granted") and the error.
  ///
  /// `completion` runs on a background queue once the user has answered the sheet (or at once when nothing needs
  /// asking). Conditions that would terminate the app arrive as an ``HKSimulatedTermination`` error.
  public func requestAuthorization(
    toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?,
    completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    awaitSheet(
      api: "HKHealthStore.requestAuthorization(toShare:read:completion:)",
      { session in try self.authorizationOperation(session, typesToShare, typesToRead) }, completion: completion)
  }

  /// Sends the request `operation` makes for the session — one that may present a sheet — and awaits its final
  /// answer: the async forms of `requestAuthorization` and `requestPerObjectReadAuthorization`.
  /// - Throws: as those do; `CancellationError` when the task is cancelled before the request is sent.
  func awaitSheet(api: String, _ operation: (Session) throws -> DeviceOperation<AuthorizationCallResult>)
    async throws
  {
    let session = try await Session.connected(api: api)
    if Task.isCancelled { throw CancellationError() }
    try await Self.presentSheet(session, try operation(session), api: api)
  }

  /// Sends `operation` (a request that may present a sheet) and awaits its final answer.
  /// - Throws: the call's error when it did not succeed (translated), or what sending it throws.
  static func presentSheet(
    _ session: Session, _ operation: DeviceOperation<AuthorizationCallResult>, api: String
  ) async throws {
    let pending = try session.start(operation, api: api)
    logRequest(session, pending, api: api)
    try authorizationOutcome(try await session.value(of: pending, api: api, waitsForUser: true), api: api)
  }

  /// The completion-handler form of ``awaitSheet(api:_:)``: the request is sent before this returns, and
  /// `completion` receives `success` and the error on a background queue once the sheet is answered (or at once).
  func awaitSheet(
    api: String, _ operation: (Session) throws -> DeviceOperation<AuthorizationCallResult>,
    completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    let started = Result { () throws -> (Session, PendingOperation<AuthorizationCallResult>) in
      let session = try Session.current(api: api)
      let pending = try session.start(try operation(session), api: api)
      HKHealthStore.logRequest(session, pending, api: api)
      return (session, pending)
    }
    deliver({
      let (session, pending) = try started.get()
      try HKHealthStore.authorizationOutcome(
        try await session.value(of: pending, api: api, waitsForUser: true), api: api)
    }) { result in
      switch result {
      case .success: completion(true, nil)
      case .failure(let error): completion(false, error)
      }
    }
  }

  /// Whether requesting these types would present the permission sheet: `shouldRequest` while any is undecided,
  /// `unnecessary` once all were asked (whatever the answers).
  /// - Throws: ``HKError``; ``HKSimulatedTermination`` for requests a device would refuse; ``HealthKitSimError``.
  public func statusForAuthorizationRequest(
    toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>
  )
    async throws -> HKAuthorizationRequestStatus
  {
    let api = "HKHealthStore.statusForAuthorizationRequest(toShare:read:)"
    let session = try await Session.connected(api: api)
    let pending = try session.start(try requestStatusOperation(session, typesToShare, typesToRead), api: api)
    return HKHealthStore.requestStatus(try await session.value(of: pending, api: api))
  }

  /// Completion-handler form of ``statusForAuthorizationRequest(toShare:read:)``; on error the status is `unknown`.
  public func getRequestStatusForAuthorization(
    toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>,
    completion: @escaping @Sendable (HKAuthorizationRequestStatus, (any Error)?) -> Void
  ) {
    let api = "HKHealthStore.getRequestStatusForAuthorization(toShare:read:completion:)"
    let started = Result { () throws -> (Session, PendingOperation<AuthorizationRequestStatus>) in
      let session = try Session.current(api: api)
      return (session, try session.start(try requestStatusOperation(session, typesToShare, typesToRead), api: api))
    }
    deliver({
      let (session, pending) = try started.get()
      return HKHealthStore.requestStatus(try await session.value(of: pending, api: api))
    }) { result in
      switch result {
      case .success(let status): completion(status, nil)
      case .failure(let error): completion(.unknown, error)
      }
    }
  }

  private func simulated(_ types: some Sequence<HKObjectType>) throws(HealthKitSimError) -> [SampleType] {
    var result: [SampleType] = []
    for type in types { result.append(try type.simulatedType()) }
    return result.sorted()
  }

  private func authorizationOperation(_ session: Session, _ share: Set<HKSampleType>?, _ read: Set<HKObjectType>?)
    throws(HealthKitSimError) -> DeviceOperation<AuthorizationCallResult>
  {
    let (share, read) = (try simulated((share ?? []).map { $0 as HKObjectType }), try simulated(read ?? []))
    return session.target.extensionIdentifier == nil
      ? .requestAuthorization(session.bundleID, share: share, read: read)
      : .requestAuthorizationFromExtension(session.bundleID, share: share, read: read)
  }

  private func requestStatusOperation(_ session: Session, _ share: Set<HKSampleType>, _ read: Set<HKObjectType>)
    throws(HealthKitSimError) -> DeviceOperation<AuthorizationRequestStatus>
  {
    .requestStatus(session.bundleID, share: try simulated(share.map { $0 as HKObjectType }), read: try simulated(read))
  }

  /// Awaits a request's answer; a refusal (a misuse of the simulator, or what would terminate the app) is noted in
  /// ``AuthorizationRequestLog``, so a harness waiting for its sheet ends at once with the reason.
  /// Notes a request just sent in ``AuthorizationRequestLog`` and, on the connection's reader as soon as the daemon
  /// answers, whether it refused the request outright (a misuse of the simulator, or a request a device would
  /// terminate the app for): a harness waiting for its sheet then fails at once, whether or not the app's task has
  /// run since.
  private static func logRequest(
    _ session: Session, _ pending: PendingOperation<AuthorizationCallResult>, api: String
  ) {
    let log = AuthorizationRequestLog.shared
    let socketPath = session.target.socketPath
    let bundleID = session.bundleID
    let sequence = log.started(socketPath: socketPath, bundleID: bundleID)
    pending.ticket.whenDone { result in
      guard case .failure(.rejected(let rejection)) = result else { return }
      let reason: String
      switch Session.translate(rejection, api: api) {
      case HealthKitSimError.misuse(let message): reason = message
      case let termination as HKSimulatedTermination: reason = termination.description
      default: return
      }
      log.refused(sequence, socketPath: socketPath, refusal: .init(bundleID: bundleID, api: api, reason: reason))
    }
  }

  private static func authorizationOutcome(_ result: AuthorizationCallResult, api: String) throws {
    guard result.success else {
      throw result.error.map { Session.translate($0, api: api) }
        ?? HKError(.unknownError, message: "The authorization request did not succeed")
    }
  }

  private static func requestStatus(_ status: AuthorizationRequestStatus) -> HKAuthorizationRequestStatus {
    HKAuthorizationRequestStatus(rawValue: status.rawValue) ?? .unknown
  }
}
