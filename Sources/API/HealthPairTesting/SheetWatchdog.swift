import Dispatch
import HealthEngine
import HealthPairClient
import PairProcesses
import Synchronization
import Wire

/// Ends a permission sheet nobody answers within the pair's deadline, and keeps the reason, so the test fails with
/// a message naming the sheet instead of hanging.
///
/// The usual cause is a test that awaits the app's `requestAuthorization` before answering: the app waits for the
/// user and the user (the test) waits for the app. The watchdog follows both devices' sheets through a listener on
/// the pair's own connections (subscribed to every event for the pair's life: ``HealthPair``); when one has been up
/// for the deadline (and is still up), it records ``HealthPairTestingError/sheetNotAnswered(device:sheet:seconds:)``
/// and makes the sheet fail to present, which ends the app's call with `HKError.unknownError`. From then on every
/// harness wait of the pair, and ``withHealthPair(_:_:)`` itself, throws the recorded error.
///
/// An app extension's request that waits the deadline without its app calling `handleAuthorizationForExtension` is
/// ended the same way: ``HealthPairTestingError/extensionRequestNotHandled(device:request:seconds:)`` is recorded,
/// and the harness presents the app's sheet and makes it fail to present.
///
/// It opens no connection of its own, so a pair costs each daemon exactly the harness's two connections
/// (`HarnessTests.theHarnessOpensNoConnectionsOfItsOwn`).
final class SheetWatchdog: Sendable {
  private struct Shown {
    var prompt: Prompt
    var since: DispatchTime
    /// An app extension's request waiting for its app, not a sheet (behavior.md A23).
    var isExtensionRequest = false
  }

  private struct State {
    /// The connection followed per device, and the token of the listener on it.
    var clients: [HealthDeviceKind: (client: DeviceClient, listener: UInt64)] = [:]
    var shown: [HealthDeviceKind: [UInt64: Shown]] = [:]
    var failure: HealthPairTestingError?
    var stopped = false
  }

  private let state = Mutex(State())
  /// The pair whose connections are followed (the current one per device, after a restart).
  private let pair: Pair
  /// How long a sheet may stay up unanswered, in seconds.
  let timeout: Double

  /// Follows both devices' sheets on `pair`'s connections, which the caller has subscribed to prompt events.
  init(pair: Pair, timeout: Double) {
    self.pair = pair
    self.timeout = timeout
    for device in HealthDeviceKind.allCases { follow(device, lookForShownSheets: false) }
  }

  /// The failure recorded when a sheet went unanswered for the deadline.
  var failure: HealthPairTestingError? { state.withLock { $0.failure } }

  /// Follows `device`'s current connection (after a restart), looking for sheets already up on it. On the caller's
  /// thread, so a wait that follows a restart sees the new connection's sheets.
  func reconnect(_ device: HealthDeviceKind) {
    follow(device, lookForShownSheets: true)
  }

  /// Stops the watchdog: removes its listeners (the pair closes its connections); a check still scheduled finds it
  /// stopped and does nothing.
  func stop() {
    let followed = state.withLock { s in
      s.stopped = true
      defer { s.clients.removeAll() }
      return Array(s.clients.values)
    }
    for (client, listener) in followed { client.removeListener(listener) }
  }

  /// Checks the sheets when the one shown at `since` is due. The watchdog has no thread of its own (a test that
  /// shows no sheet costs nothing); a check runs on a Dispatch worker, where its client calls may block briefly.
  private func schedule(dueFrom since: DispatchTime) {
    DispatchQueue.global().asyncAfter(deadline: since + timeout) { [weak self] in self?.endOverdueSheets() }
  }

  /// Puts a listener on `device`'s current connection (replacing the one on an earlier connection).
  private func follow(_ device: HealthDeviceKind, lookForShownSheets: Bool) {
    guard let client = pair.clientIfRunning(device.simulated), !client.isClosed else {
      // The daemon is down (killed by the test): its sheets are gone with it; restart() reconnects.
      let stale = state.withLock { s in
        s.shown[device] = [:]
        return s.clients.removeValue(forKey: device)
      }
      if let stale { stale.client.removeListener(stale.listener) }
      return
    }
    if let current = state.withLock({ $0.clients[device] }), current.client === client {
      return
    }
    let listener = client.addListener { [weak self] event in self?.observe(event, on: device) }
    let pending = lookForShownSheets ? (try? client.dump().device.pendingPrompts) ?? [] : []
    let now = DispatchTime.now()
    let stale = state.withLock { s -> (client: DeviceClient, listener: UInt64)? in
      if s.stopped { return (client, listener) }
      let previous = s.clients[device]
      s.clients[device] = (client, listener)
      var shown = s.shown[device] ?? [:]
      for prompt in pending where shown[prompt.id] == nil { shown[prompt.id] = Shown(prompt: prompt, since: now) }
      s.shown[device] = shown
      return previous
    }
    if let stale { stale.client.removeListener(stale.listener) }
    if !pending.isEmpty { schedule(dueFrom: now) }
  }

  private func observe(_ event: DaemonEvent, on device: HealthDeviceKind) {
    switch event {
    case .promptShown(let prompt):
      let now = DispatchTime.now()
      state.withLock { $0.shown[device, default: [:]][prompt.id] = Shown(prompt: prompt, since: now) }
      schedule(dueFrom: now)
    case .extensionRequestWaiting(let prompt):
      let now = DispatchTime.now()
      state.withLock {
        $0.shown[device, default: [:]][prompt.id] = Shown(prompt: prompt, since: now, isExtensionRequest: true)
      }
      schedule(dueFrom: now)
    case .promptClosed(let id, _, _):
      _ = state.withLock { $0.shown[device]?.removeValue(forKey: id) }
    default:
      break
    }
  }

  private func endOverdueSheets() {
    let now = DispatchTime.now()
    let overdue = state.withLock { s -> [(HealthDeviceKind, Shown, DeviceClient?)] in
      var result: [(HealthDeviceKind, Shown, DeviceClient?)] = []
      if s.stopped { return result }
      for (device, sheets) in s.shown {
        for sheet in sheets.values where sheet.since + timeout <= now {
          result.append((device, sheet, s.clients[device]?.client))
          s.shown[device]?.removeValue(forKey: sheet.prompt.id)
        }
      }
      return result
    }
    // Oldest first: a Health Records sheet ends before the sheet it precedes, and ends that one too (A26).
    for (device, sheet, client) in overdue.sorted(by: { $0.1.prompt.id < $1.1.prompt.id }) {
      guard let client, !client.isClosed else {
        // The daemon went away, and its sheets with it; follow its next connection if it is back.
        follow(device, lookForShownSheets: true)
        continue
      }
      if sheet.isExtensionRequest {
        endUnhandledExtensionRequest(sheet.prompt, on: device, client)
        continue
      }
      // Still up? (It may have been answered a moment ago, or withdrawn by an uninstall.)
      let id = sheet.prompt.id
      guard let pending = try? client.dump().device.pendingPrompts, pending.contains(where: { $0.id == id }) else {
        continue
      }
      let failure = HealthPairTestingError.sheetNotAnswered(
        device: device, sheet: PermissionSheet(sheet.prompt, outcome: .pending), seconds: timeout)
      state.withLock { s in if s.failure == nil { s.failure = failure } }
      // End the app's call, so the test can finish and report the failure.
      try? client.answerPrompt(.failToPresent(.error), promptID: sheet.prompt.id)
    }
  }

  /// An extension request still waiting at the deadline: records the failure, then presents its app's sheet and
  /// makes it fail to present, which ends the extension's call with `HKError.unknownError`.
  private func endUnhandledExtensionRequest(_ request: Prompt, on device: HealthDeviceKind, _ client: DeviceClient) {
    guard let waiting = try? client.dump().device.waitingExtensionRequests,
      waiting.contains(where: { $0.id == request.id })
    else { return }
    let failure = HealthPairTestingError.extensionRequestNotHandled(
      device: device, request: PermissionSheet(request, outcome: .pending), seconds: timeout)
    state.withLock { s in if s.failure == nil { s.failure = failure } }
    guard let handling = try? client.start(.handleAuthorizationForExtension(request.bundleID)),
      case .sheet(let sheet)? = try? handling.waitFirst(timeout: timeout)
    else { return }
    try? client.answerPrompt(.failToPresent(.error), promptID: sheet.id)
  }
}
