import FoundationEssentials
import Testing

@testable import HealthCodec
@testable import HealthEngine
@testable import HealthModel
@testable import Wire

@Suite("Import messages")
struct ImportMessageTests {
  static let details = SourceDetails(
    name: "Robin’s Apple Watch", version: "11.2",
    hardware: HardwareDetails(fields: [.init("name", "Apple Watch"), .init("model", "Watch")]))
  static let samples: [Sample] = (0..<4).map { i in
    Sample(
      uuid: UUID(), type: water, value: .quantity(Double(i * 100)), start: t0, end: t0.addingTimeInterval(60),
      metadata: i == 1 ? ["HKWasUserEntered": .bool(true)] : [:],
      source: i == 2
        ? SampleSource(bundleID: "com.example.water", device: .phone)
        : SampleSource(bundleID: "com.apple.health.X", device: .watch, details: details))
  }

  /// A sample without metadata is written as one 51-byte record; the bytes are exactly the field-by-field layout
  /// (uuid, type, kind, value, start, end, source index, empty metadata), for quantities and categories, and a batch
  /// mixing them with samples that have metadata reads back unchanged.
  @Test func aSampleWithoutMetadataIsWrittenAsItsFieldsAre() throws {
    let sleep = SampleType.lookup(name: "sleepAnalysis")!
    let category = Sample(
      uuid: UUID(), type: sleep, value: .category(-3), start: t0.addingTimeInterval(-1.5), end: t0, metadata: [:],
      source: Self.samples[0].source)
    let batch = Self.samples + [category]
    var writer = BinaryWriter()
    writer.importSamples(batch)
    var expected = BinaryWriter()
    expected.array([Self.samples[0].source, Self.samples[2].source]) { $0.source($1) }
    expected.u32(UInt32(batch.count))
    for (sample, index) in zip(batch, [0, 0, 1, 0, 0] as [UInt32]) {
      expected.uuid(sample.uuid)
      expected.sampleType(sample.type)
      switch sample.value {
      case .quantity(let v):
        expected.u8(0)
        expected.f64(v)
      case .category(let c):
        expected.u8(1)
        expected.i64(Int64(c))
      }
      expected.date(sample.start)
      expected.date(sample.end)
      expected.u32(index)
      expected.metadata(sample.metadata)
    }
    #expect(writer.bytes == expected.bytes)
    let decoded = try writer.bytes.withUnsafeBytes { buffer in
      var reader = BinaryReader(buffer)
      return try reader.importSamples()
    }
    #expect(decoded == batch)
  }

  @Test func importRequestsAndTheirReplyRoundTrip() throws {
    for request: Request in [
      .importBatch(importID: 9, samples: Self.samples), .importBatch(importID: 1, samples: []),
      .importCommit(importID: 9), .importAbort(importID: .max),
    ] {
      #expect(try Frame.decode(Frame.request(id: 4, request).encoded()) == .request(id: 4, request))
    }
    let outcome = ImportOutcome(
      added: [water: 3, SampleType.lookup(name: "heartRate")!: 1], alreadyPresent: 2,
      beforeRetention: 5)
    let reply = Frame.response(id: 4, .success(.imported(outcome)))
    #expect(try Frame.decode(reply.encoded()) == reply)
  }

  /// The daemon journals a staged batch as the `importBatch` request's bytes (`DeviceCore`, the `.journal`
  /// action's `encoded`): after the message type and the request id, the request must be byte for byte the
  /// `importStaged` journal record, and that record must read back as the event.
  @Test func anImportBatchRequestIsItsJournalRecordAfterTheFrameHeader() throws {
    for samples in [Self.samples, [], Array(Self.samples.reversed())] {
      let body = Frame.request(id: 0x0102_0304, .importBatch(importID: 77, samples: samples)).encoded()
      var event = BinaryWriter()
      event.event(.importStaged(id: 77, samples: samples))
      #expect(Array(body[5...]) == event.bytes)
      let decoded = try event.bytes.withUnsafeBytes { buffer throws(DecodeError) in
        var reader = BinaryReader(buffer)
        return try reader.event()
      }
      guard case .importStaged(let id, let read) = decoded else {
        Issue.record("decoded \(decoded)")
        continue
      }
      #expect(id == 77 && read == samples)
    }
  }

  @Test func importIdentityZeroAndBadSourceIndicesAreDecodeErrors() throws {
    // The identifier is followed by the characteristics' count (4 bytes).
    var zero = Frame.request(id: 1, .importCommit(importID: 5)).encoded()
    zero.replaceSubrange(zero.count - 12..<zero.count - 4, with: [UInt8](repeating: 0, count: 8))
    #expect(throws: DecodeError.self) { try Frame.decode(zero) }
    // Characteristics: only characteristic types, each once, with values that fit them.
    let bloodType = SampleType.lookup(name: "bloodType")!
    let me: [SampleType: CharacteristicValue] = [
      bloodType: .value(8), SampleType.lookup(name: "dateOfBirth")!: .dateOfBirth(year: 1988, month: 6, day: 14),
    ]
    let commit = Frame.request(id: 2, .importCommit(importID: 5, characteristics: me))
    #expect(try Frame.decode(commit.encoded()) == commit)
    for bad in [[water: CharacteristicValue.value(1)], [bloodType: .value(42)]] {
      #expect(throws: DecodeError.self) {
        try Frame.decode(Frame.request(id: 3, .importCommit(importID: 5, characteristics: bad)).encoded())
      }
    }
    var writer = BinaryWriter()
    writer.importSamples(Self.samples)
    var bytes = writer.bytes
    // The first sample's source index (after the source table, the count and 51 bytes of the sample) made 9.
    let tableEnd: Int = {
      var table = BinaryWriter()
      table.array([Self.samples[0].source, Self.samples[2].source]) { $0.source($1) }
      return table.bytes.count
    }()
    bytes[tableEnd + 4 + 43] = 9
    #expect(throws: DecodeError.self) {
      try bytes.withUnsafeBytes { buffer in
        var reader = BinaryReader(buffer)
        _ = try reader.importSamples()
      }
    }
  }

  @Test func syncEntriesOfImportedSamplesListTheirSourcesOnce() throws {
    let entry = SyncEntry(seq: 3, payload: .samples(Self.samples))
    let message = PeerMessage.entries([entry])
    #expect(try PeerMessage.decode(message.encoded()) == message)
    var writer = BinaryWriter()
    writer.syncEntry(entry)
    #expect(writer.bytes[8] == 4, "tag 4: samples with a source table")
    var plain = BinaryWriter()
    plain.syncEntry(SyncEntry(seq: 3, payload: .samples([Self.samples[2]])))
    #expect(plain.bytes[8] == 0, "samples without export details keep tag 0")
  }
}
