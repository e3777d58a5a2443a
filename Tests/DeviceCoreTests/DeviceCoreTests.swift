import DeviceCore
import FoundationEssentials
import HealthEngine
import HealthModel
import Sync
import Testing
import Wire

/// A device core with its state and a seeded generator, driven as a shell would: every input's actions kept.
struct Harness {
  var core: DeviceCore
  var state: DeviceState
  var random = SeededGenerator(seed: 7)
  let wall = Date(timeIntervalSince1970: 1_767_600_000)

  static let app = AppRecord(
    bundleID: "com.example.core", displayName: "Core", writeUsageDescription: "w", readUsageDescription: "r")
  static let water = SampleType.lookup(name: "dietaryWater")!

  init(
    device: DeviceKind = .phone, maxClientBacklog: Int = 64 << 20, hasPeer: Bool = false, armsTimers: Bool = false,
    helloTimeout: Double = 10, handshakeTimeout: Double = 2, secret: [UInt8] = []
  ) {
    state = DeviceState(device: device)
    core = DeviceCore(
      configuration: DeviceCore.Configuration(
        device: device, hasPeer: hasPeer, pid: 42, maxClientBacklog: maxClientBacklog, armsTimers: armsTimers,
        helloTimeout: helloTimeout, handshakeTimeout: handshakeTimeout),
      secret: secret, sync: state.sync)
  }

  /// Feeds one input and returns its actions.
  @discardableResult
  mutating func turn(_ input: DeviceCore.Input) -> [DeviceCore.Action] {
    var actions: [DeviceCore.Action] = []
    core.turn(input, state: &state, wall: wall, using: &random, into: &actions)
    return actions
  }

  /// A request of `connection`: its actions.
  @discardableResult
  mutating func request(_ connection: UInt64, _ request: Request, id: UInt32 = 1) -> [DeviceCore.Action] {
    turn(.request(connection: connection, id: id, request, body: []))
  }

  /// A connection accepted and greeted.
  mutating func open(_ connection: UInt64) {
    turn(.accepted(connection: connection))
    request(connection, .hello(version: WireProtocol.version, client: "test"), id: 0)
  }

  /// A connection with the app installed and allowed to write and read water.
  mutating func openWithApp(_ connection: UInt64) {
    open(connection)
    request(connection, .installApp(Self.app))
    request(connection, .requestAuthorization(bundleID: Self.app.bundleID, share: [Self.water], read: [Self.water]))
    request(connection, .answerPrompt(promptID: nil, bundleID: Self.app.bundleID, answer: .allowAll))
    turn(.commit)
    turn(.repliesWritten)
  }

  /// A save of one water sample.
  static func save(_ mL: Double, at date: Date) -> Request {
    .save(
      bundleID: app.bundleID,
      samples: [SampleInput(uuid: UUID(), type: water, value: .quantity(mL, unit: "mL"), start: date, end: date)])
  }
}

/// The frames queued for `connection`, decoded.
func frames(to connection: UInt64, in actions: [DeviceCore.Action]) -> [Frame] {
  actions.compactMap {
    guard case .send(connection, let bytes) = $0 else { return nil }
    return try? Frame.decode(Array(bytes.dropFirst(4)))
  }
}

/// The failure message of the first response to `connection`, if it failed.
func failure(to connection: UInt64, in actions: [DeviceCore.Action]) -> String? {
  for case .response(_, .failure(let error)) in frames(to: connection, in: actions) { return "\(error)" }
  return nil
}

/// What kind of step each action is, for checking the order of a plan.
func kinds(_ actions: [DeviceCore.Action]) -> [String] {
  actions.map {
    switch $0 {
    case .send: "send"
    case .closeAfterFlush: "closeAfterFlush"
    case .helloAccepted: "helloAccepted"
    case .journal: "journal"
    case .raiseChangeMark: "raiseChangeMark"
    case .flushClients: "flushClients"
    case .flushPeer: "flushPeer"
    case .peerSend: "peerSend"
    case .peerClose: "peerClose"
    case .peerConnect: "peerConnect"
    case .peerReconnect: "peerReconnect"
    case .latencyChanged: "latencyChanged"
    case .backgroundTimer: "backgroundTimer"
    case .armTimer: "armTimer"
    case .log: "log"
    }
  }
}

@Suite("Device core: hello")
struct HelloTests {
  @Test("a request before hello is refused and the connection closed after the reply")
  func helloFirst() {
    var h = Harness()
    h.turn(.accepted(connection: 5))
    let actions = h.request(5, .ping)
    #expect(failure(to: 5, in: actions)?.contains("send hello first") == true)
    #expect(kinds(actions).suffix(2) == ["send", "closeAfterFlush"])
  }

  @Test("hello with another protocol version is refused and closes the connection")
  func wrongVersion() {
    var h = Harness()
    h.turn(.accepted(connection: 5))
    let actions = h.request(5, .hello(version: WireProtocol.version &+ 1, client: "old"))
    #expect(failure(to: 5, in: actions)?.contains("is not supported") == true)
    #expect(kinds(actions).contains("closeAfterFlush"))
    #expect(h.core.sessions[5]?.helloDone == false)
  }

  @Test("hello opens the session, lifts the frame limit and answers with the device")
  func hello() {
    var h = Harness()
    h.turn(.accepted(connection: 5))
    let actions = h.request(5, .hello(version: WireProtocol.version, client: "app"))
    #expect(h.core.sessions[5]?.helloDone == true)
    #expect(h.core.sessions[5]?.name == "app")
    #expect(kinds(actions).contains("helloAccepted"))
    guard case .response(_, .success(.hello(let info))) = frames(to: 5, in: actions).first else {
      Issue.record("no hello reply")
      return
    }
    #expect(info.device == .phone && info.pid == 42)
  }
}

@Suite("Device core: imports")
struct ImportOwnershipTests {
  static let sample = Sample(
    uuid: UUID(), type: Harness.water, value: .quantity(500), start: Date(timeIntervalSince1970: 1_767_500_000),
    end: Date(timeIntervalSince1970: 1_767_500_000), metadata: [:],
    source: SampleSource(bundleID: "com.apple.health.1", device: .phone))

  @Test("an import belongs to the connection that staged it")
  func ownership() {
    var h = Harness()
    h.open(1)
    h.open(2)
    h.request(1, .importBatch(importID: 9, samples: [Self.sample]))
    #expect(h.core.importOwners[9] == 1)
    let refused = h.request(2, .importBatch(importID: 9, samples: [Self.sample]))
    #expect(failure(to: 2, in: refused)?.contains("belongs to another connection") == true)
    #expect(h.state.stagedImports[9]?.count == 1)
  }

  @Test("an import is abandoned, durably, when its connection closes")
  func abandonedOnClose() {
    var h = Harness()
    h.open(1)
    h.request(1, .importBatch(importID: 9, samples: [Self.sample]))
    h.turn(.commit)
    let closed = h.turn(.closed(connection: 1))
    #expect(h.state.stagedImports[9] == nil)
    #expect(h.core.importOwners.isEmpty)
    #expect(kinds(closed) == ["log"])
    let commit = h.turn(.commit)
    guard case .journal(let events, _) = commit.first else {
      Issue.record("the abandonment is not journaled")
      return
    }
    #expect(!events.isEmpty)
  }
}

@Suite("Device core: reply limits")
struct ReplyLimitTests {
  @Test("an oversized reply becomes an error with a hint, never the oversized frame")
  func oversized() {
    var h = Harness(maxClientBacklog: 600)
    h.openWithApp(1)
    for i in 0..<20 { h.request(1, Harness.save(Double(i + 1), at: h.wall.addingTimeInterval(Double(-i - 1)))) }
    let actions = h.request(1, .sampleQuery(bundleID: Harness.app.bundleID, query: SampleQuery(type: Harness.water)))
    let message = failure(to: 1, in: actions)
    #expect(message?.contains("reply limit") == true)
    #expect(message?.contains("set a limit or narrow the date range") == true)
    for case .send(_, let bytes) in actions { #expect(bytes.count - 4 <= h.core.replyLimit) }
  }

  @Test("the stored page budget and the reply limit follow the backlog")
  func budgets() {
    let h = Harness(maxClientBacklog: 1000)
    #expect(h.core.replyLimit == 1000)
    #expect(h.core.storedPageBudget == 500)
    let big = Harness()
    #expect(big.core.replyLimit == WireProtocol.maxReplyFrame)
    #expect(big.core.storedPageBudget == WireProtocol.maxStoredPage)
  }
}

@Suite("Device core: the commit plan")
struct CommitPlanTests {
  @Test("the commit plan journals before it replies, then syncs, delivers and pushes")
  func order() {
    var h = Harness()
    h.openWithApp(1)
    let request = h.request(1, Harness.save(250, at: h.wall.addingTimeInterval(-60)))
    // The reply is queued, not written: nothing reaches the socket before the journal.
    #expect(kinds(request).filter { $0 != "log" } == ["send"])
    #expect(kinds(h.turn(.commit)) == ["journal", "flushClients"])
    #expect(kinds(h.turn(.repliesWritten)) == ["raiseChangeMark", "flushClients", "flushPeer"])
  }

  @Test("a turn with nothing to journal writes no journal record")
  func nothingToJournal() {
    var h = Harness()
    h.open(1)
    h.request(1, .ping)
    #expect(kinds(h.turn(.commit)) == ["flushClients"])
  }

  @Test("subscribers get the turn's events after the commit, others none")
  func pushes() {
    var h = Harness()
    h.openWithApp(1)
    h.open(2)
    h.open(3)
    h.request(2, .subscribe(.all))
    h.request(1, Harness.save(250, at: h.wall.addingTimeInterval(-60)))
    h.turn(.commit)
    let finish = h.turn(.repliesWritten)
    let pushed = frames(to: 2, in: finish).filter { if case .event = $0 { true } else { false } }
    #expect(!pushed.isEmpty)
    #expect(frames(to: 3, in: finish).isEmpty)
    #expect(frames(to: 1, in: finish).isEmpty)
  }

  @Test("a sheet's outcome answers the request that waits on it")
  func sheets() {
    var h = Harness()
    h.open(1)
    h.open(2)
    h.request(1, .installApp(Harness.app))
    let asked = h.request(
      1, .requestAuthorization(bundleID: Harness.app.bundleID, share: [Harness.water], read: []), id: 7)
    guard case .interim(7, .prompt) = frames(to: 1, in: asked).first else {
      Issue.record("no sheet shown")
      return
    }
    #expect(h.core.awaitsSheet(1))
    let answered = h.request(2, .answerPrompt(promptID: nil, bundleID: Harness.app.bundleID, answer: .allowAll))
    #expect(frames(to: 1, in: answered).contains { if case .response(7, .success) = $0 { true } else { false } })
    #expect(!h.core.awaitsSheet(1))
  }

  @Test("at shutdown a waiting sheet is withdrawn and its request answered with a failure")
  func shutdown() {
    var h = Harness()
    h.open(1)
    h.request(1, .installApp(Harness.app))
    h.request(1, .requestAuthorization(bundleID: Harness.app.bundleID, share: [Harness.water], read: []), id: 7)
    let actions = h.turn(.shutdown)
    #expect(failure(to: 1, in: actions)?.contains("shutting down") == true)
  }
}

@Suite("Device core: the quota")
struct QuotaTests {
  @Test("a connection is served at most framesPerTurn requests a turn, none while over its backlog")
  func quota() {
    #expect(ClientQuota.mayServe(served: 0, backlog: 0, maxBacklog: 10))
    #expect(ClientQuota.mayServe(served: ClientQuota.framesPerTurn - 1, backlog: 10, maxBacklog: 10))
    #expect(!ClientQuota.mayServe(served: ClientQuota.framesPerTurn, backlog: 0, maxBacklog: 10))
    #expect(!ClientQuota.mayServe(served: 0, backlog: 11, maxBacklog: 10))
  }
}
