import HealthEngine
import HealthKitSim
import HealthModel
import HealthPairClient

/// Permission settings for a device's apps, as the user changes them after answering a sheet.
///
/// For the phone: Settings → Privacy → Health. For the watch: the iPhone's Watch app (My Watch → Privacy → Health);
/// the phone records the change and the watch applies it when it arrives over the link — call
/// ``HealthPair/waitForSync(timeout:)`` before expecting it on the watch. Only permissions the app requested and the
/// user answered can be toggled.
public struct HealthSettings: Sendable {
  let device: HealthDevice

  /// Turns off `app`'s permission to save `type`.
  /// - Throws: ``HealthPairTestingError``.
  public func revoke(share type: HKObjectType, of app: String) throws(HealthPairTestingError) {
    try set(type, .share, on: false, app)
  }

  /// Turns on `app`'s permission to save `type`.
  /// - Throws: ``HealthPairTestingError``.
  public func grant(share type: HKObjectType, of app: String) throws(HealthPairTestingError) {
    try set(type, .share, on: true, app)
  }

  /// Turns off `app`'s permission to read `type`.
  /// - Throws: ``HealthPairTestingError``.
  public func revoke(read type: HKObjectType, of app: String) throws(HealthPairTestingError) {
    try set(type, .read, on: false, app)
  }

  /// Turns on `app`'s permission to read `type`.
  /// - Throws: ``HealthPairTestingError``.
  public func grant(read type: HKObjectType, of app: String) throws(HealthPairTestingError) {
    try set(type, .read, on: true, app)
  }

  /// "Turn Off All": every permission of `app` becomes denied.
  /// - Throws: ``HealthPairTestingError``.
  public func turnAllOff(app: String) throws(HealthPairTestingError) {
    try apply(.turnAllOff, app, "turnAllOff")
  }

  /// Forgets every decision of `app`, as deleting and reinstalling it would.
  /// - Throws: ``HealthPairTestingError``.
  public func reset(app: String) throws(HealthPairTestingError) {
    try apply(.reset, app, "reset")
  }

  private func set(_ type: HKObjectType, _ direction: Direction, on: Bool, _ app: String) throws(HealthPairTestingError)
  {
    let simulated: SampleType
    do { simulated = try type.simulatedType() } catch { throw .unsupportedType(type.identifier) }
    try apply(.set(Permission(simulated, direction), on: on), app, "\(on ? "grant" : "revoke")(\(direction) \(type))")
  }

  private func apply(_ change: SettingsChange, _ app: String, _ operation: String) throws(HealthPairTestingError) {
    let device = self.device
    if device.kind == .phone {
      try device.control("settings \(operation) of \(app)") { try $0.changeSettings(app, change) }
    } else {
      // The iPhone's Watch app: recorded on the phone, applied by the watch over the link.
      do { try device.pair.phone.watchSettings(app, change) } catch {
        throw .from(error, device: .phone, operation: "Watch app settings \(operation) of \(app)")
      }
    }
  }
}
