import Foundation
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Wire

/// Peer message 11, `session`: every kind round-trips, and bad bytes are a located ``DecodeError``, never a crash.
@Suite("Session peer messages")
struct SessionPeerMessageTests {
  @Test func everyKindRoundTrips() throws {
    for message in WorkoutExamples.sessionPeerMessages {
      let bytes = PeerMessage.session(message).encoded()
      #expect(bytes.prefix(2) == [11, bytes[1]])
      #expect(try PeerMessage.decode(bytes) == .session(message), "\(message.name)")
    }
  }

  @Test func everyTruncationIsALocatedDecodeError() {
    for message in WorkoutExamples.sessionPeerMessages {
      let bytes = PeerMessage.session(message).encoded()
      for length in 1..<bytes.count {
        #expect(throws: DecodeError.self, "\(message.name) cut at \(length)") {
          _ = try PeerMessage.decode(Array(bytes.prefix(length)))
        }
      }
    }
  }

  @Test func anUnknownKindOrStateNamesItsOffset() {
    let kind = #expect(throws: DecodeError.self) { try PeerMessage.decode([11, 10]) }
    #expect(kind?.offset == 2)
    #expect(kind?.message == "unknown session peer message kind 10")
    var bytes = PeerMessage.session(.stateChanged(WorkoutExamples.u1, to: .paused, from: .running, date: t0)).encoded()
    bytes[18] = 99  // the `to` state, after the tag, the kind and the 16-byte identifier
    let state = #expect(throws: DecodeError.self) { try PeerMessage.decode(bytes) }
    #expect(state?.offset == 19)
    #expect(state?.message == "unknown workout session state 99")
  }
}
