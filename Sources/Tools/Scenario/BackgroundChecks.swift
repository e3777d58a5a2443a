import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Render
import ScenarioLanguage

/// Background delivery checks: an app's registration of a type, and its deliveries since the daemon started.
extension RunContext {
  /// `<App>'s background delivery of <type> is on [<frequency>]|off|stopped|waiting`.
  func checkBackgroundState(
    _ devices: Devices, _ name: String, _ type: SampleType, _ expected: BackgroundState, _ step: Step
  ) throws {
    for device in devices.list {
      let status = try client(device).backgroundDeliveries(app(name).bundleID).registrations.first {
        $0.key.type == type
      }
      let actual: String
      switch status {
      case nil: actual = "off"
      case let s? where s.stopped: actual = "stopped"
      case let s? where s.waiting != nil: actual = "waiting (on \(s.effective))"
      case let s?: actual = "on \(s.effective)"
      }
      let ok: Bool
      switch expected {
      case .off: ok = status == nil
      case .stopped: ok = status?.stopped == true
      case .waiting: ok = status?.waiting != nil
      case .on(let frequency):
        ok = status.map { !$0.stopped && (frequency == nil || $0.effective == frequency) } ?? false
      }
      if !ok {
        let what: String =
          switch expected {
          case .off: "off"
          case .stopped: "stopped"
          case .waiting: "waiting"
          case .on(let f): f.map { "on \($0)" } ?? "on"
          }
        throw fail(step, "\(device): \(name)'s background delivery of \(type.name) is \(what)", actual)
      }
    }
  }

  /// `<App>'s background deliveries of <type>: <n> woken, <n> completed, <n> missed`.
  func checkBackgroundCounts(
    _ devices: Devices, _ name: String, _ type: SampleType, woken: Int, completed: Int, missed: Int, _ step: Step
  ) throws {
    for device in devices.list {
      let history = try client(device).backgroundDeliveries(app(name).bundleID).history.filter { $0.type == type }
      func count(_ kind: BackgroundDeliveryEvent.Kind) -> Int { history.filter { $0.kind == kind }.count }
      let actual = "\(count(.woken)) woken, \(count(.completed)) completed, \(count(.missed)) missed"
      let expected = "\(woken) woken, \(completed) completed, \(missed) missed"
      if actual != expected {
        throw fail(step, "\(device): \(name)'s background deliveries of \(type.name): \(expected)", actual)
      }
    }
  }
}
