import HealthModel
import HealthPairClient
import PairProcesses
import Render
import ScenarioLanguage

/// Link steps: the link itself (runtime state in the daemons, which ``RunContext/restart(_:)`` re-applies), manual
/// sync, waiting until both devices synced.
extension RunContext {
  /// `link: disconnect|reconnect|hold|release|latency …`: a disconnect waits until both sides saw the link drop, a
  /// reconnect until it is up.
  mutating func link(_ action: LinkAction) throws {
    switch action {
    case .disconnect:
      linkDisconnected = true
      for device in DeviceKind.allCases { try client(device).link(.disconnect) }
      try pair.wait(for: "the link to drop", timeout: timeout, mask: .link) {
        try !client(.phone).link(.reconnectNow).connected && !client(.watch).link(.reconnectNow).connected
      }
    case .reconnect:
      linkDisconnected = false
      for device in DeviceKind.allCases { try client(device).link(.connect) }
      try pair.waitLinked(timeout: timeout)
    case .hold(let devices):
      held.formUnion(devices)
      for device in devices { try client(device).link(.hold) }
    case .release(let devices):
      held.subtract(devices)
      for device in devices { try client(device).link(.release) }
    case .latency(let seconds):
      latency = seconds
      for device in DeviceKind.allCases { try client(device).link(.latency(seconds)) }
    }
  }

  /// `sync: manual` / `sync: automatic`: manual holds each device's sync until `wait until synced`.
  mutating func setSyncMode(manual: Bool) throws {
    manualSync = manual
    for device in DeviceKind.allCases { try client(device).link(manual ? .hold : .release) }
  }

  /// `wait until synced [within <duration>]`: both devices applied everything the other logged (under manual sync,
  /// released for the wait and held again after it).
  func waitSynced(_ seconds: Double, _ step: Step) throws {
    if manualSync { for device in DeviceKind.allCases { try client(device).link(.release) } }
    do { try pair.waitSynced(timeout: seconds) } catch {
      throw fail(
        step, "both devices to apply everything the other logged within \(formatDuration(seconds))", "\(error)")
    }
    if manualSync { for device in DeviceKind.allCases { try client(device).link(.hold) } }
  }
}
