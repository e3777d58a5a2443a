import Dispatch
import HealthEngine
import HealthModel
import HealthPairClient
import Posix
import Synchronization
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// A running phone + watch pair: processes, clients, and the conditions tests wait on.
package final class Pair: Sendable {
  /// Where the pair's files are.
  package let layout: PairLayout
  /// The daemon executable.
  package let daemon: String
  /// How daemons are started.
  package let options: LaunchOptions
  /// Whether shutting down removes the directory (cleared by ``keepDirectory()`` and ``release()``, from any thread).
  private let ownsDirectory: Atomic<Bool>
  /// Whether this pair created its directory (its daemons then remove it if this process dies).
  private let createdDirectory: Bool
  private let state = Mutex<State>(State())
  private struct State {
    var processes: [DeviceKind: DaemonProcess] = [:]
    var clients: [DeviceKind: DeviceClient] = [:]
    /// Events the pair's own clients stay subscribed to whatever a wait asks for (``keepSubscribed(_:)``).
    var standing: EventMask = []
  }

  /// Starts a fresh pair in `root` (a new temporary directory when nil) and waits until both daemons are ready and
  /// linked; its clients are then subscribed to `standing` (and the link's events) and stay so
  /// (``keepSubscribed(_:)``).
  package init(
    root: String? = nil, daemon: String? = nil, options: LaunchOptions = LaunchOptions(),
    subscribedTo standing: EventMask = []
  ) throws(PairError) {
    if let daemon { self.daemon = daemon } else { self.daemon = try locateDaemon() }
    self.options = options
    do throws(SystemError) {
      if let root {
        try Posix.makeDirectory(root, mode: 0o700)
        self.layout = PairLayout(root: root)
        ownsDirectory = Atomic(false)
      } else {
        TemporaryPairDirectories.sweepOnce()
        self.layout = PairLayout(root: try TemporaryPairDirectories.make())
        ownsDirectory = Atomic(true)
      }
      createdDirectory = ownsDirectory.load(ordering: .relaxed)
      try layout.checkOwned()
      try Posix.chmod(layout.root, 0o700)
      if !Posix.exists(layout.pairingKey) {
        let secret = Posix.randomBytes(32).map { String($0, radix: 16).leftPadded(2) }.joined()
        try Posix.writeFileAtomically(layout.pairingKey, Array(secret.utf8), mode: 0o600)
      }
    } catch { throw .system(error) }
    keepSubscribed(standing)
    guard Interruption.register(self) else {
      shutdown()
      throw .interrupted(signal: Interruption.signal ?? SIGINT)
    }
    do throws(PairError) {
      try start(.phone)
      try start(.watch)
      try waitLinked(timeout: options.readyTimeout)
    } catch {
      shutdown()
      throw error
    }
  }

  /// The client connected to `device`.
  package func client(_ device: DeviceKind) -> DeviceClient { state.withLock { $0.clients[device]! } }
  /// The client connected to `device`, or nil once the pair has been shut down or discarded.
  package func clientIfRunning(_ device: DeviceKind) -> DeviceClient? { state.withLock { $0.clients[device] } }
  /// The phone's client.
  package var phone: DeviceClient { client(.phone) }
  /// The watch's client.
  package var watch: DeviceClient { client(.watch) }
  /// The process of `device`.
  package func process(_ device: DeviceKind) -> DaemonProcess? { state.withLock { $0.processes[device] } }

  /// Starts `device`'s daemon (with `extraArguments` added for this start only) and connects a client to it.
  package func start(_ device: DeviceKind, extraArguments: [String] = []) throws(PairError) {
    var options = self.options
    options.extraArguments += extraArguments
    let process = try DaemonProcess.start(
      device, layout: layout, daemon: daemon, options: options, ownsRoot: createdDirectory)
    let client: DeviceClient
    do { client = try DeviceClient(socketPath: layout.socket(device), clientName: "pair-\(device)") } catch {
      process.signal(SIGKILL)
      process.waitForExit(timeout: 5)
      Interruption.launched(process.pid)
      throw .client(error)
    }
    state.withLock {
      $0.processes[device] = process
      $0.clients[device]?.close()
      $0.clients[device] = client
    }
    Interruption.launched(process.pid)
    // A daemon started while the process was being interrupted is stopped by the caller's shutdown.
    if let signal = Interruption.signal { throw .interrupted(signal: signal) }
  }

  /// Kills `device`'s daemon with SIGKILL (no chance to flush or clean up) and waits until it is gone.
  package func kill(_ device: DeviceKind) {
    guard let process = process(device) else { return }
    process.signal(SIGKILL)
    process.waitForExit(timeout: 10)
  }

  /// Stops `device`'s daemon with SIGTERM and returns its exit status.
  @discardableResult
  package func stop(_ device: DeviceKind, timeout: Double = 10) -> Posix.ExitStatus? {
    guard let process = process(device) else { return nil }
    process.signal(SIGTERM)
    return process.waitForExit(timeout: timeout)
  }

  /// Restarts `device` (after `kill` or `stop`), then waits for the link.
  package func restart(_ device: DeviceKind, waitForLink: Bool = true, extraArguments: [String] = []) throws(PairError)
  {
    try start(device, extraArguments: extraArguments)
    if waitForLink { try waitLinked(timeout: options.readyTimeout) }
  }

  /// Keeps the pair's clients subscribed to `mask` from now on: a wait (``wait(for:timeout:mask:_:)``) subscribes
  /// them to its own mask and this one, instead of narrowing the subscription to its own (the scenario runner's
  /// trace collects every event on these connections). The caller subscribes the clients to `mask` itself.
  package func keepSubscribed(_ mask: EventMask) { state.withLock { $0.standing = mask } }

  /// Waits until `condition` holds, re-checking whenever either daemon pushes an event of `mask`.
  package func wait(
    for what: String, timeout: Double, mask: EventMask = .all, _ condition: () throws -> Bool
  ) throws(PairError) {
    let gate = DispatchSemaphore(value: 0)
    let listeners = [DeviceKind.phone, .watch].map { device -> (DeviceClient, UInt64) in
      let client = client(device)
      return (client, client.addListener { event in if mask.contains(event.subscriptionMask) { gate.signal() } })
    }
    // An interruption wakes the wait, which then ends (the pair is being shut down).
    let interruption = Interruption.onInterrupt { gate.signal() }
    defer {
      Interruption.cancel(interruption)
      for (client, token) in listeners { client.removeListener(token) }
    }
    let subscription = mask.union(state.withLock { $0.standing })
    do {
      for (client, _) in listeners { try client.subscribe(subscription) }
      let deadline = DispatchTime.now() + timeout
      while true {
        if try condition() { return }
        if let signal = Interruption.signal { throw PairError.interrupted(signal: signal) }
        let timedOut = gate.wait(timeout: deadline) == .timedOut
        if let signal = Interruption.signal { throw PairError.interrupted(signal: signal) }
        if timedOut {
          if try condition() { return }
          throw PairError.timeout(what)
        }
      }
    } catch let error as PairError {
      throw error
    } catch let error as ClientError {
      throw .client(error)
    } catch {
      throw .timeout("\(what) (\(error))")
    }
  }

  /// Waits until both sides report the link up.
  package func waitLinked(timeout: Double) throws(PairError) {
    try wait(for: "the peer link", timeout: timeout, mask: .link) { () throws -> Bool in
      let watch = try self.watch.link(.reconnectNow)
      let phone = try self.phone.link(.reconnectNow)
      return watch.connected && phone.connected
    }
  }

  /// Waits until each device has applied everything the other logged.
  package func waitSynced(timeout: Double) throws(PairError) {
    try wait(for: "sync to complete", timeout: timeout, mask: [.sync, .link]) { () throws -> Bool in
      let phone = try self.phone.link(.reconnectNow).sync
      let watch = try self.watch.link(.reconnectNow).sync
      return phone.isSynced(with: watch)
    }
  }

  /// Waits until no workout-session message is in flight between the devices: the link is down on either side, or
  /// each device has handled as many session messages as the other sent on this connection (``SessionTraffic``).
  /// What a handled message caused — delegate callbacks, a reply message — has happened by then. Re-checked on
  /// every pushed event: a daemon pushes one for each session message it handles.
  /// - Throws: ``PairError/timeout(_:)`` when messages are still in flight after `timeout` seconds.
  package func waitSessionMessagesHandled(timeout: Double) throws(PairError) {
    try wait(for: "the workout-session messages between the devices", timeout: timeout) { () throws -> Bool in
      // The phone first: its received count can then only be behind the watch's sent count read after it.
      let phone = try self.phone.link(.status)
      let watch = try self.watch.link(.status)
      guard phone.connected, watch.connected else { return true }
      return phone.sessions.received == watch.sessions.sent && watch.sessions.received == phone.sessions.sent
    }
  }

  /// Stops both daemons (SIGTERM, then SIGKILL if needed) and removes the directory if this pair created it.
  package func shutdown() { stop(forgetting: true) }

  /// What ``Interruption`` does to a live pair: ``shutdown()``, but its closed connections stay, so whoever uses
  /// the pair meanwhile gets `disconnected` errors rather than finding no client.
  func interrupt() { stop(forgetting: false) }

  private func stop(forgetting: Bool) {
    Interruption.deregister(self)
    let (processes, clients) = state.withLock { s in
      defer {
        if forgetting {
          s.processes.removeAll()
          s.clients.removeAll()
        }
      }
      return (Array(s.processes.values), Array(s.clients.values))
    }
    for client in clients { client.close() }
    for process in processes where process.exitStatus == nil { process.signal(SIGTERM) }
    for process in processes where process.waitForExit(timeout: 10) == nil {
      process.signal(SIGKILL)
      process.waitForExit(timeout: 10)
    }
    if ownsDirectory.load(ordering: .acquiring) { Posix.removeTree(layout.root) }
  }

  /// Whether shutting down keeps the directory (``keepDirectory()``, ``release()``, or a directory given at launch).
  package var keepsDirectory: Bool { !ownsDirectory.load(ordering: .acquiring) }

  /// Ends the pair at once: closes the connections, kills both daemons with SIGKILL, reaps them and removes the
  /// directory if this pair owns it — for a pair whose journals nobody will read again (a graceful stop flushes
  /// and may write a snapshot first: ``shutdown()``).
  package func discard() {
    Interruption.deregister(self)
    let (processes, clients) = state.withLock { s in
      defer {
        s.processes.removeAll()
        s.clients.removeAll()
      }
      return (Array(s.processes.values), Array(s.clients.values))
    }
    for client in clients { client.close() }
    for process in processes where process.exitStatus == nil { process.signal(SIGKILL) }
    for process in processes { process.waitForExit(timeout: 10) }
    if ownsDirectory.load(ordering: .acquiring) { Posix.removeTree(layout.root) }
  }

  /// Keeps the pair's directory when the pair shuts down (for post-mortems).
  package func keepDirectory() { ownsDirectory.store(false, ordering: .releasing) }

  /// Lets the daemons keep running after this object goes away (what `healthpair up` does). Returns false, releasing
  /// nothing, when the process was interrupted first: ``Interruption`` shuts the pair down instead (or did).
  @discardableResult
  package func release() -> Bool {
    guard Interruption.deregister(self) else { return false }
    let clients = state.withLock { s in
      defer {
        s.processes.removeAll()
        s.clients.removeAll()
      }
      return Array(s.clients.values)
    }
    for client in clients { client.close() }
    ownsDirectory.store(false, ordering: .releasing)
    return true
  }

  deinit { shutdown() }
}

extension String {
  /// The string left-padded with zeros to `width`.
  package func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
