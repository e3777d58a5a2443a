import FoundationEssentials
import HealthEngine
import HealthModel

// What a daemon pushes to subscribers: every event, its tag and the subscription bit that carries it.

/// A pushed event.
package enum DaemonEvent: Hashable, Sendable {
  /// A sheet was presented.
  case promptShown(Prompt)
  /// A sheet closed (answered, cancelled, failed to present, withdrawn).
  case promptClosed(promptID: UInt64, bundleID: String, outcome: String)
  /// An app extension's request waits for its containing app (the system would call the app delegate's
  /// `applicationShouldRequestHealthAuthorization(_:)`): what it asks for, shown to no one (behavior.md A23).
  case extensionRequestWaiting(Prompt)
  /// Samples of these types were added or deleted; `origin` is where the change was made.
  case samplesChanged(types: [SampleType], origin: DeviceKind, added: Int, deleted: Int)
  /// Entries from the peer were applied, up to this sequence number.
  case syncApplied(upTo: UInt64, items: Int)
  /// The peer acknowledged our entries up to this sequence number.
  case peerAcknowledged(UInt64)
  /// The link came up or went down.
  case linkChanged(connected: Bool)
  /// The device locked (false) or unlocked (true): protected data became unavailable or available again
  /// (observers deferred during the lock are delivered on unlock; behavior.md L4). Sent with sample changes.
  case protectedDataChanged(available: Bool)
  /// A background delivery was made (the app's observer queries of the type run), completed, missed or stopped.
  case backgroundDelivery(BackgroundDeliveryEvent)
  /// The retention window pruned samples of `type` that these apps could see (their observer queries fire).
  case samplesPruned(type: SampleType, apps: [String])
  /// A `HKWorkoutSessionDelegate` callback for the app's session object `session`.
  case workoutSession(app: String, session: WorkoutSessionID, SessionCallback)
  /// A `HKLiveWorkoutBuilderDelegate` callback for the builder of the app's session `session`.
  case workoutBuilder(app: String, session: WorkoutSessionID, BuilderCallback)
  /// The app's `workoutSessionMirroringStartHandler` runs with the new mirrored session object `session`.
  case mirroringStarted(app: String, session: WorkoutSessionID)
  /// The app's `sendToRemoteWorkoutSession(data:)` call `sequence` on `session` completed (nil: delivered).
  case workoutDataSent(app: String, session: WorkoutSessionID, sequence: UInt64, error: HealthError?)
  /// The watch app's `handle(_ workoutConfiguration:)` runs (the phone's `startWatchApp(toHandle:)` launched it).
  case workoutConfigurationHandled(app: String, WorkoutConfiguration)
}

/// Every pushed event's tag (docs/protocol.md); exhaustive like ``RequestOpcode``.
package enum EventTag: UInt8, CaseIterable, Sendable {
  /// ``DaemonEvent/promptShown``.
  case promptShown = 0
  /// ``DaemonEvent/promptClosed``.
  case promptClosed = 1
  /// ``DaemonEvent/extensionRequestWaiting``.
  case extensionRequestWaiting = 6
  /// ``DaemonEvent/samplesChanged``.
  case samplesChanged = 2
  /// ``DaemonEvent/syncApplied``.
  case syncApplied = 3
  /// ``DaemonEvent/peerAcknowledged``.
  case peerAcknowledged = 4
  /// ``DaemonEvent/linkChanged``.
  case linkChanged = 5
  /// ``DaemonEvent/protectedDataChanged``.
  case protectedDataChanged = 20
  /// ``DaemonEvent/backgroundDelivery``.
  case backgroundDelivery = 22
  /// ``DaemonEvent/samplesPruned``.
  case samplesPruned = 23
  /// ``DaemonEvent/workoutSession``.
  case workoutSession = 30
  /// ``DaemonEvent/workoutBuilder``.
  case workoutBuilder = 31
  /// ``DaemonEvent/mirroringStarted``.
  case mirroringStarted = 32
  /// ``DaemonEvent/workoutDataSent``.
  case workoutDataSent = 33
  /// ``DaemonEvent/workoutConfigurationHandled``.
  case workoutConfigurationHandled = 34
}

extension DaemonEvent {
  /// The event's tag.
  package var tag: EventTag {
    switch self {
    case .promptShown: .promptShown
    case .promptClosed: .promptClosed
    case .extensionRequestWaiting: .extensionRequestWaiting
    case .samplesChanged: .samplesChanged
    case .syncApplied: .syncApplied
    case .peerAcknowledged: .peerAcknowledged
    case .linkChanged: .linkChanged
    case .protectedDataChanged: .protectedDataChanged
    case .backgroundDelivery: .backgroundDelivery
    case .samplesPruned: .samplesPruned
    case .workoutSession: .workoutSession
    case .workoutBuilder: .workoutBuilder
    case .mirroringStarted: .mirroringStarted
    case .workoutDataSent: .workoutDataSent
    case .workoutConfigurationHandled: .workoutConfigurationHandled
    }
  }
}

extension DaemonEvent {
  /// The subscription bit that carries the event (docs/protocol.md): the daemon pushes it to connections subscribed
  /// to that bit, and a client's wait listens for the bits it asked for.
  package var subscriptionMask: EventMask {
    switch self {
    case .promptShown, .promptClosed, .extensionRequestWaiting: .prompts
    case .samplesChanged, .protectedDataChanged: .samples
    case .syncApplied, .peerAcknowledged: .sync
    case .linkChanged: .link
    case .backgroundDelivery, .samplesPruned: .background
    case .workoutSession, .workoutBuilder, .mirroringStarted, .workoutDataSent, .workoutConfigurationHandled:
      .sessions
    }
  }
}
