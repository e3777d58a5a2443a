import FoundationEssentials
import HealthEngine
import HealthModel
import Sync
import Wire

/// The commit plan, the peer link folded into it, and shutdown.
///
/// A turn commits in this order (`DeviceCoreTests`, "the commit plan"): journal the turn's events (raising the
/// change mark) → write the replies → feed sync (acknowledge applied entries, announce local growth, evaluate store
/// checks, restart the log — journaled before it is announced) → journal what sync applied → raise the change mark →
/// run background delivery → push events to subscribers → write clients → write the peer. So a caller never waits
/// for the peer's share of the turn, and nothing is sent before it is durable.
extension DeviceCore {
  /// The first half of a commit: journal the turn's events, then write the replies.
  mutating func commit(into actions: inout [Action]) {
    journalPending(into: &actions)
    actions.append(.flushClients)
  }

  /// The second half, once the replies are written: sync, background delivery, pushed events, the writes.
  mutating func finishCommit(
    state: inout DeviceState, wall: Date, using random: inout some RandomNumberGenerator,
    into actions: inout [Action]
  ) {
    var peerActions = takePeerBuffer()
    peer.afterCommit(state: &state, wall: wall, using: &random, into: &peerActions)
    fold(peerActions, into: &actions)
    returnPeerBuffer(&peerActions)
    journalPending(into: &actions)
    actions.append(.raiseChangeMark)
    backgroundStep(state: &state, wall: wall, into: &actions)
    if !pendingBroadcasts.isEmpty {
      for (id, session) in sessions where !session.subscriptions.isEmpty {
        for event in pendingBroadcasts where session.subscriptions.contains(event.subscriptionMask) {
          actions.append(.send(connection: id, Frame.event(event).framed()))
        }
      }
      pendingBroadcasts.removeAll(keepingCapacity: true)
    }
    actions.append(.flushClients)
    actions.append(.flushPeer)
  }

  /// Hands the events not journaled yet to the shell in one ``Action/journal(_:encoded:)``.
  private mutating func journalPending(into actions: inout [Action]) {
    guard !pendingEvents.isEmpty else { return }
    actions.append(.journal(pendingEvents, encoded: pendingEncoded))
    pendingEvents.removeAll(keepingCapacity: true)
    if !pendingEncoded.isEmpty { pendingEncoded.removeAll() }
  }

  /// Feeds one input to the peer core and folds what it returns into `actions`.
  mutating func feedPeer(
    _ input: SyncMachine.Input, state: inout DeviceState, wall: Date, into actions: inout [Action]
  ) {
    var peerActions = takePeerBuffer()
    peer.handle(input, state: &state, wall: wall, into: &peerActions)
    fold(peerActions, into: &actions)
    returnPeerBuffer(&peerActions)
    // The handshake deadline ends when the link connects or its transport closes (`DeviceCoreTests`, "Device core:
    // deadlines").
    if handshakeDeadline != nil {
      var ended = peer.machine.isConnected
      if case .closed = input { ended = true }
      if ended { endHandshakeDeadline(into: &actions) }
    }
  }

  /// The peer core's action buffer, reused across turns.
  private mutating func takePeerBuffer() -> [PeerCore.Action] {
    var buffer: [PeerCore.Action] = []
    swap(&buffer, &peerBuffer)
    return buffer
  }

  private mutating func returnPeerBuffer(_ buffer: inout [PeerCore.Action]) {
    buffer.removeAll(keepingCapacity: true)
    swap(&buffer, &peerBuffer)
  }

  /// The peer core's actions as the core's own: what it records is journaled with the turn, what it announces is
  /// pushed, a journal write it asks for is one now; its transport effects go to the shell.
  mutating func fold(_ peerActions: [PeerCore.Action], into actions: inout [Action]) {
    for action in peerActions {
      switch action {
      case .record(let events): record(events)
      case .persistRecorded: journalPending(into: &actions)
      case .notify(.linkChanged(let connected)): broadcast(.linkChanged(connected: connected))
      case .notify(.peerAcknowledged(let seq)): broadcast(.peerAcknowledged(seq))
      case .notify(.checkConcluded(let applied)): broadcast(.syncApplied(upTo: applied, items: 0))
      case .notify(.sessions(let directives)): pendingBroadcasts += RequestCore.sessionNotices(directives)
      // As a concluded check does: an empty delivery, so waiters on the link's session counts look again.
      case .notify(.sessionMessageHandled(let applied)): pendingBroadcasts.append(.syncApplied(upTo: applied, items: 0))
      case .log(let level, let message):
        let mapped = LogLevel(level)
        if mapped >= configuration.quietest { actions.append(.log(mapped, message, [])) }
      case .send(let message, let latency): actions.append(.peerSend(message, latency: latency))
      case .close(let reason):
        actions.append(.peerClose(reason: reason))
        if handshakeDeadline != nil { endHandshakeDeadline(into: &actions) }
      case .connect: actions.append(.peerConnect)
      case .scheduleReconnect(let seconds): actions.append(.peerReconnect(after: seconds))
      }
    }
  }

  /// Delivers what background delivery has due (after this turn's changes are durable), queues the events for
  /// subscribers, and, on the real clock, arms the timer for the next due time.
  private mutating func backgroundStep(state: inout DeviceState, wall: Date, into actions: inout [Action]) {
    let step = state.backgroundStep(wall: wall)
    for item in step.pruned { broadcast(.samplesPruned(type: item.type, apps: item.apps)) }
    for event in step.events {
      broadcast(.backgroundDelivery(event))
      let level: LogLevel = event.kind == .stopped || event.kind == .missed ? .warning : .info
      if level >= configuration.quietest {
        actions.append(
          .log(
            level, "background delivery \(event.kind)",
            [
              RequestCore.Field("app", event.bundleID), RequestCore.Field("type", event.type.name),
              RequestCore.Field("delivery", "\(event.id)"), RequestCore.Field("attempt", "\(event.attempt)"),
            ]))
      }
    }
    guard configuration.armsTimers else { return }
    if state.virtualNow == nil, let due = state.nextBackgroundDue() {
      actions.append(.backgroundTimer(after: max(0, due.timeIntervalSince(wall))))
    } else {
      actions.append(.backgroundTimer(after: nil))
    }
  }

  /// Stopping: fail the sheets still awaited, abandon imports in progress, and queue the newest acknowledgement;
  /// the shell then commits.
  mutating func shutdown(state: inout DeviceState, into actions: inout [Action]) {
    let device = configuration.device
    for prompt in state.withdrawAllPrompts() {
      completeSheet(
        prompt, .failure(.simulator("the \(device) is shutting down")), outcome: "withdrawn", into: &actions)
    }
    for id in state.stagedImports.keys.sorted() {
      actions.append(
        .log(
          .warning, "import abandoned: the \(device) is shutting down",
          [RequestCore.Field("import", String(id, radix: 16))]))
      record(state.abandonImport(id))
    }
    importOwners.removeAll()
    if let ack = peer.shutdownAcknowledgement(state: state) { pendingEvents.append(ack) }
  }
}

extension LogLevel {
  /// The device's level for a peer core log line.
  package init(_ level: PeerCore.LogLevel) {
    switch level {
    case .debug: self = .debug
    case .info: self = .info
    case .warning: self = .warning
    case .error: self = .error
    }
  }
}
