import DeviceCore
import HealthModel
import Journal
import Posix

/// How a daemon is configured (from `healthpaird`'s arguments).
package struct DaemonOptions: Sendable {
  /// Which device to be.
  package var device: DeviceKind
  /// The daemon's own directory: journal, socket, log, lock.
  package var directory: String
  /// The peer socket: where the phone listens and the watch connects. Nil runs without a peer.
  package var peerSocket: String?
  /// The pairing secret (required with a peer).
  package var pairingKey: [UInt8]
  /// `fsync` after every journal append.
  package var fsync = false
  /// Cut a journal damaged in the middle instead of refusing to start.
  package var repair = false
  /// The lowest level logged.
  package var logLevel = LogLevel.info
  /// The most client connections served at once.
  package var maxClients = 256
  /// The most unsent bytes a client may have queued before it is disconnected as too slow.
  package var maxClientBacklog = 64 << 20
  /// Seconds a peer connection may take to complete the pairing handshake before it is closed.
  package var handshakeTimeout = 2.0
  /// Seconds a client connection may stay open without sending `hello` before it is closed.
  package var helloTimeout = 10.0
  /// The launcher's lifeline: the read end of a pipe whose write end only the launcher holds. When it reports end
  /// of file, the launcher has exited (however it ended) and the daemon stops.
  package var lifeline: Int32?

  /// Creates options.
  package init(device: DeviceKind, directory: String, peerSocket: String?, pairingKey: [UInt8]) {
    self.device = device
    self.directory = directory
    self.peerSocket = peerSocket
    self.pairingKey = pairingKey
  }

  /// `<dir>/<device>.sock`.
  package var socketPath: String { "\(directory)/\(device).sock" }
  /// `<dir>/<device>.journal`.
  package var journalPath: String { "\(directory)/\(device).journal" }
  /// `<dir>/<device>.log`.
  package var logPath: String { "\(directory)/\(device).log" }
  /// `<dir>/<device>.lock`.
  package var lockPath: String { "\(directory)/\(device).lock" }
}

/// Why a daemon could not start.
package enum DaemonStartError: Error, CustomStringConvertible {
  /// Another daemon holds the lock.
  case alreadyRunning(device: DeviceKind, directory: String, pid: String)
  /// The journal could not be opened.
  case journal(JournalError)
  /// A system call failed.
  case system(SystemError)

  /// A one-line message.
  package var description: String {
    switch self {
    case .alreadyRunning(let device, let dir, let pid):
      "another \(device) daemon is already running for \(dir) (pid \(pid)); stop it first (healthpair down)"
    case .journal(let e): "\(e)"
    case .system(let e): "\(e)"
    }
  }
}
