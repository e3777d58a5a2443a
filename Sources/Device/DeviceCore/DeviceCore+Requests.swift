import FoundationEssentials
import HealthEngine
import HealthModel
import Sync
import Wire

/// A client's request: `hello` first, import ownership, the request core, sheets, and replies kept under the reply
/// limit.
extension DeviceCore {
  /// The largest reply frame body sent: past the backlog limit the client would be dropped as too slow.
  package var replyLimit: Int { min(WireProtocol.maxReplyFrame, configuration.maxClientBacklog) }

  /// Bytes of samples and tombstones per `storedSamples` page: well under the reply limit.
  package var storedPageBudget: Int { min(WireProtocol.maxStoredPage, configuration.maxClientBacklog / 2) }

  /// Handles one request of `connection`; `body` is its frame body, as it arrived.
  mutating func handle(
    _ request: Request, id: UInt32, from connection: UInt64, body: [UInt8], state: inout DeviceState, wall: Date,
    into actions: inout [Action]
  ) {
    let client = RequestCore.Field("client", "\(connection)")
    if configuration.quietest <= .debug {
      actions.append(.log(.debug, "request \(request.name)", [client, RequestCore.Field("id", "\(id)")]))
    }
    if case .hello(let version, let name) = request {
      hello(version: version, name: name, id: id, from: connection, into: &actions)
      return
    }
    guard sessions[connection]?.helloDone == true else {
      respond(connection, id: id, request, .failure(.simulator("send hello first")), into: &actions)
      closeAfterFlush(connection, into: &actions)
      return
    }
    if let importID = request.importID, let owner = importOwners[importID], owner != connection {
      let message = "import \(String(importID, radix: 16)) belongs to another connection"
      respond(connection, id: id, request, .failure(.simulator(message)), into: &actions)
      return
    }
    // Only `dump` reads the link's status: other requests get a fixed stand-in instead of a status built per request.
    let context = RequestCore.Context(
      wall: wall, hasPeer: configuration.hasPeer,
      link: request.opcode == .dump ? linkStatus(state) : Self.unreadLink, pid: configuration.pid,
      clients: sessions.count, storedPageBudget: storedPageBudget, quietestNote: configuration.quietest)
    let (answer, effects) = RequestCore.handle(request, state: &state, context: context)
    if let importID = request.importID {
      importOwners[importID] = state.stagedImports[importID] != nil ? connection : nil
    }
    // A staged batch is journaled as the request's bytes: after the message type and request id, an `importBatch`
    // is encoded exactly as its `importStaged` record (opcode and tag 30, the import id, the samples), and
    // `Frame.decode` read the body to its end
    // (`ImportMessageTests.anImportBatchRequestIsItsJournalRecordAfterTheFrameHeader`).
    if case .importBatch(let importID, let samples) = request, effects.events.count == 1,
      case .importStaged(let stagedID, let staged) = effects.events[0], stagedID == importID,
      staged.count == samples.count, body.count > 5, body[5] == RequestOpcode.importBatch.rawValue
    {
      pendingEncoded[pendingEvents.count] = body[5...]
    }
    pendingEvents += effects.events
    pendingBroadcasts += effects.notices
    if !effects.sessionMessages.isEmpty {
      // Queued now, written to the peer at the end of the commit (after the journal).
      var peerActions: [PeerCore.Action] = []
      peer.sendSessions(effects.sessionMessages, into: &peerActions)
      fold(peerActions, into: &actions)
    }
    for note in effects.notes where note.level >= configuration.quietest {
      actions.append(.log(note.level, note.message, note.fields + [client]))
    }
    for completion in effects.completions {
      guard let waiting = awaitingSheets.removeValue(forKey: completion.prompt.id), sessions[waiting.connection] != nil
      else { continue }
      actions.append(
        .send(connection: waiting.connection, Frame.response(id: waiting.request, completion.result).framed()))
    }
    switch answer {
    case .reply(let result):
      respond(connection, id: id, request, result, into: &actions)
    case .pending(let prompt):
      awaitingSheets[prompt.id] = (connection, id)
      actions.append(.send(connection: connection, Frame.interim(id: id, .prompt(prompt)).framed()))
    case .subscribe(let mask):
      sessions[connection]?.subscriptions = mask
      respond(connection, id: id, request, .success(.ok), into: &actions)
    case .link(let command):
      feedPeer(.control(command), state: &state, wall: wall, into: &actions)
      if case .latency = command { actions.append(.latencyChanged) }
      respond(connection, id: id, request, .success(.link(linkStatus(state))), into: &actions)
    }
  }

  /// `hello`: the protocol version must match; then the session is open and may send full-size frames.
  private mutating func hello(
    version: UInt16, name: String, id: UInt32, from connection: UInt64, into actions: inout [Action]
  ) {
    let request = Request.hello(version: version, client: name)
    guard version == WireProtocol.version else {
      actions.append(
        .log(
          .warning, "client speaks protocol version \(version)", [RequestCore.Field("client", "\(connection)")]))
      let message = "protocol version \(version) is not supported; this daemon speaks version \(WireProtocol.version)"
      respond(connection, id: id, request, .failure(.simulator(message)), into: &actions)
      closeAfterFlush(connection, into: &actions)
      return
    }
    sessions[connection, default: Session()].helloDone = true
    sessions[connection]?.name = name
    actions.append(.helloAccepted(connection: connection))
    let info = HelloInfo(
      version: WireProtocol.version, device: configuration.device, pid: configuration.pid,
      software: "healthpaird \(HealthPairVersion.current)")
    respond(connection, id: id, request, .success(.hello(info)), into: &actions)
  }

  /// Queues a final response — or, when its frame would pass ``replyLimit``, an error saying how to ask for less,
  /// so an oversized answer never gets a client dropped (or a frame sent that it would refuse)
  /// (`DeviceCoreTests`, "an oversized reply becomes an error with a hint").
  mutating func respond(
    _ connection: UInt64, id: UInt32, _ request: Request, _ result: Result<Reply, HealthError>,
    into actions: inout [Action]
  ) {
    let framed = Frame.response(id: id, result).framed()
    guard framed.count - 4 > replyLimit else {
      actions.append(.send(connection: connection, framed))
      return
    }
    let hint =
      switch request {
      case .sampleQuery: "set a limit or narrow the date range"
      case .anchoredQuery: "pass a limit and continue from the returned anchor"
      case .statisticsCollection: "use a longer interval or a narrower date range"
      case .storedSamples: "a single stored item is larger than the limit; raise --max-client-backlog"
      case .workoutQuery, .heartbeatSeriesQuery, .electrocardiogramQuery, .audiogramQuery, .stateOfMindQuery,
        .clinicalRecordQuery, .visionPrescriptionQuery, .scoredAssessmentQuery, .cdaDocumentQuery, .medicationQuery,
        .medicationDoseQuery:
        "set a limit or narrow the date range"
      case .anchoredWorkoutQuery: "pass a limit and continue from the returned anchor"
      case .routeQuery: "ask for one workout's route, set a limit or narrow the date range"
      case .storedRoutes: "ask for one workout's routes"
      case .storedVisionPrescriptions: "a device holds more prescriptions than one reply carries"
      case .storedClinicalRecords: "a device holds more clinical records than one reply carries"
      case .hello, .installApp, .uninstallApp, .requestAuthorization, .answerPrompt, .authorizationStatus,
        .requestStatus, .save, .delete, .deleteMatching, .statistics, .changeSettings, .watchSettings, .setClock,
        .advanceClock, .setPolicy, .dump, .subscribe, .earliestPermittedSampleDate, .link, .ping, .importBatch,
        .importCommit, .importAbort, .setLocked, .readCharacteristic, .preferredUnits, .changeUserSetting,
        .enableBackgroundDelivery, .disableBackgroundDelivery, .completeBackgroundDelivery, .backgroundDeliveries,
        .setSourceOrder, .saveCorrelations, .correlationQuery, .importCorrelations, .storedCorrelations,
        .saveWorkout, .saveObjects, .addSamplesToWorkout, .saveRoute, .saveHeartbeatSeries, .activitySummaryQuery,
        .importWorkouts,
        .importRoutes, .importActivitySummaries, .storedWorkouts, .storedActivitySummaries, .workoutSession,
        .recordElectrocardiogram, .electrocardiogramVoltages, .importElectrocardiograms, .storedElectrocardiograms,
        .saveAudiograms, .importAudiograms, .storedAudiograms, .saveStatesOfMind, .receiveClinicalRecords,
        .saveVisionPrescriptions, .requestPerObjectRead, .importVisionPrescriptions, .importClinicalRecords,
        .saveScoredAssessments, .saveCDADocuments, .addMedications, .logMedicationDoses,
        .requestAuthorizationFromExtension, .handleAuthorizationForExtension, .saveFamilies:
        "raise --max-client-backlog"
      }
    let size = framed.count - 4
    let message = "the \(request.name) reply (\(size) bytes) exceeds the \(replyLimit)-byte reply limit; \(hint)"
    actions.append(.log(.warning, message, [RequestCore.Field("client", "\(connection)")]))
    actions.append(.send(connection: connection, Frame.response(id: id, .failure(.simulator(message))).framed()))
  }

  /// A sheet closed without a request's answer (withdrawn at shutdown): tell subscribers and the waiting request.
  mutating func completeSheet(
    _ prompt: Prompt, _ result: Result<Reply, HealthError>, outcome: String, into actions: inout [Action]
  ) {
    pendingBroadcasts.append(.promptClosed(promptID: prompt.id, bundleID: prompt.bundleID, outcome: outcome))
    actions.append(
      .log(
        .info, "sheet closed",
        [
          RequestCore.Field("app", prompt.bundleID), RequestCore.Field("prompt", "\(prompt.id)"),
          RequestCore.Field("outcome", outcome),
        ]))
    guard let waiting = awaitingSheets.removeValue(forKey: prompt.id), sessions[waiting.connection] != nil else {
      return
    }
    actions.append(.send(connection: waiting.connection, Frame.response(id: waiting.request, result).framed()))
  }

  /// The link status handed to requests that do not read it (every request but `dump`).
  static let unreadLink = LinkStatus(
    enabled: false, connected: false, holding: false, latency: 0,
    sync: DeviceSnapshot.SyncStatus(lastSeq: 0, peerAcked: 0, appliedFromPeer: 0, pendingEntries: 0, pendingItems: 0))

  /// The link's status, as `dump` and link commands report it.
  package func linkStatus(_ state: DeviceState) -> LinkStatus {
    let ledger = state.sync
    var sync = DeviceSnapshot.SyncStatus(
      lastSeq: ledger.lastSeq, peerAcked: ledger.peerAcked, appliedFromPeer: ledger.appliedFromPeer,
      pendingEntries: ledger.pendingCount, pendingItems: ledger.pendingItems)
    sync.logID = ledger.logID
    sync.peerLogID = ledger.peerLogID
    sync.verified = peer.machine.isVerified
    sync.diverged = peer.machine.isDiverged
    sync.conflicts = state.syncConflictCount
    return LinkStatus(
      enabled: peer.machine.enabled, connected: peer.machine.isConnected, holding: peer.machine.holding,
      latency: peer.machine.latency, sync: sync, sessions: peer.sessionTraffic)
  }
}

extension Request {
  /// The import a request belongs to (the import requests), or nil.
  package var importID: UInt64? {
    switch self {
    case .importBatch(let id, _), .importCommit(let id, _), .importAbort(let id), .importCorrelations(let id, _),
      .importWorkouts(let id, _), .importRoutes(let id, _), .importActivitySummaries(let id, _),
      .importElectrocardiograms(let id, _), .importAudiograms(let id, _), .importVisionPrescriptions(let id, _),
      .importClinicalRecords(let id, _):
      id
    case .hello, .installApp, .uninstallApp, .requestAuthorization, .answerPrompt, .authorizationStatus,
      .requestStatus, .save, .delete, .deleteMatching, .sampleQuery, .statistics, .statisticsCollection,
      .anchoredQuery, .changeSettings, .watchSettings, .setClock, .advanceClock, .setPolicy, .dump, .storedSamples,
      .subscribe, .earliestPermittedSampleDate, .link, .ping, .setLocked, .readCharacteristic, .preferredUnits,
      .changeUserSetting, .enableBackgroundDelivery, .disableBackgroundDelivery, .completeBackgroundDelivery,
      .backgroundDeliveries, .setSourceOrder, .saveCorrelations, .correlationQuery, .storedCorrelations, .saveWorkout,
      .saveObjects, .addSamplesToWorkout, .saveRoute, .saveHeartbeatSeries, .workoutQuery, .routeQuery,
      .heartbeatSeriesQuery,
      .activitySummaryQuery, .anchoredWorkoutQuery, .storedWorkouts, .storedRoutes, .storedActivitySummaries,
      .workoutSession, .recordElectrocardiogram, .electrocardiogramQuery, .electrocardiogramVoltages,
      .storedElectrocardiograms, .saveAudiograms, .audiogramQuery, .storedAudiograms, .saveStatesOfMind,
      .stateOfMindQuery, .receiveClinicalRecords, .clinicalRecordQuery, .saveVisionPrescriptions,
      .visionPrescriptionQuery, .requestPerObjectRead, .storedVisionPrescriptions, .storedClinicalRecords,
      .saveScoredAssessments, .scoredAssessmentQuery, .saveCDADocuments, .cdaDocumentQuery, .addMedications,
      .logMedicationDoses, .medicationQuery, .medicationDoseQuery, .requestAuthorizationFromExtension,
      .handleAuthorizationForExtension, .saveFamilies:
      nil
    }
  }
}
