import FoundationEssentials
import TestSupport
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel

/// The correlation events (journal tags 75–77) and sync payloads (75, 76), pinned byte for byte: a change to their
/// encoding fails here even when round trips stay green (docs/journal.md).
@Suite("Journal: correlation events pinned")
struct CorrelationEventFixtureTests {
  static let bloodPressure = SampleType.lookup(name: "bloodPressure")!
  static let correlation = Correlation(
    uuid: UUID(uuidString: "C0000000-0000-4000-8000-000000000001")!, type: bloodPressure, start: t0, end: t0,
    metadata: ["HKWasUserEntered": .bool(true)], source: JournalFixture.phoneSource,
    members: [JournalFixture.savedID, JournalFixture.sessionID])
  static let tombstone = Tombstone(
    uuid: correlation.uuid, type: bloodPressure, source: JournalFixture.phoneSource, deletedAt: t0)

  static let events: [(DeviceEvent, String)] = [
    (
      .correlationsSaved([correlation]),
      "4b01000000c0000000000040008000000000000001280000000080d385c74100000080d385c7411100000063"
        + "6f6d2e6578616d706c652e7761746572000100000010000000484b57617355736572456e7465726564010102"
        + "0000005a1e00000000400080000000000000015a1e0000000040008000000000000002"
    ),
    (
      .correlationsDeleted([tombstone]),
      "4c01000000c0000000000040008000000000000001280011000000636f6d2e6578616d706c652e7761746572"
        + "0000000080d385c741"
    ),
    (
      .importCorrelationsStaged(id: 9, [correlation]),
      "4d090000000000000001000000c0000000000040008000000000000001280000000080d385c74100000080d3"
        + "85c74111000000636f6d2e6578616d706c652e7761746572000100000010000000484b57617355736572456e"
        + "74657265640101020000005a1e00000000400080000000000000015a1e0000000040008000000000000002"
    ),
    (
      .peerEntriesApplied(
        [
          SyncEntry(seq: 1, payload: .correlations([correlation])),
          SyncEntry(seq: 2, payload: .correlationDeletions([tombstone])),
        ], at: t0),
      "0900000080d385c7410200000001000000000000004b01000000c00000000000400080000000000000012800"
        + "00000080d385c74100000080d385c74111000000636f6d2e6578616d706c652e776174657200010000001000"
        + "0000484b57617355736572456e74657265640101020000005a1e00000000400080000000000000015a1e0000"
        + "00004000800000000000000202000000000000004c01000000c0000000000040008000000000000001280011"
        + "000000636f6d2e6578616d706c652e77617465720000000080d385c741"
    ),
  ]

  @Test func eachEventEncodesToItsPinnedBytesAndBack() throws {
    for (event, hex) in Self.events {
      var writer = BinaryWriter()
      writer.event(event)
      #expect(Hex.string(writer.bytes) == hex, "\(event)")
      let decoded = try writer.bytes.withUnsafeBytes { buffer throws(DecodeError) in
        var reader = BinaryReader(buffer)
        let event = try reader.event()
        try reader.expectEnd("event")
        return event
      }
      #expect(decoded == event)
    }
  }
}
