import HealthCodec
import HealthEngine
import HealthModel

/// A message on the peer link between the two daemons (docs/protocol.md, "Peer link").
///
/// The listener (phone) opens with a `challenge`; the connector (watch) answers with a `proof` of the pairing
/// secret and its own nonce; the listener answers with its `accept` proof. Only then do both sides exchange
/// `resume` (what each has applied from the other, and of which log) and start sending `entries` and `ack`s. A side
/// whose log restarts says `newLog` in band; a side whose journal lost records asks with `resendAll` for everything
/// the other holds (answered by a `newLog`); the connector asks for a `check` of both stores whenever the two are
/// caught up, and the listener answers with a `checkResult`. While established, either side's workout sessions talk
/// to the other's with `session` messages.
package enum PeerMessage: Hashable, Sendable {
  /// Listener → connector: protocol version, listener's device, 32-byte nonce.
  case challenge(version: UInt16, device: DeviceKind, nonce: [UInt8])
  /// Connector → listener: SHA-256(secret ‖ "connector" ‖ listener nonce), the connector's device and nonce.
  case proof(digest: [UInt8], device: DeviceKind, nonce: [UInt8])
  /// Listener → connector: SHA-256(secret ‖ "listener" ‖ connector nonce).
  case accept(digest: [UInt8])
  /// "I have applied your log `ofLog` up to this sequence number, and my own log is `myLog`": the resume point.
  case resume(appliedUpTo: UInt64, ofLog: UInt64, myLog: UInt64)
  /// Outbound log entries, in sequence order.
  case entries([SyncEntry])
  /// "I have applied your log `ofLog` up to this sequence number."
  case ack(UInt64, ofLog: UInt64)
  /// "My log restarted under this identity; what follows numbers from 1."
  case newLog(UInt64)
  /// Connector → listener: "we look caught up; here is what my store holds" (see ``SyncCheck``).
  case check(SyncCheck)
  /// Listener → connector: the verdict on a ``SyncCheck``.
  case checkResult(SyncCheckResult)
  /// "My journal lost records: restart your log so that it re-sends everything you hold, including what you received
  /// from me." Sent after `resume` on every connection until a `newLog` answers it.
  case resendAll
  /// Either way, while the link is established: a workout-session registry's message to the other's (mirroring,
  /// remote control, the data channel, `startWatchApp`). Live: not journaled, not in the sync log.
  case session(SessionPeerMessage)

  /// The proof for `nonce` given the shared `secret` and the prover's role.
  package static func digest(secret: [UInt8], role: String, nonce: [UInt8]) -> [UInt8] {
    SHA256.hash(secret + Array(role.utf8) + nonce)
  }

  /// Encodes the body (without the length prefix).
  package func encoded() -> [UInt8] {
    var w = BinaryWriter(capacity: 64)
    switch self {
    case .challenge(let version, let device, let nonce):
      w.u8(1)
      w.u16(version)
      w.u8(device.rawValue)
      w.array(nonce) { $0.u8($1) }
    case .proof(let digest, let device, let nonce):
      w.u8(2)
      w.array(digest) { $0.u8($1) }
      w.u8(device.rawValue)
      w.array(nonce) { $0.u8($1) }
    case .accept(let digest):
      w.u8(3)
      w.array(digest) { $0.u8($1) }
    case .resume(let seq, let ofLog, let myLog):
      w.u8(4)
      w.u64(seq)
      w.u64(ofLog)
      w.u64(myLog)
    case .entries(let entries):
      w.u8(5)
      w.array(entries) { $0.syncEntry($1) }
    case .ack(let seq, let ofLog):
      w.u8(6)
      w.u64(seq)
      w.u64(ofLog)
    case .newLog(let id):
      w.u8(7)
      w.u64(id)
    case .check(let check):
      w.u8(8)
      w.cursors(check.cursors)
      w.i64(check.firstDay)
      w.array(check.days) { w, d in
        w.i64(d.day)
        w.u64(d.sum)
        w.u64(d.count)
      }
    case .checkResult(let result):
      w.u8(9)
      w.u8(result.outcome.rawValue)
      w.cursors(result.checked)
      w.string(result.detail)
    case .resendAll:
      w.u8(10)
    case .session(let message):
      w.u8(11)
      w.sessionPeerMessage(message)
    }
    return w.bytes
  }

  /// Decodes a body.
  package static func decode(_ body: [UInt8]) throws(DecodeError) -> PeerMessage {
    let result: Result<PeerMessage, DecodeError> = body.withUnsafeBytes { buffer in
      do throws(DecodeError) {
        var r = BinaryReader(buffer)
        func bytes32(_ r: inout BinaryReader) throws(DecodeError) -> [UInt8] {
          let v = try r.array(minElementSize: 1) { r throws(DecodeError) in try r.u8() }
          guard v.count == 32 else { throw r.error("expected 32 bytes, got \(v.count)") }
          return v
        }
        let message: PeerMessage
        switch try r.u8() {
        case 1: message = .challenge(version: try r.u16(), device: try r.device(), nonce: try bytes32(&r))
        case 2: message = .proof(digest: try bytes32(&r), device: try r.device(), nonce: try bytes32(&r))
        case 3: message = .accept(digest: try bytes32(&r))
        case 4: message = .resume(appliedUpTo: try r.u64(), ofLog: try r.u64(), myLog: try r.u64())
        case 5: message = .entries(try r.array(minElementSize: 9) { r throws(DecodeError) in try r.syncEntry() })
        case 6: message = .ack(try r.u64(), ofLog: try r.u64())
        case 7: message = .newLog(try r.logIdentity())
        case 8:
          let cursors = try r.cursors()
          let firstDay = try r.i64()
          let days = try r.array(minElementSize: 24) { r throws(DecodeError) in
            SampleStore.DayDigest(day: try r.i64(), sum: try r.u64(), count: try r.u64())
          }
          message = .check(SyncCheck(cursors: cursors, firstDay: firstDay, days: days))
        case 9:
          let raw = try r.u8()
          guard let outcome = SyncCheckResult.Outcome(rawValue: raw) else {
            throw r.error("unknown check outcome \(raw)")
          }
          message = .checkResult(
            SyncCheckResult(outcome: outcome, checked: try r.cursors(), detail: try r.string(maxLength: 4096)))
        case 10: message = .resendAll
        case 11: message = .session(try r.sessionPeerMessage())
        case let t: throw DecodeError(offset: 0, "unknown peer message tag \(t)")
        }
        try r.expectEnd("peer message")
        return .success(message)
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }
}

/// Where one side's sync stands: its own log and how far it applied the peer's.
package struct SyncCursors: Hashable, Sendable, CustomStringConvertible {
  /// The identity of this side's outbound log.
  package var log: UInt64
  /// Its newest sequence number.
  package var lastSeq: UInt64
  /// The identity of the peer log ``applied`` counts in.
  package var peerLog: UInt64
  /// How far the peer's log is applied here.
  package var applied: UInt64

  /// Creates cursors.
  package init(log: UInt64, lastSeq: UInt64, peerLog: UInt64, applied: UInt64) {
    self.log = log
    self.lastSeq = lastSeq
    self.peerLog = peerLog
    self.applied = applied
  }

  /// Whether `peer`'s cursors say the two sides have each applied everything the other logged.
  package func caughtUp(with peer: SyncCursors) -> Bool {
    peer.peerLog == log && peer.applied == lastSeq && peerLog == peer.log && applied == peer.lastSeq
  }

  /// `log:lastSeq/peerLog:applied` in hexadecimal identities.
  package var description: String {
    "\(String(log, radix: 16)):\(lastSeq)/\(String(peerLog, radix: 16)):\(applied)"
  }
}

/// A consistency check of two caught-up stores: the connector's cursors and the digests of the UTC days it holds
/// in full (see ``SampleStore/DayDigest``).
package struct SyncCheck: Hashable, Sendable {
  /// The connector's cursors when it computed the digests.
  package var cursors: SyncCursors
  /// The first day the connector holds in full (`Int64.min`: every day).
  package var firstDay: Int64
  /// The digests from `firstDay` on, in day order.
  package var days: [SampleStore.DayDigest]

  /// Creates a check.
  package init(cursors: SyncCursors, firstDay: Int64, days: [SampleStore.DayDigest]) {
    self.cursors = cursors
    self.firstDay = firstDay
    self.days = days
  }
}

/// The listener's verdict on a ``SyncCheck``.
package struct SyncCheckResult: Hashable, Sendable {
  /// The verdict.
  package enum Outcome: UInt8, Sendable {
    /// Same cursors, same contents: verified.
    case match = 1
    /// Same cursors, different contents: both sides re-send their stores.
    case mismatch = 2
    /// Not caught up any more (something changed in between): nothing concluded.
    case notComparable = 3
  }
  /// The verdict.
  package var outcome: Outcome
  /// The connector's cursors the verdict is about (echoed from the check).
  package var checked: SyncCursors
  /// Why, for the log (the first differing day on a mismatch).
  package var detail: String

  /// Creates a result.
  package init(outcome: Outcome, checked: SyncCursors, detail: String) {
    self.outcome = outcome
    self.checked = checked
    self.detail = detail
  }
}

extension BinaryWriter {
  /// log, lastSeq, peerLog, applied (u64 each).
  mutating func cursors(_ c: SyncCursors) {
    u64(c.log)
    u64(c.lastSeq)
    u64(c.peerLog)
    u64(c.applied)
  }
}

extension BinaryReader {
  /// Reads cursors.
  mutating func cursors() throws(DecodeError) -> SyncCursors {
    SyncCursors(log: try u64(), lastSeq: try u64(), peerLog: try u64(), applied: try u64())
  }
}
