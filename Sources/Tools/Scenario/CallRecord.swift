import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import ScenarioLanguage

/// What an app's last call did.
enum CallRecord {
  case request(PendingOperation<AuthorizationCallResult>, sheet: Prompt?)
  case done(Result<Void, HealthError>)

  /// How a call ended, as `expect … 's last call` sees it.
  enum Ending {
    /// A request whose sheet is still up.
    case pending
    /// Success with no error (a request: success = true and no error).
    case succeeded
    /// An error (nil: a request that completed with success = false and no error).
    case failed(HealthError?)
    /// The daemon did not answer as a device would (a transport problem, an unexpected reply).
    case broken
  }

  /// How the call ended.
  var ending: Ending {
    switch self {
    case .request(let pending, _):
      guard let result = pending.result else { return .pending }
      switch result {
      case .success(let r): return r.success && r.error == nil ? .succeeded : .failed(r.error)
      case .failure(let e): return e.healthError.map { .failed($0) } ?? .broken
      }
    case .done(.success): return .succeeded
    case .done(.failure(let e)): return .failed(e)
    }
  }

  /// How the call ended, as a failed expectation reports it.
  var outcome: String {
    switch self {
    case .request(let pending, _):
      guard let result = pending.result else { return "pending (the sheet is up)" }
      switch result {
      case .success(let r):
        return r.success
          ? "succeeded (success = true)" : "failed with \(r.error.map { "\($0.code)" } ?? "no error") (success = false)"
      case .failure(let e): return e.healthError.map(describe) ?? "\(e)"
      }
    case .done(.success): return "succeeded"
    case .done(.failure(let e)): return describe(e)
    }
  }
}

/// An error as a failed expectation reports a call's outcome.
private func describe(_ e: HealthError) -> String {
  switch e.kind {
  case .healthKit: "failed with \(e.code) (\(e.code.rawValue)): \(e.message)"
  case .wouldTerminate: "would terminate the app: \(e.message)"
  case .simulator: "was rejected by the simulator: \(e.message)"
  }
}

/// Runs a call and captures its typed outcome.
func attempt<T>(_ body: () throws(ClientError) -> T) -> Result<T, ClientError> {
  do { return .success(try body()) } catch { return .failure(error) }
}

extension Result {
  /// The error, if it failed.
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}

// MARK: - An app's calls

extension RunContext {
  /// Runs a call, turning an engine rejection into a recorded result (other errors propagate).
  func capture(_ body: () throws(ClientError) -> Void) throws(ClientError) -> Result<Void, HealthError> {
    switch attempt(body) {
    case .success: return .success(())
    case .failure(let error):
      if let health = error.healthError { return .failure(health) }
      throw error
    }
  }

  /// Notes `result` as the app's last call on the device, and in the trace.
  mutating func record(_ device: DeviceKind, _ app: String, _ call: String, _ result: Result<Void, HealthError>) {
    lastCall[key(device, app)] = .done(result)
    traceCall(device, app, call, CallOutcome(error: result.failure))
  }

  /// Drops the pending requests that completed (their answers arrived before the answer's own reply), noting how
  /// each completed.
  mutating func settle(_ device: DeviceKind) {
    for (app, request, api) in pending[device] ?? [] {
      switch request.result {
      case nil: continue
      case .success(let r):
        traceCall(device, app, api, CallOutcome(authorization: r))
      case .failure(let e):
        traceCall(device, app, api, CallOutcome(error: e.healthError ?? .simulator("\(e)")))
      }
    }
    pending[device]?.removeAll { $0.request.result != nil }
  }
}
