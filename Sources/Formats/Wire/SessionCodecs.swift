import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// session-call   := u8 tag | 0 create uuid, configuration | 1 command session-id, command | 2 builder session-id
//                   | 3 beginCollection session-id, date | 4 endCollection session-id, date
//                   | 5 finishWorkout session-id, uuid | 6 status session-id | 7 setDelegate session-id, bool
//                   | 8 startMirroring session-id | 9 stopMirroring session-id | 10 sendData session-id, [u8]
//                   | 11 enableCollection session-id, type u16, filter? | 12 disableCollection session-id, type u16
//                   | 13 shouldCollectEvents session-id, bool | 14 addEvents session-id, [event]
//                   | 15 addMetadata session-id, metadata | 16 addSamples session-id, [sample-input]
//                   | 17 discard session-id | 18 recover | 19 runState u8 | 20 startWatchApp configuration
//                   | 21 effort (u8 0 intensity f64 | 1 speed f64) | 22 wrist on bool
// session-status := session-id | app string | state u8 | type u8 | start date? | end date? | waiting bool
//                   | configuration | [activity] | [event] | sequence u64 | builder?
// builder-status := phase u8 | start date? | end date? | elapsed f64 | [event] | [activity] | [statistic]
//                   | [type u16] | shouldCollectWorkoutEvents bool | metadata

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
      case .builder(let id): w.sessionTag(2, id)
      case .beginCollection(let id, let date):
        w.sessionTag(3, id)
        w.date(date)
      case .endCollection(let id, let date):
        w.sessionTag(4, id)
        w.date(date)
      case .finishWorkout(let id, let workout):
        w.sessionTag(5, id)
        w.uuid(workout)
      case .status(let id): w.sessionTag(6, id)
      case .setDelegate(let id, let present):
        w.sessionTag(7, id)
        w.bool(present)
      case .startMirroring(let id): w.sessionTag(8, id)
      case .stopMirroring(let id): w.sessionTag(9, id)
      case .sendData(let id, let data):
        w.sessionTag(10, id)
        w.array(Array(data)) { $0.u8($1) }
      case .enableCollection(let id, let type, let filter):
        w.sessionTag(11, id)
        w.sampleType(type)
        w.optional(filter) { $0.sampleFilter($1) }
      case .disableCollection(let id, let type):
        w.sessionTag(12, id)
        w.sampleType(type)
      case .shouldCollectEvents(let id, let value):
        w.sessionTag(13, id)
        w.bool(value)
      case .addEvents(let id, let events):
        w.sessionTag(14, id)
        w.array(events) { $0.workoutEvent($1) }
      case .addMetadata(let id, let metadata):
        w.sessionTag(15, id)
        w.metadata(metadata)
      case .addSamples(let id, let samples):
        w.sessionTag(16, id)
        w.array(samples) { $0.sampleInput($1) }
      case .discard(let id): w.sessionTag(17, id)
      case .recover: w.u8(18)
      case .runState(let state):
        w.u8(19)
        w.u8(state.rawValue)
      case .startWatchApp(let configuration):
        w.u8(20)
        w.sessionConfiguration(configuration)
      case .effort(.intensity(let value)):
        w.u8(21)
        w.u8(0)
        w.f64(value)
      case .effort(.speed(let value)):
        w.u8(21)
        w.u8(1)
        w.f64(value)
      case .wrist(let on):
        w.u8(22)
        w.bool(on)
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
      case 7:
        let id = try r.workoutSessionID()
        return .setDelegate(id, try r.bool())
      case 8: return .startMirroring(try r.workoutSessionID())
      case 9: return .stopMirroring(try r.workoutSessionID())
      case 10:
        let id = try r.workoutSessionID()
        return .sendData(id, Data(try r.array(minElementSize: 1) { r throws(DecodeError) in try r.u8() }))
      case 11:
        let id = try r.workoutSessionID()
        let type = try r.sampleType()
        return .enableCollection(id, type, try r.optional { r throws(DecodeError) in try r.sampleFilter() })
      case 12:
        let id = try r.workoutSessionID()
        return .disableCollection(id, try r.sampleType())
      case 13:
        let id = try r.workoutSessionID()
        return .shouldCollectEvents(id, try r.bool())
      case 14:
        let id = try r.workoutSessionID()
        return .addEvents(id, try r.array(minElementSize: 18) { r throws(DecodeError) in try r.workoutEvent() })
      case 15:
        let id = try r.workoutSessionID()
        return .addMetadata(id, try r.metadata())
      case 16:
        let id = try r.workoutSessionID()
        return .addSamples(id, try r.array(minElementSize: 8) { r throws(DecodeError) in try r.sampleInput() })
      case 17: return .discard(try r.workoutSessionID())
      case 18: return .recover
      case 19:
        let raw = try r.u8()
        guard let state = AppRunState(rawValue: raw) else { throw r.error("unknown app run state \(raw)") }
        return .runState(state)
      case 20: return .startWatchApp(try r.sessionConfiguration())
      case 21:
        let kind = try r.u8()
        let value = try r.f64()
        guard value.isFinite, value >= 0 else { throw r.error("effort \(value) is not a finite, non-negative number") }
        switch kind {
        case 0: return .effort(.intensity(value))
        case 1: return .effort(.speed(value))
        default: throw r.error("unknown effort kind \(kind)")
        }
      case 22: return .wrist(on: try r.bool())
      default: throw r.error("unknown workout session call \(tag)")
      }
    }
  }

  /// A session's status (layout above).
  package enum SessionState: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: SessionStatus, into w: inout BinaryWriter) {
      w.workoutSessionID(value.id)
      w.string(value.app)
      w.u8(UInt8(value.state.rawValue))
      w.u8(UInt8(value.type.rawValue))
      w.optional(value.start) { $0.date($1) }
      w.optional(value.end) { $0.date($1) }
      w.bool(value.waiting)
      w.sessionConfiguration(value.configuration)
      w.array(value.activities) { $0.workoutActivity($1) }
      w.array(value.events) { $0.workoutEvent($1) }
      w.u64(value.sequence)
      w.optional(value.builder) { w, b in
        w.u8(b.phase.rawValue)
        w.optional(b.start) { $0.date($1) }
        w.optional(b.end) { $0.date($1) }
        w.f64(b.elapsed)
        w.array(b.events) { $0.workoutEvent($1) }
        w.array(b.activities) { $0.workoutActivity($1) }
        w.array(b.statistics) { $0.workoutStatistic($1) }
        w.array(b.types) { $0.sampleType($1) }
        w.bool(b.shouldCollectWorkoutEvents)
        w.metadata(b.metadata)
      }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SessionStatus {
      let id = try r.workoutSessionID()
      let app = try r.string(maxLength: 4096)
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
      let waiting = try r.bool()
      let configuration = try r.sessionConfiguration()
      let activities = try r.array(minElementSize: 42) { r throws(DecodeError) in try r.workoutActivity() }
      let events = try r.array(minElementSize: 18) { r throws(DecodeError) in try r.workoutEvent() }
      let sequence = try r.u64()
      let builder = try r.optional { r throws(DecodeError) in try r.builderStatus() }
      return SessionStatus(
        id: id, app: app, state: state, type: type, start: start, end: end, waiting: waiting,
        configuration: configuration, activities: activities, events: events, sequence: sequence, builder: builder)
    }
  }
}

extension BinaryWriter {
  fileprivate mutating func sessionTag(_ tag: UInt8, _ id: WorkoutSessionID) {
    u8(tag)
    workoutSessionID(id)
  }
}

extension BinaryReader {
  fileprivate mutating func builderStatus() throws(DecodeError) -> BuilderStatus {
    let rawPhase = try u8()
    guard let phase = LiveWorkoutBuilder.Phase(rawValue: rawPhase) else {
      throw error("unknown live builder phase \(rawPhase)")
    }
    let start = try optional { r throws(DecodeError) in try r.finiteDate("builder start date") }
    let end = try optional { r throws(DecodeError) in try r.finiteDate("builder end date") }
    let elapsed = try f64()
    guard elapsed.isFinite, elapsed >= 0 else { throw error("elapsed time \(elapsed) is not a finite duration") }
    let events = try array(minElementSize: 18) { r throws(DecodeError) in try r.workoutEvent() }
    let activities = try array(minElementSize: 42) { r throws(DecodeError) in try r.workoutActivity() }
    let statistics = try array(minElementSize: 23) { r throws(DecodeError) in try r.workoutStatistic() }
    let types = try array(minElementSize: 2) { r throws(DecodeError) in try r.sampleType() }
    let shouldCollect = try bool()
    return BuilderStatus(
      phase: phase, start: start, end: end, elapsed: elapsed, events: events, activities: activities,
      statistics: statistics, types: types, shouldCollectWorkoutEvents: shouldCollect, metadata: try metadata())
  }
}
