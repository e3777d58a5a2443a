import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encodings of workout sessions (docs/protocol.md, "Workout sessions"): what an app asks of a session and
// what its delegates hear. Sessions are not durable, so these travel on the wire only.
//
// session-id   := uuid | generation u32
// command      := u8 tag | 0 prepare | 1 startActivity date | 2 pause | 3 resume | 4 stopActivity date | 5 end
//                 | 6 beginNewActivity configuration, date, metadata, uuid | 7 endCurrentActivity date
// callback     := u8 tag | 0 didChange to u8, from u8, date | 1 didFail error | 2 didGenerate event
//                 | 3 didBeginActivity activity, date | 4 didEndActivity activity, date | 5 didReceiveData [[u8]]
//                 | 6 didDisconnect error
// builder-callback := u8 tag | 0 didCollectDataOf [type u16] | 1 didCollectEvent event | 2 didBeginActivity
//                 activity | 3 didEndActivity activity

extension BinaryWriter {
  /// A session's configuration (as an activity's: activity type, location, swimming location, lap length).
  package mutating func sessionConfiguration(_ c: WorkoutConfiguration) { workoutConfiguration(c) }

  /// A session object's identity.
  package mutating func workoutSessionID(_ id: WorkoutSessionID) {
    uuid(id.uuid)
    u32(id.generation)
  }

  /// A workout event (as inside a workout).
  package mutating func workoutEvent(_ event: WorkoutEvent) {
    u8(UInt8(event.type.rawValue))
    date(event.start)
    date(event.end)
    metadata(event.metadata)
  }

  /// A workout activity (as inside a workout).
  package mutating func workoutActivity(_ activity: WorkoutActivity) {
    uuid(activity.uuid)
    workoutConfiguration(activity.configuration)
    date(activity.start)
    optional(activity.end) { $0.date($1) }
    metadata(activity.metadata)
    array(activity.statistics) { $0.workoutStatistic($1) }
  }

  /// A call on a session (layout above).
  package mutating func sessionCommand(_ command: SessionCommand) {
    switch command {
    case .prepare: u8(0)
    case .startActivity(let d):
      u8(1)
      date(d)
    case .pause: u8(2)
    case .resume: u8(3)
    case .stopActivity(let d):
      u8(4)
      date(d)
    case .end: u8(5)
    case .beginNewActivity(let configuration, let d, let metadata, let id):
      u8(6)
      workoutConfiguration(configuration)
      date(d)
      self.metadata(metadata)
      uuid(id)
    case .endCurrentActivity(let d):
      u8(7)
      date(d)
    }
  }

  /// A session delegate callback (layout above).
  package mutating func sessionCallback(_ callback: SessionCallback) {
    switch callback {
    case .didChange(let to, let from, let d):
      u8(0)
      u8(UInt8(to.rawValue))
      u8(UInt8(from.rawValue))
      date(d)
    case .didFail(let error):
      u8(1)
      healthError(error)
    case .didGenerate(let event):
      u8(2)
      workoutEvent(event)
    case .didBeginActivity(let activity, let d):
      u8(3)
      workoutActivity(activity)
      date(d)
    case .didEndActivity(let activity, let d):
      u8(4)
      workoutActivity(activity)
      date(d)
    case .didReceiveData(let items):
      u8(5)
      array(items) { w, data in w.array(Array(data)) { $0.u8($1) } }
    case .didDisconnect(let error):
      u8(6)
      healthError(error)
    }
  }

  /// A live builder delegate callback (layout above).
  package mutating func builderCallback(_ callback: BuilderCallback) {
    switch callback {
    case .didCollectDataOf(let types):
      u8(0)
      array(types.sorted()) { $0.sampleType($1) }
    case .didCollectEvent(let event):
      u8(1)
      workoutEvent(event)
    case .didBeginActivity(let activity):
      u8(2)
      workoutActivity(activity)
    case .didEndActivity(let activity):
      u8(3)
      workoutActivity(activity)
    }
  }
}

extension BinaryReader {
  /// Reads a session's configuration.
  package mutating func sessionConfiguration() throws(DecodeError) -> WorkoutConfiguration {
    try workoutConfiguration()
  }

  /// Reads a session object's identity.
  package mutating func workoutSessionID() throws(DecodeError) -> WorkoutSessionID {
    WorkoutSessionID(uuid: try uuid(), generation: try u32())
  }

  /// Reads a workout event: a known type, finite dates.
  package mutating func workoutEvent() throws(DecodeError) -> WorkoutEvent {
    let raw = try u8()
    guard let type = WorkoutEventType(rawValue: Int(raw)) else { throw error("unknown workout event type \(raw)") }
    let start = try finiteDate("event start date")
    let end = try finiteDate("event end date")
    return WorkoutEvent(type: type, start: start, end: end, metadata: try metadata(finite: true))
  }

  /// Reads a workout activity: finite dates and values.
  package mutating func workoutActivity() throws(DecodeError) -> WorkoutActivity {
    let id = try uuid()
    let configuration = try workoutConfiguration()
    let start = try finiteDate("activity start date")
    let end = try optional { r throws(DecodeError) in try r.finiteDate("activity end date") }
    let metadata = try metadata(finite: true)
    let statistics = try array(minElementSize: 23) { r throws(DecodeError) in try r.workoutStatistic() }
    return WorkoutActivity(
      uuid: id, configuration: configuration, start: start, end: end, metadata: metadata, statistics: statistics)
  }

  /// Reads a session state by its raw value.
  package mutating func sessionState() throws(DecodeError) -> WorkoutSessionState {
    let raw = try u8()
    guard let state = WorkoutSessionState(rawValue: Int(raw)) else {
      throw error("unknown workout session state \(raw)")
    }
    return state
  }

  /// Reads a call on a session.
  package mutating func sessionCommand() throws(DecodeError) -> SessionCommand {
    let tag = try u8()
    switch tag {
    case 0: return .prepare
    case 1: return .startActivity(try finiteDate("session start date"))
    case 2: return .pause
    case 3: return .resume
    case 4: return .stopActivity(try finiteDate("session stop date"))
    case 5: return .end
    case 6:
      let configuration = try workoutConfiguration()
      let date = try finiteDate("activity start date")
      let metadata = try metadata(finite: true)
      return .beginNewActivity(configuration, date: date, metadata: metadata, uuid: try uuid())
    case 7: return .endCurrentActivity(try finiteDate("activity end date"))
    default: throw error("unknown workout session call \(tag)")
    }
  }

  /// Reads a session delegate callback.
  package mutating func sessionCallback() throws(DecodeError) -> SessionCallback {
    let tag = try u8()
    switch tag {
    case 0:
      let to = try sessionState()
      let from = try sessionState()
      return .didChange(to: to, from: from, date: try finiteDate("session change date"))
    case 1: return .didFail(try healthError())
    case 2: return .didGenerate(try workoutEvent())
    case 3:
      let activity = try workoutActivity()
      return .didBeginActivity(activity, date: try finiteDate("activity date"))
    case 4:
      let activity = try workoutActivity()
      return .didEndActivity(activity, date: try finiteDate("activity date"))
    case 5:
      let items = try array(minElementSize: 4) { r throws(DecodeError) -> Data in
        Data(try r.array(minElementSize: 1) { r throws(DecodeError) in try r.u8() })
      }
      return .didReceiveData(items)
    case 6: return .didDisconnect(try healthError())
    default: throw error("unknown workout session callback \(tag)")
    }
  }

  /// Reads a live builder delegate callback.
  package mutating func builderCallback() throws(DecodeError) -> BuilderCallback {
    let tag = try u8()
    switch tag {
    case 0: return .didCollectDataOf(Set(try array(minElementSize: 2) { r throws(DecodeError) in try r.sampleType() }))
    case 1: return .didCollectEvent(try workoutEvent())
    case 2: return .didBeginActivity(try workoutActivity())
    case 3: return .didEndActivity(try workoutActivity())
    default: throw error("unknown workout builder callback \(tag)")
    }
  }
}
