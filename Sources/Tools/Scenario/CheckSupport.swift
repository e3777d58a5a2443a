import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Render
import ScenarioLanguage

/// What the check families share: comparing numbers, naming samples and sources, checking a query's outcome and
/// showing its error in a failure's words.
extension RunContext {
  /// Whether two values are equal within a relative 1e-6 (the rounding of a written number).
  func same(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-6 * max(1, abs(a), abs(b)) }

  /// A value as the report shows it: to six decimals at most, with its unit.
  func show(_ value: Double, _ unit: HealthUnit) -> String {
    "\(formatNumber((value * 1e6).rounded() / 1e6)) \(unit)"
  }

  /// The name a scenario gave a UUID, or the UUID.
  func name(of uuid: UUID) -> String { names.first { $0.value == uuid }?.key ?? uuid.uuidString.lowercased() }

  /// The bundle identifiers of `from <App>…` (nil: every source).
  func sources(_ names: [String]) -> Set<String>? {
    names.isEmpty ? nil : Set(names.map { app($0).bundleID })
  }

  /// Whether `message` contains every fragment.
  func contains(_ message: String, _ fragments: [String]) -> Bool { fragments.allSatisfy { message.contains($0) } }

  /// What an app's query `body` returns on `device`; a HealthKit error fails `step` as "<query> on the <device> to
  /// return <expected>", any other error is thrown as it is.
  func queried<T>(
    _ step: Step, _ query: String, on device: DeviceKind, expecting expected: Int,
    _ body: () throws(ClientError) -> [T]
  ) throws -> [T] {
    switch attempt(body) {
    case .success(let found): return found
    case .failure(let error):
      guard let health = error.healthError else { throw error }
      throw fail(step, "\(query) on the \(device) to return \(expected)", show(health))
    }
  }

  /// A query error as the report shows it.
  func show(_ error: HealthError) -> String {
    switch error.kind {
    case .healthKit: "it failed with \(error.code) (\(error.code.rawValue)): \(error.message)"
    case .wouldTerminate: "it would terminate the app: \(error.message)"
    case .simulator: "the simulator rejected it: \(error.message)"
    }
  }

  /// An outcome as the report shows it.
  func describe(_ outcome: QueryOutcome) -> String {
    func quoted(_ fragments: [String]) -> String {
      fragments.isEmpty ? "" : " containing " + fragments.map { "\"\($0)\"" }.joined(separator: " and ")
    }
    switch outcome {
    case .noData: return "no data"
    case .fails(let code, let fragments): return "fails with \(code) (\(code.rawValue))" + quoted(fragments)
    case .wouldTerminate(let fragments): return "would terminate the app" + quoted(fragments)
    }
  }

  /// Checks a query's result against `expected`: `noData` when `unexpected` finds nothing to say about the result;
  /// `fails` and `wouldTerminate` by the error's kind, code and message.
  func compare<T>(
    _ result: Result<T, ClientError>, _ expected: QueryOutcome, _ step: Step, what: String,
    unexpected: (T) -> String?
  ) throws {
    let actual: String?
    switch (result, expected) {
    case (.success(let value), .noData): actual = unexpected(value)
    case (.success(let value), _): actual = unexpected(value) ?? "it returned no data"
    case (.failure(let error), _):
      guard let health = error.healthError else { throw error }
      switch expected {
      case .noData: actual = health.kind == .healthKit && health.code == .errorNoData ? nil : show(health)
      case .fails(let code, let fragments):
        let ok = health.kind == .healthKit && health.code == code && contains(health.message, fragments)
        actual = ok ? nil : show(health)
      case .wouldTerminate(let fragments):
        actual = health.kind == .wouldTerminate && contains(health.message, fragments) ? nil : show(health)
      }
    }
    if let actual { throw fail(step, "\(what) \(describe(expected))", actual) }
  }
}

extension RunContext {
  /// Checks a call of the user's world against `failure`: nil, it must succeed (else the step fails expecting
  /// `success`); "", it must fail; any other text, it must fail with that text in its message. `subject` names
  /// what was refused or stored in the message ("the recording").
  func expectOutcome(
    _ outcome: Result<Void, ClientError>, _ failure: String?, _ step: Step, subject: String, success: String
  ) throws {
    switch outcome {
    case .success:
      if let failure {
        throw fail(step, "\(subject) to fail" + (failure.isEmpty ? "" : " with \"\(failure)\""), "it was stored")
      }
    case .failure(let error):
      let message = error.healthError?.message ?? "\(error)"
      guard let failure else { throw fail(step, success, message) }
      if !failure.isEmpty && !message.contains(failure) {
        throw fail(step, "\(subject) to fail with \"\(failure)\"", message)
      }
    }
  }
}
