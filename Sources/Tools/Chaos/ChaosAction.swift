import HealthModel

/// One action of a fault campaign's schedule. The schedule depends only on the seed.
package enum ChaosAction: Hashable, Sendable, CustomStringConvertible {
  /// Send `batches` save requests of `count` samples each on different connections, without waiting.
  case save(DeviceKind, app: Int, batches: Int, count: Int)
  /// Delete up to `count` acknowledged samples of the app (from this device's point of view).
  case delete(DeviceKind, app: Int, count: Int)
  /// The churn app requests a type and the user answers (`answer`: 0 allow, 1 deny, 2 cancel, 3 fail).
  case authorize(DeviceKind, answer: Int)
  /// A Settings change on the phone, or a Watch-app change for the watch.
  case settings(watchApp: Bool, on: Bool)
  /// A sample query on a device.
  case query(DeviceKind)
  /// Drop or restore the link.
  case link(up: Bool)
  /// Hold or release a device's outbound delivery.
  case hold(DeviceKind, Bool)
  /// Set the link latency (milliseconds).
  case latency(Int)
  /// SIGKILL a daemon and start it again.
  case kill(DeviceKind)
  /// Once everything has synced: SIGKILL a daemon, cut the last `records` records off its journal (at a record
  /// boundary, as a restore from an older copy leaves it) and start it again. What was cut must come back from the
  /// other device.
  case loseTail(DeviceKind, records: Int)
  /// Wait until synced (when the link is up).
  case settle

  /// A short description for logs and failure reports.
  package var description: String {
    switch self {
    case .save(let d, let a, let b, let c): "save \(b)×\(c) on \(d) as app \(a)"
    case .delete(let d, let a, let c): "delete \(c) on \(d) as app \(a)"
    case .authorize(let d, let answer): "authorize churn on \(d), answer \(["allow", "deny", "cancel", "fail"][answer])"
    case .settings(let w, let on): "\(w ? "Watch-app" : "Settings") change, \(on ? "on" : "off")"
    case .query(let d): "query on \(d)"
    case .link(let up): up ? "link reconnect" : "link disconnect"
    case .hold(let d, let h): "\(h ? "hold" : "release") \(d)"
    case .latency(let ms): "latency \(ms) ms"
    case .kill(let d): "kill -9 \(d) and restart"
    case .loseTail(let d, let n): "kill -9 \(d), cut its journal's last \(n) records, restart"
    case .settle: "wait until synced"
    }
  }
}
