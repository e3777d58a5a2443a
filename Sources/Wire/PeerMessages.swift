import HealthCodec
import HealthEngine
import HealthModel

/// A message on the peer link between the two daemons (docs/protocol.md, "Peer link").
///
/// The listener (phone) opens with a `challenge`; the connector (watch) answers with a `proof` of the pairing
/// secret and its own nonce; the listener answers with its `accept` proof. Only then do both sides exchange
/// `resume` (what each has applied from the other) and start sending `entries` and `ack`s.
package enum PeerMessage: Hashable, Sendable {
  /// Listener → connector: protocol version, listener's device, 32-byte nonce.
  case challenge(version: UInt16, device: DeviceKind, nonce: [UInt8])
  /// Connector → listener: SHA-256(secret ‖ "connector" ‖ listener nonce), the connector's device and nonce.
  case proof(digest: [UInt8], device: DeviceKind, nonce: [UInt8])
  /// Listener → connector: SHA-256(secret ‖ "listener" ‖ connector nonce).
  case accept(digest: [UInt8])
  /// "I have applied everything you sent up to this sequence number": the resume point.
  case resume(appliedUpTo: UInt64)
  /// Outbound log entries, in sequence order.
  case entries([SyncEntry])
  /// "I have applied everything up to this sequence number."
  case ack(UInt64)

  /// The proof for `nonce` given the shared `secret` and the prover's role.
  package static func digest(secret: [UInt8], role: String, nonce: [UInt8]) -> [UInt8] {
    SHA256.hash(secret + Array(role.utf8) + nonce)
  }

  /// Encodes the body (without the length prefix).
  package func encoded() -> [UInt8] {
    var w = BinaryWriter(capacity: 64)
    switch self {
    case .challenge(let version, let device, let nonce): w.u8(1); w.u16(version); w.u8(device.rawValue); w.array(nonce) { $0.u8($1) }
    case .proof(let digest, let device, let nonce):
      w.u8(2); w.array(digest) { $0.u8($1) }; w.u8(device.rawValue); w.array(nonce) { $0.u8($1) }
    case .accept(let digest): w.u8(3); w.array(digest) { $0.u8($1) }
    case .resume(let seq): w.u8(4); w.u64(seq)
    case .entries(let entries): w.u8(5); w.array(entries) { $0.syncEntry($1) }
    case .ack(let seq): w.u8(6); w.u64(seq)
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
        case 4: message = .resume(appliedUpTo: try r.u64())
        case 5: message = .entries(try r.array(minElementSize: 9) { r throws(DecodeError) in try r.syncEntry() })
        case 6: message = .ack(try r.u64())
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
