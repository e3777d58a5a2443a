import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Sync
@testable import Wire

/// Workout-session messages on the peer link: handed to the device once the link is established, a protocol
/// violation before; the link going up or down reaches the device's sessions.
@Suite("Session messages on the peer link")
struct SessionLinkTests {
  static let wall = Date(timeIntervalSince1970: 1_767_600_000)
  static let uuid = UUID(uuidString: "11111111-2222-4333-8444-555555555555")!
  static let app = AppRecord(
    bundleID: "com.example.run", displayName: "Run", writeUsageDescription: "Run saves workouts.",
    readUsageDescription: nil)

  @Test func aSessionMessageBeforeTheLinkIsEstablishedClosesIt() {
    var watch = machine(.connector)
    _ = watch.handle(.opened(nonce: nonceB))
    let directives = watch.handle(.received(.session(.mirrorStop(Self.uuid))))
    #expect(directives.count == 1)
    guard case .close(let reason) = directives.first else {
      Issue.record("expected a close, got \(directives)")
      return
    }
    #expect(reason.contains("unexpected session mirrorStop while authenticating"))
  }

  @Test func anEstablishedLinkHandsSessionMessagesOver() {
    var phone = machine(.listener)
    var watch = machine(.connector)
    _ = connect(&phone, &watch)
    #expect(phone.isConnected && watch.isConnected)
    let message = SessionPeerMessage.control(Self.uuid, .pause)
    #expect(watch.handle(.received(.session(message))) == [.session(message)])
  }

  /// The two peer cores, with the watch's session mirroring asked for before the link came up.
  @Test func mirroringAskedForWhileTheLinkIsDownStartsWhenItComesUp() throws {
    var phoneState = DeviceState(device: .phone)
    var watchState = DeviceState(device: .watch)
    _ = try phoneState.install(Self.app)
    _ = try watchState.install(Self.app)
    var phone = PeerCore(role: .listener, device: .phone, secret: secret, sync: phoneState.sync)
    var watch = PeerCore(role: .connector, device: .watch, secret: secret, sync: watchState.sync)
    var actions: [PeerCore.Action] = []
    phone.start(state: &phoneState, wall: Self.wall, into: &actions)
    watch.start(state: &watchState, wall: Self.wall, into: &actions)
    let bundleID = Self.app.bundleID
    let id = try watchState.createWorkoutSession(
      bundleID, uuid: Self.uuid, configuration: WorkoutConfiguration(activityType: .running))
    _ = try watchState.startSessionMirroring(bundleID, id, wall: Self.wall)
    actions = []
    watch.drainSessions(state: &watchState, into: &actions)
    #expect(!actions.contains { if case .send = $0 { true } else { false } }, "the link is down: nothing is sent")

    // The handshake, each side's sends carried to the other until both are quiet.
    var toPhone: [PeerMessage] = []
    var toWatch: [PeerMessage] = []
    var phoneHeard: [PeerCore.Notice] = []
    func collect(_ actions: [PeerCore.Action], into queue: inout [PeerMessage], heard: inout [PeerCore.Notice]) {
      for action in actions {
        if case .send(let message, _) = action { queue.append(message) }
        if case .notify(let notice) = action { heard.append(notice) }
      }
    }
    var watchHeard: [PeerCore.Notice] = []
    actions = []
    phone.handle(.opened(nonce: nonceA), state: &phoneState, wall: Self.wall, into: &actions)
    collect(actions, into: &toWatch, heard: &phoneHeard)
    actions = []
    watch.handle(.opened(nonce: nonceB), state: &watchState, wall: Self.wall, into: &actions)
    collect(actions, into: &toPhone, heard: &watchHeard)
    var watchSent: [PeerMessage] = []
    while !toPhone.isEmpty || !toWatch.isEmpty {
      for message in toWatch {
        actions = []
        watch.handle(.received(message), state: &watchState, wall: Self.wall, into: &actions)
        collect(actions, into: &toPhone, heard: &watchHeard)
      }
      toWatch = []
      watchSent += toPhone
      for message in toPhone {
        actions = []
        phone.handle(.received(message), state: &phoneState, wall: Self.wall, into: &actions)
        collect(actions, into: &toWatch, heard: &phoneHeard)
      }
      toPhone = []
    }
    let resume = try #require(watchSent.firstIndex { if case .resume = $0 { true } else { false } })
    let start = try #require(
      watchSent.firstIndex { if case .session(.mirrorStart(let s)) = $0 { s.generation == 1 } else { false } })
    #expect(resume < start, "the mirrored session's start follows the resume on the wire")
    let mirrored = WorkoutSessionID(uuid: Self.uuid, generation: 1)
    #expect(phoneHeard.contains(.sessions([.mirroringStarted(app: bundleID, id: mirrored)])))
    #expect(phoneState.live.registry.session(mirrored)?.type == .mirrored)
  }
}
