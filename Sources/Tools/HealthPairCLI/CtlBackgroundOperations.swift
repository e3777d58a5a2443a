import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import Render
import Wire

/// The `ctl background` operation: an app's background delivery registrations, and its calls.
extension CtlCommand {
  /// `background [<app>]`: the registrations and their events; `background <app> enable <type> [<frequency>]`,
  /// `disable <type>|all`, `complete <delivery>`: the app's calls.
  func background(_ args: inout Arguments, _ client: DeviceClient) throws {
    let bundle = try args.positional()
    guard let bundle, let action = try args.positional() else {
      try args.finish()
      let (list, history) = try client.backgroundDeliveries(bundle)
      for s in list {
        var state = s.stopped ? "stopped" : s.waiting.map { "waiting for delivery #\($0)" } ?? "on"
        if s.pending { state += ", changes pending" }
        out(
          "\(s.key.bundleID) \(s.key.type.name): \(s.frequency) (applied: \(s.effective)), \(state); woken \(s.woken), "
            + "completed \(s.completed), misses in a row \(s.misses)\n")
      }
      for e in history { out("  \(formatDate(e.at)) \(e)\n") }
      if list.isEmpty { out("no background delivery registrations\n") }
      return
    }
    switch action {
    case "enable":
      let t = try type(try args.required("type"), args)
      let name = try args.positional() ?? "immediate"
      guard let frequency = UpdateFrequency(name: name) else {
        throw args.error("unknown frequency '\(name)': expected immediate, hourly, daily or weekly")
      }
      try args.finish()
      try client.enableBackgroundDelivery(bundle, t, frequency: frequency)
      out("background delivery of \(t.name) enabled for \(bundle) (\(frequency))\n")
    case "disable":
      let which = try args.required("type or 'all'")
      let t = which == "all" ? nil : try type(which, args)
      try args.finish()
      try client.disableBackgroundDelivery(bundle, t)
      out("background delivery of \(t?.name ?? "every type") disabled for \(bundle)\n")
    case "complete":
      let text = try args.required("delivery number")
      guard let delivery = UInt64(text) else { throw args.error("invalid delivery number '\(text)'") }
      try args.finish()
      try client.completeBackgroundDelivery(bundle, delivery: delivery)
      out("completion handler of delivery #\(delivery) called\n")
    default:
      throw args.error("unknown background operation '\(action)': expected enable, disable or complete")
    }
  }
}
