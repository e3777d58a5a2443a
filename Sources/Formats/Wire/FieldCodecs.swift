import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

/// The codecs of request fields and reply payloads, one per kind of value on the wire (replies' own are in
/// ReplyCodecs.swift).
package enum Codec {
  /// An unsigned 16-bit integer.
  package enum U16: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: UInt16, into w: inout BinaryWriter) { w.u16(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> UInt16 { try r.u16() }
  }
  /// An unsigned 64-bit integer.
  package enum U64: FieldCodec {
    /// Eight bytes.
    package static var minimumSize: Int { 8 }
    /// Writes `value`.
    package static func write(_ value: UInt64, into w: inout BinaryWriter) { w.u64(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> UInt64 { try r.u64() }
  }
  /// A double.
  package enum F64: FieldCodec {
    /// Eight bytes.
    package static var minimumSize: Int { 8 }
    /// Writes `value`.
    package static func write(_ value: Double, into w: inout BinaryWriter) { w.f64(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Double { try r.f64() }
  }
  /// A boolean byte.
  package enum Flag: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: Bool, into w: inout BinaryWriter) { w.bool(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Bool { try r.bool() }
  }
  /// A count or limit: `u32`, clamped when written.
  package enum Count: FieldCodec {
    /// Four bytes.
    package static var minimumSize: Int { 4 }
    /// Writes `value`, clamped to 32 bits.
    package static func write(_ value: Int, into w: inout BinaryWriter) { w.u32(UInt32(clamping: value)) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Int { Int(try r.u32()) }
  }
  /// A client's name in `hello` (at most 256 bytes).
  package enum ClientName: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: String, into w: inout BinaryWriter) { w.string(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> String {
      try r.string(maxLength: 256)
    }
  }
  /// A bundle identifier (at most 1,024 bytes).
  package enum Bundle: FieldCodec {
    /// A length and at least one byte.
    package static var minimumSize: Int { 4 }
    /// Writes `value`.
    package static func write(_ value: String, into w: inout BinaryWriter) { w.string(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> String { try r.bundle() }
  }
  /// A sample type's catalog code.
  package enum SampleTypeCode: FieldCodec {
    /// Two bytes.
    package static var minimumSize: Int { 2 }
    /// Writes `value`.
    package static func write(_ value: SampleType, into w: inout BinaryWriter) { w.sampleType(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SampleType { try r.sampleType() }
  }
  /// A UUID.
  package enum Identifier: FieldCodec {
    /// Sixteen bytes.
    package static var minimumSize: Int { 16 }
    /// Writes `value`.
    package static func write(_ value: UUID, into w: inout BinaryWriter) { w.uuid(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> UUID { try r.uuid() }
  }
  /// A date.
  package enum Instant: FieldCodec {
    /// Eight bytes.
    package static var minimumSize: Int { 8 }
    /// Writes `value`.
    package static func write(_ value: Date, into w: inout BinaryWriter) { w.date(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Date { try r.date() }
  }
  /// A date range.
  package enum Range: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: DateRange, into w: inout BinaryWriter) { w.dateRange(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> DateRange { try r.dateRange() }
  }
  /// An import's identity (never zero).
  package enum ImportID: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: UInt64, into w: inout BinaryWriter) { w.u64(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> UInt64 { try r.importIdentity() }
  }
  /// A sample an app saves.
  package enum NewSample: FieldCodec {
    /// The smallest encoded sample input.
    package static var minimumSize: Int { 43 }
    /// Writes `value`.
    package static func write(_ value: SampleInput, into w: inout BinaryWriter) { w.sampleInput(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SampleInput { try r.sampleInput() }
  }
  /// An import's batch of stored samples (with its own source table).
  package enum ImportedSamples: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: [Sample], into w: inout BinaryWriter) { w.importSamples(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> [Sample] { try r.importSamples() }
  }
  /// Characteristic values by type.
  package enum Characteristics: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: [SampleType: CharacteristicValue], into w: inout BinaryWriter) {
      w.characteristics(value)
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> [SampleType: CharacteristicValue] {
      try r.characteristics()
    }
  }
  /// A sample query.
  package enum Query: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: SampleQuery, into w: inout BinaryWriter) { w.sampleQuery(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SampleQuery { try r.sampleQuery() }
  }
  /// A statistics query.
  package enum StatisticsRequest: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: StatisticsQuery, into w: inout BinaryWriter) { w.statisticsQuery(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> StatisticsQuery {
      try r.statisticsQuery()
    }
  }
  /// A change in the privacy settings.
  package enum Settings: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: SettingsChange, into w: inout BinaryWriter) { w.settingsChange(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SettingsChange {
      try r.settingsChange()
    }
  }
  /// A device policy.
  package enum Policy: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: DevicePolicy, into w: inout BinaryWriter) { w.policy(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> DevicePolicy { try r.policy() }
  }
  /// Where a page of the raw store starts.
  package enum Cursor: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: StoredCursor, into w: inout BinaryWriter) { w.storedCursor(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> StoredCursor {
      try r.storedCursor()
    }
  }
  /// The events a connection subscribes to (`u32` mask).
  package enum Events: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: EventMask, into w: inout BinaryWriter) { w.u32(value.rawValue) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> EventMask {
      EventMask(rawValue: try r.u32())
    }
  }
  /// A command to the peer link: `u8` 0 connect | 1 disconnect | 2 hold | 3 release | 4 latency f64 |
  /// 5 reconnect now.
  package enum Link: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: LinkCommand, into w: inout BinaryWriter) {
      switch value {
      case .connect: w.u8(0)
      case .disconnect: w.u8(1)
      case .hold: w.u8(2)
      case .release: w.u8(3)
      case .latency(let s):
        w.u8(4)
        w.f64(s)
      case .reconnectNow: w.u8(5)
      case .status: w.u8(6)
      }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> LinkCommand {
      switch try r.u8() {
      case 0: .connect
      case 1: .disconnect
      case 2: .hold
      case 3: .release
      case 4: .latency(try r.f64())
      case 5: .reconnectNow
      case 6: .status
      case let t: throw r.error("unknown link command \(t)")
      }
    }
  }
  /// The user's answer to a sheet.
  package enum Answer: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: PromptAnswer, into w: inout BinaryWriter) { w.promptAnswer(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> PromptAnswer {
      try r.promptAnswer()
    }
  }
  /// A value the user changes in the Health app.
  package enum Setting: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: UserSetting, into w: inout BinaryWriter) { w.userSetting(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> UserSetting { try r.userSetting() }
  }
  /// An `HKUpdateFrequency` raw value.
  package enum Frequency: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: UpdateFrequency, into w: inout BinaryWriter) { w.u8(value.rawValue) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> UpdateFrequency {
      try r.updateFrequency()
    }
  }
  /// A data source.
  package enum Source: FieldCodec {
    /// The smallest encoded source.
    package static var minimumSize: Int { 5 }
    /// Writes `value`.
    package static func write(_ value: SampleSource, into w: inout BinaryWriter) { w.source(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> SampleSource { try r.source() }
  }
  /// An app record (its entitlements travel in their own field).
  package enum App: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: AppRecord, into w: inout BinaryWriter) { w.app(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> AppRecord { try r.app() }
  }
  /// An app's entitlements.
  package enum Entitlements: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: Set<Entitlement>, into w: inout BinaryWriter) { w.entitlements(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Set<Entitlement> {
      try r.entitlements()
    }
  }
  /// An app's clinical-record Info.plist keys.
  package enum HealthRecordsInfo: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: HealthEngine.HealthRecordsInfo, into w: inout BinaryWriter) {
      w.healthRecordsInfo(value)
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> HealthEngine.HealthRecordsInfo {
      try r.healthRecordsInfo()
    }
  }
  /// A correlation an app saves: identifier, type, dates, metadata and its new members.
  package enum NewCorrelation: FieldCodec {
    /// The smallest encoded correlation input.
    package static var minimumSize: Int { 42 }
    /// Writes `value`.
    package static func write(_ value: CorrelationInput, into w: inout BinaryWriter) {
      w.uuid(value.uuid)
      w.sampleType(value.type)
      w.date(value.start)
      w.date(value.end)
      w.metadata(value.metadata)
      Many<NewSample>.write(value.members, into: &w)
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> CorrelationInput {
      CorrelationInput(
        uuid: try r.uuid(), type: try r.sampleType(), start: try r.date(), end: try r.date(),
        metadata: try r.metadata(), members: try Many<NewSample>.read(from: &r))
    }
  }
  /// A stored correlation (of an import).
  package enum StoredCorrelation: FieldCodec {
    /// The smallest encoded correlation.
    package static var minimumSize: Int { 47 }
    /// Writes `value`.
    package static func write(_ value: Correlation, into w: inout BinaryWriter) { w.correlation(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Correlation { try r.correlation() }
  }
  /// A correlation query: the sample query of the correlations, then the conditions on their members.
  package enum CorrelationRequest: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: CorrelationQuery, into w: inout BinaryWriter) {
      w.sampleQuery(value.base)
      w.array(value.members) { w, m in
        w.sampleType(m.type)
        w.optional(m.range) { $0.dateRange($1) }
        w.optional(m.filter) { $0.sampleFilter($1) }
      }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> CorrelationQuery {
      let base = try r.sampleQuery()
      let members = try r.array(minElementSize: 4) { r throws(DecodeError) in
        CorrelationQuery.MemberCondition(
          type: try r.sampleType(), range: try r.optional { r throws(DecodeError) in try r.dateRange() },
          filter: try r.optional { r throws(DecodeError) in try r.sampleFilter() })
      }
      return CorrelationQuery(base: base, members: members)
    }
  }
  /// An optional field: a flag byte (0 absent, 1 present) and the value.
  package enum Optional<Wrapped: FieldCodec>: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: Wrapped.Value?, into w: inout BinaryWriter) {
      w.optional(value) { Wrapped.write($1, into: &$0) }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Wrapped.Value? {
      try r.optional { r throws(DecodeError) in try Wrapped.read(from: &r) }
    }
  }
  /// An array: a `u32` count and the elements; a count the remaining bytes cannot hold is refused before reading.
  ///
  /// Both directions are also compiled for the samples of `save` (the request clients make most), so its row's
  /// codec path calls them without looking up generic metadata per element; `RequestTableTests` and the pinned
  /// frames check the bytes.
  package enum Many<Element: FieldCodec>: FieldCodec {
    /// A count.
    package static var minimumSize: Int { 4 }
    /// Writes `value`: the count, then each element.
    @_specialize(where Element == Codec.NewSample)
    package static func write(_ value: [Element.Value], into w: inout BinaryWriter) {
      w.u32(UInt32(value.count))
      for element in value { Element.write(element, into: &w) }
    }
    /// Reads a value.
    @_specialize(where Element == Codec.NewSample)
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> [Element.Value] {
      try r.array(minElementSize: Element.minimumSize) { r throws(DecodeError) in try Element.read(from: &r) }
    }
  }
  /// No bytes: the payload of a reply that carries nothing (`ok`).
  package enum Nothing: FieldCodec {
    /// Nothing.
    package static var minimumSize: Int { 0 }
    /// Writes nothing.
    package static func write(_ value: Void, into w: inout BinaryWriter) {}
    /// Reads nothing.
    package static func read(from r: inout BinaryReader) throws(DecodeError) {}
  }
}
