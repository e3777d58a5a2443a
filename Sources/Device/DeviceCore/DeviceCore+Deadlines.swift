import FoundationEssentials
import HealthEngine
import HealthModel
import Sync
import Wire

/// The deadlines of connections that have not proved anything yet, kept as values: a client's `hello` deadline and
/// the peer connection's pairing handshake deadline. The shell passes its monotonic clock (nanoseconds) in the
/// inputs that start and fire them, and arms one timer of each kind as ``Action/armTimer(_:at:)`` asks
/// (`DeviceCoreTests`, "Device core: deadlines").
extension DeviceCore {
  /// The monotonic instant `seconds` after `now`, saturating instead of trapping on huge or invalid durations.
  package static func instant(after seconds: Double, from now: UInt64) -> UInt64 {
    guard seconds > 0 else { return now }
    let nanoseconds = seconds * 1e9
    // 2^64 as a Double: below it the conversion is exact enough and cannot trap; the sum may still overflow.
    guard nanoseconds < 18_446_744_073_709_551_616.0 else { return UInt64.max }
    let (sum, overflow) = now.addingReportingOverflow(UInt64(nanoseconds))
    return overflow ? UInt64.max : sum
  }

  /// A client connection was accepted at `now`: open its session and queue its `hello` deadline, arming the timer
  /// when it is the only one waiting.
  mutating func accept(_ connection: UInt64, pid: Int32, at now: UInt64, into actions: inout [Action]) {
    var session = Session()
    session.pid = pid
    sessions[connection] = session
    let due = Self.instant(after: configuration.helloTimeout, from: now)
    if helloHead == helloDeadlines.count, configuration.armsTimers { actions.append(.armTimer(.hello, at: due)) }
    helloDeadlines.append((due, connection))
  }

  /// Queues the connection's close once its queued bytes are written; its deadline sends nothing more.
  mutating func closeAfterFlush(_ connection: UInt64, into actions: inout [Action]) {
    sessions[connection]?.closing = true
    actions.append(.closeAfterFlush(connection: connection))
  }

  /// Tells and closes every client whose `hello` deadline passed by `now` without a `hello` (and that is not being
  /// closed already), then arms the timer for the next deadline.
  mutating func helloDeadlinesDue(at now: UInt64, into actions: inout [Action]) {
    while helloHead < helloDeadlines.count, helloDeadlines[helloHead].due <= now {
      let id = helloDeadlines[helloHead].connection
      helloHead += 1
      guard let session = sessions[id], !session.helloDone, !session.closing else { continue }
      let limit = formatNumber(configuration.helloTimeout, decimals: 3)
      actions.append(
        .log(
          .warning, "closing client: no hello within \(limit) s",
          [RequestCore.Field("client", "\(id)"), RequestCore.Field("pid", "\(session.pid)")]))
      let refusal = Frame.response(id: 0, .failure(.simulator("no hello within \(limit) s; closing the connection")))
      actions.append(.send(connection: id, refusal.framed()))
      closeAfterFlush(id, into: &actions)
    }
    if helloHead == helloDeadlines.count {
      helloDeadlines.removeAll(keepingCapacity: true)
      helloHead = 0
      if configuration.armsTimers { actions.append(.armTimer(.hello, at: nil)) }
    } else {
      if helloHead > 1024 && helloHead * 2 > helloDeadlines.count {
        helloDeadlines.removeFirst(helloHead)
        helloHead = 0
      }
      if configuration.armsTimers { actions.append(.armTimer(.hello, at: helloDeadlines[helloHead].due)) }
    }
  }

  /// A peer transport opened at `now`: start its handshake deadline, then feed the link `opened`.
  mutating func peerOpened(
    nonce: [UInt8], pid: Int32?, at now: UInt64, state: inout DeviceState, wall: Date, into actions: inout [Action]
  ) {
    let due = Self.instant(after: configuration.handshakeTimeout, from: now)
    handshakeDeadline = (due, pid)
    if configuration.armsTimers { actions.append(.armTimer(.handshake, at: due)) }
    feedPeer(.opened(nonce: nonce), state: &state, wall: wall, into: &actions)
  }

  /// Closes the peer connection if its handshake deadline passed by `now` before the link connected.
  mutating func handshakeDue(at now: UInt64, state: inout DeviceState, wall: Date, into actions: inout [Action]) {
    guard let deadline = handshakeDeadline, deadline.due <= now else { return }
    guard !peer.machine.isConnected else {
      endHandshakeDeadline(into: &actions)
      return
    }
    handshakeDeadline = nil
    let limit = formatNumber(configuration.handshakeTimeout, decimals: 3)
    actions.append(
      .log(
        .warning, "peer connection did not complete the pairing handshake within \(limit) s; closing it",
        [RequestCore.Field("pid", deadline.pid.map { "\($0)" } ?? "?")]))
    actions.append(.peerClose(reason: "handshake not completed within \(limit) s"))
    feedPeer(.closed, state: &state, wall: wall, into: &actions)
  }

  /// The peer connection connected or closed: its handshake deadline is over.
  mutating func endHandshakeDeadline(into actions: inout [Action]) {
    handshakeDeadline = nil
    if configuration.armsTimers { actions.append(.armTimer(.handshake, at: nil)) }
  }
}
