import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import ScenarioLanguage

/// The user's steps: answering sheets, Settings and the Watch app, locking a device, the Health app's settings and
/// data-source order.
extension RunContext {
  /// `user on <devices>: allows all|doesn't allow|cancels|… [for <App>]`: the answer to the sheet up.
  mutating func answer(_ device: DeviceKind, _ answer: PromptAnswer, _ name: String?) throws {
    try client(device).answerPrompt(answer, bundleID: name.map { app($0).bundleID })
    settle(device)
  }

  /// `user on <devices>: in Settings …`: the outcome is the device's last Settings change (a refusal included).
  mutating func changeSettings(_ device: DeviceKind, _ name: String, _ change: SettingsChange) throws {
    let c = client(device)
    let bundle = app(name).bundleID
    let outcome = try capture { () throws(ClientError) in try c.changeSettings(bundle, change) }
    settingsResult[device] = outcome
    traceCall(device, name, "Settings change (\(change))", CallOutcome(error: outcome.failure))
  }

  /// `user on phone: in the Watch app …`: a change for the watch made on the phone; it counts as the watch's last
  /// Settings change.
  mutating func changeWatchSettings(_ name: String, _ change: SettingsChange) throws {
    let c = client(.phone)
    let bundle = app(name).bundleID
    let outcome = try capture { () throws(ClientError) in try c.watchSettings(bundle, change) }
    settingsResult[.watch] = outcome
    traceCall(.phone, name, "Watch app change (\(change))", CallOutcome(error: outcome.failure))
  }

  /// `lock <devices>` / `unlock <devices>`.
  mutating func lock(_ devices: Devices, _ locked: Bool) throws {
    for device in devices.list {
      try client(device).setLocked(locked)
      // A sheet up when the device locked is dismissed: its request completed.
      settle(device)
    }
  }

  /// `user on <device>: sets <characteristic> …` / `prefers <unit> for <type>`: a change in the Health app.
  func changeUserSetting(_ device: DeviceKind, _ setting: UserSetting) throws {
    try client(device).changeUserSetting(setting)
  }

  /// `user on phone: in Health orders <type> sources <App> [on <device>]…`: an app without a device is the app on
  /// both, the watch's first.
  func setSourceOrder(_ device: DeviceKind, _ type: SampleType, _ specs: [SourceSpec]) throws {
    var sources: [SampleSource] = []
    for spec in specs {
      let bundle = app(spec.app).bundleID
      for on in spec.device.map({ [$0] }) ?? [.watch, .phone] {
        sources.append(SampleSource(bundleID: bundle, device: on))
      }
    }
    try client(device).setSourceOrder(type, sources)
  }
}
