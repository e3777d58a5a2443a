import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

// Workout sessions on the peer link in the fuzz seeds: one `session` peer message (tag 11) of every kind, so
// mutations start from valid snapshots, states, commands, data and errors.

extension FuzzTargets {
  /// One session peer message of every kind, for workout `uuid` of `app` from `t0`.
  static func sessionPeerSeeds(t0: Date, app: String) -> [PeerMessage] {
    let uuid = UUID(uuid: (5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5))
    let run = WorkoutConfiguration(activityType: .running, location: .outdoor)
    let activity = WorkoutActivity(
      uuid: UUID(uuid: (4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4)), configuration: run, start: t0,
      end: t0.addingTimeInterval(60))
    let pause = WorkoutEvent(type: .pause, start: t0.addingTimeInterval(30))
    var session = WorkoutSession(id: WorkoutSessionID(uuid: uuid), app: app, configuration: run)
    session.state = .running
    session.start = t0
    session.activities = [activity]
    session.events = [pause]
    let messages: [SessionPeerMessage] = [
      .mirrorStart(MirroredSnapshot(session, generation: 1)), .mirrorStop(uuid),
      .stateChanged(uuid, to: .paused, from: .running, date: t0.addingTimeInterval(30)), .event(uuid, pause),
      .activityBegan(uuid, activity), .activityEnded(uuid, activity), .control(uuid, .stopActivity(t0)),
      .data(uuid, sequence: 1, Data([1, 2, 3])),
      .dataAnswer(uuid, sequence: 1, error: .healthKit(.errorDataSizeExceeded, "over the limit")),
      .startWatchApp(app: app, run),
    ]
    return messages.map(PeerMessage.session)
  }
}
