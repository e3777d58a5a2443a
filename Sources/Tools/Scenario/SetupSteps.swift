import HealthEngine
import HealthModel
import ScenarioLanguage

/// Setup steps: apps installed and uninstalled, each device's policy.
extension RunContext {
  /// `install <app> on <devices>`: the app as this step declares it is the one later steps on the device use.
  mutating func install(_ app: AppDeclaration, on devices: Devices) throws {
    for device in devices.list {
      try client(device).installApp(app.record)
      installed[device, default: [:]][app.name] = app
    }
  }

  /// `uninstall <app> from <devices>`.
  func uninstall(_ name: String, from devices: Devices) throws {
    for device in devices.list { try client(device).uninstallApp(app(name).bundleID) }
  }

  /// `policy …`: changes the parts of each device's policy the step names, keeping the rest.
  func setPolicy(
    _ devices: Devices, reprompt: RepromptPolicy?, retention: Double??, authorization: AuthorizationModel?,
    watchSettings: WatchSettingsModel?, units: UnitLocale?, background: BackgroundDeliveryModel?
  ) throws {
    for device in devices.list {
      var policy = try client(device).dump().device.policy
      if let reprompt { policy.reprompt = reprompt }
      if let retention { policy.retention = retention }
      if let authorization { policy.authorization = authorization }
      if let watchSettings { policy.watchSettings = watchSettings }
      if let units { policy.units = units }
      if let background { policy.background = background }
      try client(device).setPolicy(policy)
    }
  }
}
