import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Render
import ScenarioLanguage

/// User setting checks: characteristics and preferred units (what the user sets in the Health app) as an app reads
/// them.
extension RunContext {
  /// `<App> reads <characteristic> as <value>|notSet`, `<App>'s read of <characteristic> fails with <code>`.
  func checkCharacteristic(
    _ device: DeviceKind, _ name: String, _ type: SampleType, _ expected: CharacteristicExpectation, _ step: Step
  ) throws {
    let bundle = app(name).bundleID
    let client = client(device)
    let actual: CharacteristicExpectation
    switch attempt({ () throws(ClientError) in try client.readCharacteristic(bundle, type) }) {
    case .success(let value): actual = .value(value)
    case .failure(let error):
      guard let health = error.healthError, health.kind == .healthKit else {
        throw fail(step, describe(expected, type), "\(error)")
      }
      actual = .fails(health.code)
    }
    if actual != expected { throw fail(step, describe(expected, type), describe(actual, type)) }
  }

  /// `<App>'s preferred unit for <type> is <unit>` (another spelling of the same unit passes).
  func checkPreferredUnit(_ device: DeviceKind, _ name: String, _ type: SampleType, _ expected: String, _ step: Step)
    throws
  {
    let bundle = app(name).bundleID
    let client = client(device)
    switch attempt({ () throws(ClientError) in try client.preferredUnits(bundle, [type]) }) {
    case .success(let units):
      let actual = units[type] ?? "none"
      let same = actual == expected || (try? HealthUnit(parsing: actual)) == (try? HealthUnit(parsing: expected))
      if !same { throw fail(step, "\(name)'s preferred unit for \(type) = \(expected)", actual) }
    case .failure(let error):
      throw fail(step, "\(name)'s preferred unit for \(type) = \(expected)", "\(error)")
    }
  }

  /// `<App>'s preferred units for <types> fail with <code>`.
  func checkPreferredUnitsFail(
    _ device: DeviceKind, _ name: String, _ types: [SampleType], _ code: HealthErrorCode, _ step: Step
  ) throws {
    let bundle = app(name).bundleID
    let client = client(device)
    let what = "\(name)'s preferredUnits(for: \(types.map(\.name).joined(separator: ", "))) to fail with \(code)"
    switch attempt({ () throws(ClientError) in try client.preferredUnits(bundle, types) }) {
    case .success(let units):
      throw fail(
        step, what,
        "it returned " + units.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))
    case .failure(let error) where error.healthError?.kind == .healthKit && error.healthError?.code == code: break
    case .failure(let error): throw fail(step, what, "\(error)")
    }
  }

  /// How a characteristic read is written in a failure: `reads female`, `fails with errorDatabaseInaccessible (6)`.
  private func describe(_ expectation: CharacteristicExpectation, _ type: SampleType) -> String {
    switch expectation {
    case .value(let value): "reads \(value?.name(for: type) ?? "notSet")"
    case .fails(let code): "fails with \(code) (\(code.rawValue))"
    }
  }
}
