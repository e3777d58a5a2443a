import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// session-call   := u8 tag | 0 create uuid, configuration | 1 command session-id, command | 2 builder session-id
//                   | 3 beginCollection session-id, date | 4 endCollection session-id, date
//                   | 5 finishWorkout session-id, uuid | 6 status session-id
// session-status := session-id | state u8 | type u8 | start date? | end date? | waiting bool

extension Codec {
  /// A call on a workout session (layout above).
  package enum Session: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: SessionCall, into w: inout BinaryWriter) {
      switch value {
      case .create(let uuid, let configuration):
        w.u8(0)
        w.uuid(uuid)
        w.sessionConfiguration(configuration)
      case .command(let id, let command):
        w.u8(1)
        w.workoutSessionID(id)
        w.sessionCommand(command)
      case .builder(let id):
        w.u8(2)
        w.workoutSessionID(id)
      case .beginCollection(let id, let date):
        w.u8(3)
        w.workoutSessionID(id)
        w.date(date)
      case .endCollection(let id, let date):
        w.u8(4)
        w.workoutSessionID(id)
        w.date(date)
      case .finishWorkout(let id, let workout):
        w.u8(5)
        w.workoutSessionID(id)
        w.uuid(workout)
      case .status(let id):
        w.u8(6)
        w.workoutSessionID(id)
      }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SessionCall {
      let tag = try r.u8()
      switch tag {
      case 0:
        let uuid = try r.uuid()
        return .create(uuid: uuid, configuration: try r.sessionConfiguration())
      case 1:
        let id = try r.workoutSessionID()
        return .command(id, try r.sessionCommand())
      case 2: return .builder(try r.workoutSessionID())
      case 3:
        let id = try r.workoutSessionID()
        return .beginCollection(id, try r.finiteDate("collection start date"))
      case 4:
        let id = try r.workoutSessionID()
        return .endCollection(id, try r.finiteDate("collection end date"))
      case 5:
        let id = try r.workoutSessionID()
        return .finishWorkout(id, workout: try r.uuid())
      case 6: return .status(try r.workoutSessionID())
      default: throw r.error("unknown workout session call \(tag)")
      }
    }
  }

  /// A session's status (layout above).
  package enum SessionState: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: SessionStatus, into w: inout BinaryWriter) {
      w.workoutSessionID(value.id)
      w.u8(UInt8(value.state.rawValue))
      w.u8(UInt8(value.type.rawValue))
      w.optional(value.start) { $0.date($1) }
      w.optional(value.end) { $0.date($1) }
      w.bool(value.waiting)
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SessionStatus {
      let id = try r.workoutSessionID()
      let rawState = try r.u8()
      guard let state = WorkoutSessionState(rawValue: Int(rawState)) else {
        throw r.error("unknown workout session state \(rawState)")
      }
      let rawType = try r.u8()
      guard let type = WorkoutSessionType(rawValue: Int(rawType)) else {
        throw r.error("unknown workout session type \(rawType)")
      }
      let start = try r.optional { r throws(DecodeError) in try r.finiteDate("session start date") }
      let end = try r.optional { r throws(DecodeError) in try r.finiteDate("session end date") }
      return SessionStatus(id: id, state: state, type: type, start: start, end: end, waiting: try r.bool())
    }
  }
}
