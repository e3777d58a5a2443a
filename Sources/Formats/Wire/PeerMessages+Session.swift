import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// Peer message 11, `session`: one workout-session registry talking to the other's (docs/protocol.md, "Workout
// sessions"). Live only: never journaled, never part of the sync log, sent only while the link is established.
//
// session-peer := u8 kind
//   | 0 mirrorStart     uuid, generation u32, app string, configuration, state u8, start date?, end date?,
//                       [activity], [event]
//   | 1 mirrorStop      uuid
//   | 2 stateChanged    uuid, to u8, from u8, date
//   | 3 event           uuid, event
//   | 4 activityBegan   uuid, activity
//   | 5 activityEnded   uuid, activity
//   | 6 control         uuid, command
//   | 7 data            uuid, sequence u64, [u8]
//   | 8 dataAnswer      uuid, sequence u64, error?
//   | 9 startWatchApp   app string, configuration

extension BinaryWriter {
  /// A session registry's peer message (layout above).
  package mutating func sessionPeerMessage(_ message: SessionPeerMessage) {
    switch message {
    case .mirrorStart(let snapshot):
      u8(0)
      uuid(snapshot.uuid)
      u32(snapshot.generation)
      string(snapshot.app)
      sessionConfiguration(snapshot.configuration)
      u8(UInt8(snapshot.state.rawValue))
      optional(snapshot.start) { $0.date($1) }
      optional(snapshot.end) { $0.date($1) }
      array(snapshot.activities) { $0.workoutActivity($1) }
      array(snapshot.events) { $0.workoutEvent($1) }
    case .mirrorStop(let id):
      u8(1)
      uuid(id)
    case .stateChanged(let id, let to, let from, let date):
      u8(2)
      uuid(id)
      u8(UInt8(to.rawValue))
      u8(UInt8(from.rawValue))
      self.date(date)
    case .event(let id, let event):
      u8(3)
      uuid(id)
      workoutEvent(event)
    case .activityBegan(let id, let activity):
      u8(4)
      uuid(id)
      workoutActivity(activity)
    case .activityEnded(let id, let activity):
      u8(5)
      uuid(id)
      workoutActivity(activity)
    case .control(let id, let command):
      u8(6)
      uuid(id)
      sessionCommand(command)
    case .data(let id, let sequence, let data):
      u8(7)
      uuid(id)
      u64(sequence)
      array(Array(data)) { $0.u8($1) }
    case .dataAnswer(let id, let sequence, let error):
      u8(8)
      uuid(id)
      u64(sequence)
      optional(error) { $0.healthError($1) }
    case .startWatchApp(let app, let configuration):
      u8(9)
      string(app)
      sessionConfiguration(configuration)
    }
  }
}

extension BinaryReader {
  /// The longest bundle identifier a session peer message carries.
  static let maxAppLength = 256

  /// Reads a session registry's peer message: known kinds, states and commands, finite dates; anything else is a
  /// ``DecodeError`` at its offset.
  package mutating func sessionPeerMessage() throws(DecodeError) -> SessionPeerMessage {
    let kind = try u8()
    switch kind {
    case 0:
      let id = try uuid()
      let generation = try u32()
      let app = try string(maxLength: Self.maxAppLength)
      let configuration = try sessionConfiguration()
      var snapshot = MirroredSnapshot(
        WorkoutSession(id: WorkoutSessionID(uuid: id), app: app, configuration: configuration),
        generation: generation)
      snapshot.state = try sessionState()
      snapshot.start = try optional { r throws(DecodeError) in try r.finiteDate("session start date") }
      snapshot.end = try optional { r throws(DecodeError) in try r.finiteDate("session end date") }
      snapshot.activities = try array(minElementSize: 42) { r throws(DecodeError) in try r.workoutActivity() }
      snapshot.events = try array(minElementSize: 18) { r throws(DecodeError) in try r.workoutEvent() }
      return .mirrorStart(snapshot)
    case 1: return .mirrorStop(try uuid())
    case 2:
      let id = try uuid()
      let to = try sessionState()
      let from = try sessionState()
      return .stateChanged(id, to: to, from: from, date: try finiteDate("session change date"))
    case 3: return .event(try uuid(), try workoutEvent())
    case 4: return .activityBegan(try uuid(), try workoutActivity())
    case 5: return .activityEnded(try uuid(), try workoutActivity())
    case 6: return .control(try uuid(), try sessionCommand())
    case 7:
      let id = try uuid()
      let sequence = try u64()
      let data = Data(try array(minElementSize: 1) { r throws(DecodeError) in try r.u8() })
      return .data(id, sequence: sequence, data)
    case 8:
      let id = try uuid()
      let sequence = try u64()
      return .dataAnswer(id, sequence: sequence, error: try optional { r throws(DecodeError) in try r.healthError() })
    case 9:
      let app = try string(maxLength: Self.maxAppLength)
      return .startWatchApp(app: app, try sessionConfiguration())
    default: throw error("unknown session peer message kind \(kind)")
    }
  }
}

extension SessionPeerMessage {
  /// The kind's name, for logs and pinned frames.
  package var name: String {
    switch self {
    case .mirrorStart: "mirrorStart"
    case .mirrorStop: "mirrorStop"
    case .stateChanged: "stateChanged"
    case .event: "event"
    case .activityBegan: "activityBegan"
    case .activityEnded: "activityEnded"
    case .control: "control"
    case .data: "data"
    case .dataAnswer: "dataAnswer"
    case .startWatchApp: "startWatchApp"
    }
  }
}
