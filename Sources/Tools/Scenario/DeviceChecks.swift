import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Render
import ScenarioLanguage

/// Device checks: the device's virtual clock and whether it is locked.
extension RunContext {
  /// `clock is <time>`.
  func checkClock(_ device: DeviceKind, _ time: TimeSpec, _ step: Step) throws {
    let actual = try client(device).dump().device.now
    let expected = resolve(time, on: device)
    if actual != expected { throw fail(step, formatDate(expected), formatDate(actual)) }
  }

  /// `locked` / `unlocked`.
  func checkLocked(_ devices: Devices, _ expected: Bool, _ step: Step) throws {
    for device in devices.list {
      let actual = try client(device).dump().device.locked
      if actual != expected {
        throw fail(step, "the \(device) \(expected ? "locked" : "unlocked")", actual ? "locked" : "unlocked")
      }
    }
  }

  /// `<n> samples wait for unlock`: the size of the journal of saves made while locked.
  func checkWaitingForUnlock(_ device: DeviceKind, _ expected: Int, _ step: Step) throws {
    let actual = try client(device).dump().device.lockedSamples
    if actual != expected {
      throw fail(
        step, "\(expected) sample\(expected == 1 ? "" : "s") waiting for the \(device) to unlock", "\(actual)")
    }
  }
}
