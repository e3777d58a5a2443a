import HealthModel
import HealthPairClient
import Posix

/// Where a pair's files live: `<root>/phone/`, `<root>/watch/`, the peer socket and the pairing key.
package struct PairLayout: Sendable {
  /// The pair's directory.
  package var root: String
  /// Creates a layout rooted at `root`.
  package init(root: String) { self.root = root }
  /// A device's own directory.
  package func directory(_ device: DeviceKind) -> String { "\(root)/\(device)" }
  /// A device's client socket.
  package func socket(_ device: DeviceKind) -> String { "\(directory(device))/\(device).sock" }
  /// A device's log.
  package func log(_ device: DeviceKind) -> String { "\(directory(device))/\(device).log" }
  /// A device's journal.
  package func journal(_ device: DeviceKind) -> String { "\(directory(device))/\(device).journal" }
  /// A device's lock file (holds its pid).
  package func lock(_ device: DeviceKind) -> String { "\(directory(device))/\(device).lock" }
  /// Where a device's standard error goes.
  package func stderr(_ device: DeviceKind) -> String { "\(directory(device))/\(device).stderr" }
  /// The peer link socket (the phone listens on it).
  package var peerSocket: String { "\(directory(.phone))/peer.sock" }
  /// The pairing secret, mode 0600.
  package var pairingKey: String { "\(root)/pairing.key" }
  /// How `healthpair up` launched the daemons, so one can be restarted the same way (``LaunchOptions/recorded(in:)``).
  package var launchOptions: String { "\(root)/launch.options" }

  /// The pid of `device`'s daemon when one answers `hello` on its socket within `timeout` seconds, else nil. The
  /// lock file's pid alone proves nothing: a killed daemon leaves it (and its socket file) behind.
  package func runningDaemon(_ device: DeviceKind, timeout: Double = 5) -> Int32? {
    guard Posix.exists(socket(device)),
      let client = try? DeviceClient(socketPath: socket(device), clientName: "healthpair probe", timeout: timeout)
    else { return nil }
    defer { client.close() }
    return client.daemonPID
  }
}
