import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Journal
@testable import Posix

@Suite("Tombstones keep the deleted object's sync identifier and version")
struct TombstoneMetadataTests {
  let source = SampleSource(bundleID: app.bundleID, device: .phone)

  private func encoded(_ tombstone: Tombstone) -> [UInt8] {
    var writer = BinaryWriter()
    writer.tombstone(tombstone)
    return writer.bytes
  }

  private func decoded(_ bytes: [UInt8]) throws -> Tombstone {
    try bytes.withUnsafeBytes { buffer in
      var reader = BinaryReader(buffer)
      let tombstone = try reader.tombstone()
      try reader.expectEnd("tombstone")
      return tombstone
    }
  }

  @Test("only the two keys are kept, and they round-trip; a tombstone without them is written as before")
  func encoding() throws {
    let metadata: Metadata = [
      MetadataKey.syncIdentifier: .string("cup-1"), MetadataKey.syncVersion: .int(3), "HKWasUserEntered": .bool(true),
    ]
    let kept = Tombstone(uuid: UUID(), type: water, source: source, deletedAt: t0, metadata: metadata)
    #expect(kept.metadata == [MetadataKey.syncIdentifier: .string("cup-1"), MetadataKey.syncVersion: .int(3)])
    #expect(try decoded(encoded(kept)) == kept)
    let plain = Tombstone(uuid: kept.uuid, type: water, source: source, deletedAt: t0)
    var layout = BinaryWriter()  // uuid | type u16 | source | deletedAt: the layout before tombstones had metadata
    layout.uuid(plain.uuid)
    layout.u16(water.code)
    layout.source(source)
    layout.date(t0)
    #expect(encoded(plain) == layout.bytes)
    #expect(try decoded(layout.bytes) == plain)
  }

  @Test("a flagged tombstone holding other metadata is refused at its offset")
  func otherKeysAreRefused() throws {
    var writer = BinaryWriter()
    writer.uuid(UUID())
    writer.u16(water.code | BinaryWriter.tombstoneMetadataFlag)
    writer.source(source)
    writer.date(t0)
    let metadataOffset = writer.bytes.count
    writer.metadata(["HKWasUserEntered": .bool(true)])
    #expect {
      try decoded(writer.bytes)
    } throws: { error in
      (error as? DecodeError)?.offset == metadataOffset && "\(error)".contains("sync identifier and version")
    }
  }

  @Test("a deletion replayed from the journal, or from a snapshot, keeps the keys")
  func replayKeepsThem() throws {
    let dir = try TempDir()
    let path = dir.file("phone.journal")
    let sample = Sample(
      uuid: UUID(), type: water, value: .quantity(250), start: t0, end: t0,
      metadata: [MetadataKey.syncIdentifier: .string("cup-1"), MetadataKey.syncVersion: .double(2.5)], source: source)
    let expected: Metadata = [MetadataKey.syncIdentifier: .string("cup-1"), MetadataKey.syncVersion: .double(2.5)]
    do {
      let device = try DurableDevice(path: path, device: .phone)
      let events: [DeviceEvent] = [
        .samplesSaved([sample]),
        .samplesDeleted([
          Tombstone(uuid: sample.uuid, type: water, source: source, deletedAt: t0, metadata: sample.metadata)
        ]),
      ]
      for event in events { device.state.apply(event) }
      try device.persist(events)
      #expect(device.state.storedTombstones.first?.metadata == expected)
      try device.writeSnapshot()
    }
    let replayed = try DurableDevice(path: path, device: .phone, snapshots: false)
    #expect(replayed.state.storedTombstones.map(\.metadata) == [expected])
    let fromSnapshot = try DurableDevice(path: path, device: .phone)
    #expect(fromSnapshot.recovery.resumedRecords > 0)
    #expect(fromSnapshot.state.storedTombstones.map(\.metadata) == [expected])
  }
}
