import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

/// The transitions workouts.md §2.2 allows (with HealthPair's stop-from-paused and end-from-anywhere models).
let legalTransitions: Set<String> = [
  "notStarted→prepared", "notStarted→running", "prepared→running", "running→paused", "paused→running",
  "running→stopped", "paused→stopped", "notStarted→ended", "prepared→ended", "running→ended", "paused→ended",
  "stopped→ended",
]

@Suite("Workout sessions: random call sequences keep the state machine's invariants")
struct SessionPropertyTests {
  @Test(arguments: 0..<8) func randomCallsOnlyMakeLegalTransitions(seed: UInt64) {
    var random = SplitMix(seed: seed)
    for _ in 0..<60 {
      var session = newSession()
      var clock = 0.0
      var state = session.state
      for _ in 0..<20 {
        clock += Double(random.next() % 30)
        let now = at(clock)
        let back = at(clock - Double(random.next() % 60))
        let commands: [SessionCommand] = [
          .prepare, .startActivity(now), .pause, .resume, .stopActivity(back), .end,
          .beginNewActivity(outdoorRun, date: back, metadata: [:], uuid: UUID()), .endCurrentActivity(back),
        ]
        let command = commands[Int(random.next() % UInt64(commands.count))]
        let callbacks = session.apply(command, at: now)
        for callback in callbacks {
          guard case .didChange(let to, let from, _) = callback else { continue }
          #expect(from == state, "a change starts from the state the session was in")
          #expect(legalTransitions.contains("\(from)→\(to)"), "\(from)→\(to) after \(command.name)")
          state = to
        }
        #expect(session.state == state, "the state changes only with a didChange")
        if callbacks.contains(where: { if case .didFail = $0 { true } else { false } }) {
          #expect(callbacks.count == 1, "a refused call reports only its failure")
        }
      }
      let types = session.events.map(\.type)
      #expect(types.enumerated().allSatisfy { $0.element == ($0.offset.isMultiple(of: 2) ? .pause : .resume) })
      #expect(session.activities.filter { $0.end == nil }.count <= 1, "at most one open activity")
      if session.state == .ended { #expect(session.currentActivity == nil && session.end != nil) }
      if let start = session.start, let stop = session.stop { #expect(stop >= start) }
    }
  }
}
