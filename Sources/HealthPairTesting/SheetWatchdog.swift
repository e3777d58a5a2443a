import Dispatch
import HealthEngine
import HealthPairClient
import Posix
import Synchronization
import Wire

/// Ends a permission sheet nobody answers within the pair's deadline, and keeps the reason, so the test fails with
/// a message naming the sheet instead of hanging.
///
/// The usual cause is a test that awaits the app's `requestAuthorization` before answering: the app waits for the
/// user and the user (the test) waits for the app. The watchdog follows both devices' sheets on an event connection
/// of its own; when one has been up for the deadline (and is still up), it records
/// ``HealthPairTestingError/sheetNotAnswered(device:sheet:seconds:)`` and makes the sheet fail to present, which
/// ends the app's call with `HKError.unknownError`. From then on every harness wait of the pair, and
/// ``withHealthPair(_:_:)`` itself, throws the recorded error.
final class SheetWatchdog: Sendable {
  private struct Shown {
    var prompt: Prompt
    var since: DispatchTime
  }

  private struct State {
    var clients: [HealthDeviceKind: DeviceClient] = [:]
    var shown: [HealthDeviceKind: [UInt64: Shown]] = [:]
    var reconnect: Set<HealthDeviceKind> = []
    var failure: HealthPairTestingError?
    var stopped = false
  }

  private let state = Mutex(State())
  private let wake = DispatchSemaphore(value: 0)
  private let sockets: [HealthDeviceKind: String]
  /// How long a sheet may stay up unanswered, seconds.
  let timeout: Double

  /// Starts watching the devices listening on `sockets`, a fresh pair's: connected before this returns, so no
  /// sheet can be up yet and none is missed.
  init(sockets: [HealthDeviceKind: String], timeout: Double) {
    self.sockets = sockets
    self.timeout = timeout
    for device in HealthDeviceKind.allCases { connect(device, lookForShownSheets: false) }
    Posix.startThread { [self] in run() }
  }

  /// Why the pair's test cannot succeed any more: a sheet nobody answered. Nil while all is well.
  var failure: HealthPairTestingError? { state.withLock { $0.failure } }

  /// Reconnects to `device` (after its daemon restarted).
  func reconnect(_ device: HealthDeviceKind) {
    state.withLock { _ = $0.reconnect.insert(device) }
    wake.signal()
  }

  /// Stops watching and closes the connections; the thread ends at once.
  func stop() {
    let clients = state.withLock { s in
      s.stopped = true
      defer { s.clients.removeAll() }
      return Array(s.clients.values)
    }
    for client in clients { client.close() }
    wake.signal()
  }

  private func run() {
    while true {
      let (stopped, devices) = state.withLock { s in
        defer { s.reconnect.removeAll() }
        return (s.stopped, s.reconnect)
      }
      if stopped { return }
      for device in devices { connect(device, lookForShownSheets: true) }
      // Idle until a sheet appears, a restart is reported or the pair stops; else until the oldest sheet is due.
      let due = state.withLock { s in s.shown.values.flatMap(\.values).map(\.since).min() }
      _ = wake.wait(timeout: due.map { $0 + timeout } ?? .distantFuture)
      endOverdueSheets()
    }
  }

  /// Connects to `device` and subscribes to its sheets; after a restart (`lookForShownSheets`), also takes the
  /// sheets already up from a dump.
  private func connect(_ device: HealthDeviceKind, lookForShownSheets: Bool) {
    guard let socket = sockets[device] else { return }
    let client: DeviceClient
    do {
      client = try DeviceClient(socketPath: socket, clientName: "HealthPairTesting-sheets", timeout: 10)
      _ = client.addListener { [weak self] event in self?.observe(event, on: device) }
      try client.subscribe(.prompts)
    } catch {
      // The daemon is down (killed by the test): its sheets are gone with it; restart() reconnects.
      state.withLock { s in
        s.clients.removeValue(forKey: device)?.close()
        s.shown[device] = [:]
      }
      return
    }
    let pending = lookForShownSheets ? (try? client.dump().device.pendingPrompts) ?? [] : []
    let now = DispatchTime.now()
    let stale = state.withLock { s -> DeviceClient? in
      if s.stopped { return client }
      let previous = s.clients[device]
      s.clients[device] = client
      var shown = s.shown[device] ?? [:]
      for prompt in pending where shown[prompt.id] == nil { shown[prompt.id] = Shown(prompt: prompt, since: now) }
      s.shown[device] = shown
      return previous
    }
    stale?.close()
  }

  private func observe(_ event: DaemonEvent, on device: HealthDeviceKind) {
    switch event {
    case .promptShown(let prompt):
      state.withLock { $0.shown[device, default: [:]][prompt.id] = Shown(prompt: prompt, since: .now()) }
      wake.signal()
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
      for (device, sheets) in s.shown {
        for sheet in sheets.values where sheet.since + timeout <= now {
          result.append((device, sheet, s.clients[device]))
          s.shown[device]?.removeValue(forKey: sheet.prompt.id)
        }
      }
      return result
    }
    for (device, sheet, client) in overdue {
      guard let client, !client.isClosed else {
        reconnect(device)  // the daemon went away, and its sheets with it
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
}
