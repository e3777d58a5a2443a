import FoundationEssentials
import HealthEngine
import HealthModel

/// A workout session a step creates, as written: `a workout session <activity> [indoor|outdoor] [as <name>]`.
package struct SessionSpec: Hashable, Sendable {
  /// The configuration's activity type.
  package var activity: WorkoutActivityType
  /// The configuration's location (`indoor` / `outdoor`; unknown when not written).
  package var location: WorkoutLocationType = .unknown
  /// `as <name>`: the session's name in later steps and expectations (nil: it cannot be named).
  package var name: String?

  /// A session of `activity` at an unknown location, unnamed.
  package init(activity: WorkoutActivityType) { self.activity = activity }
}

/// A call on a named session that takes no other argument, each at the device's time.
package enum SessionVerb: String, Hashable, Sendable, CaseIterable {
  /// `starts workout session <name>` of a prepared session: `startActivity(with: now)`, then the builder's
  /// `beginCollection(withStart: now)`.
  case start = "starts"
  /// `pause()`.
  case pause = "pauses"
  /// `resume()`.
  case resume = "resumes"
  /// `stopActivity(with: now)`.
  case stop = "stops"
  /// `end()`.
  case end = "ends"
  /// The builder's `discardWorkout()`.
  case discard = "discards"
}

/// What an app does with a workout session (docs/scenario-language.md, "Workout sessions"; behavior.md section X).
package enum SessionStep: Hashable, Sendable {
  /// `starts a workout session …`: `HKWorkoutSession(healthStore:configuration:)`, its delegate set,
  /// `associatedWorkoutBuilder()`, `startActivity(with: now)` and `beginCollection(withStart: now)` — the typical
  /// start (workouts.md §2.6).
  case start(SessionSpec)
  /// `prepares a workout session …`: the session, its delegate and its builder, then `prepare()`.
  case prepare(SessionSpec)
  /// `<verb> workout session <name>`: one call on the named session or its builder.
  case call(String, SessionVerb)
  /// `finishes workout session <name> [as <workout>]`: the builder's `endCollection(withEnd: now)` and
  /// `finishWorkout()`; `as` names the saved workout for the workout steps and expectations.
  case finish(String, workout: String?)
  /// `goes to the background`, `is suspended`, `comes to the foreground`, `is killed`: the app's process changes
  /// state (the world acting on the app).
  case runState(AppRunState)
  /// `mirrors workout session <name> to the phone`: `startMirroringToCompanionDevice()`.
  case mirror(String)
  /// `stops mirroring workout session <name>`: `stopMirroringToCompanionDevice()`.
  case stopMirroring(String)
  /// `sends "<text>" | <n> bytes | <n> KB over workout session <name>`: `sendToRemoteWorkoutSession(data:)`; the
  /// step's outcome is the send's completion.
  case send(String, RemotePayload)
  /// `phone: <App> starts the watch app for a workout <activity> [indoor|outdoor]`: `startWatchApp(toHandle:)`.
  case startWatchApp(SessionSpec)
}

/// What `sendToRemoteWorkoutSession(data:)` sends, as a step writes it and a `received` expectation lists it.
package enum RemotePayload: Hashable, Sendable, CustomStringConvertible {
  /// `"<text>"`: the text's UTF-8 bytes.
  case text(String)
  /// `<n> bytes` / `<n> KB` (1,024 bytes each): that many bytes of filler (not UTF-8 text).
  case bytes(Int)

  /// The largest message a step may send (1,024 KB: ten times the channel's limit per 10 s).
  package static let largest = 1024 * 1024

  /// The bytes sent.
  package var data: Data {
    switch self {
    case .text(let text): Data(text.utf8)
    case .bytes(let count): Data(repeating: 0xFF, count: count)
    }
  }

  /// Whether `data` is what this payload sends (a `bytes` payload matches any data of its size).
  package func matches(_ data: Data) -> Bool {
    switch self {
    case .text: data == self.data
    case .bytes(let count): data.count == count
    }
  }

  /// As a step writes it.
  package var description: String {
    switch self {
    case .text(let text): "\"\(text)\""
    case .bytes(let count): "\(count) bytes"
    }
  }
}

/// The world acting on a device's wearer (`<device>: the wearer's effort becomes …`, `watch: the watch is taken
/// off`): what the sensor model measures from the device's time on.
package enum WearerChange: Hashable, Sendable {
  /// The wearer's effort from now on.
  case effort(Effort)
  /// The watch is put on (true) or taken off (false) the wrist.
  case wrist(on: Bool)
  /// The wearer records an electrocardiogram with the watch's ECG app (behavior.md G1).
  case recordECG(ECGSpec)
}

/// One `HKWorkoutSessionDelegate` callback a `heard` expectation lists.
package enum HeardCallback: Hashable, Sendable, CustomStringConvertible {
  /// A state name: `workoutSession(_:didChangeTo:from:date:)` to that state.
  case state(WorkoutSessionState)
  /// `didFailWithError <code>`: `workoutSession(_:didFailWithError:)` with that code.
  case failed(HealthErrorCode)
  /// `<event type> event`: `workoutSession(_:didGenerate:)` of that event type.
  case event(WorkoutEventType)
  /// `didBeginActivity`.
  case beganActivity
  /// `didEndActivity`.
  case endedActivity
  /// `didReceiveData`: `workoutSession(_:didReceiveDataFromRemoteWorkoutSession:)`, once per delivery (several
  /// messages held for a suspended app come in one).
  case receivedData
  /// `didDisconnect`: `workoutSession(_:didDisconnectFromRemoteDeviceWithError:)`.
  case disconnected

  /// As a `heard` expectation writes it.
  package var description: String {
    switch self {
    case .state(let state): "\(state)"
    case .failed(let code): "didFailWithError \(code)"
    case .event(let type): "\(type) event"
    case .beganActivity: "didBeginActivity"
    case .endedActivity: "didEndActivity"
    case .receivedData: "didReceiveData"
    case .disconnected: "didDisconnect"
    }
  }
}

/// What `<App>'s workout session <name> …` checks of the named session as the device holds it.
package enum SessionCheck: Hashable, Sendable {
  /// `is <state>`: the session's `state`.
  case state(WorkoutSessionState)
  /// `heard <callback> [then <callback>]…` / `heard nothing`: exactly the delegate callbacks the app's session
  /// object received so far, in order (those dropped while the app had no process are not heard).
  case heard([HeardCallback])
  /// `elapsed time is <duration>`: the builder's `elapsedTime` at the device's time, seconds.
  case elapsed(Double)
  /// `collected <n> <type> samples`: the samples of the type the builder saved, from its start.
  case collected(SampleType, Int)
  /// `<statistic> of <type> is <value> <unit>`: the builder's `statistics(for:)`.
  case statistic(StatisticKind, SampleType, value: Double, unit: HealthUnit)
  /// `has no <type> statistics`: `statistics(for:)` is nil.
  case noStatistic(SampleType)
  /// `builder is notStarted|collecting|ended|finished|discarded`: the live builder's phase.
  case builder(LiveWorkoutBuilder.Phase)
  /// `is primary|mirrored`: the session's `type`.
  case type(WorkoutSessionType)
  /// `received <payload> [then <payload>]… | received nothing`: every message the session object's delegate got
  /// from the remote session (`didReceiveData`), in order.
  case received([RemotePayload])
}

extension LiveWorkoutBuilder.Phase {
  /// The phase a word names (`notStarted`, `collecting`, `ended`, `finished`, `discarded`).
  package init?(word: String) {
    guard let phase = Self.names.first(where: { $0.1.lowercased() == word.lowercased() })?.0 else { return nil }
    self = phase
  }

  /// Each phase with its word, in lifecycle order.
  package static let names: [(Self, String)] = [
    (.notStarted, "notStarted"), (.collecting, "collecting"), (.ended, "ended"), (.finished, "finished"),
    (.discarded, "discarded"),
  ]

  /// The phase's word.
  package var word: String { Self.names.first { $0.0 == self }!.1 }
}
