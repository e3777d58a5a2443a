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

/// How a daemon is configured (from `healthpaird`'s arguments).
package struct DaemonOptions: Sendable {
  /// Which device to be.
  package var device: DeviceKind
  /// The daemon's own directory: journal, socket, log, lock.
  package var directory: String
  /// The peer socket: where the phone listens and the watch connects. Nil runs without a peer.
  package var peerSocket: String?
  /// The pairing secret (required with a peer).
  package var pairingKey: [UInt8]
  /// `fsync` after every journal append.
  package var fsync = false
  /// Cut a journal damaged in the middle instead of refusing to start.
  package var repair = false
  /// The lowest level logged.
  package var logLevel = LogLevel.info
  /// The most client connections served at once.
  package var maxClients = 256
  /// The most unsent bytes a client may have queued before it is disconnected as too slow.
  package var maxClientBacklog = 64 << 20
  /// Seconds a peer connection may take to complete the pairing handshake before it is closed.
  package var handshakeTimeout = 2.0
  /// Seconds a client connection may stay open without sending `hello` before it is closed.
  package var helloTimeout = 10.0
  /// The launcher's lifeline: the read end of a pipe whose write end only the launcher holds. When it reports end
  /// of file, the launcher has exited (however it ended) and the daemon stops.
  package var lifeline: Int32?

  /// Creates options.
  package init(device: DeviceKind, directory: String, peerSocket: String?, pairingKey: [UInt8]) {
    self.device = device
    self.directory = directory
    self.peerSocket = peerSocket
    self.pairingKey = pairingKey
  }

  /// `<dir>/<device>.sock`.
  package var socketPath: String { "\(directory)/\(device).sock" }
  /// `<dir>/<device>.journal`.
  package var journalPath: String { "\(directory)/\(device).journal" }
  /// `<dir>/<device>.log`.
  package var logPath: String { "\(directory)/\(device).log" }
  /// `<dir>/<device>.lock`.
  package var lockPath: String { "\(directory)/\(device).lock" }
}

/// Why a daemon could not start.
package enum DaemonStartError: Error, CustomStringConvertible {
  /// Another daemon holds the lock.
  case alreadyRunning(device: DeviceKind, directory: String, pid: String)
  /// The journal could not be opened.
  case journal(JournalError)
  /// A system call failed.
  case system(SystemError)

  /// A one-line message.
  package var description: String {
    switch self {
    case .alreadyRunning(let device, let dir, let pid):
      "another \(device) daemon is already running for \(dir) (pid \(pid)); stop it first (healthpair down)"
    case .journal(let e): "\(e)"
    case .system(let e): "\(e)"
    }
  }
}

/// One device's daemon: the engine and its journal, the client socket, the peer link, on a single-threaded
/// epoll loop.
///
/// Every loop iteration handles what is ready, then commits: the events the iteration produced are appended to
/// the journal in one write, and only then are replies, pushed events and sync messages written. So nothing is
/// acknowledged or sent to the peer before it is durable, and concurrent writers get group commit for free.
package final class DeviceDaemon {
  private enum Token {
    static let clientListener: UInt64 = 1
    static let peerListener: UInt64 = 2
    static let signals: UInt64 = 3
    static let peer: UInt64 = 4
    static let lifeline: UInt64 = 5
    static let firstClient: UInt64 = 100
  }

  private enum Timer: Equatable {
    case reconnect
    case peerDelayed
    /// The handshake deadline of the peer connection with this generation.
    case peerHandshake(UInt64)
    /// The oldest `hello` deadline in `helloDeadlines` is due.
    case clientHellos
    /// A background delivery is due, or its response window ends (real clock only; the commit that follows runs
    /// the background step).
    case background
    /// A listener paused for want of descriptors may be resumed (``AcceptPause``).
    case acceptResume
  }

  private var options: DaemonOptions
  private let log: Logger
  private let durable: DurableDevice
  /// The peer link's pure core (the sync machine and its bookkeeping); this class is its shell.
  private var core: PeerCore
  /// Log lines the core asked for while it held the state (written once it returns: the logger reads the state).
  private var coreLogs: [(LogLevel, String)] = []
  // Every descriptor the daemon opens is owned (`FileDescriptor`): each closes exactly once, when its owner goes
  // (a connection dropped from `clients`, the peer replaced, the daemon itself), never by hand.
  private let epollFile: FileDescriptor
  private var epoll: Int32 { epollFile.rawValue }
  /// Held for the daemon's life: the lock that keeps a second daemon out of this directory.
  private let lockFile: FileDescriptor
  private let clientListenerFile: FileDescriptor
  private var clientListener: Int32 { clientListenerFile.rawValue }
  /// The phone's peer listener (nil on the watch, which connects).
  private let peerListenerFile: FileDescriptor?
  /// `peerListenerFile`'s descriptor, or -1.
  private let peerListener: Int32
  private let signalFile: FileDescriptor
  private var signalFD: Int32 { signalFile.rawValue }
  private var clients: [UInt64: ClientConnection] = [:]
  private var nextClientID = Token.firstClient
  private var peer: PeerConnection?
  private var peerGeneration: UInt64 = 0
  private var timers: [(due: UInt64, timer: Timer)] = []
  /// Each client's `hello` deadline in accept order (so in deadline order); entries before `helloHead` are done.
  private var helloDeadlines: [(due: UInt64, client: UInt64)] = []
  private var helloHead = 0
  private var pendingAuthorizations: [UInt64: (client: UInt64, request: UInt32)] = [:]
  /// The connection each import in progress belongs to (an import is given up when its connection closes).
  private var importOwners: [UInt64: UInt64] = [:]
  private var pendingEvents: [DeviceEvent] = []
  /// Journal payloads of `pendingEvents` already encoded, by index: an `importStaged` event's is the bytes of the
  /// `importBatch` request it came from (see `DurableDevice.encode(_:framing:encoded:into:)`).
  private var pendingEncoded: [Int: ArraySlice<UInt8>] = [:]
  private var pendingBroadcasts: [DaemonEvent] = []
  private var running = true
  /// The event buffers of ``turn(maximumWaitMilliseconds:)``.
  private var turnTokens = [UInt64](repeating: 0, count: 256)
  private var turnEvents = [UInt32](repeating: 0, count: 256)
  /// Whether the daemon stopped because its launcher exited (its lifeline ended).
  package private(set) var launcherExited = false
  /// 64 KiB for every connection's reads, left uninitialized: `read` writes what it returns, so a forked daemon
  /// touches none of its pages before its first request.
  private var readBuffer = [UInt8](unsafeUninitializedCapacity: 1 << 16) { _, count in count = 1 << 16 }
  /// Connections with buffered frames left over from an earlier turn (see `ClientConnection.framesPending`).
  private var pendingFrames: Set<UInt64> = []
  /// The listeners paused for want of descriptors (by token), and their shortage episodes.
  private var acceptPauses: [UInt64: AcceptPause] = [:]
  /// Requests served per connection per loop turn: one client pipelining thousands of costly requests delays
  /// every other client by at most this many of them.
  private static let framesPerTurn = 16
  private let uid = Posix.userID
  /// This daemon's process id, read once (a daemon is made in the process that serves it, after any fork): every
  /// request's context carries it, and `getpid` is a system call.
  private let processID = Posix.processID

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
    // (found by `healthpair simulate --seed 9044`).
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
    core = PeerCore(
      role: options.device == .phone ? .listener : .connector, device: options.device, secret: options.pairingKey,
      sync: durable.state.sync)
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
  package func begin() {
    // Changes replayed from the journal were delivered (or not) before the restart.
    durable.state.discardChanges()
    if options.peerSocket != nil {
      var shell = self
      core.start(state: &durable.state, wall: wall, shell: &shell)
      flushCoreLogs()
    }
  }

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
  private func writeSnapshot() {
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

  private func dispatch(token: UInt64, events: UInt32) {
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

  /// The next waiting connection on `listener` from a process of this daemon's user, with its pid; connections
  /// from other users are logged and closed on the way. Nil when none is waiting (or accept failed, logged).
  private func acceptSameUser(_ listener: Int32, _ what: String) -> Accepted? {
    while true {
      let accepted: FileDescriptor?
      let token = listener == clientListener ? Token.clientListener : Token.peerListener
      do { accepted = try Posix.accept(listener, what: path(ofListener: token)) } catch {
        if AcceptPause.isShortage(error) {
          pauseAccepting(token, what, error)
        } else {
          log.log(.error, "\(what) accept failed: \(error)")
        }
        return nil
      }
      guard let socket = accepted else { return nil }
      if let failures = acceptPauses[token]?.accepted() {
        log.log(.info, "accepting \(what)s again after a descriptor shortage", ["failed_accepts": "\(failures)"])
      }
      guard let credentials = try? Posix.peerCredentials(socket.rawValue), credentials.uid == uid else {
        log.log(.warning, "refused a \(what) of another user")
        continue  // `socket` closes here
      }
      return Accepted(socket: socket, pid: credentials.pid)
    }
  }

  // MARK: - Descriptor shortage (DaemonResources.swift)

  /// The path a listener is bound to, for errors and forced failures.
  private func path(ofListener token: UInt64) -> String {
    token == Token.clientListener ? options.socketPath : options.peerSocket ?? "peer"
  }

  /// Takes a listener whose accept failed for want of descriptors out of the loop, until a connection closes or
  /// the back-off passes (``AcceptPause``); logs the episode's first failure only.
  private func pauseAccepting(_ token: UInt64, _ what: String, _ error: SystemError) {
    var pause = acceptPauses[token] ?? AcceptPause()
    if pause.shortage(now: Posix.monotonicNanoseconds()) {
      log.log(
        .error, "\(what) accept failed: \(error); not accepting until a descriptor is freed (or 100 ms pass)",
        ["clients": "\(clients.count)", "max_clients": "\(options.maxClients)"])
    }
    let listener = token == Token.clientListener ? clientListener : peerListener
    try? Posix.epollControl(epoll, .remove, listener, events: 0, token: token)
    timers.append((pause.resumeAt ?? 0, .acceptResume))
    acceptPauses[token] = pause
  }

  /// Puts paused listeners back into the loop once a descriptor was freed or their back-off passed.
  private func resumeAccepting(descriptorFreed: Bool) {
    let now = Posix.monotonicNanoseconds()
    for (token, var pause) in acceptPauses where pause.shouldResume(now: now, descriptorFreed: descriptorFreed) {
      pause.resumed()
      acceptPauses[token] = pause
      let listener = token == Token.clientListener ? clientListener : peerListener
      try? Posix.epollControl(epoll, .add, listener, events: Posix.PollEvents.readable, token: token)
    }
  }

  /// Lowers `--max-clients` to what the descriptor limit allows (raised to its hard limit first), said once in
  /// the log: past it, accepting would fail with `EMFILE` instead of refusing with "too many connections".
  private func clampMaxClients() {
    let limit = Posix.raiseOpenFileLimit()
    let inUse = Posix.openDescriptorCount() ?? 0
    let allowed = DescriptorBudget.maxClients(requested: options.maxClients, limit: limit, inUse: inUse)
    guard allowed < options.maxClients else { return }
    log.log(
      .warning,
      "--max-clients \(options.maxClients) is more than the descriptor limit allows: serving at most \(allowed)",
      ["rlimit_nofile": "\(limit)", "open_descriptors": "\(inUse)", "reserved": "\(DescriptorBudget.reserve)"])
    options.maxClients = allowed
  }

  private func acceptClients() {
    while let accepted = acceptSameUser(clientListener, "client") {
      let pid = accepted.pid
      if clients.count >= options.maxClients {
        log.log(.warning, "refused a client: \(options.maxClients) connections already open", ["pid": "\(pid)"])
        let refusal = Frame.response(id: 0, .failure(.simulator("too many connections (limit \(options.maxClients))")))
          .framed()
        refusal.withUnsafeBytes { _ = try? Posix.sendSome(accepted.socket.rawValue, $0) }
        continue  // the refused socket closes here
      }
      let id = nextClientID
      nextClientID += 1
      let connection = ClientConnection(id: id, socket: accepted.take(), pid: pid)
      let fd = connection.fd
      clients[id] = connection
      scheduleHelloDeadline(id)
      do {
        try Posix.epollControl(
          epoll, .add, fd, events: Posix.PollEvents.readable | Posix.PollEvents.peerClosed, token: id)
      } catch {
        log.log(.error, "cannot watch client: \(error)")
        dropClient(connection, reason: nil)
      }
      log.log(.debug, "client connected", ["client": "\(id)", "pid": "\(pid)"])
    }
  }

  private func clientReady(_ id: UInt64, _ events: UInt32) {
    guard let connection = clients[id] else { return }
    if events & Posix.PollEvents.writable != 0 {
      if !connection.outbox.drain(to: connection.fd) {
        dropClient(connection, reason: "write failed")
        return
      }
    }
    // Buffered frames first: read nothing more until they are served (the socket buffer pushes back).
    if connection.framesPending { return }
    guard
      events
        & (Posix.PollEvents.readable | Posix.PollEvents.hangUp | Posix.PollEvents.error | Posix.PollEvents.peerClosed)
        != 0
    else { return }
    var budget = 4
    // A connection being closed after an error reply gets nothing more read (nor a second error reply).
    while budget > 0 && !connection.closeAfterFlush {
      budget -= 1
      let result = readBuffer.withUnsafeMutableBytes { buffer in
        catching { () throws(SystemError) in try Posix.read(connection.fd, into: buffer) }
      }
      switch result {
      case .success(.bytes(let n)):
        readBuffer.withUnsafeBytes { connection.decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        if !processFrames(connection) { return }
        if n < readBuffer.count || connection.framesPending { return }
      case .success(.wouldBlock):
        return
      case .success(.endOfFile):
        do { try connection.decoder.finish() } catch {
          log.log(.warning, "client vanished mid-frame: \(error)", ["client": "\(id)"])
        }
        dropClient(connection, reason: nil)
        return
      case .failure(let error):
        dropClient(connection, reason: "read failed: \(error)")
        return
      }
    }
  }

  /// Serves, once per turn, the connections whose buffered frames an earlier turn left.
  private func servePendingFrames() {
    guard !pendingFrames.isEmpty else { return }
    for id in pendingFrames.sorted() {
      guard let connection = clients[id] else {
        pendingFrames.remove(id)
        continue
      }
      _ = processFrames(connection)
    }
  }

  /// Handles the complete frames buffered for a connection — at most `framesPerTurn`, and none while its unsent
  /// replies exceed the backlog limit (they are written after this turn's commit; a client still over the limit
  /// then is dropped as too slow). Returns false when the connection was dropped.
  private func processFrames(_ connection: ClientConnection) -> Bool {
    var served = 0
    defer {
      if connection.framesPending { pendingFrames.insert(connection.id) } else { pendingFrames.remove(connection.id) }
    }
    connection.framesPending = false
    while true {
      if served == Self.framesPerTurn || connection.outbox.count > options.maxClientBacklog {
        connection.framesPending = connection.decoder.hasCompleteFrame
        return true
      }
      served += 1
      let body: [UInt8]?
      do { body = try connection.decoder.next() } catch {
        log.log(.warning, "closing client: \(error)", ["client": "\(connection.id)"])
        connection.send(.response(id: 0, .failure(.simulator("\(error); closing the connection"))))
        connection.closeAfterFlush = true
        return true
      }
      guard let body else { return true }
      let frame: Frame
      do { frame = try Frame.decode(body) } catch {
        let id =
          body.count >= 5
          ? body[1...4].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) } : 0
        log.log(.warning, "malformed message: \(error)", ["client": "\(connection.id)"])
        connection.send(.response(id: id, .failure(.simulator("malformed message: \(error)"))))
        continue
      }
      guard case .request(let id, let request) = frame else {
        log.log(.warning, "client sent a non-request frame", ["client": "\(connection.id)"])
        connection.send(.response(id: 0, .failure(.simulator("clients may only send requests"))))
        continue
      }
      handle(connection, id: id, request, body: body)
      if connection.closeAfterFlush { return true }
    }
  }

  private func dropClient(_ connection: ClientConnection, reason: String?) {
    if let reason { log.log(.info, "client closed: \(reason)", ["client": "\(connection.id)"]) }
    for (id, owner) in importOwners where owner == connection.id {
      importOwners[id] = nil
      let staged = durable.state.stagedImports[id]?.count ?? 0
      record(durable.state.abandonImport(id))
      log.log(
        .warning, "import abandoned: its client went away before the commit",
        ["import": String(id, radix: 16), "staged": "\(staged)", "client": "\(connection.id)"])
    }
    pendingFrames.remove(connection.id)
    _ = try? Posix.epollControl(epoll, .remove, connection.fd, events: 0, token: connection.id)
    connection.hangUp()
    clients[connection.id] = nil
    resumeAccepting(descriptorFreed: true)
  }

  // MARK: - Requests

  private var wall: Date { Date(timeIntervalSince1970: Posix.wallClockSeconds()) }

  /// Handles one request; `body` is its frame body, as it arrived.
  private func handle(_ connection: ClientConnection, id: UInt32, _ request: Request, body: [UInt8]) {
    if log.enabled(.debug) {
      log.log(.debug, "request \(request.name)", ["client": "\(connection.id)", "id": "\(id)"])
    }
    func reply(_ result: Result<Reply, HealthError>) { sendResponse(connection, id: id, request, result) }
    if case .hello(let version, let name) = request {
      guard version == WireProtocol.version else {
        log.log(.warning, "client speaks protocol version \(version)", ["client": "\(connection.id)"])
        reply(
          .failure(
            .simulator(
              "protocol version \(version) is not supported; this daemon speaks version \(WireProtocol.version)")))
        connection.closeAfterFlush = true
        return
      }
      connection.helloDone = true
      connection.decoder.maxFrameLength = WireProtocol.maxClientFrame
      connection.name = name
      let software = "healthpaird \(HealthPairVersion.current)"
      reply(
        .success(
          .hello(
            HelloInfo(
              version: WireProtocol.version, device: options.device, pid: processID, software: software))))
      return
    }
    guard connection.helloDone else {
      reply(.failure(.simulator("send hello first")))
      connection.closeAfterFlush = true
      return
    }
    switch request {
    case .importBatch(let importID, _), .importCommit(let importID, _), .importAbort(let importID),
      .importCorrelations(let importID, _):
      if let owner = importOwners[importID], owner != connection.id {
        reply(.failure(.simulator("import \(String(importID, radix: 16)) belongs to another connection")))
        return
      }
    default: break
    }
    // Only `dump` reads the link's status: other requests get a fixed stand-in instead of a status built per request.
    let context = RequestCore.Context(
      wall: wall, hasPeer: options.peerSocket != nil, link: request.opcode == .dump ? linkStatus : Self.unreadLink,
      pid: processID, clients: clients.count,
      storedPageBudget: storedPageBudget, quietestNote: log.threshold)
    let (answer, effects) = RequestCore.handle(request, state: &durable.state, context: context)
    switch request {
    case .importBatch(let importID, _), .importCommit(let importID, _), .importAbort(let importID),
      .importCorrelations(let importID, _):
      importOwners[importID] = durable.state.stagedImports[importID] != nil ? connection.id : nil
    default: break
    }
    // A staged batch is journaled as the request's bytes: after the message type and request id, an `importBatch`
    // is encoded exactly as its `importStaged` record (opcode and tag 30, the import id, the samples), and
    // `Frame.decode` read the body to its end.
    if case .importBatch(let importID, let samples) = request, effects.events.count == 1,
      case .importStaged(let stagedID, let staged) = effects.events[0], stagedID == importID,
      staged.count == samples.count, body.count > 5, body[5] == RequestOpcode.importBatch.rawValue
    {
      pendingEncoded[pendingEvents.count] = body[5...]
    }
    pendingEvents += effects.events
    pendingBroadcasts += effects.notices
    for note in effects.notes where log.enabled(note.level) {
      log.log(note.level, note.message, fields: note.fields + [RequestCore.Field("client", "\(connection.id)")])
    }
    for completion in effects.completions {
      guard let waiting = pendingAuthorizations.removeValue(forKey: completion.prompt.id),
        let requester = clients[waiting.client]
      else { continue }
      requester.send(.response(id: waiting.request, completion.result))
    }
    switch answer {
    case .reply(let result):
      reply(result)
    case .pending(let prompt):
      pendingAuthorizations[prompt.id] = (connection.id, id)
      connection.send(.interim(id: id, .prompt(prompt)))
    case .subscribe(let mask):
      connection.subscriptions = mask
      reply(.success(.ok))
    case .link(let command):
      feed(.control(command))
      if case .latency = command { rescheduleDelayed() }
      reply(.success(.link(linkStatus)))
    }
  }

  /// The largest reply frame body sent: past the backlog limit the client would be dropped as too slow.
  private var replyLimit: Int { min(WireProtocol.maxReplyFrame, options.maxClientBacklog) }

  /// Bytes of samples and tombstones per `storedSamples` page: well under the reply limit.
  private var storedPageBudget: Int { min(WireProtocol.maxStoredPage, options.maxClientBacklog / 2) }

  /// Queues a final response — or, when its frame would pass ``replyLimit``, an error saying how to ask for less,
  /// so an oversized answer never gets a client dropped (or a frame sent that it would refuse).
  private func sendResponse(
    _ connection: ClientConnection, id: UInt32, _ request: Request, _ result: Result<Reply, HealthError>
  ) {
    let framed = Frame.response(id: id, result).framed()
    guard framed.count - 4 > replyLimit else {
      connection.outbox.append(framed)
      return
    }
    let hint =
      switch request {
      case .sampleQuery: "set a limit or narrow the date range"
      case .anchoredQuery: "pass a limit and continue from the returned anchor"
      case .statisticsCollection: "use a longer interval or a narrower date range"
      case .storedSamples: "a single stored item is larger than the limit; raise --max-client-backlog"
      default: "raise --max-client-backlog"
      }
    let size = framed.count - 4
    let message = "the \(request.name) reply (\(size) bytes) exceeds the \(replyLimit)-byte reply limit; \(hint)"
    log.log(.warning, message, ["client": "\(connection.id)"])
    connection.send(.response(id: id, .failure(.simulator(message))))
  }

  private func completeAuthorization(_ prompt: Prompt, _ result: Result<Reply, HealthError>, outcome: String) {
    pendingBroadcasts.append(.promptClosed(promptID: prompt.id, bundleID: prompt.bundleID, outcome: outcome))
    log.log(.info, "sheet closed", ["app": prompt.bundleID, "prompt": "\(prompt.id)", "outcome": outcome])
    guard let waiting = pendingAuthorizations.removeValue(forKey: prompt.id), let connection = clients[waiting.client]
    else { return }
    connection.send(.response(id: waiting.request, result))
  }

  /// The link status handed to requests that do not read it (every request but `dump`).
  private static let unreadLink = LinkStatus(
    enabled: false, connected: false, holding: false, latency: 0,
    sync: DeviceSnapshot.SyncStatus(lastSeq: 0, peerAcked: 0, appliedFromPeer: 0, pendingEntries: 0, pendingItems: 0))

  private var linkStatus: LinkStatus {
    let ledger = durable.state.sync
    var sync = DeviceSnapshot.SyncStatus(
      lastSeq: ledger.lastSeq, peerAcked: ledger.peerAcked, appliedFromPeer: ledger.appliedFromPeer,
      pendingEntries: ledger.pendingCount, pendingItems: ledger.pendingItems)
    sync.logID = ledger.logID
    sync.peerLogID = ledger.peerLogID
    sync.verified = core.machine.isVerified
    sync.diverged = core.machine.isDiverged
    sync.conflicts = durable.state.syncConflictCount
    return LinkStatus(
      enabled: core.machine.enabled, connected: core.machine.isConnected, holding: core.machine.holding,
      latency: core.machine.latency,
      sync: sync)
  }

  // MARK: - Commit

  /// Journals this iteration's events, then writes replies, pushes events and feeds sync. False on a journal
  /// failure: the daemon must stop, since its memory is ahead of its disk.
  private func commit() -> Bool {
    if !pendingEvents.isEmpty {
      do { try durable.persist(pendingEvents, encoded: pendingEncoded) } catch {
        log.log(.fault, "journal append failed; stopping without acknowledging: \(error)")
        return false
      }
      pendingEvents.removeAll(keepingCapacity: true)
      pendingEncoded.removeAll()
    }
    // The replies of this turn answer requests whose events are durable now: they go out before the sync work and
    // the background step below, so the caller is not kept waiting for the peer's share of the turn (in a linked
    // pair, a save's entries materialized, encoded and queued, and any store check the peer asked for;
    // docs/performance.md, metric 9b). What those steps queue for clients goes out at the end of the turn.
    flushClients()
    var shell = self
    let fed = core.afterCommit(state: &durable.state, wall: wall, shell: &shell)
    flushCoreLogs()
    guard fed else {
      log.log(.fault, "journal append failed; stopping: the sync log could not be restarted durably")
      return false
    }
    if !pendingEvents.isEmpty {
      // Applied entries and acknowledgements recorded while feeding sync above.
      do { try durable.persist(pendingEvents, encoded: pendingEncoded) } catch {
        log.log(.fault, "journal append failed; stopping: \(error)")
        return false
      }
      pendingEvents.removeAll(keepingCapacity: true)
      pendingEncoded.removeAll()
    }
    // What the peer core journaled while it held the state (entries applied) numbered changes: the mark covers them
    // before any later answer can hand those numbers out.
    do { try durable.raiseChangeMark() } catch {
      log.log(.fault, "change mark write failed; stopping: \(error)")
      return false
    }
    runBackgroundStep()
    if !pendingBroadcasts.isEmpty {
      for connection in clients.values where !connection.subscriptions.isEmpty {
        for event in pendingBroadcasts where connection.subscriptions.contains(event.subscriptionMask) {
          connection.send(.event(event))
        }
      }
      pendingBroadcasts.removeAll(keepingCapacity: true)
    }
    flushClients()
    flushPeer()
    return true
  }

  /// Writes every client's queued output (and drops the connections closed after an error reply).
  private func flushClients() {
    for connection in clients.values where !connection.outbox.isEmpty || connection.closeAfterFlush {
      flushClient(connection)
    }
  }

  private func flushClient(_ connection: ClientConnection) {
    guard connection.outbox.drain(to: connection.fd) else {
      dropClient(connection, reason: "write failed")
      return
    }
    if connection.outbox.isEmpty {
      if connection.closeAfterFlush {
        dropClient(connection, reason: "closed after an error reply")
        return
      }
      if connection.watchingWrites {
        connection.watchingWrites = false
        _ = try? Posix.epollControl(
          epoll, .modify, connection.fd, events: Posix.PollEvents.readable | Posix.PollEvents.peerClosed,
          token: connection.id)
      }
    } else if connection.outbox.count > options.maxClientBacklog {
      log.log(.warning, "client too slow: \(connection.outbox.count) bytes unsent", ["client": "\(connection.id)"])
      dropClient(connection, reason: "backlog over \(options.maxClientBacklog) bytes")
    } else if !connection.watchingWrites {
      connection.watchingWrites = true
      _ = try? Posix.epollControl(
        epoll, .modify, connection.fd,
        events: Posix.PollEvents.readable | Posix.PollEvents.writable | Posix.PollEvents.peerClosed,
        token: connection.id)
    }
  }

  // MARK: - Peer link

  private func acceptPeer() {
    while let accepted = acceptSameUser(peerListener, "peer connection") {
      let pid = accepted.pid
      if let current = peer {
        // An authenticated link is never displaced; one still in its handshake is, so a process that connected
        // and went silent cannot keep the real peer out until its deadline.
        guard !current.authenticated && !core.machine.isConnected else {
          log.log(.warning, "refused a second peer connection", ["pid": "\(pid)"])
          continue  // the refused socket closes here
        }
        log.log(
          .warning, "a new peer connection displaces one still in its handshake",
          ["pid": "\(pid)", "displaced_pid": current.pid.map { "\($0)" } ?? "?"])
        closePeer(reason: "displaced by a new connection before completing the handshake")
      }
      attachPeer(accepted.take(), pid: pid)
      feed(.opened(nonce: Posix.randomBytes(32)))
      flushCoreLogs()
    }
  }

  private func attachPeer(_ socket: consuming FileDescriptor, pid: Int32? = nil) {
    peerGeneration += 1
    let connection = PeerConnection(socket: socket, generation: peerGeneration, pid: pid)
    let fd = connection.fd
    Posix.setBufferSizes(fd, bytes: 4 << 20)
    peer = connection
    let due = Self.deadline(after: options.handshakeTimeout)
    timers.append((due, .peerHandshake(connection.generation)))
    do {
      try Posix.epollControl(
        epoll, .add, fd, events: Posix.PollEvents.readable | Posix.PollEvents.peerClosed, token: Token.peer)
    } catch {
      coreLogs.append((.error, "cannot watch the peer: \(error)"))  // may run inside the core: logged after it
    }
  }

  /// Closes the peer transport and tells the core.
  private func closePeer(reason: String?) {
    if closeTransport(reason: reason) { feed(.closed) }
    flushCoreLogs()
  }

  /// Closes the peer transport, if any, without telling the core; true when there was one.
  private func closeTransport(reason: String?) -> Bool {
    guard let connection = peer else { return false }
    if let reason { coreLogs.append((.info, "peer link closed: \(reason)")) }  // may run inside the core
    _ = try? Posix.epollControl(epoll, .remove, connection.fd, events: 0, token: Token.peer)
    connection.hangUp()
    peer = nil
    timers.removeAll { $0.timer == .peerDelayed || $0.timer == .peerHandshake(connection.generation) }
    return true
  }

  /// Feeds one input to the peer core, with this daemon as its shell.
  private func feed(_ input: SyncMachine.Input) {
    var shell = self
    core.handle(input, state: &durable.state, wall: wall, shell: &shell)
    flushCoreLogs()
  }

  /// Writes the log lines the core asked for while it held the state.
  private func flushCoreLogs() {
    guard !coreLogs.isEmpty else { return }
    for (level, message) in coreLogs { log.log(level, message) }
    coreLogs.removeAll()
  }

  private func peerReady(_ events: UInt32) {
    guard let connection = peer else { return }
    if events & Posix.PollEvents.writable != 0 {
      if !connection.outbox.drain(to: connection.fd) {
        closePeer(reason: "write failed")
        return
      }
    }
    var budget = 64
    while budget > 0, let connection = peer {
      budget -= 1
      let result = readBuffer.withUnsafeMutableBytes { buffer in
        catching { () throws(SystemError) in try Posix.read(connection.fd, into: buffer) }
      }
      switch result {
      case .success(.bytes(let n)):
        readBuffer.withUnsafeBytes { connection.decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        while peer === connection {
          if !connection.authenticated && core.machine.isConnected { peerAuthenticated(connection) }
          let body: [UInt8]?
          do { body = try connection.decoder.next() } catch {
            let when = connection.authenticated ? "" : ", before the pairing handshake completed"
            closePeer(reason: "\(error)\(when)")
            return
          }
          guard let body else { break }
          let message: PeerMessage
          do { message = try PeerMessage.decode(body) } catch {
            log.log(.warning, "malformed peer message: \(error)")
            closePeer(reason: "malformed message")
            return
          }
          feed(.received(message))
        }
      case .success(.wouldBlock): return
      case .success(.endOfFile):
        closePeer(reason: "peer went away")
        return
      case .failure(let error):
        closePeer(reason: "read failed: \(error)")
        return
      }
    }
  }

  private func queuePeer(_ message: PeerMessage, latency: Double) {
    guard let connection = peer else { return }
    let bytes = FrameDecoder.frame(message.encoded())
    if latency > 0 || !connection.delayed.isEmpty {
      let now = Posix.monotonicNanoseconds()
      let due = max(connection.delayed.last?.due ?? 0, Self.deadline(after: latency, from: now))
      connection.delayed.append((due, bytes))
      rescheduleDelayed()
    } else {
      connection.outbox.append(bytes)
    }
  }

  private func rescheduleDelayed() {
    timers.removeAll { $0.timer == .peerDelayed }
    if let first = peer?.delayed.first { timers.append((first.due, .peerDelayed)) }
  }

  private func flushPeer() {
    guard let connection = peer, !connection.outbox.isEmpty else { return }
    guard connection.outbox.drain(to: connection.fd) else {
      closePeer(reason: "write failed")
      return
    }
    let want =
      connection.outbox.isEmpty
      ? Posix.PollEvents.readable | Posix.PollEvents.peerClosed
      : Posix.PollEvents.readable | Posix.PollEvents.writable | Posix.PollEvents.peerClosed
    let watching = !connection.outbox.isEmpty
    if watching != connection.watchingWrites {
      connection.watchingWrites = watching
      _ = try? Posix.epollControl(epoll, .modify, connection.fd, events: want, token: Token.peer)
    }
  }

  /// The handshake completed on `connection`: lift the small pre-handshake frame limit, drop the deadline.
  private func peerAuthenticated(_ connection: PeerConnection) {
    connection.authenticated = true
    connection.decoder.maxFrameLength = WireProtocol.maxPeerFrame
    timers.removeAll { $0.timer == .peerHandshake(connection.generation) }
  }

  /// Closes the peer connection `generation` if its handshake has not completed by its deadline.
  private func peerHandshakeDue(_ generation: UInt64) {
    guard let connection = peer, connection.generation == generation, !connection.authenticated else { return }
    if core.machine.isConnected {
      peerAuthenticated(connection)
      return
    }
    let limit = formatNumber(options.handshakeTimeout, decimals: 3)
    log.log(
      .warning, "peer connection did not complete the pairing handshake within \(limit) s; closing it",
      ["pid": connection.pid.map { "\($0)" } ?? "?"])
    closePeer(reason: "handshake not completed within \(limit) s")
  }

  private func scheduleHelloDeadline(_ client: UInt64) {
    let due = Self.deadline(after: options.helloTimeout)
    if helloHead == helloDeadlines.count { timers.append((due, .clientHellos)) }
    helloDeadlines.append((due, client))
  }

  /// Closes every client whose `hello` deadline passed without a `hello`, then waits for the next deadline.
  private func clientHellosDue(now: UInt64) {
    while helloHead < helloDeadlines.count, helloDeadlines[helloHead].due <= now {
      let id = helloDeadlines[helloHead].client
      helloHead += 1
      guard let connection = clients[id], !connection.helloDone, !connection.closeAfterFlush else { continue }
      let limit = formatNumber(options.helloTimeout, decimals: 3)
      log.log(.warning, "closing client: no hello within \(limit) s", ["client": "\(id)", "pid": "\(connection.pid)"])
      connection.send(.response(id: 0, .failure(.simulator("no hello within \(limit) s; closing the connection"))))
      connection.closeAfterFlush = true
    }
    if helloHead == helloDeadlines.count {
      helloDeadlines.removeAll(keepingCapacity: true)
      helloHead = 0
    } else {
      if helloHead > 1024 && helloHead * 2 > helloDeadlines.count {
        helloDeadlines.removeFirst(helloHead)
        helloHead = 0
      }
      timers.append((helloDeadlines[helloHead].due, .clientHellos))
    }
  }

  // MARK: - Timers

  /// The monotonic instant `seconds` after `now`, saturating instead of trapping on huge or invalid durations.
  static func deadline(after seconds: Double, from now: UInt64 = Posix.monotonicNanoseconds()) -> UInt64 {
    guard seconds > 0 else { return now }
    let nanoseconds = seconds * 1e9
    // 2^64 as a Double: below it the conversion is exact enough and cannot trap; the sum may still overflow.
    guard nanoseconds < 18_446_744_073_709_551_616.0 else { return UInt64.max }
    let (sum, overflow) = now.addingReportingOverflow(UInt64(nanoseconds))
    return overflow ? UInt64.max : sum
  }

  /// A random, non-zero sync log identity.
  static func freshLogID() -> UInt64 {
    while true {
      let id = Posix.randomBytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      if id != 0 { return id }
    }
  }

  /// Delivers what background delivery has due (after this turn's changes are durable), queues the events for
  /// subscribers, and, on the real clock, arms the timer for the next due time.
  private func runBackgroundStep() {
    let now = wall
    let step = durable.state.backgroundStep(wall: now)
    for item in step.pruned { pendingBroadcasts.append(.samplesPruned(type: item.type, apps: item.apps)) }
    for event in step.events {
      pendingBroadcasts.append(.backgroundDelivery(event))
      let level: LogLevel = event.kind == .stopped || event.kind == .missed ? .warning : .info
      if log.enabled(level) {
        log.log(
          level, "background delivery \(event.kind)",
          ["app": event.bundleID, "type": event.type.name, "delivery": "\(event.id)", "attempt": "\(event.attempt)"])
      }
    }
    timers.removeAll { $0.timer == .background }
    if durable.state.virtualNow == nil, let due = durable.state.nextBackgroundDue() {
      timers.append((Self.deadline(after: max(0, due.timeIntervalSince(now))), .background))
    }
  }

  private func nextTimeout() -> Int32 {
    guard let next = timers.map(\.due).min() else { return -1 }
    let now = Posix.monotonicNanoseconds()
    if next <= now { return 0 }
    return Int32(min(60_000, (next - now + 999_999) / 1_000_000))
  }

  private func fireTimers() {
    let now = Posix.monotonicNanoseconds()
    let due = timers.filter { $0.due <= now }
    timers.removeAll { $0.due <= now }
    for entry in due {
      switch entry.timer {
      case .reconnect:
        feed(.reconnectTimer)
      case .peerDelayed:
        guard let connection = peer else { continue }
        while let first = connection.delayed.first, first.due <= now {
          connection.outbox.append(first.bytes)
          connection.delayed.removeFirst()
        }
        rescheduleDelayed()
      case .peerHandshake(let generation):
        peerHandshakeDue(generation)
      case .clientHellos:
        clientHellosDue(now: now)
      case .background:
        break
      case .acceptResume:
        resumeAccepting(descriptorFreed: false)
      }
    }
  }

  // MARK: - Shutdown

  private func shutdown() -> Int32 {
    // The listening sockets close with the daemon; their names go now, so nobody new connects.
    Posix.unlink(options.socketPath)
    if peerListener >= 0, let path = options.peerSocket { Posix.unlink(path) }
    for prompt in durable.state.withdrawAllPrompts() {
      completeAuthorization(
        prompt, .failure(.simulator("the \(options.device) is shutting down")), outcome: "withdrawn")
    }
    for id in durable.state.stagedImports.keys.sorted() {
      log.log(.warning, "import abandoned: the \(options.device) is shutting down", ["import": String(id, radix: 16)])
      record(durable.state.abandonImport(id))
    }
    importOwners.removeAll()
    if let ack = core.shutdownAcknowledgement(state: durable.state) { pendingEvents.append(ack) }
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

/// The daemon as the peer core's shell: sockets, the journal file and epoll timers.
extension DeviceDaemon: PeerShell {
  package func record(_ events: [DeviceEvent]) {
    guard !events.isEmpty else { return }
    pendingEvents += events
    pendingBroadcasts += RequestCore.notices(for: events, device: options.device)
  }

  package func persistRecorded() -> Bool {
    guard !pendingEvents.isEmpty else { return true }
    // Called while the peer core holds `durable.state`: the change mark is raised after it returns (`commit()`).
    do { try durable.persist(pendingEvents, encoded: pendingEncoded, raisingMark: false) } catch {
      coreLogs.append((.fault, "journal append failed: \(error)"))
      return false
    }
    pendingEvents.removeAll(keepingCapacity: true)
    pendingEncoded.removeAll()
    return true
  }

  package func send(_ message: PeerMessage, latency: Double) { queuePeer(message, latency: latency) }

  package func close(reason: String) -> Bool { closeTransport(reason: reason) }

  package func connect() -> PeerCore.ConnectOutcome {
    guard peer == nil, let path = options.peerSocket else { return .alreadyOpen }
    do {
      let socket = try Posix.connectUnix(path)
      Posix.setNonBlocking(socket.rawValue)
      coreLogs.append((.debug, "connected to the peer socket"))
      attachPeer(socket)
      return .opened(nonce: Posix.randomBytes(32))
    } catch {
      coreLogs.append((.debug, "peer not reachable: \(error)"))
      return .unreachable
    }
  }

  package func scheduleReconnect(after seconds: Double) {
    timers.removeAll { $0.timer == .reconnect }
    timers.append((Self.deadline(after: seconds), .reconnect))
  }

  package func notify(_ notice: PeerCore.Notice) {
    switch notice {
    case .linkChanged(let connected): pendingBroadcasts.append(.linkChanged(connected: connected))
    case .peerAcknowledged(let seq): pendingBroadcasts.append(.peerAcknowledged(seq))
    case .checkConcluded(let applied): pendingBroadcasts.append(.syncApplied(upTo: applied, items: 0))
    }
  }

  package func logLine(_ level: PeerCore.LogLevel, _ message: @autoclosure () -> String) {
    let mapped: LogLevel =
      switch level {
      case .debug: .debug
      case .info: .info
      case .warning: .warning
      case .error: .error
      }
    coreLogs.append((mapped, message()))
  }

  package func freshLogID() -> UInt64 { Self.freshLogID() }
}
