import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Sync
import Wire

/// A daemon's request handling as a pure function: (device state, request, time) in; the answer, the events to
/// journal, the sheets to close and the notices to push out. No sockets, files or clocks: ``DeviceCore`` orders the
/// effects (journal first, then replies and pushes), and the fuzz target `requests` drives it with well-formed
/// requests carrying extreme values.
///
/// `hello` is the connection's business, not the device's: ``DeviceCore`` answers it.
package enum RequestCore {
  /// What a request may read besides the device state.
  package struct Context: Sendable {
    /// The shell's real-clock reading (the virtual clock wins when set).
    package var wall: Date
    /// Whether this daemon has a peer link.
    package var hasPeer: Bool
    /// The link's status, for `dump`.
    package var link: LinkStatus
    /// The daemon's process id, for `dump`.
    package var pid: Int32
    /// Connected clients, for `dump`.
    package var clients: Int
    /// Bytes of samples and tombstones per `storedSamples` page.
    package var storedPageBudget: Int
    /// The quietest log level the shell writes: an app call's line below it is not built (the daemon's log level;
    /// `.debug`, every line, by default).
    package var quietestNote: LogLevel

    /// Creates a context.
    package init(
      wall: Date, hasPeer: Bool, link: LinkStatus, pid: Int32, clients: Int,
      storedPageBudget: Int = WireProtocol.maxStoredPage, quietestNote: LogLevel = .debug
    ) {
      self.wall = wall
      self.hasPeer = hasPeer
      self.link = link
      self.pid = pid
      self.clients = clients
      self.storedPageBudget = storedPageBudget
      self.quietestNote = quietestNote
    }
  }

  /// The immediate answer to a request.
  package enum Answer: Sendable, Equatable {
    /// Reply now.
    case reply(Result<Reply, HealthError>)
    /// A sheet was presented: send it as an interim answer; the final one comes when the sheet closes.
    case pending(Prompt)
    /// Perform this link command on the sync machine, then reply with the link's status.
    case link(LinkCommand)
    /// Set the connection's subscriptions, then reply `ok`.
    case subscribe(EventMask)
  }

  /// A sheet that closed because of this request, and the final answer its waiting request gets.
  package struct Completion: Sendable, Equatable {
    /// The sheet.
    package var prompt: Prompt
    /// The final answer to the request that presented it.
    package var result: Result<Reply, HealthError>
    /// How it closed (for the event and the log).
    package var outcome: String
  }

  /// One `key=value` of a log line.
  package typealias Field = LogField

  /// A line for the daemon's log.
  package struct Note: Sendable, Equatable {
    /// How loud.
    package var level: LogLevel
    /// What happened.
    package var message: String
    /// Key/value context, in order.
    package var fields: [Field]
  }

  /// Everything a request caused besides its answer.
  package struct Effects: Sendable, Equatable {
    /// Events to journal before anything below is written anywhere.
    package var events: [DeviceEvent] = []
    /// Sheets this request closed.
    package var completions: [Completion] = []
    /// Notices for subscribers (derived from the events, plus sheets shown and closed).
    package var notices: [DaemonEvent] = []
    /// Log lines.
    package var notes: [Note] = []
    /// Messages this device's workout sessions send the paired device's, in order (the device core sends them on
    /// the peer link after the commit).
    package var sessionMessages: [SessionPeerMessage] = []
  }

  /// Handles one request against `state` (mutated in place by the operation's events, as the engine does).
  package static func handle(
    _ request: Request, state: inout DeviceState, context: Context
  ) -> (answer: Answer, effects: Effects) {
    var effects = Effects()
    let wall = context.wall
    func record(_ events: [DeviceEvent]) {
      effects.events += events
      effects.notices += notices(for: events, device: state.device)
    }
    func close(_ prompt: Prompt, _ result: Result<Reply, HealthError>, outcome: String) {
      effects.completions.append(Completion(prompt: prompt, result: result, outcome: outcome))
      effects.notices.append(.promptClosed(promptID: prompt.id, bundleID: prompt.bundleID, outcome: outcome))
      var fields = [Field("app", prompt.bundleID), Field("prompt", "\(prompt.id)"), Field("outcome", outcome)]
      switch result {
      case .success(let reply): fields += reply.logFields
      case .failure(let error): fields.append(Field("error", "\(error)"))
      }
      effects.notes.append(Note(level: .info, message: "sheet closed", fields: fields))
    }
    let answer: Answer
    state.beginRequestCollections()
    do throws(HealthError) {
      switch request {
      case .hello:
        throw .simulator("hello is answered by the connection, not the device")
      case .ping:
        answer = .reply(.success(.ok))
      case .installApp(let app):
        record(try state.install(app))
        answer = .reply(.success(.ok))
      case .uninstallApp(let bundleID):
        let (events, withdrawn) = try state.uninstall(bundleID)
        record(events)
        for prompt in withdrawn {
          close(
            prompt, .failure(.simulator("\(bundleID) was uninstalled while its sheet was up")), outcome: "withdrawn")
        }
        answer = .reply(.success(.ok))
      case .requestAuthorization(let bundleID, let share, let read):
        let outcome = try state.requestAuthorization(bundleID, share: Set(share), read: Set(read), wall: wall)
        let ahead: Prompt? = if case .prompt(let last) = outcome { state.sheetAhead(of: last.id) } else { nil }
        answer = presented(outcome, &effects, after: ahead)
      case .requestAuthorizationFromExtension(let bundleID, let share, let read):
        answer = waiting(
          try state.requestAuthorizationFromExtension(bundleID, share: Set(share), read: Set(read), wall: wall),
          &effects)
      case .handleAuthorizationForExtension(let bundleID):
        let (outcome, completions) = try state.handleAuthorizationForExtension(bundleID, wall: wall)
        for completion in completions {
          close(completion.prompt, .success(.authorization(completion.result)), outcome: "handled by the app")
        }
        answer = presented(outcome, &effects)
      case .requestPerObjectRead(let bundleID, let query):
        let sources = query.sources.map { SampleFilter.sources($0) }
        let parts = [query.filter, sources].compactMap { $0 }
        let filter: SampleFilter? = parts.count > 1 ? .and(parts) : parts.first
        answer = presented(
          try state.requestPerObjectRead(bundleID, query.type, range: query.range, filter: filter, wall: wall),
          &effects)
      case .answerPrompt(let promptID, let bundleID, let reply):
        let (completions, events) = try state.answerPrompt(id: promptID, bundleID: bundleID, answer: reply, wall: wall)
        record(events)
        for completion in completions {
          let outcome =
            state.promptHistory.last { $0.prompt.id == completion.prompt.id }?.outcome.description ?? "closed"
          close(completion.prompt, .success(.authorization(completion.result)), outcome: outcome)
        }
        answer = .reply(.success(.ok))
      case .authorizationStatus(let bundleID, let type):
        answer = .reply(.success(.status(try state.authorizationStatus(bundleID, type))))
      case .requestStatus(let bundleID, let share, let read):
        answer = .reply(.success(.requestStatus(try state.requestStatus(bundleID, share: Set(share), read: Set(read)))))
      case .save(let bundleID, let samples):
        record(try state.save(bundleID, samples, wall: wall))
        answer = .reply(.success(.ok))
      case .delete(let bundleID, let uuids):
        record(try state.delete(bundleID, uuids, wall: wall))
        answer = .reply(.success(.ok))
      case .deleteMatching(let bundleID, let type, let range):
        let events = try state.deleteMatching(bundleID, type: type, range: range, wall: wall)
        record(events)
        let count = events.reduce(0) { total, event in
          if case .samplesDeleted(let tombstones) = event { return total + tombstones.count }
          if case .workoutObjectsDeleted(let tombstones) = event { return total + tombstones.count }
          return total
        }
        answer = .reply(.success(.count(count)))
      case .sampleQuery(let bundleID, let query):
        answer = .reply(.success(.samples(try state.sampleQuery(bundleID, query, wall: wall))))
      case .saveCorrelations(let bundleID, let correlations, let samples):
        record(try state.saveCorrelations(bundleID, correlations, samples: samples, wall: wall))
        answer = .reply(.success(.ok))
      case .correlationQuery(let bundleID, let query):
        answer = .reply(.success(.correlations(try state.correlationQuery(bundleID, query, wall: wall))))
      case .storedCorrelations(let type):
        answer = .reply(.success(.correlations(state.storedCorrelations(type: type))))
      case .importCorrelations(let id, let correlations):
        record(try state.stageImportCorrelations(id, correlations))
        answer = .reply(.success(.ok))
      case .saveWorkout(let bundleID, let workout, let route):
        let events = try state.saveWorkout(bundleID, workout, route: route, wall: wall)
        record(events)
        answer = .reply(.success(.count(DeviceState.isWaitingForUnlock(events) ? 1 : 0)))
      case .saveObjects(let bundleID, let correlations, let samples, let workouts):
        record(
          try state.saveObjects(bundleID, correlations: correlations, samples: samples, workouts: workouts, wall: wall))
        answer = .reply(.success(.ok))
      case .addSamplesToWorkout(let bundleID, let workout, let samples, let existing):
        record(try state.addSamples(bundleID, new: samples, existing: existing, to: workout, wall: wall))
        answer = .reply(.success(.ok))
      case .saveRoute(let bundleID, let workout, let route):
        record(try state.saveRoute(bundleID, route, workout: workout, wall: wall))
        answer = .reply(.success(.ok))
      case .saveHeartbeatSeries(let bundleID, let series):
        record(try state.saveHeartbeatSeries(bundleID, series, wall: wall))
        answer = .reply(.success(.ok))
      case .workoutQuery(let bundleID, let query):
        answer = .reply(.success(.workouts(try state.workoutQuery(bundleID, query, wall: wall))))
      case .routeQuery(let bundleID, let workout, let query):
        answer = .reply(.success(.routes(try state.routeQuery(bundleID, workout: workout, query, wall: wall))))
      case .heartbeatSeriesQuery(let bundleID, let query):
        answer = .reply(.success(.heartbeatSeries(try state.heartbeatSeriesQuery(bundleID, query, wall: wall))))
      case .activitySummaryQuery(let bundleID, let from, let to):
        answer = .reply(
          .success(.activitySummaries(try state.activitySummaries(bundleID, from: from, to: to, wall: wall))))
      case .anchoredWorkoutQuery(let bundleID, let type, let anchor, let range, let limit, let filter):
        let result = try state.anchoredWorkoutQuery(
          bundleID, type: type, anchor: anchor, range: range, limit: limit, filter: filter, wall: wall)
        answer = .reply(.success(.anchoredWorkouts(result)))
      case .importWorkouts(let id, let workouts):
        record(try state.stageImportWorkouts(id, workouts: workouts, routes: [], summaries: []))
        answer = .reply(.success(.ok))
      case .importRoutes(let id, let routes):
        record(try state.stageImportWorkouts(id, workouts: [], routes: routes, summaries: []))
        answer = .reply(.success(.ok))
      case .importActivitySummaries(let id, let summaries):
        record(try state.stageImportWorkouts(id, workouts: [], routes: [], summaries: summaries))
        answer = .reply(.success(.ok))
      case .storedWorkouts:
        answer = .reply(.success(.workouts(state.storedWorkouts())))
      case .storedRoutes(let workout):
        answer = .reply(.success(.routes(state.storedRoutes(workout: workout))))
      case .storedActivitySummaries:
        answer = .reply(.success(.activitySummaries(state.storedActivitySummaries())))
      case .recordElectrocardiogram, .electrocardiogramQuery, .electrocardiogramVoltages, .importElectrocardiograms,
        .storedElectrocardiograms, .saveAudiograms, .audiogramQuery, .importAudiograms, .storedAudiograms,
        .saveStatesOfMind, .stateOfMindQuery, .receiveClinicalRecords, .clinicalRecordQuery, .saveVisionPrescriptions,
        .visionPrescriptionQuery, .importVisionPrescriptions, .storedVisionPrescriptions, .importClinicalRecords,
        .storedClinicalRecords, .saveScoredAssessments, .scoredAssessmentQuery, .saveCDADocuments,
        .cdaDocumentQuery, .addMedications, .logMedicationDoses, .medicationQuery, .medicationDoseQuery, .saveFamilies:
        let (reply, events) = try objectRequest(request, state: &state, wall: wall)
        record(events)
        answer = .reply(.success(reply))
      case .workoutSession(let bundleID, let call):
        let (status, events) = try sessionCall(call, bundleID, state: &state, wall: wall)
        record(events)
        answer = .reply(.success(.sessionStatus(status)))
      case .statistics(let bundleID, let query):
        state.refreshStatisticsSummaries(for: query.type)
        answer = .reply(.success(.statistics(try state.statistics(bundleID, query, wall: wall))))
      case .statisticsCollection(let bundleID, let query):
        state.refreshStatisticsSummaries(for: query.type)
        let buckets = try state.statisticsCollection(bundleID, query, wall: wall)
        answer = .reply(.success(.collection(buckets, timeZone: state.policy.timeZone.identifier)))
      case .anchoredQuery(let bundleID, let type, let anchor, let range, let limit, let filter):
        let result = try state.anchoredQuery(
          bundleID, type: type, anchor: anchor, range: range, limit: limit, filter: filter, wall: wall)
        answer = .reply(.success(.anchored(result)))
      case .changeSettings(let bundleID, let change):
        record(try state.changeSettings(bundleID, change, wall: wall))
        effects.notes.append(
          Note(
            level: .info, message: "settings changed",
            fields: [Field("app", bundleID), Field("change", change.description)]))
        answer = .reply(.success(.ok))
      case .watchSettings(let bundleID, let change):
        record(try state.queueWatchSettings(bundleID, change))
        effects.notes.append(
          Note(
            level: .info, message: "watch app settings queued for the watch",
            fields: [Field("app", bundleID), Field("change", change.description)]))
        answer = .reply(.success(.ok))
      case .setClock(let date):
        record(try state.setClock(date))
        answer = .reply(.success(.date(state.now(wall: wall))))
      case .advanceClock(let seconds):
        record(try state.advanceClock(by: seconds, wall: wall))
        answer = .reply(.success(.date(state.now(wall: wall))))
      case .setPolicy(let policy):
        record(try state.setPolicy(policy))
        answer = .reply(.success(.ok))
      case .setSourceOrder(let type, let sources):
        record(try state.setSourceOrder(type, sources, wall: wall))
        effects.notes.append(
          Note(
            level: .info, message: "source order changed",
            fields: [Field("type", type.name), Field("order", sources.map(\.description).joined(separator: ","))]))
        answer = .reply(.success(.ok))
      case .dump:
        let snapshot = DaemonSnapshot(
          device: state.snapshot(wall: wall), link: context.link, pid: context.pid, clients: context.clients)
        answer = .reply(.success(.snapshot(snapshot)))
      case .storedSamples(let type, let from, let limit):
        var scratch = BinaryWriter(capacity: 1024)
        func size(_ write: (inout BinaryWriter) -> Void) -> Int {
          scratch.bytes.removeAll(keepingCapacity: true)
          write(&scratch)
          return scratch.bytes.count
        }
        let page = state.storedPage(
          type: type, from: from, wall: wall, limit: limit, budget: context.storedPageBudget,
          sampleCost: { sample in size { $0.sample(sample) } },
          tombstoneCost: { tombstone in size { $0.tombstone(tombstone) } })
        answer = .reply(.success(.stored(samples: page.samples, tombstones: page.tombstones, next: page.next)))
      case .importBatch(let id, let samples):
        record(try state.stageImport(id, samples))
        effects.notes.append(
          Note(
            level: .debug, message: "import batch staged",
            fields: [
              Field("import", String(id, radix: 16)), Field("samples", "\(samples.count)"),
              Field("staged", "\(state.stagedImports[id]?.count ?? 0)"),
            ]))
        answer = .reply(.success(.ok))
      case .importCommit(let id, let characteristics):
        let staged = state.stagedImports[id]?.count ?? 0
        let (events, outcome) = try state.commitImport(id, wall: wall, characteristics: characteristics)
        record(events)
        if outcome.addedCount > 0 {
          effects.notices.append(
            .samplesChanged(
              types: outcome.added.keys.sorted(), origin: state.device, added: outcome.addedCount, deleted: 0))
        }
        effects.notes.append(
          Note(
            level: .info, message: "import committed",
            fields: [
              Field("import", String(id, radix: 16)), Field("staged", "\(staged)"),
              Field("added", "\(outcome.addedCount)"), Field("already_present", "\(outcome.alreadyPresent)"),
              Field("before_retention", "\(outcome.beforeRetention)"),
              Field("characteristics", "\(outcome.characteristicsSet)"),
            ]))
        answer = .reply(.success(.imported(outcome)))
      case .importAbort(let id):
        let staged = state.stagedImports[id]?.count ?? 0
        let events = state.abandonImport(id)
        record(events)
        if !events.isEmpty {
          effects.notes.append(
            Note(
              level: .info, message: "import abandoned",
              fields: [Field("import", String(id, radix: 16)), Field("staged", "\(staged)")]))
        }
        answer = .reply(.success(.ok))
      case .subscribe(let mask):
        answer = .subscribe(mask)
      case .earliestPermittedSampleDate:
        answer = .reply(.success(.date(state.earliestPermittedSampleDate(wall: wall))))
      case .link(let command):
        guard context.hasPeer else { throw .simulator("this daemon runs without a peer link") }
        if case .latency(let seconds) = command, !SyncMachine.validLatency.contains(seconds) {
          throw .simulator(
            "link latency must be between 0 and \(formatNumber(SyncMachine.validLatency.upperBound)) seconds "
              + "(got \(seconds))")
        }
        effects.notes.append(
          Note(
            level: command == .reconnectNow || command == .status ? .debug : .info, message: "link control: \(command)",
            fields: []))
        answer = .link(command)
      case .setLocked(true):
        let (events, dismissed) = state.lock(wall: wall)
        record(events)
        for completion in dismissed {
          let outcome =
            state.promptHistory.last { $0.prompt.id == completion.prompt.id }?.outcome.description ?? "dismissed"
          close(completion.prompt, .success(.authorization(completion.result)), outcome: outcome)
        }
        if !events.isEmpty {
          effects.notices.append(.protectedDataChanged(available: false))
          effects.notes.append(
            Note(level: .info, message: "device locked: protected health data unavailable", fields: []))
        }
        answer = .reply(.success(.ok))
      case .setLocked(false):
        let events = state.unlock(wall: wall)
        record(events)
        if !events.isEmpty {
          effects.notices.append(.protectedDataChanged(available: true))
          let merged = events.reduce(0) { total, event in
            if case .samplesSaved(let samples) = event { return total + samples.count }
            return total
          }
          effects.notes.append(
            Note(
              level: .info, message: "device unlocked: protected health data available",
              fields: [Field("merged", "\(merged)")]))
        }
        answer = .reply(.success(.ok))
      case .readCharacteristic(let bundleID, let type):
        answer = .reply(.success(.characteristic(type, try state.readCharacteristic(bundleID, type))))
      case .preferredUnits(let bundleID, let types):
        var units: [SampleType: String] = [:]
        for item in try state.preferredUnits(bundleID, types) { units[item.type] = item.unit }
        answer = .reply(.success(.units(units)))
      case .changeUserSetting(let setting):
        record(try state.changeUserSetting(setting, wall: wall))
        effects.notes.append(
          Note(level: .info, message: "Health app value changed", fields: [Field("setting", setting.description)]))
        answer = .reply(.success(.ok))
      case .enableBackgroundDelivery(let bundleID, let type, let frequency):
        record(try state.enableBackgroundDelivery(bundleID, type, frequency))
        answer = .reply(.success(.ok))
      case .disableBackgroundDelivery(let bundleID, let type):
        record(try state.disableBackgroundDelivery(bundleID, type))
        answer = .reply(.success(.ok))
      case .completeBackgroundDelivery(let bundleID, let delivery):
        let waiting = try state.completeBackgroundDelivery(bundleID, id: delivery, wall: wall)
        if let event = state.backgroundHistory.last, waiting {
          effects.notices.append(.backgroundDelivery(event))
        } else {
          effects.notes.append(
            Note(
              level: .info, message: "background delivery completed late or twice",
              fields: [Field("app", bundleID), Field("delivery", "\(delivery)")]))
        }
        answer = .reply(.success(.ok))
      case .backgroundDeliveries(let bundleID):
        let history = state.backgroundHistory.filter { bundleID == nil || $0.bundleID == bundleID }
        answer = .reply(.success(.backgroundDeliveries(state.backgroundDeliveries(bundleID), history: history)))
      }
      _ = state.endRequestCollections()
    } catch {
      // What the sensors measured before the call failed is in the store: it is journaled like any change.
      record(state.endRequestCollections())
      if request.appCall == nil {
        effects.notes.append(Note(level: .debug, message: "request \(request.name) failed: \(error)", fields: []))
      }
      answer = .reply(.failure(error))
    }
    // The reply kinds are the request table's (checked in debug builds: every test and scenario run is a contract
    // check of this dispatch against `RequestTable`).
    // (Inside the assertions, so a release build does not evaluate them.)
    assert(
      { if case .reply(.success(let reply)) = answer { reply.tag == request.definition.expects } else { true } }(),
      "\(request.name) answered with another reply kind than its row's")
    assert(
      effects.completions.allSatisfy {
        if case .success(let reply) = $0.result { reply.tag == RequestTable.requestAuthorization.expects } else { true }
      }, "a sheet completed with another reply kind than requestAuthorization's")
    if let note = callNote(request, answer, quietest: context.quietestNote) { effects.notes.append(note) }
    // Session callbacks any request produced (a session call, a clock move that let the sensors run) are pushed;
    // its messages for the paired device go to the device core.
    sessionEffects(state.takeSessionDirectives(), into: &effects)
    return (answer, effects)
  }

  /// The log line for an app's call (at `info`; `warning` for one that would terminate the app): the call, the
  /// app, what it asked and what it returned. Nil for requests that are not an app's call, and for a request
  /// whose sheet is up (`sheet presented` says so; `sheet closed` gives its result), and for a line quieter than
  /// `quietest` (not built: the shell would not write it).
  package static func callNote(_ request: Request, _ answer: Answer, quietest: LogLevel = .debug) -> Note? {
    guard case .reply(let result) = answer else { return nil }
    var level = LogLevel.info
    if case .failure(let error) = result, error.kind == .wouldTerminate { level = .warning }
    guard level >= quietest, let call = request.appCall else { return nil }
    var fields = [Field("app", call.bundleID)] + call.fields
    switch result {
    case .success(let reply):
      fields.append(Field("outcome", "ok"))
      fields += reply.logFields
    case .failure(let error):
      switch error.kind {
      case .healthKit: fields.append(Field("outcome", "\(error.code)(\(error.code.rawValue))"))
      case .wouldTerminate:
        fields.append(Field("outcome", "would-terminate"))
        fields.append(Field("exception", error.exception ?? "NSInvalidArgumentException"))
      case .simulator: fields.append(Field("outcome", "rejected"))
      }
      fields.append(Field("message", error.message))
    }
    return Note(level: level, message: "call \(request.name)", fields: fields)
  }
}
