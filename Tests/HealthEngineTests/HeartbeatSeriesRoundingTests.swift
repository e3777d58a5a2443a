import FoundationEssentials
import Testing

@testable import HealthModel

@Suite("Heartbeat series: the span is measured on dates, to a rounding step")
struct HeartbeatSeriesRoundingTests {
  @Test("a series ending at start + its last offset validates, whatever rounding the date takes")
  func lastBeatAtTheEndValidates() throws {
    let source = SampleSource(bundleID: "a", device: .phone)
    var refused: [Double] = []
    for tenths in 1...50 {
      let offset = Double(tenths) / 10
      let start = Date(timeIntervalSinceReferenceDate: 788_947_200 - 600)
      let input = HeartbeatSeriesInput(
        uuid: UUID(), start: start, end: start + offset, beats: [Heartbeat(offset: 0), Heartbeat(offset: offset)])
      if (try? input.validated(source: source)) == nil { refused.append(offset) }
    }
    #expect(refused.isEmpty, "refused last offsets: \(refused)")
    // Beyond the end by more than the rounding step, still refused.
    let start = Date(timeIntervalSinceReferenceDate: 788_946_600)
    let late = HeartbeatSeriesInput(uuid: UUID(), start: start, end: start + 1, beats: [Heartbeat(offset: 1.001)])
    #expect((try? late.validated(source: source)) == nil)
  }
}
