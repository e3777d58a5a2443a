import FoundationEssentials
import HealthEngine
import HealthModel
import Sync
import Testing
import Wire

/// The peer core returns its side effects as actions, in order, and never calls a shell.
@Suite("Peer core actions")
struct PeerCoreTests {
  static let wall = Date(timeIntervalSince1970: 1_767_600_000)

  static func core(_ device: DeviceKind) -> (PeerCore, DeviceState) {
    let state = DeviceState(device: device)
    let role: SyncMachine.Role = device == .phone ? .listener : .connector
    return (PeerCore(role: role, device: device, secret: [1, 2, 3], sync: state.sync), state)
  }

  @Test("a connector's start asks the shell to connect; a listener's asks nothing")
  func start() {
    var (watch, watchState) = Self.core(.watch)
    var actions: [PeerCore.Action] = []
    watch.start(state: &watchState, wall: Self.wall, into: &actions)
    #expect(actions == [.connect])
    var (phone, phoneState) = Self.core(.phone)
    actions = []
    phone.start(state: &phoneState, wall: Self.wall, into: &actions)
    #expect(actions.isEmpty)
  }

  @Test("a close the machine asks for is performed only when a transport is open")
  func close() {
    var (watch, state) = Self.core(.watch)
    var actions: [PeerCore.Action] = []
    watch.handle(.control(.disconnect), state: &state, wall: Self.wall, into: &actions)
    #expect(!actions.contains { if case .close = $0 { true } else { false } })
    watch.handle(.control(.connect), state: &state, wall: Self.wall, into: &actions)
    actions = []
    watch.handle(.opened(nonce: [UInt8](repeating: 7, count: 32)), state: &state, wall: Self.wall, into: &actions)
    #expect(watch.transportOpen)
    actions = []
    watch.handle(.control(.disconnect), state: &state, wall: Self.wall, into: &actions)
    #expect(actions.contains { if case .close = $0 { true } else { false } })
    #expect(!watch.transportOpen)
  }

  @Test("a sync log identity is never zero")
  func freshLogID() {
    struct Zeros: RandomNumberGenerator {
      var left = 3
      mutating func next() -> UInt64 {
        left -= 1
        return left >= 0 ? 0 : 42
      }
    }
    var random = Zeros()
    #expect(PeerCore.freshLogID(using: &random) == 42)
  }
}
