import Dispatch
import Posix
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// SIGINT and SIGTERM in a process that launches pairs: the one place they are handled.
///
/// The model (docs/architecture.md, PairProcesses; docs/scenario-language.md, "Interrupted runs";
/// docs/testing-your-app.md, "An interrupted test stops its pairs first"):
/// - **One mechanism.** ``install(ending:onlyIfDefault:)`` routes both signals to a self-pipe
///   (``Posix/signalPipe(_:onlyIfDefault:)``) read by one thread; nothing else in the process handles them. A
///   handler rather than a signalfd, so it works in a process whose threads already run (a test runner) and as
///   PID 1 in a container, which has no default actions.
/// - **The first signal stops everything.** Every live ``Pair`` (registered by its launch, gone from the registry
///   when it is shut down, discarded or released) is shut down — daemons stopped with SIGTERM, directories it made
///   removed — and so is every daemon still starting (``DaemonProcess/start(_:layout:daemon:options:ownsRoot:)``);
///   then the actions registered with ``onInterrupt(_:)`` run, newest first. What is stopped and run is taken at the
///   instant the signal is read, atomically with ``signal`` being set: a ``cancel(_:)`` or a pair's release after
///   that instant (a command unwinding because it saw the signal) does not take anything back, and a pair, daemon
///   or action registered after it is refused (``PairError/interrupted(signal:)``) or never run.
/// - **Then the process ends** — by its own code when a caller said it would (``deferringExit(_:)``: the scenario
///   runner writes its partial reports and returns 128 + the signal); otherwise, after the cleanup, as ``Ending``
///   says.
/// - **A second signal exits at once** (status 128 + the signal, nothing more written). The daemons of the pairs
///   not yet stopped still stop and remove their directories: they watch the ``Lifeline``, which closes when this
///   process is gone.
package enum Interruption {
  /// How the process ends after the cleanup when no caller ends it (``deferringExit(_:)``).
  package enum Ending: Sendable {
    /// Print `interrupted by SIGINT` (or SIGTERM) on standard error and exit with 128 + the signal: a command line.
    case exitStatus
    /// End by the signal's default action, as the process would have without the handler (a test process that
    /// uses HealthPairTesting); where that does not end it (PID 1), exit with 128 + the signal.
    case defaultAction
  }

  private final class WeakPair: Sendable {
    weak let pair: Pair?
    init(_ pair: Pair) { self.pair = pair }
  }

  private struct State {
    var installed = false
    /// Whether the installing call routed both signals here.
    var routedBoth = false
    var endingKind = Ending.defaultAction
    var signal: Int32?
    var cleanedUp = false
    var reported = false
    var ending = false
    var exitOwners = 0
    /// Set by the cleanup, with no exit owner left, as it goes on to end the process.
    var exiting = false
    var nextToken: UInt64 = 0
    var actions: [(token: UInt64, action: @Sendable () -> Void)] = []
    var pairs: [ObjectIdentifier: WeakPair] = [:]
    var launching: [pid_t: DaemonProcess] = [:]
  }

  /// What the first signal stops and runs, taken with ``State/signal`` under one lock.
  private struct Taken: Sendable {
    let pairs: [Pair]
    let launching: [DaemonProcess]
    /// Newest first.
    let actions: [@Sendable () -> Void]
  }
  private static let state = Mutex(State())
  /// Signalled once the cleanup has run (``waitForCleanup()`` passes it on to the next waiter).
  private static let cleaned = DispatchSemaphore(value: 0)

  /// The signals handled.
  package static let signals: [Int32] = [SIGINT, SIGTERM]

  /// Starts handling SIGINT and SIGTERM (once per process; later calls change nothing). With `onlyIfDefault`, a
  /// signal the process already handles or ignores is left to its handler (a test runner's own) or ignored. Returns
  /// whether the first call routed both signals here (later calls return the same).
  @discardableResult
  package static func install(ending: Ending, onlyIfDefault: Bool = false) -> Bool {
    state.withLock { s -> Bool in
      if s.installed { return s.routedBoth }
      guard let (fd, routed) = try? Posix.signalPipe(signals, onlyIfDefault: onlyIfDefault), !routed.isEmpty else {
        return false
      }
      s.installed = true
      s.endingKind = ending
      s.routedBoth = routed.count == signals.count
      Posix.startThread { watch(fd) }
      return s.routedBoth
    }
  }

  /// The signal that interrupted the process, once one came.
  package static var signal: Int32? { state.withLock { $0.signal } }

  /// Whether a signal interrupted the process.
  package static var isInterrupted: Bool { signal != nil }

  /// The exit status for an interruption by `signal`: 128 + its number (130 for SIGINT, 143 for SIGTERM).
  package static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }

  /// `SIGINT`, `SIGTERM`, else `signal <n>`.
  package static func name(of signal: Int32) -> String {
    switch signal {
    case SIGINT: "SIGINT"
    case SIGTERM: "SIGTERM"
    default: "signal \(signal)"
    }
  }

  /// Runs `body`, which ends the process itself after an interruption (waiting with ``waitForCleanup()`` first):
  /// meanwhile the cleanup does not exit. Called once the cleanup has gone on to end the process (no caller
  /// deferred it), `body` does not run: the calling thread waits for the exit — so nothing `body` does can be cut
  /// off half-way by it.
  package static func deferringExit<T>(_ body: () throws -> T) rethrows -> T {
    let admitted = state.withLock { s -> Bool in
      guard !s.exiting else { return false }
      s.exitOwners += 1
      return true
    }
    guard admitted else { waitForExit() }
    defer { state.withLock { $0.exitOwners -= 1 } }
    return try body()
  }

  /// Blocks the calling thread until the process, which the cleanup is ending, has exited.
  private static func waitForExit() -> Never {
    let never = DispatchSemaphore(value: 0)
    while true { never.wait() }
  }

  /// Blocks until the cleanup of an interruption has run; returns at once when there was none.
  package static func waitForCleanup() {
    guard isInterrupted, !state.withLock({ $0.cleanedUp }) else { return }
    cleaned.wait()
    cleaned.signal()
  }

  /// Prints `line` on standard error as the one line that reports the interruption (the caller's own, with
  /// details), instead of the plain `interrupted by SIGINT`.
  package static func report(_ line: String) {
    state.withLock { $0.reported = true }
    Posix.writeStandardError(line)
  }

  /// After a command returned (or failed because its pairs were stopped under it): when the process was
  /// interrupted, waits for the cleanup and ends the process — the line (unless ``report(_:)`` gave it) and 128 +
  /// the signal. Returns at once otherwise.
  package static func endIfInterrupted() {
    guard let number = signal else { return }
    waitForCleanup()
    end(number)
  }

  /// Registers `action` to run when the process is interrupted, after every pair is down (a command removing a
  /// directory it made); registered once the process was interrupted, it never runs. Returns the token that
  /// ``cancel(_:)`` takes.
  package static func onInterrupt(_ action: @escaping @Sendable () -> Void) -> UInt64 {
    state.withLock { s in
      s.nextToken += 1
      s.actions.append((s.nextToken, action))
      return s.nextToken
    }
  }

  /// Forgets an action of ``onInterrupt(_:)`` — unless a signal came first: the cleanup then runs it all the same
  /// (or ran it), as it runs every action registered when the signal came.
  package static func cancel(_ token: UInt64) { state.withLock { $0.actions.removeAll { $0.token == token } } }

  /// Records a pair being launched, to be shut down if the process is interrupted; false when it already was
  /// (the pair must not start).
  static func register(_ pair: Pair) -> Bool {
    state.withLock { s in
      guard s.signal == nil else { return false }
      s.pairs[ObjectIdentifier(pair)] = WeakPair(pair)
      return true
    }
  }

  /// Records a daemon that started and is not yet part of a pair's state (it waits for its ready line, or its pair
  /// is about to take it), to be stopped if the process is interrupted; false when it already was (the caller
  /// stops it).
  static func launching(_ process: DaemonProcess) -> Bool {
    state.withLock { s in
      guard s.signal == nil else { return false }
      s.launching[process.pid] = process
      return true
    }
  }

  /// Forgets a daemon of ``launching(_:)``: its pair holds it now, or its start failed.
  static func launched(_ pid: pid_t) { _ = state.withLock { $0.launching.removeValue(forKey: pid) } }

  /// Forgets a pair that was shut down, discarded or released. Returns false when the pair was registered as a signal
  /// came: the cleanup shuts it down (or did), whatever its caller does now — a release must then leave its daemons
  /// to it.
  @discardableResult
  static func deregister(_ pair: Pair) -> Bool {
    state.withLock { s in s.pairs.removeValue(forKey: ObjectIdentifier(pair)) == nil || s.signal == nil }
  }

  /// The handling thread: the first signal starts the cleanup on a thread of its own, a second one exits.
  private static func watch(_ fd: Int32) {
    while let number = Posix.readSignalByte(fd) {
      // Taken with the signal: a thread that sees ``signal`` and unwinds (cancelling its actions, releasing its
      // pair) cannot withdraw anything from the cleanup, however late the cleanup's thread gets to run.
      let taken = state.withLock { s -> Taken? in
        guard s.signal == nil else { return nil }
        s.signal = number
        return Taken(
          pairs: s.pairs.values.compactMap(\.pair), launching: Array(s.launching.values),
          actions: s.actions.reversed().map(\.action))
      }
      guard let taken else { Posix.exitImmediately(exitStatus(for: number)) }
      Posix.startThread { cleanUp(number, taken) }
    }
  }

  /// Stops every pair and daemon `taken`, runs its actions, then ends the process unless a caller does.
  private static func cleanUp(_ number: Int32, _ taken: Taken) {
    let (pairs, launching, actions) = (taken.pairs, taken.launching, taken.actions)
    for process in launching { process.signal(SIGTERM) }
    DispatchQueue.concurrentPerform(iterations: pairs.count) { pairs[$0].interrupt() }
    for process in launching where process.waitForExit(timeout: 10) == nil && Posix.isAlive(process.pid) {
      process.signal(SIGKILL)
      process.waitForExit(timeout: 10)
    }
    TemporaryPairDirectories.removeOwn()
    for action in actions { action() }
    let (owners, ending) = state.withLock { s -> (Int, Ending) in
      s.cleanedUp = true
      s.exiting = s.exitOwners == 0
      return (s.exitOwners, s.endingKind)
    }
    cleaned.signal()
    guard owners == 0 else { return }
    if ending == .defaultAction {
      report(
        "HealthPair: interrupted by \(name(of: number)); stopped \(pairs.count) pair\(pairs.count == 1 ? "" : "s")"
          + " and removed their directories\n")
      Posix.raiseWithDefaultAction(number)
    }
    end(number)
  }

  /// Prints the interrupted line once (unless ``report(_:)`` did) and exits with 128 + the signal. The first caller
  /// does both; a later one (the cleanup and the main thread may both get here) waits for that exit, so it cannot
  /// end the process before the line is written.
  private static func end(_ number: Int32) -> Never {
    let (first, print) = state.withLock { s -> (Bool, Bool) in
      defer { s.ending = true }
      return (!s.ending, !s.ending && !s.reported)
    }
    guard first else { waitForExit() }
    if print { Posix.writeStandardError("interrupted by \(name(of: number))\n") }
    Posix.exitImmediately(exitStatus(for: number))
  }
}
