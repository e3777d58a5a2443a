import HealthModel
import Wire

/// The seeded network between the simulated phone and watch: a stream transport like the Unix socket it stands for.
///
/// At most one connection exists at a time. Within it, messages in each direction arrive in order, each after the
/// sender's link latency plus a random delay; a reset loses a random suffix of each direction's in-flight messages and
/// ends both streams; a partition refuses new connections; a message of a connection that is gone never arrives.
final class SimulatedNetwork {
  /// What travels.
  enum Body: Equatable {
    /// The connector opened a connection: the listener accepts it.
    case open
    /// A peer message.
    case message(PeerMessage)
    /// The other side closed or crashed, or the connection was reset.
    case endOfStream
  }

  /// A message in flight.
  struct Packet {
    /// Which device receives it.
    var to: DeviceKind
    /// The connection it belongs to.
    var connection: UInt64
    /// What it carries.
    var body: Body
    /// When it arrives (virtual seconds).
    var due: Double
    /// Queue order, to break ties in `due`.
    var order: UInt64
  }

  /// The current virtual time, seconds since the run began.
  var now = 0.0
  /// Whether connections are refused.
  var partitioned = false
  /// The live connection, if any.
  var connection: UInt64?
  /// Whether messages get random extra delays.
  var jitter: Bool
  private var random: SeededGenerator
  private var inFlight: [Packet] = []
  private var nextConnection: UInt64 = 1
  private var nextOrder: UInt64 = 0
  /// The arrival time of the newest message queued towards each device (streams keep order).
  private var lastDue: [DeviceKind: Double] = [:]

  /// A network drawing its delays from `seed`.
  init(seed: UInt64, jitter: Bool) {
    random = SeededGenerator(seed: seed)
    self.jitter = jitter
  }

  /// Whether nothing is in flight.
  var isEmpty: Bool { inFlight.isEmpty }

  /// When the next message arrives.
  var nextDue: Double? { inFlight.lazy.map(\.due).min() }

  /// Opens a connection from `connector`, unless partitioned; the listener hears of it as an ``Body/open`` message.
  func open(from connector: DeviceKind) -> UInt64? {
    guard !partitioned else { return nil }
    let id = nextConnection
    nextConnection += 1
    connection = id
    queue(from: connector, to: connector.peer, connection: id, body: .open, delay: 0)
    return id
  }

  /// Queues a message; nothing is queued on a connection that is gone, except the end of its stream.
  func queue(from: DeviceKind, to: DeviceKind, connection id: UInt64, body: Body, delay: Double) {
    guard id == connection || body == .endOfStream else { return }
    let extra = jitter && body != .endOfStream ? Double(random.next() % 5_000) / 1e6 : 0
    let due = max(lastDue[to] ?? 0, now + delay + extra)
    lastDue[to] = due
    inFlight.append(Packet(to: to, connection: id, body: body, due: due, order: nextOrder))
    nextOrder += 1
  }

  /// Takes the earliest message due by now, if any.
  func popDue() -> Packet? {
    var best: Int?
    for (i, packet) in inFlight.enumerated() where packet.due <= now {
      if let b = best, (inFlight[b].due, inFlight[b].order) <= (packet.due, packet.order) { continue }
      best = i
    }
    guard let best else { return nil }
    return inFlight.remove(at: best)
  }

  /// `closer` closed connection `id`: what it had sent still arrives, then the end of the stream; nothing more
  /// reaches `closer`.
  func close(_ id: UInt64, by closer: DeviceKind) {
    inFlight.removeAll { $0.connection == id && $0.to == closer }
    queue(from: closer, to: closer.peer, connection: id, body: .endOfStream, delay: 0)
    if connection == id { connection = nil }
  }

  /// Resets the live connection: each direction keeps the first `fraction` of its in-flight messages, then ends.
  /// Returns how many messages were lost.
  func reset(keepingFraction fraction: Double) -> Int {
    guard let id = connection else { return 0 }
    var lost = 0
    for device in DeviceKind.allCases {
      let towards = inFlight.filter { $0.connection == id && $0.to == device }.sorted { $0.order < $1.order }
      let keep = Int((Double(towards.count) * fraction).rounded(.down))
      let dropped = Set(towards.dropFirst(keep).map(\.order))
      lost += dropped.count
      inFlight.removeAll { dropped.contains($0.order) }
      queue(from: device.peer, to: device, connection: id, body: .endOfStream, delay: 0)
    }
    connection = nil
    return lost
  }
}
