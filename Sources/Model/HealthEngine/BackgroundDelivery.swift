import FoundationEssentials
import HealthModel

// Background delivery (docs/behavior.md section B): which apps asked to be woken for which types, and the
// deliveries HealthKit makes — at the registered frequency on the device's clock, waiting for the app to call its
// observer query's completion handler, retrying with back-off and stopping after three misses in a row.
//
// Registrations are durable (journaled like decisions); the deliveries themselves, their misses and the changes
// waiting to be delivered are runtime state, like permission sheets: a restart starts them afresh.

/// One app's background delivery registration for one type.
package struct BackgroundKey: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The app.
  package var bundleID: String
  /// The type it observes.
  package var type: SampleType

  /// Creates a key.
  package init(_ bundleID: String, _ type: SampleType) {
    self.bundleID = bundleID
    self.type = type
  }

  /// Orders by app, then type.
  package static func < (a: BackgroundKey, b: BackgroundKey) -> Bool {
    a.bundleID != b.bundleID ? a.bundleID < b.bundleID : a.type < b.type
  }

  /// `com.example.steps/stepCount`.
  package var description: String { "\(bundleID)/\(type)" }
}

/// The timing of background delivery where Apple gives no figure: a named, configurable model (behavior.md B5).
package struct BackgroundDeliveryModel: Hashable, Sendable {
  /// How long, in seconds of the device's clock, an app has to call the completion handler before the delivery
  /// counts as missed (default 30 s, the order of a background launch's execution time).
  package var responseWindow: Double
  /// The delay before the first retry after a miss; each further retry waits twice as long (default 60 s).
  package var retryDelay: Double

  /// Creates a model.
  package init(responseWindow: Double, retryDelay: Double) {
    self.responseWindow = responseWindow
    self.retryDelay = retryDelay
  }

  /// The default: a 30 s response window, retries after 1 min, 2 min.
  package static let standard = BackgroundDeliveryModel(responseWindow: 30, retryDelay: 60)

  /// Misses in a row after which HealthKit stops delivering (Apple: "If your app fails to respond three times").
  package static let maxMisses = 3
  /// Deliveries per app per hour on the watch (Apple: four updates an hour, shared with background refresh).
  package static let watchHourlyBudget = 4
  /// Types the iPhone delivers at most hourly whatever the app asks (Apple's example: step count).
  package static let phoneHourlyTypes: Set<String> = ["HKQuantityTypeIdentifierStepCount"]
  /// The only types the watch delivers immediately; every other type at most hourly (Apple's list).
  package static let watchImmediateTypes: Set<String> = [
    "HKCategoryTypeIdentifierHighHeartRateEvent", "HKCategoryTypeIdentifierLowHeartRateEvent",
    "HKCategoryTypeIdentifierIrregularHeartRhythmEvent", "HKCategoryTypeIdentifierEnvironmentalAudioExposureEvent",
    "HKCategoryTypeIdentifierHeadphoneAudioExposureEvent", "HKCategoryTypeIdentifierLowCardioFitnessEvent",
    "HKQuantityTypeIdentifierNumberOfTimesFallen", "HKQuantityTypeIdentifierVO2Max",
    "HKCategoryTypeIdentifierHandwashingEvent", "HKCategoryTypeIdentifierToothbrushingEvent",
  ]

  /// The longest window or retry delay a policy may set (1 day).
  package static let longest: Double = 86_400

  /// Whether both durations are positive, finite and at most ``longest``.
  package var isValid: Bool {
    [responseWindow, retryDelay].allSatisfy { $0 > 0 && $0 <= Self.longest }
  }
}

/// What happened to a delivery, as pushed to subscribers and kept in the history.
package struct BackgroundDeliveryEvent: Hashable, Sendable, CustomStringConvertible {
  /// The kind of event.
  package enum Kind: UInt8, Sendable, Hashable {
    /// HealthKit woke the app for the type: its observer queries' handlers run; the delivery waits for a
    /// completion handler to be called.
    case woken = 0
    /// The app called the completion handler in time.
    case completed = 1
    /// The response window passed without a call: a retry follows, unless this was the last miss.
    case missed = 2
    /// Three misses in a row: HealthKit stopped delivering the type to the app.
    case stopped = 3
  }

  /// What happened.
  package var kind: Kind
  /// The delivery's number on this device (0 for `stopped`).
  package var id: UInt64
  /// The app.
  package var bundleID: String
  /// The type.
  package var type: SampleType
  /// 1 for a first delivery, 2 and 3 for its retries.
  package var attempt: Int
  /// When it happened (the device's clock).
  package var at: Date

  /// Creates an event.
  package init(kind: Kind, id: UInt64, bundleID: String, type: SampleType, attempt: Int, at: Date) {
    self.kind = kind
    self.id = id
    self.bundleID = bundleID
    self.type = type
    self.attempt = attempt
    self.at = at
  }

  /// `woken com.example.steps for stepCount (#1, attempt 1)`.
  package var description: String {
    let what =
      switch kind {
      case .woken: "woken"
      case .completed: "completed"
      case .missed: "missed"
      case .stopped: "stopped"
      }
    return "\(what) \(bundleID) for \(type) (#\(id), attempt \(attempt))"
  }
}

/// One registration as `backgroundDeliveries` reports it.
package struct BackgroundDeliveryStatus: Hashable, Sendable {
  /// The app and type.
  package var key: BackgroundKey
  /// The frequency the app asked for.
  package var frequency: UpdateFrequency
  /// The frequency the device applies (at most hourly for some types, behavior.md B3).
  package var effective: UpdateFrequency
  /// Whether delivery stopped after three misses in a row.
  package var stopped: Bool
  /// The delivery waiting for its completion handler, if any.
  package var waiting: UInt64?
  /// Misses in a row so far.
  package var misses: Int
  /// Wakes since the daemon started (retries included).
  package var woken: Int
  /// Completed deliveries since the daemon started.
  package var completed: Int
  /// Whether changes are waiting to be delivered.
  package var pending: Bool

  /// Creates a status.
  package init(
    key: BackgroundKey, frequency: UpdateFrequency, effective: UpdateFrequency, stopped: Bool, waiting: UInt64?,
    misses: Int, woken: Int, completed: Int, pending: Bool
  ) {
    self.key = key
    self.frequency = frequency
    self.effective = effective
    self.stopped = stopped
    self.waiting = waiting
    self.misses = misses
    self.woken = woken
    self.completed = completed
    self.pending = pending
  }
}

/// The runtime side of background delivery: per registration, the changes waiting, the delivery waiting for its
/// completion handler, misses and counters; per app, the watch's hourly budget.
package struct BackgroundDeliveryRuntime: Sendable {
  struct Tracker: Sendable {
    var pendingSince: Date?
    var lastWoken: Date?
    var outstanding: (id: UInt64, attempt: Int, deadline: Date)?
    var misses = 0
    var retryAt: Date?
    var stopped = false
    var woken = 0
    var completed = 0
  }

  var trackers: [BackgroundKey: Tracker] = [:]
  /// Recent wakes per app (the watch's hourly budget).
  var wakes: [String: [Date]] = [:]
  var nextID: UInt64 = 1
  /// Every event since the daemon started, oldest first (at most 1,000).
  package private(set) var history: [BackgroundDeliveryEvent] = []

  mutating func record(_ event: BackgroundDeliveryEvent) {
    history.append(event)
    if history.count > 1000 { history.removeFirst(history.count - 1000) }
  }

  /// Creates an empty runtime.
  package init() {}
}

/// What one background step produced: events to push and log, and the apps each pruned type was visible to (so
/// their observer queries fire).
package struct BackgroundStep: Sendable, Equatable {
  /// Deliveries woken, completed, missed or stopped, in time order.
  package var events: [BackgroundDeliveryEvent] = []
  /// Types the watch's retention window pruned samples of, with the apps that could see some of them.
  package var pruned: [(type: SampleType, apps: [String])] = []

  /// Creates an empty step.
  package init() {}

  /// Whether nothing happened.
  package var isEmpty: Bool { events.isEmpty && pruned.isEmpty }

  /// Equal when the events and pruned lists are.
  package static func == (a: BackgroundStep, b: BackgroundStep) -> Bool {
    a.events == b.events && a.pruned.map(\.type) == b.pruned.map(\.type) && a.pruned.map(\.apps) == b.pruned.map(\.apps)
  }
}

extension DeviceState {
  /// The frequency the device applies to `type` when an app asks for `requested`: on the iPhone, step counts at
  /// most hourly; on the watch, every type but Apple's short list at most hourly (behavior.md B3).
  package func effectiveFrequency(_ type: SampleType, _ requested: UpdateFrequency) -> UpdateFrequency {
    let floor: UpdateFrequency =
      device == .watch
      ? (BackgroundDeliveryModel.watchImmediateTypes.contains(type.identifier) ? .immediate : .hourly)
      : (BackgroundDeliveryModel.phoneHourlyTypes.contains(type.identifier) ? .hourly : .immediate)
    return max(requested, floor)
  }

  /// `enableBackgroundDelivery(for:frequency:)`: registers the app for the type (replacing an earlier frequency)
  /// and, as a relaunched app does, clears a stop after three misses.
  /// - Throws: `errorAuthorizationDenied` without the background delivery entitlement; `errorInvalidArgument`
  ///   for a correlation type.
  package mutating func enableBackgroundDelivery(_ bundleID: String, _ type: SampleType, _ frequency: UpdateFrequency)
    throws(HealthError) -> [DeviceEvent]
  {
    let app = try installedAppRecord(bundleID)
    guard app.entitlements.contains(.backgroundDelivery) else {
      throw .healthKit(
        .errorAuthorizationDenied, "Missing com.apple.developer.healthkit.background-delivery entitlement.")
    }
    guard type.descriptor.supportsBackgroundDelivery else {
      throw .healthKit(.errorInvalidArgument, "\(type.identifier) is not a supported type for background delivery")
    }
    let key = BackgroundKey(bundleID, type)
    if var tracker = background.trackers[key], tracker.stopped || tracker.misses > 0 {
      tracker.stopped = false
      tracker.misses = 0
      tracker.retryAt = nil
      background.trackers[key] = tracker
    }
    if backgroundRegistrations[key] == frequency { return [] }
    return commitEvents([.backgroundDeliveryChanged(bundleID: bundleID, type: type, frequency: frequency)])
  }

  /// `disableBackgroundDelivery(for:)` (a type) or `disableAllBackgroundDelivery()` (nil): nothing to disable
  /// is a success.
  package mutating func disableBackgroundDelivery(_ bundleID: String, _ type: SampleType?) throws(HealthError)
    -> [DeviceEvent]
  {
    _ = try installedAppRecord(bundleID)
    let registered = backgroundRegistrations.keys.contains {
      $0.bundleID == bundleID && (type == nil || $0.type == type)
    }
    guard registered else { return [] }
    return commitEvents([.backgroundDeliveryChanged(bundleID: bundleID, type: type, frequency: nil)])
  }

  /// The observer query's completion handler for delivery `id`: true when it was waiting for it (a late call, or
  /// one for another app's delivery, changes nothing).
  package mutating func completeBackgroundDelivery(_ bundleID: String, id: UInt64, wall: Date) throws(HealthError)
    -> Bool
  {
    _ = try installedAppRecord(bundleID)
    guard let (key, tracker) = background.trackers.first(where: { $0.value.outstanding?.id == id }),
      key.bundleID == bundleID, let outstanding = tracker.outstanding
    else { return false }
    var updated = tracker
    updated.outstanding = nil
    updated.misses = 0
    updated.completed += 1
    background.trackers[key] = updated
    background.record(
      BackgroundDeliveryEvent(
        kind: .completed, id: id, bundleID: bundleID, type: key.type, attempt: outstanding.attempt, at: now(wall: wall)
      ))
    return true
  }

  /// The registrations of one app (or all), with their runtime state, sorted.
  package func backgroundDeliveries(_ bundleID: String?) -> [BackgroundDeliveryStatus] {
    backgroundRegistrations.filter { bundleID == nil || $0.key.bundleID == bundleID }.sorted { $0.key < $1.key }.map {
      key, frequency in
      let tracker = background.trackers[key] ?? .init()
      return BackgroundDeliveryStatus(
        key: key, frequency: frequency, effective: effectiveFrequency(key.type, frequency), stopped: tracker.stopped,
        waiting: tracker.outstanding?.id, misses: tracker.misses, woken: tracker.woken, completed: tracker.completed,
        pending: tracker.pendingSince != nil)
    }
  }

  /// Every background delivery event since the daemon started (at most the last 1,000).
  package var backgroundHistory: [BackgroundDeliveryEvent] { background.history }

  /// Drops the changes journal replay accumulated: they were delivered (or not) before the restart.
  package mutating func discardChanges() {
    changedSources = [:]
    lastNotedChange = nil
    prunedSources = [:]
  }

  /// Delivers what is due at the device's time: registrations whose type changed (in a way the app may see) since
  /// the last step get a delivery once their frequency allows; deliveries whose response window passed are
  /// missed and retried, or stopped after three misses. Everything due is processed in time order, so a clock
  /// that jumps past several deadlines misses each in turn. Runtime only: nothing to journal.
  package mutating func backgroundStep(wall: Date) -> BackgroundStep {
    // The daemon steps after every turn; with no registration and nothing pruned there is nothing to deliver or to
    // note (the same empty step the full pass would return), only the changes to forget.
    if backgroundRegistrations.isEmpty && prunedSources.isEmpty {
      discardChanges()
      return BackgroundStep()
    }
    let now = now(wall: wall)
    var step = BackgroundStep()
    for (type, sources) in prunedSources.sorted(by: { $0.key < $1.key }) {
      let apps = self.apps.keys.filter { sees($0, type, sources: sources) }.sorted()
      if !apps.isEmpty { step.pruned.append((type, apps)) }
    }
    for (key, _) in backgroundRegistrations {
      guard let sources = changedSources[key.type], sees(key.bundleID, key.type, sources: sources) else { continue }
      var tracker = background.trackers[key] ?? .init()
      if !tracker.stopped, tracker.pendingSince == nil { tracker.pendingSince = now }
      background.trackers[key] = tracker
    }
    changedSources = [:]
    lastNotedChange = nil
    prunedSources = [:]
    let model = policy.background
    var woken: [BackgroundKey: BackgroundDeliveryEvent] = [:]
    while let (time, key, isMiss) = nextBackgroundEvent(atOrBefore: now) {
      var tracker = background.trackers[key]!
      if isMiss {
        let outstanding = tracker.outstanding!
        tracker.outstanding = nil
        tracker.misses += 1
        woken[key] = nil
        let missed = BackgroundDeliveryEvent(
          kind: .missed, id: outstanding.id, bundleID: key.bundleID, type: key.type, attempt: outstanding.attempt,
          at: time)
        background.record(missed)
        step.events.append(missed)
        if tracker.misses >= BackgroundDeliveryModel.maxMisses {
          tracker.stopped = true
          tracker.pendingSince = nil
          tracker.retryAt = nil
          let stopped = BackgroundDeliveryEvent(
            kind: .stopped, id: outstanding.id, bundleID: key.bundleID, type: key.type, attempt: outstanding.attempt,
            at: time)
          background.record(stopped)
          step.events.append(stopped)
        } else {
          tracker.pendingSince = tracker.pendingSince ?? time
          tracker.retryAt = time.addingTimeInterval(model.retryDelay * Double(1 << (tracker.misses - 1)))
        }
      } else {
        let id = background.nextID
        background.nextID += 1
        let attempt = tracker.misses + 1
        tracker.outstanding = (id, attempt, time.addingTimeInterval(model.responseWindow))
        tracker.lastWoken = time
        tracker.pendingSince = nil
        tracker.retryAt = nil
        tracker.woken += 1
        if device == .watch {
          var recent = background.wakes[key.bundleID, default: []]
          recent.append(time)
          background.wakes[key.bundleID] = Array(recent.suffix(BackgroundDeliveryModel.watchHourlyBudget))
        }
        let event = BackgroundDeliveryEvent(
          kind: .woken, id: id, bundleID: key.bundleID, type: key.type, attempt: attempt, at: time)
        background.record(event)
        woken[key] = event
      }
      background.trackers[key] = tracker
    }
    // Only deliveries still waiting at the end reach the app: one woken and missed within a single clock jump was
    // never answerable (its miss is pushed).
    step.events += woken.values.sorted { ($0.at, $0.id) < ($1.at, $1.id) }
    step.events.sort { ($0.at, $0.id, $0.kind.rawValue) < ($1.at, $1.id, $1.kind.rawValue) }
    return step
  }

  /// When the next background event is due (a send or a miss), for a daemon on the real clock to wake up; nil
  /// when nothing is scheduled.
  package func nextBackgroundDue() -> Date? {
    backgroundRegistrations.keys.compactMap { dueTime(of: $0)?.time }.min()
  }

  private func nextBackgroundEvent(atOrBefore now: Date) -> (Date, BackgroundKey, isMiss: Bool)? {
    var best: (Date, BackgroundKey, Bool)?
    for key in backgroundRegistrations.keys {
      guard let (time, isMiss) = dueTime(of: key), time <= now else { continue }
      if let current = best, (current.0, current.1) <= (time, key) { continue }
      best = (time, key, isMiss)
    }
    return best
  }

  /// The time of the next event of one registration: its miss, or its next wake.
  private func dueTime(of key: BackgroundKey) -> (time: Date, isMiss: Bool)? {
    guard let tracker = background.trackers[key], let frequency = backgroundRegistrations[key] else { return nil }
    if let outstanding = tracker.outstanding { return (outstanding.deadline, true) }
    guard !tracker.stopped, let pendingSince = tracker.pendingSince else { return nil }
    var due = pendingSince
    if let retryAt = tracker.retryAt {
      // A retry follows the back-off, not the frequency: it is the same change, delivered again.
      due = max(due, retryAt)
    } else if let last = tracker.lastWoken {
      due = max(due, last.addingTimeInterval(effectiveFrequency(key.type, frequency).period))
    }
    if device == .watch, let recent = background.wakes[key.bundleID],
      recent.count >= BackgroundDeliveryModel.watchHourlyBudget
    {
      due = max(due, recent[recent.count - BackgroundDeliveryModel.watchHourlyBudget].addingTimeInterval(3600))
    }
    return (due, false)
  }

  /// Whether `bundleID` may see a change to `type` made by samples of `sources` (R1–R4).
  private func sees(_ bundleID: String, _ type: SampleType, sources: Set<String>) -> Bool {
    switch visibility(bundleID, type) {
    case .all: true
    case .own(let app): sources.contains(app)
    case .none: false
    }
  }
}
