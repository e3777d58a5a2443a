import FoundationEssentials

/// `HKWorkoutSessionState`, with Apple's raw values (workouts.md §2.2: `HKWorkoutSession.h`; PyObjC
/// `test_hkworkoutsession.py`).
package enum WorkoutSessionState: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `notStarted` (1): created, not yet prepared or started.
  case notStarted = 1
  /// `running` (2): collecting; `startDate` is set.
  case running = 2
  /// `ended` (3): terminal; `endDate` is set and the session left session mode.
  case ended = 3
  /// `paused` (4).
  case paused = 4
  /// `prepared` (5): in session mode (sensors warm, background runtime) with no activity yet.
  case prepared = 5
  /// `stopped` (6): terminal for data (no new samples); the app keeps its background runtime to save.
  case stopped = 6

  /// The Swift case name.
  package var description: String {
    switch self {
    case .notStarted: "notStarted"
    case .running: "running"
    case .ended: "ended"
    case .paused: "paused"
    case .prepared: "prepared"
    case .stopped: "stopped"
    }
  }

  /// The state named as its Swift case, or nil.
  package init?(name: String) {
    guard let state = Self.allCases.first(where: { $0.description == name }) else { return nil }
    self = state
  }

  /// Whether the session holds the device's one session slot: prepared, running, paused or stopped (it is in
  /// "session mode"; workouts.md §2.2). A `notStarted` session does not, an `ended` one no longer does.
  package var isActive: Bool {
    switch self {
    case .prepared, .running, .paused, .stopped: true
    case .notStarted, .ended: false
    }
  }
}

/// `HKWorkoutSessionType` (watchOS 10 / iOS 17): the primary session owns the builder; a mirrored one follows it
/// from the companion device (workouts.md §3.2).
package enum WorkoutSessionType: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `primary` (0).
  case primary = 0
  /// `mirrored` (1).
  case mirrored = 1

  /// `primary` or `mirrored`.
  package var description: String { self == .primary ? "primary" : "mirrored" }
}

/// Which session object a callback is for: the workout's identifier (shared by the primary and its mirrors) and a
/// generation that counts the mirrored objects delivered for it (0 for the primary, 1 for the first mirrored
/// session, 2 after the first reconnection, …). Each reconnection delivers a new mirrored object, and the old one is
/// dead (workouts.md §3.2, §5.3), so a callback names its generation and stale objects can be told apart.
package struct WorkoutSessionID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The workout session's identifier (the primary's, carried to the companion).
  package var uuid: UUID
  /// 0 for the primary; the mirrored object's delivery count otherwise.
  package var generation: UInt32

  /// Creates an identifier.
  package init(uuid: UUID, generation: UInt32 = 0) {
    self.uuid = uuid
    self.generation = generation
  }

  /// Orders by identifier, then generation.
  package static func < (a: Self, b: Self) -> Bool {
    a.uuid.uuidString != b.uuid.uuidString ? a.uuid.uuidString < b.uuid.uuidString : a.generation < b.generation
  }

  /// `UUID#generation`.
  package var description: String { "\(uuid.uuidString)#\(generation)" }
}

/// One workout session as the device keeps it: the session lives in the device (the daemon), not in the app's
/// process, so it survives the app dying and can be recovered (workouts.md §2.6; HealthPair model: the lead's
/// design, issue 33). The app's `HKWorkoutSession` object is a proxy that receives the callbacks.
package struct WorkoutSession: Hashable, Sendable {
  /// The session's identity.
  package var id: WorkoutSessionID
  /// The owning app's bundle identifier.
  package var app: String
  /// Primary or mirrored.
  package var type: WorkoutSessionType
  /// The configuration the session was created with (`workoutConfiguration` returns a copy).
  package var configuration: WorkoutConfiguration
  /// The current state.
  package var state: WorkoutSessionState
  /// `startDate`: set by `startActivity(with:)`.
  package var start: Date?
  /// `endDate`: set by `end()` (or a failure that ends the session).
  package var end: Date?
  /// The date `stopActivity(with:)` gave, once stopped.
  package var stop: Date?
  /// Every activity begun, in order; the last one is open while it is ``currentActivity``.
  package var activities: [WorkoutActivity]
  /// The events the session generated (pause, resume), in order.
  package var events: [WorkoutEvent]

  /// A new session in `notStarted`.
  package init(
    id: WorkoutSessionID, app: String, type: WorkoutSessionType = .primary, configuration: WorkoutConfiguration
  ) {
    self.id = id
    self.app = app
    self.type = type
    self.configuration = configuration
    self.state = .notStarted
    self.start = nil
    self.end = nil
    self.stop = nil
    self.activities = []
    self.events = []
  }

  /// `currentActivity`: the activity begun and not yet ended, or nil between activities (workouts.md §1.4).
  package var currentActivity: WorkoutActivity? {
    guard let last = activities.last, last.end == nil else { return nil }
    return last
  }
}
