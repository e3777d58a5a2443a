import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// The payload codecs of replies (docs/protocol.md, "Replies"): one per reply kind whose payload no request field
// shares. Each forwards to the `BinaryWriter`/`BinaryReader` methods of its parts (StatusCoding.swift, HealthCodec).

extension Codec {
  /// `hello`'s answer: version u16 | device | pid u32 | software string.
  package enum Hello: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: HelloInfo, into w: inout BinaryWriter) {
      w.u16(value.version)
      w.u8(value.device.rawValue)
      w.u32(UInt32(bitPattern: value.pid))
      w.string(value.software)
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> HelloInfo {
      HelloInfo(
        version: try r.u16(), device: try r.device(), pid: Int32(bitPattern: try r.u32()),
        software: try r.string(maxLength: 256))
    }
  }
  /// The completion of `requestAuthorization`: success bool | health-error?.
  package enum CallResult: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: AuthorizationCallResult, into w: inout BinaryWriter) { w.callResult(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> AuthorizationCallResult {
      try r.callResult()
    }
  }
  /// A presented sheet.
  package enum SheetPrompt: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: Prompt, into w: inout BinaryWriter) { w.prompt(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Prompt { try r.prompt() }
  }
  /// An `HKAuthorizationStatus` raw value (`u8`).
  package enum Status: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: AuthorizationStatus, into w: inout BinaryWriter) {
      w.u8(UInt8(value.rawValue))
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> AuthorizationStatus {
      let raw = try r.u8()
      guard let s = AuthorizationStatus(rawValue: Int(raw)) else {
        throw r.error("unknown authorization status \(raw)")
      }
      return s
    }
  }
  /// An `HKAuthorizationRequestStatus` raw value (`u8`).
  package enum RequestStatus: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: AuthorizationRequestStatus, into w: inout BinaryWriter) {
      w.u8(UInt8(value.rawValue))
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> AuthorizationRequestStatus {
      let raw = try r.u8()
      guard let s = AuthorizationRequestStatus(rawValue: Int(raw)) else {
        throw r.error("unknown request status \(raw)")
      }
      return s
    }
  }
  /// One statistics result.
  package enum StatisticsResult: FieldCodec {
    /// The smallest encoded statistics.
    package static var minimumSize: Int { 31 }
    /// Writes `value`.
    package static func write(_ value: Statistics, into w: inout BinaryWriter) { w.statistics(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Statistics { try r.statistics() }
  }
  /// A statistics collection: [statistics] | zone string.
  package enum Collection: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: (statistics: [Statistics], timeZone: String), into w: inout BinaryWriter) {
      w.array(value.statistics) { $0.statistics($1) }
      w.string(value.timeZone)
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError)
      -> (statistics: [Statistics], timeZone: String)
    {
      (
        try r.array(minElementSize: 31) { r throws(DecodeError) in try r.statistics() },
        try r.string(maxLength: 64)
      )
    }
  }
  /// Anchored query results: added import-samples | deleted [tombstone] | newAnchor u64.
  package enum Anchored: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: AnchoredResult, into w: inout BinaryWriter) {
      w.importSamples(value.added)
      w.array(value.deleted) { $0.tombstone($1) }
      w.u64(value.newAnchor)
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> AnchoredResult {
      AnchoredResult(
        added: try r.importSamples(),
        deleted: try r.array(minElementSize: 31) { r throws(DecodeError) in try r.tombstone() },
        newAnchor: try r.u64())
    }
  }
  /// `dump`'s answer: device-snapshot | link-status | pid u32 | clients u32.
  package enum Snapshot: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: DaemonSnapshot, into w: inout BinaryWriter) {
      w.deviceSnapshot(value.device)
      w.linkStatus(value.link)
      w.u32(UInt32(bitPattern: value.pid))
      w.u32(UInt32(clamping: value.clients))
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> DaemonSnapshot {
      DaemonSnapshot(
        device: try r.deviceSnapshot(), link: try r.linkStatus(), pid: Int32(bitPattern: try r.u32()),
        clients: Int(try r.u32()))
    }
  }
  /// A page of the raw store: samples [sample] | tombstones [tombstone] | next stored-cursor?.
  package enum StoredPage: FieldCodec {
    /// Writes `value`.
    package static func write(
      _ value: (samples: [Sample], tombstones: [Tombstone], next: StoredCursor?), into w: inout BinaryWriter
    ) {
      w.array(value.samples) { $0.sample($1) }
      w.array(value.tombstones) { $0.tombstone($1) }
      w.optional(value.next) { $0.storedCursor($1) }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError)
      -> (samples: [Sample], tombstones: [Tombstone], next: StoredCursor?)
    {
      (
        try r.array(minElementSize: 50) { r throws(DecodeError) in try r.sample() },
        try r.array(minElementSize: 31) { r throws(DecodeError) in try r.tombstone() },
        try r.optional { r throws(DecodeError) in try r.storedCursor() }
      )
    }
  }
  /// The link's status.
  package enum LinkState: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: LinkStatus, into w: inout BinaryWriter) { w.linkStatus(value) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> LinkStatus { try r.linkStatus() }
  }
  /// A count of objects: `u64`, clamped both ways.
  package enum Count64: FieldCodec {
    /// Eight bytes.
    package static var minimumSize: Int { 8 }
    /// Writes `value`.
    package static func write(_ value: Int, into w: inout BinaryWriter) { w.u64(UInt64(clamping: value)) }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> Int { Int(clamping: try r.u64()) }
  }
  /// An import's outcome: added [type | u64] | alreadyPresent u64 | beforeRetention u64 | characteristicsSet u64.
  package enum Imported: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: ImportOutcome, into w: inout BinaryWriter) {
      w.array(value.added.sorted { $0.key < $1.key }) { w, entry in
        w.sampleType(entry.key)
        w.u64(UInt64(clamping: entry.value))
      }
      w.u64(UInt64(clamping: value.alreadyPresent))
      w.u64(UInt64(clamping: value.beforeRetention))
      w.u64(UInt64(clamping: value.characteristicsSet))
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> ImportOutcome {
      var added: [SampleType: Int] = [:]
      let entries = try r.array(minElementSize: 10) { r throws(DecodeError) in
        (try r.sampleType(), Int(clamping: try r.u64()))
      }
      for (type, count) in entries { added[type] = count }
      var outcome = ImportOutcome(
        added: added, alreadyPresent: Int(clamping: try r.u64()), beforeRetention: Int(clamping: try r.u64()))
      outcome.characteristicsSet = Int(clamping: try r.u64())
      return outcome
    }
  }
  /// A characteristic as an app reads it: type (a characteristic type) | characteristic-value?.
  package enum TypedCharacteristic: FieldCodec {
    /// Writes `value`.
    package static func write(
      _ value: (type: SampleType, value: CharacteristicValue?), into w: inout BinaryWriter
    ) {
      w.sampleType(value.type)
      w.optional(value.value) { $0.characteristicValue($1) }
    }
    /// Reads a value; a type that is not a characteristic is refused at its offset.
    package static func read(from r: inout BinaryReader) throws(DecodeError)
      -> (type: SampleType, value: CharacteristicValue?)
    {
      let typeOffset = r.offset
      let type = try r.sampleType()
      guard type.descriptor.isCharacteristic else {
        throw DecodeError(offset: r.reportBase + typeOffset, "\(type.name) is not a characteristic type")
      }
      return (type, try r.optional { r throws(DecodeError) in try r.characteristicValue(for: type) })
    }
  }
  /// A unit string per quantity type: [type | unit string].
  package enum Units: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: [SampleType: String], into w: inout BinaryWriter) {
      w.array(value.sorted { $0.key < $1.key }) { w, item in
        w.sampleType(item.key)
        w.string(item.value)
      }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> [SampleType: String] {
      var units: [SampleType: String] = [:]
      for (t, u) in try r.array(minElementSize: 6, { r throws(DecodeError) in try r.typedUnit() }) { units[t] = u }
      return units
    }
  }
  /// Background delivery: [registration] | history [background-event].
  package enum BackgroundDeliveries: FieldCodec {
    /// Writes `value`.
    package static func write(
      _ value: (registrations: [BackgroundDeliveryStatus], history: [BackgroundDeliveryEvent]),
      into w: inout BinaryWriter
    ) {
      w.array(value.registrations) { $0.backgroundStatus($1) }
      w.array(value.history) { $0.backgroundEvent($1) }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError)
      -> (registrations: [BackgroundDeliveryStatus], history: [BackgroundDeliveryEvent])
    {
      (
        try r.array(minElementSize: 20) { r throws(DecodeError) in try r.backgroundStatus() },
        try r.array(minElementSize: 20) { r throws(DecodeError) in try r.backgroundEvent() }
      )
    }
  }
  /// Correlations with their readable members: [correlation | objects [sample]].
  package enum Correlations: FieldCodec {
    /// Writes `value`.
    package static func write(_ value: [CorrelationResult], into w: inout BinaryWriter) {
      w.array(value) { w, result in
        w.correlation(result.correlation)
        w.array(result.objects) { $0.sample($1) }
      }
    }
    /// Reads a value.
    package static func read(from r: inout BinaryReader) throws(DecodeError) -> [CorrelationResult] {
      try r.array(minElementSize: 51) { r throws(DecodeError) in
        CorrelationResult(
          correlation: try r.correlation(),
          objects: try r.array(minElementSize: 50) { r throws(DecodeError) in try r.sample() })
      }
    }
  }
}
