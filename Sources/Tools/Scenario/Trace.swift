import Dispatch
import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import ScenarioLanguage
import Synchronization
import Wire

/// Which lane of a scenario's timeline an entry belongs to.
package enum Lane: String, Sendable, Hashable {
  /// The phone.
  case phone
  /// The watch.
  case watch
  /// Both devices (or the pair as a whole: the link, sync, the scenario's settings).
  case both

  /// The lane of one device.
  package init(_ device: DeviceKind) { self = device == .phone ? .phone : .watch }

  /// The lane of a step's devices.
  package init(_ devices: Devices) {
    switch devices {
    case .one(let device): self.init(device)
    case .both: self = .both
    }
  }
}

/// What kind of thing a step does, for reports to style it.
package enum StepCategory: String, Sendable, Hashable {
  /// Installs, policies, clocks, sync mode.
  case setup
  /// An app's call (request, save, delete).
  case app
  /// The user: answering a sheet, Settings, the Watch app.
  case user
  /// The link: disconnect, reconnect, hold, release, latency, waiting for sync.
  case link
  /// A fault: a daemon killed, stopped or restarted, a journal torn or cut.
  case fault
  /// An expectation.
  case expect
}

/// What an app's call returned, as a trace records it.
package struct CallOutcome: Sendable, Hashable {
  /// The kind of result.
  package enum Result: String, Sendable, Hashable {
    /// Returned normally (a request: completed with `success = true`).
    case succeeded
    /// Returned an `HKError` (a request: completed with `success = false`).
    case failed
    /// Would terminate the app on a device (an uncatchable exception).
    case wouldTerminate
    /// Refused by the simulator: not something HealthKit returns.
    case rejected
    /// Not returned yet: a sheet is up.
    case pending
  }

  /// The kind of result.
  package var result: Result
  /// `requestAuthorization`'s `success` argument, once the request completed (nil for other calls).
  package var success: Bool?
  /// The error, if any.
  package var error: HealthError?

  /// Creates an outcome.
  package init(result: Result, success: Bool? = nil, error: HealthError? = nil) {
    self.result = result
    self.success = success
    self.error = error
  }

  /// The outcome of a call that returned `error` (nil: returned normally).
  package init(error: HealthError?) {
    guard let error else {
      self.init(result: .succeeded)
      return
    }
    switch error.kind {
    case .healthKit: self.init(result: .failed, error: error)
    case .wouldTerminate: self.init(result: .wouldTerminate, error: error)
    case .simulator: self.init(result: .rejected, error: error)
    }
  }

  /// The outcome of a completed `requestAuthorization`.
  package init(authorization: AuthorizationCallResult) {
    self.init(
      result: authorization.success ? .succeeded : .failed, success: authorization.success, error: authorization.error)
  }

  /// One line: `succeeded (success = true)`, `failed with errorUserCanceled (?)`, ….
  package var description: String {
    let flag = success.map { " (success = \($0))" } ?? ""
    switch result {
    case .succeeded: return "succeeded" + flag
    case .failed:
      guard let error else { return "failed with no error" + flag }
      return "failed with \(error.code) (\(error.code.rawValue)): \(error.message)" + flag
    case .wouldTerminate:
      return "would terminate the app: \(error?.exception ?? "NSInvalidArgumentException"): \(error?.message ?? "")"
    case .rejected: return "was rejected by the simulator: \(error?.message ?? "")"
    case .pending: return "pending (the sheet is up)"
    }
  }
}

/// One entry of a scenario's trace: a step, or something that happened during it.
///
/// Deterministic: no wall-clock times, process ids or random identifiers. Both devices' clocks are the virtual
/// clocks as the daemons reported them (nil while a daemon is down).
package struct TraceEntry: Sendable, Hashable {
  /// What happened.
  package enum Kind: Sendable, Hashable {
    /// A step began (clocks: before it ran).
    case step(line: Int, text: String, category: StepCategory)
    /// An app's call returned (or is pending behind a sheet).
    case call(app: String, call: String, outcome: CallOutcome)
    /// A permission sheet was presented.
    case sheetShown(app: String, sheet: UInt64, lists: [String])
    /// A sheet closed: answered (with the decisions), cancelled, failed to present, withdrawn.
    case sheetClosed(app: String, sheet: UInt64, outcome: String)
    /// Sync entries logged on `from` were applied on `to`, up to entry `upTo`; `added` and `deleted` count the
    /// samples among the `items`.
    case delivery(from: DeviceKind, to: DeviceKind, upTo: UInt64, items: Int, added: Int, deleted: Int)
    /// The peer link came up or went down during the step, as this lane's daemon saw it (its state at the end of
    /// the step against the end of the previous one).
    case link(up: Bool)
    /// The step failed: what it expected and what happened.
    case failure(expected: String, actual: String)
    /// Background delivery woke an app for a type, or the app's completion handler was called, or a delivery was
    /// missed, or delivery stopped (`event`: woken, completed, missed, stopped).
    case background(app: String, type: String, event: String, delivery: UInt64, attempt: Int)
    /// An app's workout session object or its live builder heard a delegate callback (`event`: `didChangeTo
    /// running`, `didFailWithError errorAnotherWorkoutSessionStarted (8)`, `builder didCollectDataOf ×24
    /// (heartRate, …)` for a step's data callbacks together).
    case session(app: String, session: String, event: String)
    /// Messages an app's workout session sent with `sendToRemoteWorkoutSession(data:)` reached the session object
    /// of the same app on `to` in one `didReceiveData` (`messages`: each as the trace writes it), drawn as an arrow.
    case remoteData(from: DeviceKind, to: DeviceKind, app: String, session: String, messages: [String])
  }

  /// The step it belongs to: 1 for the first step, 0 before any.
  package var step: Int
  /// The lane.
  package var lane: Lane
  /// The phone's clock, nil when unknown (its daemon down).
  package var phoneClock: Date?
  /// The watch's clock, nil when unknown.
  package var watchClock: Date?
  /// What happened.
  package var kind: Kind

  /// Creates an entry.
  package init(step: Int, lane: Lane, phoneClock: Date?, watchClock: Date?, kind: Kind) {
    self.step = step
    self.lane = lane
    self.phoneClock = phoneClock
    self.watchClock = watchClock
    self.kind = kind
  }

  /// The entry's kind as a word (`step`, `call`, `sheetShown`, `sheetClosed`, `delivery`, `link`, `failure`).
  package var kindName: String {
    switch kind {
    case .step: "step"
    case .call: "call"
    case .sheetShown: "sheetShown"
    case .sheetClosed: "sheetClosed"
    case .delivery: "delivery"
    case .link: "link"
    case .failure: "failure"
    case .background: "background"
    case .session: "session"
    case .remoteData: "remoteData"
    }
  }

  /// One line for people (without the clocks).
  package var text: String {
    switch kind {
    case .step(_, let text, _): return text
    case .call(let app, let call, let outcome): return "\(app) \(call) \(outcome.description)"
    case .sheetShown(let app, let sheet, let lists):
      return "sheet #\(sheet) shown for \(app): \(lists.joined(separator: ", "))"
    case .sheetClosed(let app, let sheet, let outcome): return "sheet #\(sheet) of \(app) closed: \(outcome)"
    case .delivery(let from, let to, let upTo, let items, let added, let deleted):
      var parts: [String] = []
      if added > 0 { parts.append("\(added) added") }
      if deleted > 0 { parts.append("\(deleted) deleted") }
      let detail = parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
      return "sync \(from) → \(to): \(items) item\(items == 1 ? "" : "s")\(detail), up to entry \(upTo)"
    case .link(let up): return "peer link \(up ? "up" : "down")"
    case .failure(let expected, let actual):
      return "FAILED: expected \(expected.oneLine), actual \(actual.oneLine)"
    case .background(let app, let type, let event, let delivery, let attempt):
      let what =
        switch event {
        case "woken": "woken for \(type) by background delivery"
        case "completed": "completed background delivery of \(type)"
        case "missed": "missed background delivery of \(type)"
        default: "background delivery of \(type) stopped after 3 misses"
        }
      return "\(app) \(what) (#\(delivery), attempt \(attempt))"
    case .session(let app, let session, let event): return "\(app)'s workout session \(session) \(event)"
    case .remoteData(let from, let to, let app, let session, let messages):
      return "\(app)'s workout session \(session) \(from) → \(to): didReceiveData \(messages.joined(separator: ", "))"
    }
  }
}

extension String {
  /// Lines joined with ` / `.
  var oneLine: String { split(separator: "\n").joined(separator: " / ") }
}

extension Step {
  /// The lane the step belongs to.
  package var lane: Lane { kind.lane }

  /// What kind of step it is.
  package var category: StepCategory { kind.category }
}

extension StepKind {
  /// The lane of the devices the step concerns.
  package var lane: Lane {
    switch self {
    case .onBoth: return .both
    case .install(_, let d), .uninstall(_, let d), .policy(let d, _, _, _, _, _, _), .lock(let d, _),
      .timeZone(let d, _):
      return Lane(d)
    case .clockSet, .clockAdvance, .syncMode, .link, .waitSynced: return .both
    case .request(let d, _, _, _), .requestFromExtension(let d, _, _, _), .handleExtensions(let d, _),
      .save(let d, _, _), .saveCorrelation(let d, _, _), .saveRandom(let d, _, _, _, _),
      .saveWorkout(let d, _, _), .saveRoute(let d, _, _, _), .addToWorkout(let d, _, _, _, _),
      .deleteWorkout(let d, _, _), .saveHeartbeatSeries(let d, _, _), .saveAudiogram(let d, _, _),
      .logStateOfMind(let d, _, _), .logAssessment(let d, _, _), .saveDocument(let d, _, _),
      .requestDocuments(let d, _, _), .savePrescription(let d, _, _),
      .requestObjects(let d, _, _), .requestMedications(let d, _), .addMedication(let d, _), .logDose(let d, _),
      .answerObjects(let d, _, _), .resave(let d, _, _, _),
      .delete(let d, _, _), .deleteAll(let d, _, _, _), .answer(let d, _, _), .settings(let d, _, _), .kill(let d),
      .stop(let d), .restart(let d),
      .tearJournal(let d), .cutJournal(let d, _), .userSetting(let d, _), .background(let d, _, _),
      .sourceOrder(let d, _, _), .session(let d, _, _), .wearer(let d, _), .providerSends(let d, _):
      return Lane(d)
    case .watchSettings: return .phone
    case .importExport(let step): return Lane(step.device)
    case .exportStore(let device, _): return Lane(device)
    case .expect(let expectation): return expectation.lane
    }
  }

  /// What kind of step it is.
  package var category: StepCategory {
    switch self {
    case .onBoth(let phone, _): phone.category
    case .install, .uninstall, .policy, .clockSet, .clockAdvance, .syncMode, .timeZone, .importExport, .exportStore:
      .setup
    case .request, .requestFromExtension, .handleExtensions, .save, .saveCorrelation, .saveRandom, .resave, .delete,
      .deleteAll, .background, .saveWorkout,
      .saveRoute, .addToWorkout, .deleteWorkout, .saveHeartbeatSeries, .saveAudiogram, .logStateOfMind, .logAssessment,
      .session, .savePrescription, .requestObjects, .saveDocument, .requestDocuments, .requestMedications:
      .app
    case .answer, .answerObjects, .addMedication, .logDose, .settings, .watchSettings, .lock, .userSetting,
      .sourceOrder, .wearer, .providerSends:
      .user
    case .link, .waitSynced: .link
    case .kill, .stop, .restart, .tearJournal, .cutJournal: .fault
    case .expect: .expect
    }
  }
}

extension Expectation {
  /// The lane of the devices it looks at.
  var lane: Lane {
    switch self {
    case .shareStatus(let d, _, _, _), .hiddenRead(let d, _, _, _), .requestStatus(let d, _, _, _, _),
      .lockedOut(let d, _, _), .seesCount(let d, _, _), .seesCorrelations(let d, _, _, _),
      .seesTotal(let d, _, _, _, _, _),
      .storeCount(let d, _, _),
      .storeHas(let d, _, _), .syncConflicts(let d, _), .locked(let d, _), .backgroundState(let d, _, _, _),
      .backgroundCounts(let d, _, _, _, _, _), .storeCountMatching(let d, _, _, _, _), .seesWorkouts(let d, _, _),
      .seesHeartbeatSeries(let d, _, _, _), .seesRoutes(let d, _, _, _), .seesElectrocardiograms(let d, _, _, _),
      .seesAudiograms(let d, _, _, _), .seesStatesOfMind(let d, _, _, _), .seesAssessments(let d, _, _, _),
      .seesDocuments(let d, _, _, _),
      .seesClinicalRecords(let d, _, _, _),
      .seesPrescriptions(let d, _, _), .activitySummary(let d, _, _, _), .seesMedications(let d, _, _, _),
      .seesDoses(let d, _, _, _):
      return Lane(d)
    case .lastCall(let d, _, _), .sheetShown(let d, _, _), .noSheet(let d, _), .pendingSheets(let d, _),
      .seesSamples(let d, _, _), .sampleQuery(let d, _, _), .statistic(let d, _, _), .collection(let d, _, _),
      .sheetHistory(let d, _, _), .settingsRefused(let d, _), .clock(let d, _), .changes(let d, _, _, _, _),
      .earliestPermitted(let d, _), .queriesFail(let d, _, _, _), .waitingForUnlock(let d, _),
      .characteristic(let d, _, _, _), .preferredUnit(let d, _, _, _), .preferredUnitsFail(let d, _, _, _),
      .lastImport(let d, _, _, _), .workout(let d, _, _, _), .activitySummaryQuery(let d, _, _, _),
      .session(let d, _, _, _), .recovers(let d, _, _):
      return Lane(d)
    case .converged, .diverged, .linkUp, .onBoth: return .both
    }
  }
}

/// Collects both daemons' events on the pair's own connections and hands them over step by step.
///
/// The pair's clients are subscribed to every event and keep what they read (`DeviceClient.collectEvents()`); the
/// pair keeps that subscription through its waits (`Pair.keepSubscribed(_:)`). No listener and no connection of its
/// own: events are read by the runner's thread as part of its own calls, so tracing costs no reader thread, no
/// thread hand-off per answer and no extra connection per device.
///
/// Only the thread running the scenario uses it.
final class TraceRecorder {
  private var clients: [DeviceKind: DeviceClient] = [:]
  /// Events taken from a client that was replaced (a restarted daemon) before they were collected.
  private var carried: [DeviceKind: [DaemonEvent]] = [:]

  /// Starts collecting `device`'s events on `client` (the pair's client, replacing an earlier one). A daemon that
  /// cannot be subscribed to is not traced (the scenario's own calls report why).
  func attach(_ device: DeviceKind, client: DeviceClient, pair: Pair) {
    attach([(device, client)], pair: pair)
  }

  /// ``attach(_:client:pair:)`` for several devices, their subscriptions in flight together.
  func attach(_ devices: [(DeviceKind, DeviceClient)], pair: Pair) {
    pair.keepSubscribed(.all)
    for (device, client) in devices {
      if let old = clients[device], old !== client {
        // The replaced client (its daemon was stopped or killed, and the pair closed it): what it still had unread
        // belongs to the trace too.
        _ = old.waitUntilClosed(timeout: 5)
        carried[device, default: []] += old.takeCollectedEvents()
      }
      clients[device] = nil
      client.collectEvents()
    }
    let subscribed = DeviceClient.performTogether(.subscribe(.all), on: devices.map(\.1))
    for ((device, client), result) in zip(devices, subscribed) where (try? result.get()) != nil {
      clients[device] = client
    }
  }

  /// Every event pushed so far, per device. A round trip on each connection first: a daemon pushes an event
  /// before it answers any later request, so everything the step caused has arrived. Both pings are sent before
  /// either answer is awaited, so the two daemons answer at the same time (one round trip of waiting per step, not
  /// two); this thread then reads each answer, and the events before it, itself.
  func collect() -> [DeviceKind: [DaemonEvent]] {
    var events = carried
    carried = [:]
    let traced = [DeviceKind.phone, .watch].compactMap { device in clients[device].map { (device, $0) } }
    _ = DeviceClient.performTogether(.ping, on: traced.map(\.1))
    for (device, client) in traced { events[device, default: []] += client.takeCollectedEvents() }
    return events
  }

  /// The events `device` pushed so far that ``collect()`` has not handed over (a round trip first), without taking
  /// them: the next ``collect()`` still returns them, in order.
  func peek(_ device: DeviceKind) -> [DaemonEvent] {
    guard let client = clients[device] else { return carried[device] ?? [] }
    _ = try? client.ping()
    carried[device, default: []] += client.takeCollectedEvents()
    return carried[device] ?? []
  }

  /// Stops collecting (the clients belong to the pair, which closes them).
  func close() {
    clients.removeAll()
    carried.removeAll()
  }

  /// The entries for one device's events: sheets and sync deliveries (samples counted). Left out: the samples an
  /// app saved here (the call's entry says it), store-check notices, and link changes (see ``lastLink(_:)``).
  static func entries(
    _ events: [DaemonEvent], device: DeviceKind, step: Int, clocks: (phone: Date?, watch: Date?)
  ) -> [TraceEntry] {
    var entries: [TraceEntry] = []
    var added = 0
    var deleted = 0
    func append(_ kind: TraceEntry.Kind) {
      entries.append(
        TraceEntry(step: step, lane: Lane(device), phoneClock: clocks.phone, watchClock: clocks.watch, kind: kind))
    }
    for event in events {
      switch event {
      case .promptShown(let prompt):
        // A per-object sheet lists its objects: their count follows the type's read permission.
        let objects = prompt.objects.map { ["\($0.count) object\($0.count == 1 ? "" : "s")"] } ?? []
        append(
          .sheetShown(app: prompt.bundleID, sheet: prompt.id, lists: prompt.permissions.map(\.description) + objects))
      case .promptClosed(let id, let bundleID, let outcome):
        append(.sheetClosed(app: bundleID, sheet: id, outcome: outcome))
      case .samplesChanged(_, let origin, let a, let d):
        if origin != device {
          added += a
          deleted += d
        }
      case .syncApplied(let upTo, let items):
        defer { (added, deleted) = (0, 0) }
        guard items > 0 else { continue }
        // Deliveries of one step in the same direction are one: how the daemons batch them depends on timing.
        if case .delivery(let from, let to, _, let i, let a, let d)? = entries.last?.kind {
          entries[entries.count - 1].kind = .delivery(
            from: from, to: to, upTo: upTo, items: i + items, added: a + added, deleted: d + deleted)
        } else {
          append(.delivery(from: device.peer, to: device, upTo: upTo, items: items, added: added, deleted: deleted))
        }
      case .backgroundDelivery(let e):
        let event =
          switch e.kind {
          case .woken: "woken"
          case .completed: "completed"
          case .missed: "missed"
          case .stopped: "stopped"
          }
        append(.background(app: e.bundleID, type: e.type.name, event: event, delivery: e.id, attempt: e.attempt))
      case .peerAcknowledged, .linkChanged, .samplesPruned, .protectedDataChanged, .workoutSession, .workoutBuilder,
        .mirroringStarted, .workoutDataSent, .workoutConfigurationHandled, .extensionRequestWaiting:
        break  // session callbacks: RunContext.sessionEntries (it knows the sessions' names)
      }
    }
    return entries
  }

  /// Whether the link was up after `events`, if they say.
  static func lastLink(_ events: [DaemonEvent]) -> Bool? {
    for event in events.reversed() { if case .linkChanged(let connected) = event { return connected } }
    return nil
  }
}
