import FoundationEssentials
import HealthEngine
import HealthModel
import HealthPairClient
import PairProcesses
import Posix
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The prepared-pair pool's guarantees: every pair handed out is fresh and used once, nothing of one pair reaches
/// another, a dead prepared pair is never handed out, and retired or drained pairs leave no process or directory.
@Suite("Prepared pairs: fresh, unshared, cleaned up")
struct PreparedPairsTests {
  private static let water = SampleType.lookup(name: "dietaryWater")!
  private static let app = AppRecord(
    bundleID: "com.example.pool", displayName: "Pool", writeUsageDescription: "w", readUsageDescription: "r")

  private static func pids(_ pair: Pair) -> [Int32] { DeviceKind.allCases.compactMap { pair.process($0)?.pid } }

  private static func gone(_ pair: Pair, root: String, pids: [Int32]) -> Bool {
    pids.allSatisfy { Posix.waitForExit($0, timeoutMilliseconds: 10_000) } && !Posix.exists(root)
  }

  @Test func eachPairIsFreshAndHandedOutOnce() throws {
    let pool = PreparedPairs(depth: 1)
    let daemon = try locateDaemon()
    let first = try pool.take(daemon: daemon)
    #expect(pool.counts.launchedInline == 1)
    // Something done on the first pair, while its replacement is prepared.
    try first.phone.installApp(Self.app)
    let second = try pool.take(daemon: daemon)
    #expect(pool.counts.prepared == 1, "the second pair was prepared while the first was in use")
    #expect(first.layout.root != second.layout.root)
    #expect(Set(Self.pids(first)).isDisjoint(with: Self.pids(second)))
    #expect(try first.phone.dump().device.apps.contains { $0.record.bundleID == Self.app.bundleID })
    #expect(try second.phone.dump().device.apps.isEmpty, "nothing of the first pair reaches the second")
    #expect(try second.phone.link(.reconnectNow).connected && second.watch.link(.reconnectNow).connected)
    for pair in [first, second] {
      let (root, pids) = (pair.layout.root, Self.pids(pair))
      pool.retire(pair)
      #expect(Self.gone(pair, root: root, pids: pids), "a retired pair's daemons and directory are gone")
    }
    let waiting = pool.waitUntilWaiting(1, timeout: 30) ? pool.waitingPairs : []
    let leftovers = waiting.map { ($0.layout.root, Self.pids($0)) }
    pool.drain()
    #expect(pool.waitingPairs.isEmpty)
    for (root, pids) in leftovers {
      #expect(pids.allSatisfy { Posix.waitForExit($0, timeoutMilliseconds: 10_000) } && !Posix.exists(root))
    }
  }

  @Test func aPreparedPairWhoseDaemonDiedIsNotHandedOut() throws {
    let pool = PreparedPairs(depth: 1)
    let daemon = try locateDaemon()
    let first = try pool.take(daemon: daemon)
    defer { pool.retire(first) }
    try #require(pool.waitUntilWaiting(1, timeout: 30))
    let doomed = try #require(pool.waitingPairs.first)
    let doomedRoot = doomed.layout.root
    let phone = try #require(doomed.process(.phone))
    phone.signal(SIGKILL)
    #expect(phone.waitForExit(timeout: 10) != nil)
    let taken = try pool.take(daemon: daemon)
    defer { pool.retire(taken) }
    #expect(taken.layout.root != doomedRoot)
    #expect(pool.counts.discarded == 1)
    #expect(!Posix.exists(doomedRoot), "the discarded pair's directory is removed")
    #expect(try taken.phone.link(.reconnectNow).connected)
    pool.drain()
  }

  @Test func turnedOffEveryPairIsLaunchedOnDemandAndNoneWaits() throws {
    let pool = PreparedPairs(depth: 0)
    let pair = try pool.take(daemon: try locateDaemon())
    #expect(pool.waitingPairs.isEmpty && pool.counts == PreparedPairs.Counts())
    let (root, pids) = (pair.layout.root, Self.pids(pair))
    pool.retire(pair)
    #expect(Self.gone(pair, root: root, pids: pids))
  }

  @Test func theEnvironmentVariableSetsTheDepth() {
    #expect(PreparedPairs.configuredDepth(nil) == 2)
    #expect(PreparedPairs.configuredDepth("") == 2)
    #expect(PreparedPairs.configuredDepth("0") == 0)
    #expect(PreparedPairs.configuredDepth(" off ") == 0)
    #expect(PreparedPairs.configuredDepth("FALSE") == 0)
    #expect(PreparedPairs.configuredDepth("3") == 3)
    #expect(PreparedPairs.configuredDepth("99") == 8)
    #expect(PreparedPairs.configuredDepth("many") == 2)
  }

  @Test func pairsRetiredInTheBackgroundAreGoneOnceDrained() throws {
    let pool = PreparedPairs(depth: 1)
    let daemon = try locateDaemon()
    let used = try pool.take(daemon: daemon)
    let (root, pids) = (used.layout.root, Self.pids(used))
    pool.retireInBackground(used)
    // A pair keeping its directory is stopped before the call returns, and its directory stays.
    let kept = try pool.take(daemon: daemon)
    kept.keepDirectory()
    let (keptRoot, keptPids) = (kept.layout.root, Self.pids(kept))
    pool.retireInBackground(kept)
    #expect(keptPids.allSatisfy { Posix.waitForExit($0, timeoutMilliseconds: 0) }, "stopped before it returned")
    #expect(Posix.exists(keptRoot))
    Posix.removeTree(keptRoot)
    pool.drain()
    #expect(!Posix.exists(root), "drain waits until the pair retired in the background is removed")
    #expect(pids.allSatisfy { Posix.waitForExit($0, timeoutMilliseconds: 10_000) })
  }

  /// A pair taken subscribed to events was prepared so: the sheet an app shows right after the take reaches its
  /// client with no subscribe of its own; a pair prepared for another subscription (or none) is not handed out for it.
  @Test func aPairTakenSubscribedHasItsEventsFromTheStart() throws {
    let pool = PreparedPairs(depth: 1)
    defer { pool.drain() }
    let daemon = try locateDaemon()
    let plain = try pool.take(daemon: daemon)
    defer { pool.retire(plain) }
    #expect(pool.waitUntilWaiting(1, timeout: 30), "a plain pair is prepared")
    let subscribed = try pool.take(daemon: daemon, subscribedTo: .prompts)
    defer { pool.retire(subscribed) }
    #expect(pool.counts.launchedInline == 2, "the plain pair waiting was not handed out for a subscription")
    subscribed.phone.collectEvents()
    try Self.expectASheetShownAndCollected(on: subscribed.phone, read: [])
  }

  /// Calls made together come back in the clients' order, and one closed connection fails only its own call.
  @Test func callsMadeTogetherAnswerEachClient() throws {
    let pair = try Pair(daemon: try locateDaemon())
    defer { pair.discard() }
    let date = Date(timeIntervalSince1970: 1_000)
    let clocks = DeviceClient.performTogether(.setClock(date), on: [pair.phone, pair.watch])
    #expect(try clocks.map { try $0.get() } == [date, date])
    pair.phone.close()
    let pings = DeviceClient.performTogether(.ping, on: [pair.phone, pair.watch])
    #expect((try? pings[0].get()) == nil, "the closed phone connection fails its call")
    #expect((try? pings[1].get()) != nil, "the watch still answers")
  }

  /// The scenario runner's trace: the pair's clients keep every pushed event for the caller, and a wait for the link
  /// alone does not narrow what they are subscribed to.
  @Test func thePairsClientsKeepEventsForTheCallerThroughWaits() throws {
    let pair = try Pair(daemon: try locateDaemon())
    defer { pair.discard() }
    pair.keepSubscribed(.all)
    pair.phone.collectEvents()
    try pair.phone.subscribe(.all)
    try pair.waitLinked(timeout: 30)
    guard try Self.expectASheetShownAndCollected(on: pair.phone, read: [Self.water]) else { return }
    #expect(pair.phone.takeCollectedEvents().isEmpty, "taken once")
  }

  /// Installs the test app on `phone`, asks to share water (and read `read`) and, once the sheet is up, expects the
  /// `promptShown` event among the events `phone` collected (taking them). False when no sheet was shown (an issue is
  /// recorded).
  @discardableResult
  private static func expectASheetShownAndCollected(on phone: DeviceClient, read: [SampleType]) throws -> Bool {
    try phone.installApp(app)
    let request = try phone.beginAuthorization(app.bundleID, share: [water], read: read)
    guard case .sheet = try request.waitFirst(timeout: 30) else {
      Issue.record("the request did not show a sheet")
      return false
    }
    try phone.ping()
    let events = phone.takeCollectedEvents()
    #expect(events.contains { if case .promptShown = $0 { true } else { false } }, "\(events)")
    return true
  }
}
