import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Replay")
struct ReplayTests {
  /// Applying the recorded events to a fresh device rebuilds exactly the same state.
  @Test(arguments: [1, 2, 3, 42])
  func replayRebuildsTheSameState(seed: UInt64) throws {
    var rng = SplitMix(seed: seed)
    var live = makeDevice(.watch)
    var log: [DeviceEvent] = [.clockSet(t0)] + [waterApp, returnApp].map { DeviceEvent.appInstalled($0) }
    let types = [water, mindful, steps]
    var saved: [UUID] = []
    for _ in 0..<300 {
      do {
        switch rng.next() % 7 {
        case 0:
          let type = types[Int(rng.next() % 3)]
          if case .prompt = try live.requestAuthorization(waterApp.bundleID, share: [type], read: [type], wall: t0) {
            let answers: [PromptAnswer] = [.allowAll, .denyAll, .cancel, .failToPresent(.error)]
            log += try live.answerPrompt(id: nil, bundleID: nil, answer: answers[Int(rng.next() % 4)]).events
          }
        case 1, 2:
          let id = UUID(uuid: rng.uuid())
          log += try live.save(
            waterApp.bundleID,
            [waterInput(Double(rng.next() % 500), at: t0.addingTimeInterval(-Double(rng.next() % 500_000)), uuid: id)],
            wall: t0)
          saved.append(id)
        case 3:
          if let id = saved.randomElement(using: &rng) { log += try live.delete(waterApp.bundleID, [id], wall: t0) }
        case 4:
          log += try live.advanceClock(by: Double(rng.next() % 86400), wall: t0)
        case 5:
          log += try live.queueWatchSettings(waterApp.bundleID, .reset)
        default:
          log += try live.setPolicy(
            DevicePolicy(reprompt: rng.next() % 2 == 0 ? .strict : .standard, retention: 7 * 86400))
        }
      } catch {
        // Rejected operations change nothing and return no events.
      }
    }
    var replayed = DeviceState(device: .watch)
    for event in log { replayed.apply(event) }
    var live2 = live
    _ = live2.withdrawAllPrompts()
    #expect(replayed.snapshot(wall: t0).apps == live.snapshot(wall: t0).apps)
    #expect(replayed.storedSamples(wall: t0) == live.storedSamples(wall: t0))
    #expect(replayed.storedTombstones == live.storedTombstones)
    #expect(replayed.sync == live.sync)
    #expect(replayed.virtualNow == live.virtualNow)
    #expect(replayed.policy == live.policy)
  }
}
