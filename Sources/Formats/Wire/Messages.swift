import FoundationEssentials
import HealthEngine
import HealthModel

/// Constants of the client protocol (docs/protocol.md).
package enum WireProtocol {
  /// The protocol version this build speaks; `hello` must carry it. Version 2: paged `storedSamples`, sync log
  /// identities and store checks on the peer link. Version 3: statistics collections in calendar intervals and
  /// the device's time zone, source orders (requests and sync entries). Version 4: the samples of a query reply
  /// (`samples`, `anchored`) list their sources once, as import batches do. Version 5: `saveWorkout` answers a count
  /// (1: the workout waits for the device to unlock); `anchoredQuery` carries a filter applied before its limit.
  /// Version 6: workout session calls 7–20, the full session status (configuration, activities, events, sequence,
  /// builder) and the events `mirroringStarted`, `workoutDataSent`, `workoutConfigurationHandled`. Version 7: a
  /// prompt lists a per-object sheet's objects; the answer `objects`; vision prescriptions and the object families'
  /// anchored queries. Version 8: `installApp` and a dump's apps carry the clinical-record Info.plist keys.
  package static let version: UInt16 = 8
  /// The largest frame body on a client socket (16 MiB).
  package static let maxClientFrame = 16 << 20
  /// The largest frame body on the peer link (64 MiB).
  package static let maxPeerFrame = 64 << 20
  /// The largest reply frame body a daemon sends (64 MiB, and never more than its `--max-client-backlog`); a
  /// larger reply is replaced by an error that says how to ask for less.
  package static let maxReplyFrame = 64 << 20
  /// The most bytes of samples and tombstones in one `storedSamples` page (4 MiB, and never more than half the
  /// daemon's `--max-client-backlog`).
  package static let maxStoredPage = 4 << 20
  /// The largest frame body accepted before a connection has identified itself — a client before `hello`, a peer
  /// before the pairing handshake completed (4 KiB; those messages are well under 300 bytes). So a connection
  /// that has proved nothing makes the daemon buffer at most this much of a frame.
  package static let maxHandshakeFrame = 4 << 10
}

/// The kind of a frame on a client socket (the first byte of its body).
package enum MessageType: UInt8, Sendable {
  /// Client → daemon.
  case request = 1
  /// Daemon → client: the final answer to a request.
  case response = 2
  /// Daemon → client: a progress notice for a request still pending (a sheet was presented).
  case interim = 3
  /// Daemon → client: a pushed event (after `subscribe`).
  case event = 4
}

/// Link control operations (for tests and the command line).
package enum LinkCommand: Hashable, Sendable {
  /// Allow the link (the default).
  case connect
  /// Drop the link and refuse it until `connect`.
  case disconnect
  /// Keep this device's outbound sync messages queued.
  case hold
  /// Deliver what `hold` queued, and stop holding.
  case release
  /// Delay every outbound sync message by this many seconds.
  case latency(Double)
  /// Try to connect now instead of waiting for the reconnect timer.
  case reconnectNow
  /// Change nothing: the answer is the link's status (``LinkStatus``), read without `dump`'s cost.
  case status
}

extension LinkCommand: CustomStringConvertible {
  /// The command as Swift would print the case (`hold`, `latency(0.25)`), without the reflection that printing a
  /// type with no description costs on every logged link command.
  package var description: String {
    switch self {
    case .connect: "connect"
    case .disconnect: "disconnect"
    case .hold: "hold"
    case .release: "release"
    case .latency(let seconds): "latency(\(seconds))"
    case .reconnectNow: "reconnectNow"
    case .status: "status"
    }
  }
}

/// Which pushed events a subscriber wants.
package struct EventMask: OptionSet, Hashable, Sendable {
  /// The raw bits.
  package let rawValue: UInt32
  /// Creates a mask.
  package init(rawValue: UInt32) { self.rawValue = rawValue }
  /// Sheets presented and closed.
  package static let prompts = EventMask(rawValue: 1)
  /// Samples added or deleted (local or synced).
  package static let samples = EventMask(rawValue: 2)
  /// Sync progress.
  package static let sync = EventMask(rawValue: 4)
  /// Link up/down.
  package static let link = EventMask(rawValue: 8)
  /// Background deliveries (woken, completed, missed, stopped) and samples pruned by the retention window.
  package static let background = EventMask(rawValue: 16)
  /// Workout session and live builder delegate callbacks.
  package static let sessions = EventMask(rawValue: 32)
  /// Everything.
  package static let all: EventMask = [.prompts, .samples, .sync, .link, .background, .sessions]
}

/// Information the daemon returns to `hello`.
package struct HelloInfo: Hashable, Sendable {
  /// The protocol version.
  package var version: UInt16
  /// Which device answered.
  package var device: DeviceKind
  /// The daemon's process id.
  package var pid: Int32
  /// The daemon's software version.
  package var software: String

  /// Creates hello information.
  package init(version: UInt16, device: DeviceKind, pid: Int32, software: String) {
    self.version = version
    self.device = device
    self.pid = pid
    self.software = software
  }
}

/// The state of a daemon's peer link.
package struct LinkStatus: Hashable, Sendable {
  /// Whether the link is allowed (not `disconnect`ed).
  package var enabled: Bool
  /// Whether the peers are connected and authenticated.
  package var connected: Bool
  /// Whether outbound delivery is held.
  package var holding: Bool
  /// Added latency in seconds.
  package var latency: Double
  /// This device's sync cursors and backlog.
  package var sync: DeviceSnapshot.SyncStatus
  /// The workout-session messages this device sent and handled on the current connection.
  package var sessions: SessionTraffic

  /// Creates a status.
  package init(
    enabled: Bool, connected: Bool, holding: Bool, latency: Double, sync: DeviceSnapshot.SyncStatus,
    sessions: SessionTraffic = SessionTraffic()
  ) {
    self.enabled = enabled
    self.connected = connected
    self.holding = holding
    self.latency = latency
    self.sync = sync
    self.sessions = sessions
  }
}

/// How many workout-session messages (``PeerMessage/session(_:)``) one device sent to its peer and handled from it
/// on the current connection; both start at zero when the link is established. When each device has handled as many
/// as the other sent, no session message is in flight.
package struct SessionTraffic: Hashable, Sendable {
  /// Messages sent to the peer.
  package var sent: UInt64 = 0
  /// Messages received from the peer and handled.
  package var received: UInt64 = 0

  /// No messages yet.
  package init(sent: UInt64 = 0, received: UInt64 = 0) {
    self.sent = sent
    self.received = received
  }
}

/// A daemon's full state for tests and `healthpair status`.
package struct DaemonSnapshot: Hashable, Sendable {
  /// The device state, hidden read decisions included.
  package var device: DeviceSnapshot
  /// The link.
  package var link: LinkStatus
  /// The daemon's process id.
  package var pid: Int32
  /// Connected clients.
  package var clients: Int

  /// Creates a snapshot.
  package init(device: DeviceSnapshot, link: LinkStatus, pid: Int32, clients: Int) {
    self.device = device
    self.link = link
    self.pid = pid
    self.clients = clients
  }
}

/// A decoded client-socket frame.
package enum Frame: Hashable, Sendable {
  /// A request with its id.
  case request(id: UInt32, Request)
  /// A final response.
  case response(id: UInt32, Result<Reply, HealthError>)
  /// An interim notice for a pending request.
  case interim(id: UInt32, Reply)
  /// A pushed event.
  case event(DaemonEvent)
}
