import FoundationEssentials
import HealthEngine
import HealthModel

/// Expectations about what the user set in the Health app, as the app reads it: characteristics (behavior.md C2,
/// C3) and preferred units (behavior.md R6).
extension ParseState {
  /// `<App> reads <characteristic> as <value>|notSet`.
  func parseCharacteristicValue(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    let device = try single(subject.devices, c)
    let type = try c.characteristicType()
    try c.expect("as")
    let value = try c.characteristicValue(type)
    try c.finish()
    return .characteristic(device, app: subject.app.name, type, .value(value))
  }

  /// `<App>'s read of <characteristic> fails with <code>`.
  func parseCharacteristicFails(_ c: inout Cursor, _ subject: AppExpectation, _ device: DeviceKind) throws(Diagnostic)
    -> Expectation
  {
    let type = try c.characteristicType()
    guard c.take("fails", "with") || c.take("fail", "with") else {
      throw c.error(.expected("'fails with <code>'", found: c.peek?.text))
    }
    let code = try errorCode(&c)
    try c.finish()
    return .characteristic(device, app: subject.app.name, type, .fails(code))
  }

  /// `<App>'s preferred unit for <type> is <unit>` (a quantity type, a unit that measures it).
  func parsePreferredUnitIs(_ c: inout Cursor, _ subject: AppExpectation, _ device: DeviceKind) throws(Diagnostic)
    -> Expectation
  {
    let typeToken = c.peek
    let type = try c.type()
    guard type.descriptor.isQuantity else {
      throw c.error(.expected("a quantity type", found: type.name), at: typeToken)
    }
    try c.expect("is")
    let unitToken = c.peek
    _ = try c.unit(for: type)
    try c.finish()
    return .preferredUnit(device, app: subject.app.name, type, unitToken!.text)
  }

  /// `<App>'s preferred units for <types> fail with <code>`.
  func parsePreferredUnitsFail(_ c: inout Cursor, _ subject: AppExpectation, _ device: DeviceKind) throws(Diagnostic)
    -> Expectation
  {
    let types = try c.types(stoppingAt: ["fail", "fails"])
    guard c.take("fail", "with") || c.take("fails", "with") else {
      throw c.error(.expected("'fail with <code>'", found: c.peek?.text))
    }
    let code = try errorCode(&c)
    try c.finish()
    return .preferredUnitsFail(device, app: subject.app.name, types, code)
  }
}
