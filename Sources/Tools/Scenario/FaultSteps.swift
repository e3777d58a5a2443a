import Dispatch
import HealthModel
import HealthPairClient
import Journal
import PairProcesses
import Posix
import ScenarioLanguage

/// Fault steps: a daemon killed, stopped or restarted, a stopped daemon's journal torn or cut.
extension RunContext {
  /// `kill -9 <device>`: its pending requests die with it.
  mutating func kill(_ device: DeviceKind) {
    pair.kill(device)
    pending[device] = nil
    clocks[device] = nil
    settleLink(after: device)
  }

  /// `stop <device>`: SIGTERM; the daemon must exit 0.
  mutating func stop(_ device: DeviceKind, _ step: Step) throws {
    let status = pair.stop(device)
    clocks[device] = nil
    settleLink(after: device)
    guard status == .exited(0) else {
      throw fail(step, "the \(device) daemon to stop with exit 0", status.map { "\($0)" } ?? "it did not stop")
    }
    pending[device] = nil
  }

  /// `restart <device>`: the daemon again, traced, with the link settings the scenario made (runtime state the new
  /// process does not have); waits until it is linked unless the link is disconnected.
  mutating func restart(_ device: DeviceKind) throws {
    try pair.restart(device, waitForLink: false)
    recorder.attach(device, client: pair.client(device), pair: pair)
    let c = client(device)
    clocks[device] = try c.dump().device.now
    if linkDisconnected { try c.link(.disconnect) }
    if manualSync || held.contains(device) { try c.link(.hold) }
    if latency > 0 { try c.link(.latency(latency)) }
    if !linkDisconnected { try pair.waitLinked(timeout: timeout) }
    linkOverride[device] = try c.dump().link.connected
  }

  /// `tear <device> journal`: appends a record header cut short, what a crash in the middle of a write leaves
  /// behind; the daemon must be stopped or killed.
  func tearJournal(_ device: DeviceKind, _ step: Step) throws {
    guard pair.process(device)?.exitStatus != nil else {
      throw fail(step, "the \(device) daemon to be stopped or killed before its journal is torn", "it is running")
    }
    let path = pair.layout.journal(device)
    let torn = try Posix.readFile(path) + [0x40, 0x00, 0x00, 0x00, 0x12]
    try Posix.writeFileAtomically(path, torn)
  }

  /// `cut <device> journal by <n> records`: drops the last records at a record boundary; the daemon must be stopped
  /// or killed and its journal hold at least that many.
  func cutJournal(_ device: DeviceKind, records: Int, _ step: Step) throws {
    guard pair.process(device)?.exitStatus != nil else {
      throw fail(step, "the \(device) daemon to be stopped or killed before its journal is cut", "it is running")
    }
    let path = pair.layout.journal(device)
    let available = try JournalSurgery.recordCount(path)
    guard available >= records else {
      throw fail(step, "a \(device) journal of at least \(records) records", "it has \(available)")
    }
    try JournalSurgery.dropLastRecords(path, count: records)
  }

  /// After `device`'s daemon went away: waits (on pushed events, with the step deadline) until its peer saw the
  /// link drop, so the next step starts from the same state every run.
  mutating func settleLink(after device: DeviceKind) {
    linkOverride[device] = false
    let peer = device.peer
    guard pair.process(peer)?.exitStatus == nil else { return }
    let c = client(peer)
    // Re-checked whenever the peer pushes a link change (its client is subscribed to every event).
    let gate = DispatchSemaphore(value: 0)
    let token = c.addListener { event in if case .linkChanged = event { gate.signal() } }
    defer { c.removeListener(token) }
    let deadline = DispatchTime.now() + timeout
    while (try? c.dump().link.connected) == true {
      if gate.wait(timeout: deadline) == .timedOut { return }
    }
  }
}
