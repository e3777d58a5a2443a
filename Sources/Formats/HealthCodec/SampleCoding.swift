import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encodings of samples and what they are made of — sources, metadata, import batches, new samples,
// tombstones, correlations — shared by the wire protocol, the journal and snapshots. Each `encode` has a matching
// reader that validates enumerations, codes and finiteness; docs/protocol.md lists the layouts.

extension BinaryWriter {
  /// `u16` type code.
  package mutating func sampleType(_ t: SampleType) { u16(t.code) }
  /// `string` bundle id, `u8` device; with ``SampleSource/details`` the device byte has bit 7 set and the details
  /// follow: `string` name, optional `string` version, optional hardware (`u32` count of `string` key, `string`
  /// value). A source without details has bit 7 clear and nothing after its device byte (`EventFixtureTests`).
  package mutating func source(_ s: SampleSource) {
    string(s.bundleID)
    guard let details = s.details else {
      u8(s.device.rawValue)
      return
    }
    u8(s.device.rawValue | 0x80)
    string(details.name)
    optional(details.version) { $0.string($1) }
    optional(details.hardware) { writer, hardware in
      writer.array(hardware.fields) { w, field in
        w.string(field.key)
        w.string(field.value)
      }
    }
  }
  /// `u8` tag (0 string, 1 bool, 2 int, 3 double, 4 date, 5 quantity) then the value.
  package mutating func metadataValue(_ v: MetadataValue) {
    switch v {
    case .string(let s):
      u8(0)
      string(s)
    case .bool(let b):
      u8(1)
      bool(b)
    case .int(let i):
      u8(2)
      i64(i)
    case .double(let d):
      u8(3)
      f64(d)
    case .date(let d):
      u8(4)
      date(d)
    case .quantity(let value, let unit):
      u8(5)
      f64(value)
      string(unit)
    }
  }
  /// `u32` count, then (key string, value) pairs sorted by key.
  package mutating func metadata(_ m: Metadata) {
    u32(UInt32(m.count))
    // Most samples have none: nothing to sort (a sample reply writes thousands of these).
    if m.isEmpty { return }
    if m.count == 1 {
      let (k, v) = m.first!
      string(k)
      metadataValue(v)
      return
    }
    for key in m.keys.sorted() {
      string(key)
      metadataValue(m[key]!)
    }
  }
  /// uuid, type, `u8` kind (0 quantity f64, 1 category i64), start, end, source, metadata.
  package mutating func sample(_ s: Sample) {
    sampleBody(s)
    source(s.source)
    metadata(s.metadata)
  }
  /// What a stored and an imported sample share, before their source: uuid, type, `u8` kind (0 quantity f64,
  /// 1 category i64), start, end.
  private mutating func sampleBody(_ s: Sample) {
    uuid(s.uuid)
    sampleType(s.type)
    switch s.value {
    case .quantity(let v):
      u8(0)
      f64(v)
    case .category(let c):
      u8(1)
      i64(Int64(c))
    }
    date(s.start)
    date(s.end)
  }
  /// A batch of imported samples with their sources listed once: `[source]`, then `u32` count and per sample uuid,
  /// type, `u8` kind (0 quantity f64, 1 category i64), start, end, `u32` index into the sources, metadata. An export
  /// has few sources and millions of samples; each sample would otherwise repeat its source's name, version and
  /// hardware.
  package mutating func importSamples(_ samples: [Sample]) {
    var table: [SampleSource] = []
    var lookup: [SampleSource: UInt32] = [:]
    var indices: [UInt32] = []
    indices.reserveCapacity(samples.count)
    var last = -1
    for i in samples.indices {
      let source = samples[i].source
      // Consecutive samples mostly share a source: the last one is compared first (equal sources share their
      // strings, so that comparison is of pointers; a different source's strings would be compared byte by byte).
      if last >= 0, table[last] == source {
        indices.append(UInt32(last))
        continue
      }
      // Few sources, shared by reference: a linear scan compares pointers before hashing anything.
      if table.count <= 16, let found = table.firstIndex(of: source) {
        last = found
        indices.append(UInt32(found))
        continue
      }
      let index: UInt32
      if let known = lookup[source] {
        index = known
      } else {
        index = UInt32(table.count)
        table.append(source)
        lookup[source] = index
      }
      last = Int(index)
      indices.append(index)
    }
    array(table) { $0.source($1) }
    u32(UInt32(samples.count))
    // Read in place: iterating a zip would copy (retain and release) each sample.
    samples.withUnsafeBufferPointer { samples in
      for i in samples.indices {
        if samples[i].metadata.isEmpty {
          bareSampleRecord(samples[i], source: indices[i])
          continue
        }
        sampleBody(samples[i])
        u32(indices[i])
        metadata(samples[i].metadata)
      }
    }
  }
  /// The size of ``bareSampleRecord(_:source:)``.
  static let bareSampleRecordSize = 51
  /// A sample without metadata as one record of an import batch — the bytes `sampleBody`, `u32(source)` and an
  /// empty `metadata` write, stored in one go: a reply of thousands of samples otherwise appends them a byte at a
  /// time (51 capacity checks per sample).
  private mutating func bareSampleRecord(_ s: Sample, source: UInt32) {
    let kind: UInt8
    let value: UInt64
    switch s.value {
    case .quantity(let v):
      kind = 0
      value = v.bitPattern
    case .category(let c):
      kind = 1
      value = UInt64(bitPattern: Int64(c))
    }
    let uuid = s.uuid.uuid
    let code = s.type.code
    let start = s.start.timeIntervalSinceReferenceDate.bitPattern
    let end = s.end.timeIntervalSinceReferenceDate.bitPattern
    raw(Self.bareSampleRecordSize) { p in
      withUnsafeBytes(of: uuid) { p.copyMemory(from: $0) }
      p.storeBytes(of: code.littleEndian, toByteOffset: 16, as: UInt16.self)
      p.storeBytes(of: kind, toByteOffset: 18, as: UInt8.self)
      p.storeBytes(of: value.littleEndian, toByteOffset: 19, as: UInt64.self)
      p.storeBytes(of: start.littleEndian, toByteOffset: 27, as: UInt64.self)
      p.storeBytes(of: end.littleEndian, toByteOffset: 35, as: UInt64.self)
      p.storeBytes(of: source.littleEndian, toByteOffset: 43, as: UInt32.self)
      p.storeBytes(of: UInt32(0), toByteOffset: 47, as: UInt32.self)
    }
  }
  /// uuid, type, `u8` kind (0 quantity f64 + unit string, 1 category i64), start, end, metadata.
  package mutating func sampleInput(_ s: SampleInput) {
    uuid(s.uuid)
    sampleType(s.type)
    switch s.value {
    case .quantity(let v, let unit):
      u8(0)
      f64(v)
      string(unit)
    case .category(let c):
      u8(1)
      i64(Int64(c))
    }
    date(s.start)
    date(s.end)
    metadata(s.metadata)
  }
  /// uuid, type, source, deletedAt; with ``Tombstone/metadata`` (the deleted object's sync identifier and version)
  /// the type's `u16` has bit 15 set and the metadata follows; without it, bit 15 is clear and nothing follows the
  /// deletion date (`EventFixtureTests`).
  package mutating func tombstone(_ t: Tombstone) {
    uuid(t.uuid)
    u16(t.metadata.isEmpty ? t.type.code : t.type.code | Self.tombstoneMetadataFlag)
    source(t.source)
    date(t.deletedAt)
    if !t.metadata.isEmpty { metadata(t.metadata) }
  }

  /// The bit of a tombstone's type code that says its metadata follows (no type code reaches it).
  package static let tombstoneMetadataFlag: UInt16 = 0x8000
  /// uuid, type `u16` (a correlation type), start, end, source, metadata, `[uuid]` members.
  package mutating func correlation(_ c: Correlation) {
    uuid(c.uuid)
    sampleType(c.type)
    date(c.start)
    date(c.end)
    source(c.source)
    metadata(c.metadata)
    array(c.members) { $0.uuid($1) }
  }
}

extension BinaryReader {
  /// Reads a type code known to the catalog.
  package mutating func sampleType() throws(DecodeError) -> SampleType {
    let code = try u16()
    guard let type = SampleType.lookup(code: code) else { throw error("unknown sample type code \(code)") }
    return type
  }
  /// Reads a device kind.
  package mutating func device() throws(DecodeError) -> DeviceKind {
    let raw = try u8()
    guard let device = DeviceKind(rawValue: raw) else { throw error("unknown device \(raw)") }
    return device
  }
  /// Reads a source (with its details when the device byte's bit 7 says they follow).
  package mutating func source() throws(DecodeError) -> SampleSource {
    let bundleID = try string(maxLength: 1024)
    let raw = try u8()
    guard let device = DeviceKind(rawValue: raw & 0x7F) else { throw error("unknown device \(raw)") }
    guard raw & 0x80 != 0 else { return SampleSource(bundleID: bundleID, device: device) }
    let name = try string(maxLength: StoredLimits.identifier)
    let version = try optional { r throws(DecodeError) in try r.string(maxLength: StoredLimits.identifier) }
    let hardware = try optional { r throws(DecodeError) -> HardwareDetails in
      let start = r.offset
      let fields = try r.array(minElementSize: 8) { r throws(DecodeError) -> HardwareDetails.Field in
        HardwareDetails.Field(
          try r.string(maxLength: StoredLimits.identifier), try r.string(maxLength: StoredLimits.identifier))
      }
      guard fields.count <= HardwareDetails.maxFields else {
        throw DecodeError(offset: r.reportBase + start, "\(fields.count) hardware fields (at most 32)")
      }
      return HardwareDetails(fields: fields)
    }
    return SampleSource(
      bundleID: bundleID, device: device, details: SourceDetails(name: name, version: version, hardware: hardware))
  }
  /// Reads an `f64` that must be finite: stored values (journal records, sync entries, replies) never hold NaN or
  /// infinity, so one is refused where it sits rather than loaded into sums and clocks.
  package mutating func finiteF64(_ what: String) throws(DecodeError) -> Double {
    let start = offset
    let value = try f64()
    guard value.isFinite else { throw DecodeError(offset: reportBase + start, "\(what) \(value) is not finite") }
    return value
  }
  /// Reads a date that must be finite (see ``finiteF64(_:)``).
  package mutating func finiteDate(_ what: String) throws(DecodeError) -> Date {
    Date(timeIntervalSinceReferenceDate: try finiteF64(what))
  }
  /// Reads a metadata value; with `finite`, a NaN or infinite number, date or quantity is an error (stored data).
  package mutating func metadataValue(finite: Bool = false) throws(DecodeError) -> MetadataValue {
    switch try u8() {
    case 0: return .string(try string())
    case 1: return .bool(try bool())
    case 2: return .int(try i64())
    case 3: return .double(finite ? try finiteF64("metadata number") : try f64())
    case 4: return .date(finite ? try finiteDate("metadata date") : try date())
    case 5: return .quantity(finite ? try finiteF64("metadata quantity") : try f64(), unit: try string(maxLength: 256))
    case let tag: throw error("unknown metadata value tag \(tag)")
    }
  }
  /// Reads metadata; `finite` as in ``metadataValue(finite:)``.
  package mutating func metadata(finite: Bool = false) throws(DecodeError) -> Metadata {
    let start = offset
    let count = Int(try u32())
    if count == 0 { return [:] }
    guard count <= remaining / 6 else {
      throw DecodeError(offset: reportBase + start, "metadata count \(count) too large")
    }
    var m: Metadata = [:]
    m.reserveCapacity(count)
    for _ in 0..<count {
      let key = try string(maxLength: 1024)
      m[key] = try metadataValue(finite: finite)
    }
    return m
  }
  /// Reads a stored sample. Its value, dates and metadata numbers must be finite: `save` never accepts others, so
  /// one in a journal or from the peer (an older build's) is refused with its offset instead of being loaded.
  package mutating func sample() throws(DecodeError) -> Sample {
    let body = try sampleBody()
    let source = try source()
    return Sample(
      uuid: body.uuid, type: body.type, value: body.value, start: body.start, end: body.end,
      metadata: try metadata(finite: true), source: source)
  }
  /// Reads what a stored and an imported sample share, before their source (see ``BinaryWriter/sample(_:)``): the
  /// value and both dates must be finite and a category value an `Int32`.
  private mutating func sampleBody() throws(DecodeError) -> (
    uuid: UUID, type: SampleType, value: SampleValue, start: Date, end: Date
  ) {
    let id = try uuid()
    let type = try sampleType()
    let value: SampleValue
    switch try u8() {
    case 0: value = .quantity(try finiteF64("quantity"))
    case 1:
      let raw = try i64()
      guard (-Int64(Int32.max)...Int64(Int32.max)).contains(raw) else {
        throw error("category value \(raw) out of range")
      }
      value = .category(Int(raw))
    case let tag: throw error("unknown sample value tag \(tag)")
    }
    return (id, type, value, try finiteDate("start date"), try finiteDate("end date"))
  }
  /// Reads a batch of imported samples (see ``BinaryWriter/importSamples(_:)``).
  package mutating func importSamples() throws(DecodeError) -> [Sample] {
    let sources = try array(minElementSize: 5) { r throws(DecodeError) in try r.source() }
    let countOffset = offset
    let count = Int(try u32())
    guard count <= remaining / 50 else {
      throw DecodeError(offset: reportBase + countOffset, "import batch count \(count) exceeds the bytes left")
    }
    var samples: [Sample] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
      let body = try sampleBody()
      let sourceOffset = offset
      let index = Int(try u32())
      guard index < sources.count else {
        throw DecodeError(offset: reportBase + sourceOffset, "source index \(index) of \(sources.count)")
      }
      samples.append(
        Sample(
          uuid: body.uuid, type: body.type, value: body.value, start: body.start, end: body.end,
          metadata: try metadata(finite: true), source: sources[index]))
    }
    return samples
  }
  /// Reads an input sample.
  package mutating func sampleInput() throws(DecodeError) -> SampleInput {
    let id = try uuid()
    let type = try sampleType()
    let value: SampleInput.Value
    switch try u8() {
    case 0: value = .quantity(try f64(), unit: try string(maxLength: 256))
    case 1:
      let raw = try i64()
      guard (-Int64(Int32.max)...Int64(Int32.max)).contains(raw) else {
        throw error("category value \(raw) out of range")
      }
      value = .category(Int(raw))
    case let tag: throw error("unknown sample value tag \(tag)")
    }
    return SampleInput(uuid: id, type: type, value: value, start: try date(), end: try date(), metadata: try metadata())
  }
  /// Reads a tombstone (its deletion date must be finite; its metadata, when bit 15 of the type says it follows,
  /// may hold only `HKMetadataKeySyncIdentifier` and `HKMetadataKeySyncVersion`).
  package mutating func tombstone() throws(DecodeError) -> Tombstone {
    let id = try uuid()
    let raw = try u16()
    let flag = BinaryWriter.tombstoneMetadataFlag
    let code = raw & ~flag
    guard let type = SampleType.lookup(code: code) else { throw error("unknown sample type code \(code)") }
    let source = try source()
    let deletedAt = try finiteDate("deletion date")
    guard raw & flag != 0 else { return Tombstone(uuid: id, type: type, source: source, deletedAt: deletedAt) }
    let start = offset
    let metadata = try metadata(finite: true)
    guard !metadata.isEmpty, Tombstone.keptMetadata(metadata).count == metadata.count else {
      throw DecodeError(
        offset: reportBase + start, "a deleted object's metadata holds only its sync identifier and version")
    }
    return Tombstone(uuid: id, type: type, source: source, deletedAt: deletedAt, metadata: metadata)
  }
  /// Reads a correlation: its type must be a correlation type, its dates finite and in order, its members listed
  /// once each.
  package mutating func correlation() throws(DecodeError) -> Correlation {
    let id = try uuid()
    let typeOffset = offset
    let type = try sampleType()
    guard type.descriptor.isCorrelation else {
      throw DecodeError(offset: reportBase + typeOffset, "\(type.name) is not a correlation type")
    }
    let start = try finiteDate("start date")
    let end = try finiteDate("end date")
    guard start <= end else { throw error("correlation \(id) ends before it starts") }
    let source = try source()
    let metadata = try metadata(finite: true)
    let members = try array(minElementSize: 16) { r throws(DecodeError) in try r.uuid() }
    guard Set(members).count == members.count else { throw error("correlation \(id) lists a member twice") }
    return Correlation(
      uuid: id, type: type, start: start, end: end, metadata: metadata, source: source, members: members)
  }
  /// Reads entitlements (each known, none twice).
}
