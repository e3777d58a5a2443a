import DeviceCore
import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Journal
import Posix
import Sync
import Wire

#if canImport(Glibc)
  import Glibc
#endif

/// One device's daemon process: the shell around ``DeviceCore`` — the journal file, the client and peer sockets, a
/// signalfd and the timers, on a single-threaded epoll loop.
///
/// Every loop turn reads what is ready and feeds it to the core (connections, request frames, peer messages, due
/// timers), then commits by the core's plan, performing each action it returns in order: the turn's events are
/// appended to the journal in one write, and only then are replies, pushed events and sync messages written. So
/// nothing is acknowledged or sent to the peer before it is durable, and concurrent writers get group commit.
package final class DeviceDaemon {
  enum Token {
    static let clientListener: UInt64 = 1
    static let peerListener: UInt64 = 2
    static let signals: UInt64 = 3
    static let peer: UInt64 = 4
    static let lifeline: UInt64 = 5
    static let firstClient: UInt64 = 100
  }

  enum Timer: Equatable {
    case reconnect
    case peerDelayed
    /// A deadline the core keeps (``DeviceCore/Action/armTimer(_:at:)``).
    case core(DeviceCore.Timer)
    /// A background delivery is due, or its response window ends (real clock only; the commit that follows runs
    /// the background step).
    case background
    /// A listener paused for want of descriptors may be resumed (``AcceptPause``).
    case acceptResume
  }

  var options: DaemonOptions
  let log: Logger
  let durable: DurableDevice
  /// The device's pure core: sessions, hello, import ownership, sheets, reply limits, the peer link and the commit
  /// plan. This class is its shell: it feeds inputs and performs the actions.
  var core: DeviceCore
  /// The buffer the core appends its actions to, reused across turns (a nested turn takes a fresh one).
  var actionBuffer: [DeviceCore.Action] = []
  // Every descriptor the daemon opens is owned (`FileDescriptor`): each closes exactly once, when its owner goes
  // (a connection dropped from `clients`, the peer replaced, the daemon itself), never by hand.
  let epollFile: FileDescriptor
  var epoll: Int32 { epollFile.rawValue }
  /// Held for the daemon's life: the lock that keeps a second daemon out of this directory.
  let lockFile: FileDescriptor
  let clientListenerFile: FileDescriptor
  var clientListener: Int32 { clientListenerFile.rawValue }
  /// The phone's peer listener (nil on the watch, which connects).
  let peerListenerFile: FileDescriptor?
  /// `peerListenerFile`'s descriptor, or -1.
  let peerListener: Int32
  let signalFile: FileDescriptor
  var signalFD: Int32 { signalFile.rawValue }
  var clients: [UInt64: ClientConnection] = [:]
  var nextClientID = Token.firstClient
  var peer: PeerConnection?
  var timers: [(due: UInt64, timer: Timer)] = []
  var running = true
  /// The event buffers of ``turn(maximumWaitMilliseconds:)``.
  var turnTokens = [UInt64](repeating: 0, count: 256)
  var turnEvents = [UInt32](repeating: 0, count: 256)
  /// Whether the daemon stopped because its launcher exited (its lifeline ended).
  package private(set) var launcherExited = false
  /// 64 KiB for every connection's reads, left uninitialized: `read` writes what it returns, so a forked daemon
  /// touches none of its pages before its first request.
  var readBuffer = [UInt8](unsafeUninitializedCapacity: 1 << 16) { _, count in count = 1 << 16 }
  /// Connections with buffered frames left over from an earlier turn (see `ClientConnection.framesPending`).
  var pendingFrames: Set<UInt64> = []
  /// The listeners paused for want of descriptors (by token), and their shortage episodes.
  var acceptPauses: [UInt64: AcceptPause] = [:]
  let uid = Posix.userID

  /// Opens the journal, takes the lock, and listens; the client socket exists only once this returns.
  package init(options: DaemonOptions) throws(DaemonStartError) {
    self.options = options
    do { try options.checkOwnPaths() } catch { throw .system(error) }
    do { lockFile = try Posix.lockFile(options.lockPath) } catch {
      if error.errno == .lockHeld {
        let pid =
          (try? Posix.readOwnFile(options.lockPath)).map { String(decoding: $0, as: UTF8.self).trimmingWhitespace() }
          ?? "?"
        throw .alreadyRunning(device: options.device, directory: options.directory, pid: pid.isEmpty ? "?" : pid)
      }
      throw .system(error)
    }
    do { log = try Logger(path: options.logPath, label: options.device.description, threshold: options.logLevel) } catch
    {
      throw .system(error)
    }
    let started = Posix.monotonicNanoseconds()
    do {
      durable = try DurableDevice(
        path: options.journalPath, device: options.device, syncEachCommit: options.fsync, repair: options.repair)
    } catch {
      log.log(.error, "cannot open the journal: \(error)")
      throw .journal(error)
    }
    log.virtualClock = { [durable] in durable.state.virtualNow }
    if let torn = durable.recovery.truncated {
      log.log(.warning, "journal damage cut off: \(torn.damage)", ["dropped_bytes": "\(torn.droppedBytes)"])
    }
    if durable.changeNumbersSkipped > 0 {
      log.log(
        .warning, "the journal lost records that handed out change numbers; numbering continues past them",
        ["skipped": "\(durable.changeNumbersSkipped)"])
    }
    if let problem = durable.snapshotProblem {
      log.log(.warning, "snapshot not used, the journal was replayed in full: \(problem)")
    }
    for unfinished in durable.abandonedImports {
      log.log(
        .warning, "an import interrupted before its commit was discarded; the store is as it was before it",
        ["import": String(unfinished.id, radix: 16), "staged": "\(unfinished.samples)"])
    }
    // A log with no identity yet (a new journal, or one written before identities) starts one; so does a log whose
    // journal was cut — a torn tail, or damage --repair cut inside: the records lost may have reached the peer, and
    // entries numbered after them would reuse their sequence numbers, so the peer's cursor cannot be trusted
    // (`PairSimulatorTests`, "The seeds that found sync bugs converge", seed 9044).
    let repaired = durable.recovery.truncated != nil
    if durable.state.sync.logID == 0 || repaired {
      var events = durable.state.restartSyncLog(logID: Self.freshLogID())
      // The cut may also have lost changes made here that the peer applied and holds in no log (a deletion): ask for
      // everything the peer holds until it answers (docs/protocol.md, "Asking for a re-send").
      if repaired { events += durable.state.requestPeerResend() }
      do { try durable.persist(events) } catch {
        log.log(.error, "cannot start the sync log: \(error)")
        throw .journal(error)
      }
      if repaired { log.log(.warning, "sync log restarted after the cut: the store is re-sent to the peer") }
    }
    core = DeviceCore(
      configuration: DeviceCore.Configuration(
        // Read once: a daemon is made in the process that serves it (after any fork), and `getpid` is a system call.
        device: options.device, hasPeer: options.peerSocket != nil, pid: Posix.processID,
        maxClientBacklog: options.maxClientBacklog, quietest: log.threshold, helloTimeout: options.helloTimeout,
        handshakeTimeout: options.handshakeTimeout),
      secret: options.pairingKey, sync: durable.state.sync)
    do {
      let epoll = try Posix.epollCreate()
      let signals = try Posix.signalDescriptor([SIGTERM, SIGINT])
      try Posix.epollControl(
        epoll.rawValue, .add, signals.rawValue, events: Posix.PollEvents.readable, token: Token.signals)
      if let lifeline = options.lifeline {
        try Posix.epollControl(
          epoll.rawValue, .add, lifeline, events: Posix.PollEvents.readable, token: Token.lifeline)
      }
      var peerListener: FileDescriptor? = nil
      var peerListenerRaw: Int32 = -1
      if options.device == .phone, let peerPath = options.peerSocket {
        let listener = try Posix.listenUnix(peerPath)
        peerListenerRaw = listener.rawValue
        try Posix.epollControl(
          epoll.rawValue, .add, peerListenerRaw, events: Posix.PollEvents.readable, token: Token.peerListener)
        peerListener = consume listener
      }
      let clientListener = try Posix.listenUnix(options.socketPath)
      try Posix.epollControl(
        epoll.rawValue, .add, clientListener.rawValue, events: Posix.PollEvents.readable, token: Token.clientListener)
      epollFile = consume epoll
      signalFile = consume signals
      peerListenerFile = consume peerListener
      self.peerListener = peerListenerRaw
      clientListenerFile = consume clientListener
    } catch {
      log.log(.error, "cannot listen: \(error)")
      throw .system(error)
    }
    clampMaxClients()
    let elapsed = Double(Posix.monotonicNanoseconds() - started) / 1e6
    log.log(
      .info, "ready",
      [
        "pid": "\(Posix.processID)", "socket": options.socketPath, "records": "\(durable.recovery.records)",
        "snapshot_records": "\(durable.recovery.resumedRecords)",
        "samples": "\(durable.state.store.liveCount)", "recovery_ms": formatNumber(elapsed, decimals: 3),
      ])
  }

  /// Serves until SIGTERM or SIGINT, then shuts down cleanly; returns the exit status.
  package func run() -> Int32 {
    begin()
    while running {
      if let failed = turn(maximumWaitMilliseconds: nil) { return failed }
    }
    return shutdown()
  }

  /// Starts serving: forgets the changes replayed from the journal and starts the peer link. ``run()`` calls it.
  package func begin() { step(.start) }

  /// One turn of the event loop: waits for readiness (at most `maximumWaitMilliseconds`, or until the next timer
  /// when nil), serves what is ready, fires due timers, commits and acknowledges. Nil while the daemon runs on; an
  /// exit status when it cannot (epoll or the journal failed). ``run()`` turns until stopped; the zygote's warm-up
  /// turns two daemons by hand on one thread.
  package func turn(maximumWaitMilliseconds: Int32?) -> Int32? {
    var timeout = pendingFrames.isEmpty ? nextTimeout() : 0  // -1: no timer, wait for readiness
    if let limit = maximumWaitMilliseconds, timeout < 0 || timeout > limit { timeout = limit }
    let ready: Int
    do {
      ready = try Posix.epollWait(epoll, tokens: &turnTokens, events: &turnEvents, timeoutMilliseconds: timeout)
    } catch {
      log.log(.fault, "epoll_wait failed: \(error)")
      return 70
    }
    for i in 0..<ready { dispatch(token: turnTokens[i], events: turnEvents[i]) }
    servePendingFrames()
    fireTimers()
    if !commit() { return 74 }
    if durable.snapshotDue() { writeSnapshot() }
    return nil
  }

  /// Writes a snapshot (docs/journal.md#snapshots); a failure is logged and leaves the previous one in place.
  func writeSnapshot() {
    let started = Posix.monotonicNanoseconds()
    do {
      let bytes = try durable.writeSnapshot()
      let elapsed = Double(Posix.monotonicNanoseconds() - started) / 1e6
      log.log(
        .info, "snapshot written",
        ["bytes": "\(bytes)", "records": "\(durable.journal.records)", "ms": formatNumber(elapsed, decimals: 3)])
    } catch { log.log(.error, "cannot write a snapshot: \(error)") }
  }

  // MARK: - Dispatch

  func dispatch(token: UInt64, events: UInt32) {
    switch token {
    case Token.clientListener: acceptClients()
    case Token.peerListener: acceptPeer()
    case Token.signals:
      while let signal = Posix.readSignal(signalFD) {
        log.log(.info, "received signal \(signal), stopping")
        running = false
      }
    case Token.lifeline:
      // Nothing is ever written to it: readable means end of file (or an error), that is, the launcher is gone.
      log.log(.info, "the launching process exited, stopping")
      if let lifeline = options.lifeline { try? Posix.epollControl(epoll, .remove, lifeline, events: 0, token: 0) }
      launcherExited = true
      running = false
    case Token.peer: peerReady(events)
    default: clientReady(token, events)
    }
  }

  // MARK: - Shutdown

  func shutdown() -> Int32 {
    // The listening sockets close with the daemon; their names go now, so nobody new connects.
    Posix.unlink(options.socketPath)
    if peerListener >= 0, let path = options.peerSocket { Posix.unlink(path) }
    step(.shutdown)
    let committed = commit()
    do { try durable.journal.sync() } catch { log.log(.error, "final fsync failed: \(error)") }
    // Only when memory matches the journal: after a failed append it may be ahead.
    if committed, durable.snapshotDue(atShutdown: true) { writeSnapshot() }
    for connection in clients.values { connection.hangUp() }
    peer?.hangUp()
    log.log(.info, "stopped")
    return 0
  }
}
