import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encodings of model and engine values, shared by the wire protocol and the journal.
// Each `encode` has a matching `decode` that validates enumerations and codes; docs/protocol.md lists the layouts.

extension BinaryWriter {
  /// `u16` type code.
  package mutating func sampleType(_ t: SampleType) { u16(t.code) }
  /// `string` bundle id, `u8` device; with ``SampleSource/details`` the device byte has bit 7 set and the details
  /// follow: `string` name, optional `string` version, optional hardware (`u32` count of `string` key, `string`
  /// value). A source without details is written exactly as before details existed (pinned journal fixtures).
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
  /// the type's `u16` has bit 15 set and the metadata follows. A tombstone without it is written exactly as before
  /// it existed (pinned journal fixtures, older readers).
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
  /// bundle id, display name, optional write and read usage descriptions.
  package mutating func app(_ a: AppRecord) {
    string(a.bundleID)
    string(a.displayName)
    optional(a.writeUsageDescription) { $0.string($1) }
    optional(a.readUsageDescription) { $0.string($1) }
  }
  /// type, `u8` direction.
  package mutating func permission(_ p: Permission) {
    sampleType(p.type)
    u8(p.direction.rawValue)
  }
  /// permission, `u8` decision.
  package mutating func change(_ c: AuthorizationChange) {
    permission(c.permission)
    u8(c.decision.rawValue)
  }
  /// `u8` tag (0 set + permission + bool, 1 turn all off, 2 reset).
  package mutating func settingsChange(_ c: SettingsChange) {
    switch c {
    case .set(let p, let on):
      u8(0)
      permission(p)
      bool(on)
    case .turnAllOff: u8(1)
    case .reset: u8(2)
    }
  }
  /// `u8` flags (bit 0: reprompt strict, bit 1: companion authorization, bit 2: no Health settings on the watch,
  /// bits 4–5: the unit locale, 0 us, 1 metric, 2 uk; bit 6: a custom background-delivery model, whose response
  /// window and retry delay follow the retention as two f64; bit 3: a time zone other than UTC, whose identifier
  /// follows; bit 7: source orders, which follow last), optional f64 retention. The defaults leave bits 1 to 7 clear,
  /// so a default policy is written exactly as before these models existed (the pinned journal fixtures check it).
  package mutating func policy(_ p: DevicePolicy) {
    let customBackground = p.background != .standard
    let hasZone = p.timeZone != .utc
    let hasOrders = !p.sourceOrders.isEmpty
    u8(
      (p.reprompt == .standard ? 0 : 1) | (p.authorization == .companion ? 2 : 0)
        | (p.watchSettings == .iPhoneOnly ? 4 : 0) | (hasZone ? 8 : 0) | (p.units.rawValue << 4)
        | (customBackground ? 64 : 0) | (hasOrders ? 128 : 0))
    optional(p.retention) { $0.f64($1) }
    if customBackground {
      f64(p.background.responseWindow)
      f64(p.background.retryDelay)
    }
    if hasZone { string(p.timeZone.identifier) }
    if hasOrders {
      array(p.sourceOrders.sorted { $0.key < $1.key }) { w, entry in
        w.sampleType(entry.key)
        w.sourceOrder(entry.value)
      }
    }
  }
  /// [source], at date, `u8` device.
  package mutating func sourceOrder(_ o: SourceOrder) {
    array(o.sources) { $0.source($1) }
    date(o.at)
    u8(o.device.rawValue)
  }
  /// `u8` tag (0 date of birth: `i32` year, `u8` month, `u8` day; 1 enumeration: `i64` raw value).
  package mutating func characteristicValue(_ v: CharacteristicValue) {
    switch v {
    case .dateOfBirth(let y, let m, let d):
      u8(0)
      u32(UInt32(bitPattern: Int32(clamping: y)))
      u8(UInt8(clamping: m))
      u8(UInt8(clamping: d))
    case .value(let raw):
      u8(1)
      i64(Int64(raw))
    }
  }
  /// `[type | characteristic-value]`, by type: characteristics an import sets.
  package mutating func characteristics(_ values: [SampleType: CharacteristicValue]) {
    array(values.sorted { $0.key < $1.key }) { w, item in
      w.sampleType(item.key)
      w.characteristicValue(item.value)
    }
  }
  /// `u8` kind (0 characteristic: type, optional value; 1 preferred unit: type, optional unit string).
  package mutating func userSetting(_ setting: UserSetting) {
    switch setting {
    case .characteristic(let t, let v):
      u8(0)
      sampleType(t)
      optional(v) { $0.characteristicValue($1) }
    case .preferredUnit(let t, let unit):
      u8(1)
      sampleType(t)
      optional(unit) { $0.string($1) }
    }
  }
  /// permission, `u8` decision (0xFF: forgotten).
  package mutating func sharedDecision(_ d: SharedDecision) {
    permission(d.permission)
    u8(d.decision?.rawValue ?? 0xFF)
  }
  /// `u64` seq, `u8` tag (0 samples, 1 deletions, 2 watch settings, 3 companion decisions, 4 samples with their
  /// sources listed once — see ``importSamples(_:)`` — 10 a Health app value, 50 a source order) and the payload.
  package mutating func syncEntry(_ e: SyncEntry) {
    u64(e.seq)
    switch e.payload {
    case .samples(let s):
      // Imported samples carry their sources' details: listed once per entry (tag 4) rather than per sample.
      // Samples without details keep tag 0, byte for byte as before.
      if s.contains(where: { $0.source.details != nil }) {
        u8(4)
        importSamples(s)
      } else {
        u8(0)
        array(s) { $0.sample($1) }
      }
    case .deletions(let t):
      u8(1)
      array(t) { $0.tombstone($1) }
    case .watchSettings(let id, let c):
      u8(2)
      string(id)
      settingsChange(c)
    case .authorization(let id, let decisions, let at):
      u8(3)
      string(id)
      array(decisions) { $0.sharedDecision($1) }
      date(at)
    case .userSetting(let setting, let at):
      u8(10)
      userSetting(setting)
      date(at)
    case .sourceOrder(let type, let order):
      u8(50)
      sampleType(type)
      sourceOrder(order)
    case .correlations(let c):
      u8(75)
      array(c) { $0.correlation($1) }
    case .correlationDeletions(let t):
      u8(76)
      array(t) { $0.tombstone($1) }
    }
  }
  /// `u8` kind, `u8` code, message, optional exception name.
  package mutating func healthError(_ e: HealthError) {
    u8(e.kind.rawValue)
    u8(UInt8(e.code.rawValue))
    string(e.message)
    optional(e.exception) { $0.string($1) }
  }
  /// optional start, optional end, `u32` options.
  package mutating func dateRange(_ r: DateRange) {
    optional(r.start) { $0.date($1) }
    optional(r.end) { $0.date($1) }
    u32(r.options.rawValue)
  }
  /// id, bundle, permissions, shownAt.
  package mutating func prompt(_ p: Prompt) {
    u64(p.id)
    string(p.bundleID)
    array(p.permissions) { $0.permission($1) }
    date(p.shownAt)
  }

  /// Encodes a journal event: `u8` tag then its fields (docs/journal.md).
  package mutating func event(_ e: DeviceEvent) {
    switch e {
    case .appInstalled(let a) where a.entitlements.isEmpty:
      u8(1)
      app(a)
    case .appInstalled(let a):
      // Apps with entitlements get their own tag, so tag 1 keeps the layout the pinned fixtures hold.
      u8(16)
      app(a)
      entitlements(a.entitlements)
    case .appUninstalled(let id):
      u8(2)
      string(id)
    case .promptAnswered(let id, let changes):
      u8(3)
      string(id)
      array(changes) { $0.change($1) }
    case .promptCancelled(let id):
      u8(4)
      string(id)
    case .settingsChanged(let id, let c, let viaWatch):
      u8(5)
      string(id)
      settingsChange(c)
      bool(viaWatch)
    case .watchSettingsQueued(let id, let c):
      u8(6)
      string(id)
      settingsChange(c)
    case .samplesSaved(let s):
      u8(7)
      array(s) { $0.sample($1) }
    case .samplesDeleted(let t):
      u8(8)
      array(t) { $0.tombstone($1) }
    case .peerEntriesApplied(let entries, let at):
      u8(9)
      date(at)
      array(entries) { $0.syncEntry($1) }
    case .peerAcknowledged(let seq):
      u8(10)
      u64(seq)
    case .clockSet(let d):
      u8(11)
      optional(d) { $0.date($1) }
    case .policyChanged(let p):
      u8(12)
      policy(p)
    case .syncLogRestarted(let id):
      u8(13)
      u64(id)
    case .peerLogAdopted(let id):
      u8(14)
      u64(id)
    case .authorizationShared(let id, let decisions, let at):
      u8(15)
      string(id)
      array(decisions) { $0.sharedDecision($1) }
      date(at)
    // Tags 30–39: imports (docs/journal.md).
    case .importStaged(let id, let samples):
      u8(30)
      u64(id)
      importSamples(samples)
    case .importCommitted(let id, let at, let characteristics):
      u8(31)
      u64(id)
      date(at)
      self.characteristics(characteristics)
    case .importAbandoned(let id):
      u8(32)
      u64(id)
    // Tags 40–49: the device lock and the Health app's values (docs/journal.md).
    case .deviceLocked(let at):
      u8(40)
      date(at)
    case .deviceUnlocked(let at):
      u8(41)
      date(at)
    case .samplesSavedWhileLocked(let s):
      u8(42)
      array(s) { $0.sample($1) }
    case .userSettingChanged(let setting, let at):
      u8(43)
      userSetting(setting)
      date(at)
    case .backgroundDeliveryChanged(let id, let type, let frequency):
      u8(17)
      string(id)
      optional(type) { $0.sampleType($1) }
      optional(frequency) { $0.u8($1.rawValue) }
    case .changeNumbersAdvanced(let mark):
      u8(18)
      u64(mark)
    // Tags 50–59: statistics settings (docs/journal.md).
    case .sourceOrderChanged(let type, let order):
      u8(50)
      sampleType(type)
      sourceOrder(order)
    // Tags 70–74: sync requests (docs/journal.md).
    case .peerResendRequested:
      u8(70)
    case .peerResendAnswered(let id):
      u8(71)
      u64(id)
    // Tags 75–79: correlations (docs/journal.md).
    case .correlationsSaved(let c):
      u8(75)
      array(c) { $0.correlation($1) }
    case .correlationsDeleted(let t):
      u8(76)
      array(t) { $0.tombstone($1) }
    case .importCorrelationsStaged(let id, let c):
      u8(77)
      u64(id)
      array(c) { $0.correlation($1) }
    }
  }

  /// `[u8]`: entitlement raw values, ascending.
  package mutating func entitlements(_ e: Set<Entitlement>) {
    array(e.sorted()) { $0.u8($1.rawValue) }
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
  package mutating func entitlements() throws(DecodeError) -> Set<Entitlement> {
    var result: Set<Entitlement> = []
    for raw in try array(minElementSize: 1, { r throws(DecodeError) in try r.u8() }) {
      guard let entitlement = Entitlement(rawValue: raw) else { throw error("unknown entitlement \(raw)") }
      guard result.insert(entitlement).inserted else { throw error("entitlement \(entitlement) listed twice") }
    }
    return result
  }
  /// Reads an `HKUpdateFrequency` raw value.
  package mutating func updateFrequency() throws(DecodeError) -> UpdateFrequency {
    let raw = try u8()
    guard let frequency = UpdateFrequency(rawValue: raw) else { throw error("unknown update frequency \(raw)") }
    return frequency
  }
  /// Reads an app record.
  package mutating func app() throws(DecodeError) -> AppRecord {
    AppRecord(
      bundleID: try string(maxLength: StoredLimits.identifier),
      displayName: try string(maxLength: StoredLimits.identifier),
      writeUsageDescription: try optional { r throws(DecodeError) in try r.string(maxLength: StoredLimits.description)
      },
      readUsageDescription: try optional { r throws(DecodeError) in try r.string(maxLength: StoredLimits.description) })
  }
  /// Reads a permission.
  package mutating func permission() throws(DecodeError) -> Permission {
    let type = try sampleType()
    let raw = try u8()
    guard let direction = Direction(rawValue: raw) else { throw error("unknown direction \(raw)") }
    return Permission(type, direction)
  }
  /// Reads an authorization change.
  package mutating func change() throws(DecodeError) -> AuthorizationChange {
    let p = try permission()
    let raw = try u8()
    guard let decision = Decision(rawValue: raw) else { throw error("unknown decision \(raw)") }
    return AuthorizationChange(p, decision)
  }
  /// Reads a settings change.
  package mutating func settingsChange() throws(DecodeError) -> SettingsChange {
    switch try u8() {
    case 0: return .set(try permission(), on: try bool())
    case 1: return .turnAllOff
    case 2: return .reset
    case let tag: throw error("unknown settings change tag \(tag)")
    }
  }
  /// Reads a device policy; a retention window must be finite, a time zone one HealthPair knows.
  package mutating func policy() throws(DecodeError) -> DevicePolicy {
    let raw = try u8()
    guard let units = UnitLocale(rawValue: (raw >> 4) & 3) else { throw error("unknown policy flags \(raw)") }
    let retention = try optional { r throws(DecodeError) in try r.finiteF64("retention") }
    var background = BackgroundDeliveryModel.standard
    if raw & 64 != 0 {
      background = BackgroundDeliveryModel(
        responseWindow: try finiteF64("background response window"), retryDelay: try finiteF64("background retry delay")
      )
    }
    var zone = TimeZoneRule.utc
    if raw & 8 != 0 {
      let name = try string(maxLength: 64)
      do { zone = try TimeZoneRule(identifier: name) } catch { throw self.error("\(error)") }
    }
    var orders: [SampleType: SourceOrder] = [:]
    if raw & 128 != 0 {
      let entries = try array(minElementSize: 15) { r throws(DecodeError) in (try r.sampleType(), try r.sourceOrder()) }
      for (type, order) in entries {
        guard orders.updateValue(order, forKey: type) == nil else { throw error("two source orders for \(type)") }
      }
    }
    return DevicePolicy(
      reprompt: raw & 1 == 0 ? .standard : .strict, retention: retention,
      authorization: raw & 2 == 0 ? .independent : .companion, watchSettings: raw & 4 == 0 ? .onWatch : .iPhoneOnly,
      units: units, background: background, timeZone: zone, sourceOrders: orders)
  }
  /// Reads a source order (at most ``SourceOrder/maxSources`` sources; its date finite).
  package mutating func sourceOrder() throws(DecodeError) -> SourceOrder {
    let sources = try array(minElementSize: 5) { r throws(DecodeError) in try r.source() }
    guard sources.count <= SourceOrder.maxSources else { throw error("a source order of \(sources.count) sources") }
    return SourceOrder(sources: sources, at: try finiteDate("source order date"), device: try device())
  }
  /// Reads a characteristic value that fits `type` (a real date of birth, one of the type's cases).
  package mutating func characteristicValue(for type: SampleType) throws(DecodeError) -> CharacteristicValue {
    let start = offset
    let value: CharacteristicValue
    switch try u8() {
    case 0:
      let year = Int(Int32(bitPattern: try u32()))
      value = .dateOfBirth(year: year, month: Int(try u8()), day: Int(try u8()))
    case 1:
      let raw = try i64()
      guard (-Int64(Int32.max)...Int64(Int32.max)).contains(raw) else {
        throw error("characteristic value \(raw) out of range")
      }
      value = .value(Int(raw))
    case let tag: throw error("unknown characteristic value tag \(tag)")
    }
    do { return try value.validated(for: type) } catch {
      throw DecodeError(offset: reportBase + start, error.message)
    }
  }
  /// Reads `[type | characteristic-value]`: characteristic types, each once, with values that fit them.
  package mutating func characteristics() throws(DecodeError) -> [SampleType: CharacteristicValue] {
    var values: [SampleType: CharacteristicValue] = [:]
    let start = offset
    let list = try array(minElementSize: 4) { r throws(DecodeError) -> (SampleType, CharacteristicValue) in
      let typeOffset = r.offset
      let type = try r.sampleType()
      guard type.descriptor.isCharacteristic else {
        throw DecodeError(offset: r.reportBase + typeOffset, "\(type.name) is not a characteristic type")
      }
      return (type, try r.characteristicValue(for: type))
    }
    for (type, value) in list {
      guard values.updateValue(value, forKey: type) == nil else {
        throw DecodeError(offset: reportBase + start, "\(type.name) is listed twice")
      }
    }
    return values
  }
  /// Reads a Health app change: a characteristic of a characteristic type, a preferred unit that parses and
  /// measures its quantity type.
  package mutating func userSetting() throws(DecodeError) -> UserSetting {
    let kind = try u8()
    let typeOffset = offset
    let type = try sampleType()
    switch kind {
    case 0:
      guard type.descriptor.isCharacteristic else {
        throw DecodeError(offset: reportBase + typeOffset, "\(type.name) is not a characteristic type")
      }
      return .characteristic(type, try optional { r throws(DecodeError) in try r.characteristicValue(for: type) })
    case 1:
      guard let canonical = type.descriptor.canonicalUnit else {
        throw DecodeError(offset: reportBase + typeOffset, "\(type.name) is not a quantity type")
      }
      let unitOffset = offset
      let unit = try optional { r throws(DecodeError) in try r.string(maxLength: StoredLimits.unit) }
      if let unit {
        guard let parsed = try? HealthUnit(parsing: unit), parsed.isCompatible(with: canonical) else {
          throw DecodeError(offset: reportBase + unitOffset, "unit '\(unit)' does not measure \(type.name)")
        }
      }
      return .preferredUnit(type, unit)
    case let tag: throw error("unknown Health app setting kind \(tag)")
    }
  }
  /// Reads a shared decision.
  package mutating func sharedDecision() throws(DecodeError) -> SharedDecision {
    let p = try permission()
    let raw = try u8()
    if raw == 0xFF { return SharedDecision(p, nil) }
    guard let decision = Decision(rawValue: raw) else { throw error("unknown decision \(raw)") }
    return SharedDecision(p, decision)
  }
  /// Reads companion decisions: bundle, decisions, the deciding device's time.
  mutating func sharedDecisions() throws(DecodeError) -> (String, [SharedDecision], Date) {
    let id = try string(maxLength: StoredLimits.identifier)
    let decisions = try array(minElementSize: 4) { r throws(DecodeError) in try r.sharedDecision() }
    return (id, decisions, try finiteDate("decision time"))
  }
  /// Reads a sync entry.
  package mutating func syncEntry() throws(DecodeError) -> SyncEntry {
    let seq = try u64()
    switch try u8() {
    case 0:
      return SyncEntry(
        seq: seq, payload: .samples(try array(minElementSize: 50) { r throws(DecodeError) in try r.sample() }))
    case 1:
      return SyncEntry(
        seq: seq, payload: .deletions(try array(minElementSize: 31) { r throws(DecodeError) in try r.tombstone() }))
    case 2:
      return SyncEntry(
        seq: seq, payload: .watchSettings(bundleID: try string(maxLength: 1024), change: try settingsChange()))
    case 3:
      let (id, decisions, at) = try sharedDecisions()
      return SyncEntry(seq: seq, payload: .authorization(bundleID: id, decisions: decisions, at: at))
    case 4: return SyncEntry(seq: seq, payload: .samples(try importSamples()))
    case 10:
      let setting = try userSetting()
      return SyncEntry(seq: seq, payload: .userSetting(setting, at: try finiteDate("setting time")))
    case 50:
      return SyncEntry(seq: seq, payload: .sourceOrder(try sampleType(), try sourceOrder()))
    case 75:
      return SyncEntry(
        seq: seq, payload: .correlations(try array(minElementSize: 47) { r throws(DecodeError) in try r.correlation() })
      )
    case 76:
      return SyncEntry(
        seq: seq,
        payload: .correlationDeletions(try array(minElementSize: 31) { r throws(DecodeError) in try r.tombstone() }))
    case let tag: throw error("unknown sync payload tag \(tag)")
    }
  }
  /// Reads a HealthError.
  package mutating func healthError() throws(DecodeError) -> HealthError {
    let rawKind = try u8()
    guard let kind = HealthError.Kind(rawValue: rawKind) else { throw error("unknown error kind \(rawKind)") }
    let rawCode = try u8()
    guard let code = HealthErrorCode(rawValue: Int(rawCode)) else {
      throw error("unknown HealthKit error code \(rawCode)")
    }
    return HealthError(
      kind: kind, code: code, message: try string(),
      exception: try optional { r throws(DecodeError) in try r.string(maxLength: 256) })
  }
  /// Reads a date range.
  package mutating func dateRange() throws(DecodeError) -> DateRange {
    DateRange(
      start: try optional { r throws(DecodeError) in try r.date() },
      end: try optional { r throws(DecodeError) in try r.date() },
      options: QueryOptions(rawValue: try u32()))
  }
  /// Reads a prompt.
  package mutating func prompt() throws(DecodeError) -> Prompt {
    Prompt(
      id: try u64(), bundleID: try string(maxLength: 1024),
      permissions: try array(minElementSize: 3) { r throws(DecodeError) in try r.permission() }, shownAt: try date())
  }

  /// Reads a sync log identity (never 0, which means "none").
  package mutating func logIdentity() throws(DecodeError) -> UInt64 {
    let id = try u64()
    guard id != 0 else { throw error("sync log identity 0 is reserved") }
    return id
  }

  /// Reads an import identity (never 0, which is reserved).
  package mutating func importIdentity() throws(DecodeError) -> UInt64 {
    let id = try u64()
    guard id != 0 else { throw error("import identity 0 is reserved") }
    return id
  }

  /// Decodes a journal event.
  package mutating func event() throws(DecodeError) -> DeviceEvent {
    switch try u8() {
    case 1: return .appInstalled(try app())
    case 2: return .appUninstalled(bundleID: try string(maxLength: 1024))
    case 3:
      return .promptAnswered(
        bundleID: try string(maxLength: 1024),
        changes: try array(minElementSize: 4) { r throws(DecodeError) in try r.change() })
    case 4: return .promptCancelled(bundleID: try string(maxLength: 1024))
    case 5:
      return .settingsChanged(
        bundleID: try string(maxLength: 1024), change: try settingsChange(), viaWatchApp: try bool())
    case 6: return .watchSettingsQueued(bundleID: try string(maxLength: 1024), change: try settingsChange())
    case 7: return .samplesSaved(try array(minElementSize: 50) { r throws(DecodeError) in try r.sample() })
    case 8: return .samplesDeleted(try array(minElementSize: 31) { r throws(DecodeError) in try r.tombstone() })
    case 9:
      let at = try finiteDate("application date")
      return .peerEntriesApplied(try array(minElementSize: 9) { r throws(DecodeError) in try r.syncEntry() }, at: at)
    case 10: return .peerAcknowledged(try u64())
    case 11: return .clockSet(try optional { r throws(DecodeError) in try r.finiteDate("clock") })
    case 12: return .policyChanged(try policy())
    case 13: return .syncLogRestarted(logID: try logIdentity())
    case 14: return .peerLogAdopted(logID: try logIdentity())
    case 15:
      let (id, decisions, at) = try sharedDecisions()
      return .authorizationShared(bundleID: id, decisions: decisions, at: at)
    case 30:
      let id = try importIdentity()
      return .importStaged(id: id, samples: try importSamples())
    case 31:
      let id = try importIdentity()
      let at = try finiteDate("import commit date")
      return .importCommitted(id: id, at: at, characteristics: try characteristics())
    case 32: return .importAbandoned(id: try importIdentity())
    case 40: return .deviceLocked(at: try finiteDate("lock time"))
    case 41: return .deviceUnlocked(at: try finiteDate("unlock time"))
    case 42: return .samplesSavedWhileLocked(try array(minElementSize: 50) { r throws(DecodeError) in try r.sample() })
    case 43:
      let setting = try userSetting()
      return .userSettingChanged(setting, at: try finiteDate("setting time"))
    case 16:
      var app = try app()
      app.entitlements = try entitlements()
      return .appInstalled(app)
    case 17:
      let id = try string(maxLength: 1024)
      let type = try optional { r throws(DecodeError) in try r.sampleType() }
      let frequency = try optional { r throws(DecodeError) in try r.updateFrequency() }
      guard type != nil || frequency == nil else { throw error("a background delivery frequency needs a type") }
      return .backgroundDeliveryChanged(bundleID: id, type: type, frequency: frequency)
    case 18: return .changeNumbersAdvanced(to: try u64())
    case 50: return .sourceOrderChanged(try sampleType(), try sourceOrder())
    case 70: return .peerResendRequested
    case 71: return .peerResendAnswered(logID: try logIdentity())
    case 75: return .correlationsSaved(try array(minElementSize: 47) { r throws(DecodeError) in try r.correlation() })
    case 76: return .correlationsDeleted(try array(minElementSize: 31) { r throws(DecodeError) in try r.tombstone() })
    case 77:
      let id = try importIdentity()
      return .importCorrelationsStaged(
        id: id, try array(minElementSize: 47) { r throws(DecodeError) in try r.correlation() })
    case let tag: throw error("unknown journal event tag \(tag)")
    }
  }
}
