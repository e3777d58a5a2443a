// What a daemon may use: its own directory and files only, and no more client connections than its descriptors allow.
import Journal
import Posix

extension DaemonOptions {
  /// Creates the device directory (mode `0700`) when missing, then checks that it and every path the daemon will
  /// open or bind in it — journal, snapshot, log, lock, client and peer sockets — are its own
  /// (``Posix/ownPathRefusal(_:_:expected:)``): a directory or file of another user (even for root), one that
  /// others may write, a symbolic link, a FIFO or a device is refused before anything is opened, with the path
  /// named. The directory is then made `0700`.
  /// - Throws: the refusal, or the `mkdir` failure.
  package func checkOwnPaths() throws(SystemError) {
    try Posix.makeDirectory(directory, mode: 0o700)
    try Posix.checkOwnDirectory(directory)
    try Posix.chmod(directory, 0o700)
    let ownFiles = [
      journalPath, ChangeMarkFile.path(forJournal: journalPath), SnapshotFile.path(forJournal: journalPath), logPath,
      lockPath,
    ]
    for path in ownFiles {
      try Posix.checkOwnPathIfPresent(path)
    }
    try Posix.checkOwnPathIfPresent(socketPath, expected: .socket)
    if device == .phone, let peerSocket { try Posix.checkOwnPathIfPresent(peerSocket, expected: .socket) }
  }
}

/// How many client connections a daemon can serve with the descriptors it may open.
package enum DescriptorBudget {
  /// Descriptors kept back beyond those open at start-up and one per client: the peer connection and one it
  /// displaces, a refused client's socket (accepted to be told why), a snapshot being written and its directory,
  /// and a few to spare.
  package static let reserve = 8

  /// The client limit that fits `limit` descriptors (`RLIMIT_NOFILE`) when `inUse` are already open: `requested`
  /// when it fits, else what does (at least 1). Pure.
  package static func maxClients(requested: Int, limit: Int, inUse: Int) -> Int {
    min(requested, max(1, limit - inUse - reserve))
  }
}

/// Keeps a listener from spinning when `accept` fails for want of descriptors (`EMFILE`, `ENFILE`): the connection
/// stays queued and the listener stays readable, so retrying at once would fail again on every loop turn. Instead the
/// listener is paused — taken out of the event loop — until a descriptor is freed (a connection closes) or
/// ``backOff`` passes, and the shortage is logged once per episode: when it starts, and when accepting works again.
/// The state machine only; the daemon does the epoll calls and the logging.
package struct AcceptPause: Sendable {
  /// How long a paused listener waits when no descriptor is freed meanwhile.
  package static let backOff: UInt64 = 100_000_000
  /// When the paused listener is resumed at the latest (monotonic nanoseconds); nil while it is not paused.
  package private(set) var resumeAt: UInt64?
  /// Whether a shortage episode is in progress (paused, or resumed without an accept succeeding yet).
  package private(set) var inEpisode = false
  /// Failed accepts in this episode.
  package private(set) var failures = 0

  /// Creates a pause that is not paused.
  package init() {}

  /// Whether `error` is a descriptor shortage, which must pause the listener rather than be retried.
  package static func isShortage(_ error: SystemError) -> Bool {
    error.errno == .tooManyOpenFiles || error.errno == .systemOpenFileLimit
  }

  /// An accept failed for want of descriptors at `now`: pause until `now` + ``backOff``. True when this starts an
  /// episode (log it).
  package mutating func shortage(now: UInt64) -> Bool {
    failures += 1
    resumeAt = now &+ Self.backOff
    defer { inEpisode = true }
    return !inEpisode
  }

  /// Whether the paused listener should be resumed: a descriptor was freed, or `now` reached ``resumeAt``.
  package func shouldResume(now: UInt64, descriptorFreed: Bool) -> Bool {
    guard let resumeAt else { return false }
    return descriptorFreed || now >= resumeAt
  }

  /// The listener was put back into the loop.
  package mutating func resumed() { resumeAt = nil }

  /// An accept succeeded: the failures of the episode that ends, if one does (log its end), else nil.
  package mutating func accepted() -> Int? {
    guard inEpisode, resumeAt == nil else { return nil }
    inEpisode = false
    defer { failures = 0 }
    return failures
  }
}

/// Accepting while descriptors are short: a listener whose accept failed for want of them leaves the loop until a
/// connection closes or the back-off passes (``AcceptPause``); `--max-clients` is kept within the descriptor limit.
extension DeviceDaemon {
  /// The next waiting connection on `listener` from a process of this daemon's user, with its pid; connections
  /// from other users are logged and closed on the way. Nil when none is waiting (or accept failed, logged).
  func acceptSameUser(_ listener: Int32, _ what: String) -> Accepted? {
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

  /// The path a listener is bound to, for errors and forced failures.
  func path(ofListener token: UInt64) -> String {
    token == Token.clientListener ? options.socketPath : options.peerSocket ?? "peer"
  }

  /// Takes a listener whose accept failed for want of descriptors out of the loop, until a connection closes or
  /// the back-off passes (``AcceptPause``); logs the episode's first failure only.
  func pauseAccepting(_ token: UInt64, _ what: String, _ error: SystemError) {
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
  func resumeAccepting(descriptorFreed: Bool) {
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
  func clampMaxClients() {
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
}
