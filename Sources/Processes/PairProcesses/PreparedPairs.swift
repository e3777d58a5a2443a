import Dispatch
import HealthEngine
import HealthModel
import HealthPairClient
import Posix
import Synchronization
import Wire

/// Whether an environment switch's value (`HEALTHPAIR_PREPARED_PAIRS`, `HEALTHPAIR_ZYGOTE`) turns it off: `0`, `off`,
/// `no` or `false`, in any case and with surrounding blanks.
func isTurnedOff(_ value: String) -> Bool {
  ["0", "off", "no", "false"].contains(value.trimmingWhitespace().lowercased())
}

/// Pairs launched ahead of need, so a test (``take(daemon:)``) gets a fresh, linked pair without waiting for two
/// daemons to start and link, and hands it back (``retire(_:)``) without a graceful stop nobody needs.
///
/// The model (docs/testing-your-app.md, "Prepared pairs"):
/// - **Fresh and unshared.** Each prepared pair is a complete `Pair` — its own temporary directory, its own two
///   daemons, linked — on which nothing has been done; ``take(daemon:)`` hands each one out once, and a retired pair
///   is stopped and removed, never reused. A pair whose daemon died or whose connection closed while it waited is
///   discarded, not handed out.
/// - **Ahead, in the background.** Taking a pair starts preparing its replacement on one of the pool's threads, so it
///   launches while the test runs. Up to ``depth`` pairs per daemon executable and subscription wait (default 2).
/// - **Cleaned up.** A retired pair's daemons are killed and reaped and its directory removed before ``retire(_:)``
///   returns (a kept directory stops gracefully instead). Whatever is still running when the process exits —
///   prepared pairs nobody took, or everything after a crash or SIGKILL — is ended by the pair's lifeline: each
///   daemon reads end-of-file when the launching process is gone, stops and removes its pair's directory
///   (`--remove-when-orphaned`), and the next process's first pair sweeps what a worse moment left
///   (``TemporaryPairDirectories``).
/// - **Off switch.** `HEALTHPAIR_PREPARED_PAIRS=0` (or `off`) turns it off: every pair is launched on demand and
///   stopped in place, as before; a number sets ``depth``.
package final class PreparedPairs: Sendable {
  /// The process's pool.
  package static let shared = PreparedPairs(depth: PreparedPairs.configuredDepth())

  /// The environment variable that sets the depth (`0` or `off` turns preparation off).
  package static let environmentVariable = "HEALTHPAIR_PREPARED_PAIRS"

  /// How many pairs wait per daemon executable and subscription; 0 means no preparation (launch on demand, stop in
  /// place).
  package let depth: Int

  /// What a prepared pair is: its daemon executable and the events its clients are kept subscribed to.
  private struct Recipe: Hashable {
    var daemon: String
    var subscription: EventMask
  }

  private struct State {
    var ready: [Recipe: [Pair]] = [:]
    var preparing: [Recipe: Int] = [:]
    /// Pairs still to be taken, when a caller said (``expect(_:)``): no more than that are prepared.
    var remaining: Int?
    /// Pairs handed out, launched inline, and discarded (for tests and the bench).
    var counts = Counts()
  }
  private let state = Mutex(State())
  /// Signalled whenever a preparation ends (with a pair or a failure).
  private let arrived = DispatchSemaphore(value: 0)
  /// Discards pairs handed to ``retireInBackground(_:)``.
  private let retiring = Retirer()
  /// The daemons of pairs to prepare, one entry per pair, and how many preparing threads run (at most ``depth``:
  /// they live as long as the process, so preparing a pair starts no thread).
  private let jobs = Mutex<(queue: [Recipe], threads: Int)>(([], 0))
  /// Counts the entries in `jobs.queue`: each preparing thread takes one per wait.
  private let jobWake = DispatchSemaphore(value: 0)

  /// What the pool has done so far.
  package struct Counts: Sendable, Equatable {
    /// Pairs handed out that were prepared ahead.
    package var prepared = 0
    /// Pairs launched on demand because none was ready or being prepared.
    package var launchedInline = 0
    /// Prepared pairs found dead when taken, and stopped.
    package var discarded = 0
    /// No pairs yet.
    package init() {}
  }

  /// A pool keeping `depth` pairs ready per daemon.
  package init(depth: Int) { self.depth = max(0, depth) }

  /// The depth `HEALTHPAIR_PREPARED_PAIRS` asks for: 2 when unset; 0 for `0`, `off`, `no` or `false`.
  package static func configuredDepth(_ value: String? = Posix.environment(environmentVariable)) -> Int {
    guard let value = value?.trimmingWhitespace().lowercased(), !value.isEmpty else { return 2 }
    if isTurnedOff(value) { return 0 }
    return min(8, max(0, Int(value) ?? 2))
  }

  /// What the pool has done so far.
  package var counts: Counts { state.withLock { $0.counts } }

  /// Pairs prepared and waiting, over every daemon.
  package var waiting: Int { state.withLock { $0.ready.values.reduce(0) { $0 + $1.count } } }

  /// The pairs prepared and waiting (for tests of the pool; taking one from here would share it).
  package var waitingPairs: [Pair] { state.withLock { $0.ready.values.flatMap { $0 } } }

  /// Blocks until at least `count` pairs wait or nothing is being prepared, or `timeout` seconds pass; true when
  /// `count` wait. For tests of the pool (takers wait in ``take(daemon:)``).
  package func waitUntilWaiting(_ count: Int, timeout: Double) -> Bool {
    let deadline = DispatchTime.now() + timeout
    while true {
      let (ready, preparing) = state.withLock { s in
        (s.ready.values.reduce(0) { $0 + $1.count }, s.preparing.values.reduce(0, +))
      }
      if ready >= count { return true }
      if preparing == 0 || arrived.wait(timeout: deadline) == .timedOut { return false }
    }
  }

  /// A fresh, linked pair of `daemon` (located when nil) that nobody else has or will get, with default launch
  /// options, its clients subscribed to `subscription` and kept so (``Pair/keepSubscribed(_:)``: set before the
  /// launch's wait for the link subscribes them, so it costs no round trip); starts preparing its replacement.
  /// Events pushed before the caller reads are kept by the connection, in order.
  /// - Throws: ``PairError`` when no pair could be launched.
  package func take(daemon given: String? = nil, subscribedTo subscription: EventMask = []) throws(PairError) -> Pair {
    let daemon: String
    if let given { daemon = given } else { daemon = try locateDaemon() }
    let recipe = Recipe(daemon: daemon, subscription: subscription)
    guard depth > 0 else { return try Self.launch(recipe) }
    while true {
      enum Next {
        case use(Pair)
        case wait
        case launch
      }
      let next = state.withLock { s -> Next in
        if var ready = s.ready[recipe], !ready.isEmpty {
          let pair = ready.removeFirst()
          s.ready[recipe] = ready
          return .use(pair)
        }
        return s.preparing[recipe, default: 0] > 0 ? .wait : .launch
      }
      switch next {
      case .use(let pair):
        guard Self.isAlive(pair) else {
          state.withLock { $0.counts.discarded += 1 }
          retire(pair)
          continue
        }
        state.withLock { s in
          s.counts.prepared += 1
          s.remaining = s.remaining.map { max(0, $0 - 1) }
        }
        refill(recipe)
        return pair
      case .wait:
        // A preparation is under way; its end (a pair or a failure) signals. The deadline only guards against a
        // preparer that never ends; then this caller launches its own.
        if arrived.wait(timeout: .now() + LaunchOptions().readyTimeout * 2) == .timedOut {
          state.withLock { $0.counts.launchedInline += 1 }
          return try Self.launch(recipe)
        }
      case .launch:
        state.withLock { s in
          s.counts.launchedInline += 1
          s.remaining = s.remaining.map { max(0, $0 - 1) }
        }
        refill(recipe)
        return try Self.launch(recipe)
      }
    }
  }

  /// Ends a pair that was used: with preparation on, ``Pair/discard()`` (SIGKILL, reap, remove the directory — no
  /// graceful stop, whose journal flush and snapshot nobody will read); a pair keeping its directory, or any pair
  /// with preparation off, stops gracefully (``Pair/shutdown()``). Either way both daemons are gone and the
  /// directory removed (unless kept) when this returns.
  package func retire(_ pair: Pair) {
    if depth == 0 || pair.keepsDirectory { pair.shutdown() } else { pair.discard() }
  }

  /// Ends a used pair like ``retire(_:)``, but on the pool's retiring thread: the caller goes on at once, and
  /// ``drain()`` waits until every pair handed here is gone. A pair keeping its directory, or any pair with
  /// preparation off, is retired before this returns. For a suite runner, whose next scenario need not wait for the
  /// last one's daemons to be reaped and its directory removed.
  package func retireInBackground(_ pair: Pair) {
    guard depth > 0, !pair.keepsDirectory else { return retire(pair) }
    retiring.add(pair)
  }

  /// Says how many more pairs this process will take (nil: unknown), so no more than that are prepared; a suite
  /// runner knows its count.
  package func expect(_ count: Int?) {
    state.withLock { $0.remaining = count }
  }

  /// Stops every waiting pair, after letting preparations under way finish, and waits until every pair handed to
  /// ``retireInBackground(_:)`` is gone (a suite runner calls this when it is done; a process that just exits leaves
  /// them to the lifeline).
  package func drain() {
    defer { retiring.waitUntilIdle() }
    while true {
      let (pairs, preparing) = state.withLock { s -> ([Pair], Int) in
        defer { s.ready = [:] }
        return (s.ready.values.flatMap { $0 }, s.preparing.values.reduce(0, +))
      }
      for pair in pairs { pair.discard() }
      guard preparing > 0 else { return }
      if arrived.wait(timeout: .now() + LaunchOptions().readyTimeout * 2) == .timedOut { return }
    }
  }

  /// Launches a pair as `recipe` says.
  private static func launch(_ recipe: Recipe) throws(PairError) -> Pair {
    try Pair(daemon: recipe.daemon, subscribedTo: recipe.subscription)
  }

  /// Starts preparing pairs as `recipe` says until `depth` are ready or under way.
  private func refill(_ recipe: Recipe) {
    let wanted = state.withLock { s -> Int in
      let missing =
        min(depth, s.remaining ?? depth) - s.ready[recipe, default: []].count - s.preparing[recipe, default: 0]
      guard missing > 0 else { return 0 }
      s.preparing[recipe, default: 0] += missing
      return missing
    }
    for _ in 0..<wanted {
      let start = jobs.withLock { j -> Bool in
        j.queue.append(recipe)
        guard j.threads < depth else { return false }
        j.threads += 1
        return true
      }
      jobWake.signal()
      if start { Posix.startThread { [self] in prepareForever() } }
    }
  }

  /// A preparing thread: launches a pair for each queued recipe, in turn, and hands it to the pool.
  private func prepareForever() {
    while true {
      jobWake.wait()
      guard let recipe = jobs.withLock({ j in j.queue.isEmpty ? nil : j.queue.removeFirst() }) else { continue }
      let pair = try? Self.launch(recipe)
      state.withLock { s in
        s.preparing[recipe, default: 1] -= 1
        if let pair { s.ready[recipe, default: []].append(pair) }
      }
      arrived.signal()
    }
  }

  /// Whether both daemons still run and both connections are open.
  private static func isAlive(_ pair: Pair) -> Bool {
    DeviceKind.allCases.allSatisfy { device in
      pair.process(device)?.exitStatus == nil && !pair.client(device).isClosed
    }
  }
}

/// One thread, started on first use, that discards used pairs (``Pair/discard()``) in the order they come.
private final class Retirer: Sendable {
  private struct Queue {
    var pairs: [Pair] = []
    /// Pairs handed over and not yet discarded (queued or being discarded).
    var outstanding = 0
    var started = false
  }
  private let queue = Mutex(Queue())
  /// Wakes the thread: a pair was queued.
  private let wake = DispatchSemaphore(value: 0)
  /// Signalled after each discard, for ``waitUntilIdle()``.
  private let discarded = DispatchSemaphore(value: 0)

  /// Queues `pair` for discarding.
  func add(_ pair: Pair) {
    let start = queue.withLock { q -> Bool in
      q.pairs.append(pair)
      q.outstanding += 1
      defer { q.started = true }
      return !q.started
    }
    if start { Posix.startThread { [self] in run() } }
    wake.signal()
  }

  /// Blocks until every pair queued so far is discarded.
  func waitUntilIdle() {
    var waited = false
    while queue.withLock({ $0.outstanding }) > 0 {
      discarded.wait()
      waited = true
    }
    // Passed on, for another caller waiting at the same time (a spare signal only costs a re-check).
    if waited { discarded.signal() }
  }

  private func run() {
    while true {
      wake.wait()
      guard let pair = queue.withLock({ q in q.pairs.isEmpty ? nil : q.pairs.removeFirst() }) else { continue }
      pair.discard()
      queue.withLock { $0.outstanding -= 1 }
      discarded.signal()
    }
  }
}
