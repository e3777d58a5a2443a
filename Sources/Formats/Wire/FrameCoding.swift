import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// A client-socket frame's layout: the message type, the request id, then a request (its row in `RequestTable`),
// a response (status, then a reply of `ReplyTable` or a health error) or an event (docs/protocol.md).

/// What follows a response's header: its first byte (docs/protocol.md, `response-payload`).
package enum ResponseStatus: UInt8, CaseIterable, Sendable {
  /// A reply of ``ReplyTable``.
  case reply = 0
  /// A health error.
  case error = 1
}

extension Frame {
  /// Encodes the frame body (without the length prefix).
  package func encoded() -> [UInt8] {
    var w = BinaryWriter(capacity: capacityHint)
    write(into: &w)
    return w.bytes
  }

  /// Encodes the frame with its length prefix: the body is written after four bytes patched at the end, so a
  /// large reply is not copied a second time to prefix it.
  package func framed() -> [UInt8] {
    var w = BinaryWriter(capacity: 4 + capacityHint)
    w.u32(0)
    write(into: &w)
    w.patchU32(UInt32(w.bytes.count - 4), at: 0)
    return w.bytes
  }

  /// About how many bytes the body takes: a sample, workout or route reply, or a workout's save, reserves its size
  /// up front instead of growing through a dozen reallocations and copies. A size heuristic, not a dispatch: every
  /// other frame starts at 128 bytes.
  private var capacityHint: Int {
    switch self {
    case .response(_, .success(.samples(let samples))): 64 + samples.count * 64
    case .response(_, .success(.anchored(let result))): 64 + result.added.count * 64 + result.deleted.count * 40
    // A workout without associations is about 330 bytes; each association 16, each route fix 80.
    case .response(_, .success(.workouts(let workouts))):
      workouts.reduce(64) { $0 + 384 + $1.associated.count * 16 }
    case .response(_, .success(.routes(let routes))): routes.reduce(64) { $0 + 128 + $1.locations.count * 80 }
    case .request(_, .saveWorkout(_, let workout, let route)):
      512 + workout.associated.count * 16 + (route?.locations.count ?? 0) * 80
    default: 128
    }
  }

  private func write(into w: inout BinaryWriter) {
    switch self {
    case .request(let id, let request):
      w.u8(MessageType.request.rawValue)
      w.u32(id)
      w.request(request)
    case .response(let id, let result):
      w.u8(MessageType.response.rawValue)
      w.u32(id)
      switch result {
      case .success(let reply):
        w.u8(ResponseStatus.reply.rawValue)
        w.reply(reply)
      case .failure(let error):
        w.u8(ResponseStatus.error.rawValue)
        w.healthError(error)
      }
    case .interim(let id, let reply):
      w.u8(MessageType.interim.rawValue)
      w.u32(id)
      w.reply(reply)
    case .event(let event):
      w.u8(MessageType.event.rawValue)
      w.u32(0)
      w.event(event)
    }
  }

  /// Decodes a frame body.
  /// - Throws: ``DecodeError`` with the offset of the first bad byte.
  package static func decode(_ body: [UInt8]) throws(DecodeError) -> Frame {
    try body.withUnsafeBytes { buffer in
      catchingDecode { () throws(DecodeError) in
        var r = BinaryReader(buffer)
        let rawType = try r.u8()
        guard let type = MessageType(rawValue: rawType) else {
          throw DecodeError(offset: 0, "unknown message type \(rawType)")
        }
        let id = try r.u32()
        let frame: Frame
        switch type {
        case .request: frame = .request(id: id, try r.request())
        case .response:
          let raw = try r.u8()
          switch ResponseStatus(rawValue: raw) {
          case .reply: frame = .response(id: id, .success(try r.reply()))
          case .error: frame = .response(id: id, .failure(try r.healthError()))
          case nil: throw DecodeError(offset: 5, "unknown response status \(raw)")
          }
        case .interim: frame = .interim(id: id, try r.reply())
        case .event: frame = .event(try r.daemonEvent())
        }
        try r.expectEnd("message")
        return frame
      }
    }.get()
  }
}

@inline(__always)
private func catchingDecode<T>(_ body: () throws(DecodeError) -> T) -> Result<T, DecodeError> {
  do { return .success(try body()) } catch { return .failure(error) }
}

extension BinaryWriter {
  /// The opcode, then the request's fields as its row in ``RequestTable`` lays them out.
  mutating func request(_ request: Request) {
    let opcode = request.opcode
    u8(opcode.rawValue)
    request.writeFields(into: &self)
  }

  mutating func event(_ e: DaemonEvent) {
    u8(e.tag.rawValue)
    switch e {
    case .promptShown(let p), .extensionRequestWaiting(let p):
      prompt(p)
    case .promptClosed(let id, let bundle, let outcome):
      u64(id)
      string(bundle)
      string(outcome)
    case .samplesChanged(let t, let origin, let added, let deleted):
      types(t)
      u8(origin.rawValue)
      u32(UInt32(clamping: added))
      u32(UInt32(clamping: deleted))
    case .syncApplied(let upTo, let items):
      u64(upTo)
      u32(UInt32(clamping: items))
    case .peerAcknowledged(let seq):
      u64(seq)
    case .linkChanged(let connected):
      bool(connected)
    case .protectedDataChanged(let available):
      bool(available)
    case .backgroundDelivery(let e):
      backgroundEvent(e)
    case .samplesPruned(let type, let apps):
      sampleType(type)
      array(apps) { $0.string($1) }
    case .workoutSession(let app, let session, let callback):
      string(app)
      workoutSessionID(session)
      sessionCallback(callback)
    case .workoutBuilder(let app, let session, let callback):
      string(app)
      workoutSessionID(session)
      builderCallback(callback)
    case .mirroringStarted(let app, let session):
      string(app)
      workoutSessionID(session)
    case .workoutDataSent(let app, let session, let sequence, let error):
      string(app)
      workoutSessionID(session)
      u64(sequence)
      optional(error) { $0.healthError($1) }
    case .workoutConfigurationHandled(let app, let configuration):
      string(app)
      sessionConfiguration(configuration)
    }
  }
}

extension BinaryReader {
  /// The opcode, then the fields its row in ``RequestTable`` lays out.
  mutating func request() throws(DecodeError) -> Request {
    let opcodeOffset = offset
    let raw = try u8()
    guard let opcode = RequestOpcode(rawValue: raw) else {
      throw DecodeError(offset: reportBase + opcodeOffset, "unknown request opcode \(raw)")
    }
    return try opcode.readFields(from: &self)
  }

  mutating func daemonEvent() throws(DecodeError) -> DaemonEvent {
    let tagOffset = offset
    let raw = try u8()
    guard let tag = EventTag(rawValue: raw) else {
      throw DecodeError(offset: reportBase + tagOffset, "unknown event tag \(raw)")
    }
    switch tag {
    case .promptShown: return .promptShown(try prompt())
    case .extensionRequestWaiting: return .extensionRequestWaiting(try prompt())
    case .promptClosed:
      return .promptClosed(promptID: try u64(), bundleID: try bundle(), outcome: try string(maxLength: 4096))
    case .samplesChanged:
      return .samplesChanged(types: try types(), origin: try device(), added: Int(try u32()), deleted: Int(try u32()))
    case .syncApplied: return .syncApplied(upTo: try u64(), items: Int(try u32()))
    case .peerAcknowledged: return .peerAcknowledged(try u64())
    case .linkChanged: return .linkChanged(connected: try bool())
    case .protectedDataChanged: return .protectedDataChanged(available: try bool())
    case .backgroundDelivery: return .backgroundDelivery(try backgroundEvent())
    case .samplesPruned:
      return .samplesPruned(
        type: try sampleType(), apps: try array(minElementSize: 4) { r throws(DecodeError) in try r.bundle() })
    case .workoutSession:
      return .workoutSession(app: try bundle(), session: try workoutSessionID(), try sessionCallback())
    case .workoutBuilder:
      return .workoutBuilder(app: try bundle(), session: try workoutSessionID(), try builderCallback())
    case .mirroringStarted:
      return .mirroringStarted(app: try bundle(), session: try workoutSessionID())
    case .workoutDataSent:
      return .workoutDataSent(
        app: try bundle(), session: try workoutSessionID(), sequence: try u64(),
        error: try optional { r throws(DecodeError) in try r.healthError() })
    case .workoutConfigurationHandled:
      return .workoutConfigurationHandled(app: try bundle(), try sessionConfiguration())
    }
  }
}
