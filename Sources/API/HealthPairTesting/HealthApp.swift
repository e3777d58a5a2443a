import Foundation
import HealthEngine
import HealthKitSim
import HealthModel
import HealthPairClient

/// The Health app on one device, as its user fills it in: the health details (date of birth, biological sex, blood
/// type, skin type, wheelchair use, move mode) apps read with `HKHealthStore.biologicalSex()` and the like, and the
/// unit each quantity type is shown in, which `preferredUnits(for:)` returns.
///
/// Every change travels to the other device over the link (call ``HealthPair/waitForSync(timeout:)`` before
/// expecting it there); when both devices change the same value while apart, the later change wins
/// (docs/behavior.md C4, R6). The device must be unlocked, as for any user action.
public struct HealthApp: Sendable {
  let device: HealthDevice

  /// Sets the date of birth (Gregorian year, month, day).
  /// - Throws: ``HealthPairTestingError`` (an impossible date, a locked device).
  public func setDateOfBirth(year: Int, month: Int, day: Int) throws(HealthPairTestingError) {
    try change(.characteristic(type("dateOfBirth"), .dateOfBirth(year: year, month: month, day: day)))
  }

  /// Clears the date of birth: apps read nothing (`dateOfBirthComponents()` throws).
  /// - Throws: ``HealthPairTestingError``.
  public func clearDateOfBirth() throws(HealthPairTestingError) {
    try change(.characteristic(type("dateOfBirth"), nil))
  }

  /// Sets the biological sex (`.notSet` clears it).
  /// - Throws: ``HealthPairTestingError``.
  public func setBiologicalSex(_ value: HKBiologicalSex) throws(HealthPairTestingError) {
    try change(.characteristic(type("biologicalSex"), value == .notSet ? nil : .value(value.rawValue)))
  }

  /// Sets the blood type (`.notSet` clears it).
  /// - Throws: ``HealthPairTestingError``.
  public func setBloodType(_ value: HKBloodType) throws(HealthPairTestingError) {
    try change(.characteristic(type("bloodType"), value == .notSet ? nil : .value(value.rawValue)))
  }

  /// Sets the Fitzpatrick skin type (`.notSet` clears it).
  /// - Throws: ``HealthPairTestingError``.
  public func setFitzpatrickSkinType(_ value: HKFitzpatrickSkinType) throws(HealthPairTestingError) {
    try change(.characteristic(type("fitzpatrickSkinType"), value == .notSet ? nil : .value(value.rawValue)))
  }

  /// Sets whether the user uses a wheelchair (`.notSet` clears it).
  /// - Throws: ``HealthPairTestingError``.
  public func setWheelchairUse(_ value: HKWheelchairUse) throws(HealthPairTestingError) {
    try change(.characteristic(type("wheelchairUse"), value == .notSet ? nil : .value(value.rawValue)))
  }

  /// Sets what the move ring counts.
  /// - Throws: ``HealthPairTestingError``.
  public func setActivityMoveMode(_ value: HKActivityMoveMode) throws(HealthPairTestingError) {
    try change(.characteristic(type("activityMoveMode"), .value(value.rawValue)))
  }

  /// Shows `type` in `unit` (nil: back to the locale's default unit).
  /// - Throws: ``HealthPairTestingError`` (a unit that does not measure the type, a locked device).
  public func setPreferredUnit(_ unit: HKUnit?, for type: HKQuantityType) throws(HealthPairTestingError) {
    let simulated: SampleType
    do { simulated = try type.simulatedType() } catch { throw .unsupportedType(type.identifier) }
    try change(.preferredUnit(simulated, unit?.unitString))
  }

  private func type(_ name: String) -> SampleType { SampleType.lookup(name: name)! }

  private func change(_ setting: UserSetting) throws(HealthPairTestingError) {
    try device.control("Health app: \(setting)") { try $0.changeUserSetting(setting) }
  }
}

/// The locale model behind the default units `preferredUnits(for:)` returns when the user chose none
/// (docs/behavior.md R6).
public enum HealthUnitLocale: String, Hashable, Sendable, CaseIterable {
  /// US customary units (fl oz, lb, mi, °F): HealthPair's default, the region of a new iOS Simulator.
  case us
  /// Metric units (mL, kg, km, °C).
  case metric
  /// The United Kingdom's mix: mL, stones, miles, °C.
  case uk

  var simulated: UnitLocale { UnitLocale(name: rawValue)! }
}
