import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// The binary layout of every client-socket message (docs/protocol.md lists the same, field by field).

extension Frame {
  /// Encodes the frame body (without the length prefix).
  package func encoded() -> [UInt8] {
    var w = BinaryWriter(capacity: capacityHint)
    write(into: &w)
    return w.bytes
  }

  /// Encodes the frame with its length prefix: the body is written after four bytes patched at the end, so a
  /// large reply is not copied a second time to prefix it.
  package func framed() -> [UInt8] {
    var w = BinaryWriter(capacity: 4 + capacityHint)
    w.u32(0)
    write(into: &w)
    w.patchU32(UInt32(w.bytes.count - 4), at: 0)
    return w.bytes
  }

  /// About how many bytes the body takes: a sample reply reserves its size up front instead of growing through a
  /// dozen reallocations and copies.
  private var capacityHint: Int {
    switch self {
    case .response(_, .success(.samples(let samples))): 64 + samples.count * 64
    case .response(_, .success(.anchored(let result))): 64 + result.added.count * 64 + result.deleted.count * 40
    default: 128
    }
  }

  private func write(into w: inout BinaryWriter) {
    switch self {
    case .request(let id, let request):
      w.u8(MessageType.request.rawValue)
      w.u32(id)
      w.request(request)
    case .response(let id, let result):
      w.u8(MessageType.response.rawValue)
      w.u32(id)
      switch result {
      case .success(let reply):
        w.u8(0)
        w.reply(reply)
      case .failure(let error):
        w.u8(1)
        w.healthError(error)
      }
    case .interim(let id, let reply):
      w.u8(MessageType.interim.rawValue)
      w.u32(id)
      w.reply(reply)
    case .event(let event):
      w.u8(MessageType.event.rawValue)
      w.u32(0)
      w.event(event)
    }
  }

  /// Decodes a frame body.
  /// - Throws: ``DecodeError`` with the offset of the first bad byte.
  package static func decode(_ body: [UInt8]) throws(DecodeError) -> Frame {
    try body.withUnsafeBytes { buffer in
      catchingDecode { () throws(DecodeError) in
        var r = BinaryReader(buffer)
        let rawType = try r.u8()
        guard let type = MessageType(rawValue: rawType) else {
          throw DecodeError(offset: 0, "unknown message type \(rawType)")
        }
        let id = try r.u32()
        let frame: Frame
        switch type {
        case .request: frame = .request(id: id, try r.request())
        case .response:
          switch try r.u8() {
          case 0: frame = .response(id: id, .success(try r.reply()))
          case 1: frame = .response(id: id, .failure(try r.healthError()))
          case let s: throw DecodeError(offset: 5, "unknown response status \(s)")
          }
        case .interim: frame = .interim(id: id, try r.reply())
        case .event: frame = .event(try r.daemonEvent())
        }
        try r.expectEnd("message")
        return frame
      }
    }.get()
  }
}

@inline(__always)
private func catchingDecode<T>(_ body: () throws(DecodeError) -> T) -> Result<T, DecodeError> {
  do { return .success(try body()) } catch { return .failure(error) }
}

extension BinaryWriter {
  mutating func types(_ t: [SampleType]) { array(t) { $0.sampleType($1) } }

  mutating func promptAnswer(_ a: PromptAnswer) {
    switch a {
    case .allowAll: u8(0)
    case .denyAll: u8(1)
    case .choices(let choices):
      u8(2)
      array(choices.sorted { $0.key < $1.key }) { w, item in
        w.permission(item.key)
        w.bool(item.value)
      }
    case .cancel: u8(3)
    case .failToPresent(let mode):
      u8(4)
      u8(mode == .error ? 0 : 1)
    case .leaveApp: u8(5)
    }
  }

  mutating func sampleQuery(_ q: SampleQuery) {
    sampleType(q.type)
    optional(q.range) { $0.dateRange($1) }
    optional(q.sources.map { $0.sorted() }) { w, s in w.array(s) { $0.string($1) } }
    u32(UInt32(clamping: q.limit))
    array(q.sort) { w, s in
      w.u8(s.field.rawValue)
      w.bool(s.ascending)
    }
    optional(q.filter) { $0.sampleFilter($1) }
  }

  /// `u8` tag then the node: 0 constant bool | 1 and [filter] | 2 or [filter] | 3 not filter | 4 dates range |
  /// 5 sources [string] | 6 uuids [uuid] | 7 metadata key string, condition (0 exists | 1 one of [value] |
  /// 2 compare op u8, value) | 8 device property u8, [string] | 9 value op u8, f64 | 10 quantity op u8, f64, unit
  /// string | 11 not in a correlation.
  mutating func sampleFilter(_ f: SampleFilter) {
    switch f {
    case .constant(let b):
      u8(0)
      bool(b)
    case .and(let parts):
      u8(1)
      array(parts) { $0.sampleFilter($1) }
    case .or(let parts):
      u8(2)
      array(parts) { $0.sampleFilter($1) }
    case .not(let part):
      u8(3)
      sampleFilter(part)
    case .dates(let range):
      u8(4)
      dateRange(range)
    case .sources(let bundles):
      u8(5)
      array(bundles.sorted()) { $0.string($1) }
    case .uuids(let uuids):
      u8(6)
      array(uuids.sorted { $0.uuidString < $1.uuidString }) { $0.uuid($1) }
    case .metadata(let key, let condition):
      u8(7)
      string(key)
      switch condition {
      case .exists: u8(0)
      case .oneOf(let values):
        u8(1)
        array(values) { $0.metadataValue($1) }
      case .compare(let op, let value):
        u8(2)
        u8(op.rawValue)
        metadataValue(value)
      }
    case .device(let property, let values):
      u8(8)
      u8(property.rawValue)
      array(values.sorted()) { $0.string($1) }
    case .value(let op, let value):
      u8(9)
      u8(op.rawValue)
      f64(value)
    case .quantity(let op, let value, let unit):
      u8(10)
      u8(op.rawValue)
      f64(value)
      string(unit)
    case .notInCorrelation:
      u8(11)
    case .date(let field, let op, let instant):
      u8(12)
      u8(field.rawValue)
      u8(op.rawValue)
      f64(instant)
    }
  }

  mutating func backgroundEvent(_ e: BackgroundDeliveryEvent) {
    u8(e.kind.rawValue)
    u64(e.id)
    string(e.bundleID)
    sampleType(e.type)
    u8(UInt8(clamping: e.attempt))
    date(e.at)
  }

  mutating func backgroundStatus(_ s: BackgroundDeliveryStatus) {
    string(s.key.bundleID)
    sampleType(s.key.type)
    u8(s.frequency.rawValue)
    u8(s.effective.rawValue)
    bool(s.stopped)
    optional(s.waiting) { $0.u64($1) }
    u32(UInt32(clamping: s.misses))
    u32(UInt32(clamping: s.woken))
    u32(UInt32(clamping: s.completed))
    bool(s.pending)
  }

  mutating func statisticsQuery(_ q: StatisticsQuery) {
    sampleType(q.type)
    optional(q.range) { $0.dateRange($1) }
    optional(q.sources.map { $0.sorted() }) { w, s in w.array(s) { $0.string($1) } }
    u32(q.options.rawValue)
    optional(q.interval) { w, i in
      w.u32(UInt32(bitPattern: Int32(clamping: i.months)))
      w.u32(UInt32(bitPattern: Int32(clamping: i.days)))
      w.f64(i.seconds)
    }
    optional(q.anchor) { $0.date($1) }
    optional(q.filter) { $0.sampleFilter($1) }
  }

  mutating func statistics(_ s: Statistics) {
    date(s.start)
    date(s.end)
    u32(UInt32(clamping: s.sampleCount))
    // Each written in place: an array of the six would be allocated per bucket, and the generic `optional` was
    // left unspecialized here (a metadata lookup per value).
    optionalDouble(s.sum)
    optionalDouble(s.average)
    optionalDouble(s.minimum)
    optionalDouble(s.maximum)
    optionalDouble(s.mostRecent)
    optionalDouble(s.duration)
    optional(s.mostRecentDates) { w, dates in
      w.date(dates.lowerBound)
      w.date(dates.upperBound)
    }
    array(s.bySource.sorted { $0.key < $1.key }) { w, item in
      w.string(item.key)
      w.statistics(item.value)
    }
  }

  /// An optional double: the presence byte, then the value (the layout of `optional(_:_:)`).
  mutating func optionalDouble(_ v: Double?) {
    if let v {
      u8(1)
      f64(v)
    } else {
      u8(0)
    }
  }

  mutating func callResult(_ r: AuthorizationCallResult) {
    bool(r.success)
    optional(r.error) { $0.healthError($1) }
  }

  mutating func syncStatus(_ s: DeviceSnapshot.SyncStatus) {
    u64(s.lastSeq)
    u64(s.peerAcked)
    u64(s.appliedFromPeer)
    u32(UInt32(clamping: s.pendingEntries))
    u32(UInt32(clamping: s.pendingItems))
    u64(s.logID)
    u64(s.peerLogID)
    bool(s.verified)
    bool(s.diverged)
    u32(UInt32(clamping: s.conflicts))
  }

  mutating func linkStatus(_ l: LinkStatus) {
    bool(l.enabled)
    bool(l.connected)
    bool(l.holding)
    f64(l.latency)
    syncStatus(l.sync)
  }

  mutating func promptOutcome(_ o: PromptOutcome) {
    switch o {
    case .pending: u8(0)
    case .answered(let changes):
      u8(1)
      array(changes) { $0.change($1) }
    case .cancelled: u8(2)
    case .failedToPresent(let mode):
      u8(3)
      u8(mode == .error ? 0 : 1)
    case .withdrawn: u8(4)
    case .dismissed: u8(5)
    }
  }

  mutating func deviceSnapshot(_ s: DeviceSnapshot) {
    u8(s.device.rawValue)
    policy(s.policy)
    date(s.now)
    bool(s.virtualClock)
    date(s.earliestPermittedSampleDate)
    array(s.apps) { w, a in
      w.app(a.record)
      w.entitlements(a.record.entitlements)
      w.array(a.decisions) { $0.change($1) }
      w.bool(a.lockedOut)
    }
    array(s.pendingPrompts) { $0.prompt($1) }
    array(s.promptHistory) { w, r in
      w.prompt(r.prompt)
      w.promptOutcome(r.outcome)
    }
    array(s.sampleCounts.sorted { $0.key < $1.key }) { w, item in
      w.sampleType(item.key)
      w.u64(UInt64(item.value))
    }
    u64(UInt64(s.tombstoneCount))
    u64(s.changeCounter)
    syncStatus(s.sync)
    bool(s.locked)
    u64(UInt64(s.lockedSamples))
    array(s.characteristics.sorted { $0.key < $1.key }) { w, item in
      w.sampleType(item.key)
      w.characteristicValue(item.value)
    }
    array(s.preferredUnits.sorted { $0.key < $1.key }) { w, item in
      w.sampleType(item.key)
      w.string(item.value)
    }
  }

  mutating func reply(_ reply: Reply) {
    u8(reply.tag.rawValue)
    switch reply {
    case .ok: break
    case .hello(let h):
      u16(h.version)
      u8(h.device.rawValue)
      u32(UInt32(bitPattern: h.pid))
      string(h.software)
    case .authorization(let r):
      callResult(r)
    case .prompt(let p):
      prompt(p)
    case .status(let s):
      u8(UInt8(s.rawValue))
    case .requestStatus(let s):
      u8(UInt8(s.rawValue))
    case .samples(let s):
      importSamples(s)
    case .statistics(let s):
      statistics(s)
    case .collection(let c, let zone):
      array(c) { $0.statistics($1) }
      string(zone)
    case .anchored(let a):
      importSamples(a.added)
      array(a.deleted) { $0.tombstone($1) }
      u64(a.newAnchor)
    case .snapshot(let s):
      deviceSnapshot(s.device)
      linkStatus(s.link)
      u32(UInt32(bitPattern: s.pid))
      u32(UInt32(clamping: s.clients))
    case .stored(let samples, let tombstones, let next):
      array(samples) { $0.sample($1) }
      array(tombstones) { $0.tombstone($1) }
      optional(next) { $0.storedCursor($1) }
    case .date(let d):
      date(d)
    case .link(let l):
      linkStatus(l)
    case .count(let n):
      u64(UInt64(clamping: n))
    // Tags 30–39: imports (docs/protocol.md).
    case .imported(let outcome):
      array(outcome.added.sorted { $0.key < $1.key }) { w, entry in
        w.sampleType(entry.key)
        w.u64(UInt64(clamping: entry.value))
      }
      u64(UInt64(clamping: outcome.alreadyPresent))
      u64(UInt64(clamping: outcome.beforeRetention))
      u64(UInt64(clamping: outcome.characteristicsSet))
    // Tags 40–49: the device lock and the Health app (docs/protocol.md).
    case .characteristic(let type, let value):
      sampleType(type)
      optional(value) { $0.characteristicValue($1) }
    case .units(let units):
      array(units.sorted { $0.key < $1.key }) { w, item in
        w.sampleType(item.key)
        w.string(item.value)
      }
    // Tags 50–59: background delivery (docs/protocol.md).
    case .backgroundDeliveries(let list, let history):
      array(list) { $0.backgroundStatus($1) }
      array(history) { $0.backgroundEvent($1) }
    case .correlations(let results):
      array(results) { w, result in
        w.correlation(result.correlation)
        w.array(result.objects) { $0.sample($1) }
      }
    }
  }

  /// The opcode, then the request's fields as its row in ``RequestTable`` lays them out.
  mutating func request(_ request: Request) {
    let opcode = request.opcode
    u8(opcode.rawValue)
    request.writeFields(into: &self)
  }

  mutating func storedCursor(_ c: StoredCursor) {
    u64(c.sample)
    u64(c.tombstone)
  }

  mutating func event(_ e: DaemonEvent) {
    u8(e.tag.rawValue)
    switch e {
    case .promptShown(let p):
      prompt(p)
    case .promptClosed(let id, let bundle, let outcome):
      u64(id)
      string(bundle)
      string(outcome)
    case .samplesChanged(let t, let origin, let added, let deleted):
      types(t)
      u8(origin.rawValue)
      u32(UInt32(clamping: added))
      u32(UInt32(clamping: deleted))
    case .syncApplied(let upTo, let items):
      u64(upTo)
      u32(UInt32(clamping: items))
    case .peerAcknowledged(let seq):
      u64(seq)
    case .linkChanged(let connected):
      bool(connected)
    case .protectedDataChanged(let available):
      bool(available)
    case .backgroundDelivery(let e):
      backgroundEvent(e)
    case .samplesPruned(let type, let apps):
      sampleType(type)
      array(apps) { $0.string($1) }
    }
  }
}

extension BinaryReader {
  mutating func storedCursor() throws(DecodeError) -> StoredCursor {
    StoredCursor(sample: try u64(), tombstone: try u64())
  }

  mutating func types() throws(DecodeError) -> [SampleType] {
    try array(minElementSize: 2) { r throws(DecodeError) in try r.sampleType() }
  }

  mutating func bundle() throws(DecodeError) -> String { try string(maxLength: 1024) }

  mutating func promptAnswer() throws(DecodeError) -> PromptAnswer {
    switch try u8() {
    case 0: return .allowAll
    case 1: return .denyAll
    case 2:
      let items = try array(minElementSize: 4) { r throws(DecodeError) in (try r.permission(), try r.bool()) }
      var choices: [Permission: Bool] = [:]
      for (p, on) in items { choices[p] = on }
      return .choices(choices)
    case 3: return .cancel
    case 4:
      let m = try u8()
      guard m <= 1 else { throw error("unknown presentation failure mode \(m)") }
      return .failToPresent(m == 0 ? .error : .silent)
    case 5: return .leaveApp
    case let t: throw error("unknown prompt answer \(t)")
    }
  }

  mutating func sources() throws(DecodeError) -> Set<String>? {
    try optional { r throws(DecodeError) in
      Set(try r.array(minElementSize: 4) { r throws(DecodeError) in try r.bundle() })
    }
  }

  mutating func sampleQuery() throws(DecodeError) -> SampleQuery {
    let type = try sampleType()
    let range = try optional { r throws(DecodeError) in try r.dateRange() }
    let sources = try sources()
    let limit = Int(try u32())
    let sort = try array(minElementSize: 2) { r throws(DecodeError) -> SampleSort in
      let raw = try r.u8()
      guard let field = SampleSort.Field(rawValue: raw) else { throw r.error("unknown sort field \(raw)") }
      return SampleSort(field, ascending: try r.bool())
    }
    let filter = try optional { r throws(DecodeError) in try r.sampleFilter() }
    return SampleQuery(type: type, range: range, sources: sources, limit: limit, sort: sort, filter: filter)
  }

  /// The deepest nesting of predicate nodes a filter may have.
  static let maxFilterDepth = 32

  mutating func sampleFilter(depth: Int = 0) throws(DecodeError) -> SampleFilter {
    guard depth < Self.maxFilterDepth else { throw error("predicate nested deeper than \(Self.maxFilterDepth)") }
    func op(_ r: inout BinaryReader) throws(DecodeError) -> ComparisonOperator {
      let raw = try r.u8()
      guard let op = ComparisonOperator(rawValue: raw) else { throw r.error("unknown comparison operator \(raw)") }
      return op
    }
    switch try u8() {
    case 0: return .constant(try bool())
    case 1: return .and(try array(minElementSize: 2) { r throws(DecodeError) in try r.sampleFilter(depth: depth + 1) })
    case 2: return .or(try array(minElementSize: 2) { r throws(DecodeError) in try r.sampleFilter(depth: depth + 1) })
    case 3: return .not(try sampleFilter(depth: depth + 1))
    case 4: return .dates(try dateRange())
    case 5: return .sources(Set(try array(minElementSize: 4) { r throws(DecodeError) in try r.bundle() }))
    case 6: return .uuids(Set(try array(minElementSize: 16) { r throws(DecodeError) in try r.uuid() }))
    case 7:
      let key = try string(maxLength: StoredLimits.identifier)
      switch try u8() {
      case 0: return .metadata(key: key, .exists)
      case 1:
        return .metadata(
          key: key, .oneOf(try array(minElementSize: 2) { r throws(DecodeError) in try r.metadataValue() }))
      case 2: return .metadata(key: key, .compare(try op(&self), try metadataValue()))
      case let t: throw error("unknown metadata condition \(t)")
      }
    case 8:
      let raw = try u8()
      guard let property = DeviceProperty(rawValue: raw) else { throw error("unknown device property \(raw)") }
      return .device(property, Set(try array(minElementSize: 4) { r throws(DecodeError) in try r.string() }))
    case 9: return .value(try op(&self), try f64())
    case 10: return .quantity(try op(&self), try f64(), unit: try string(maxLength: 256))
    case 11: return .notInCorrelation
    case 12:
      let raw = try u8()
      guard let field = SampleDateField(rawValue: raw) else { throw error("unknown date field \(raw)") }
      return .date(field, try op(&self), try f64())
    case let t: throw error("unknown predicate tag \(t)")
    }
  }

  mutating func backgroundEvent() throws(DecodeError) -> BackgroundDeliveryEvent {
    let raw = try u8()
    guard let kind = BackgroundDeliveryEvent.Kind(rawValue: raw) else {
      throw error("unknown background delivery event \(raw)")
    }
    return BackgroundDeliveryEvent(
      kind: kind, id: try u64(), bundleID: try bundle(), type: try sampleType(), attempt: Int(try u8()),
      at: try date())
  }

  mutating func backgroundStatus() throws(DecodeError) -> BackgroundDeliveryStatus {
    let key = BackgroundKey(try bundle(), try sampleType())
    return BackgroundDeliveryStatus(
      key: key, frequency: try updateFrequency(), effective: try updateFrequency(), stopped: try bool(),
      waiting: try optional { r throws(DecodeError) in try r.u64() }, misses: Int(try u32()), woken: Int(try u32()),
      completed: Int(try u32()), pending: try bool())
  }

  mutating func statisticsQuery() throws(DecodeError) -> StatisticsQuery {
    let type = try sampleType()
    let range = try optional { r throws(DecodeError) in try r.dateRange() }
    let sources = try sources()
    let options = StatisticsOptions(rawValue: try u32())
    let interval = try optional { r throws(DecodeError) in
      CalendarInterval(
        months: Int(Int32(bitPattern: try r.u32())), days: Int(Int32(bitPattern: try r.u32())), seconds: try r.f64())
    }
    let anchor = try optional { r throws(DecodeError) in try r.date() }
    let filter = try optional { r throws(DecodeError) in try r.sampleFilter() }
    return StatisticsQuery(
      type: type, range: range, sources: sources, options: options, interval: interval, anchor: anchor,
      filter: filter)
  }

  mutating func statistics(depth: Int = 0) throws(DecodeError) -> Statistics {
    var s = Statistics(start: try date(), end: try date())
    s.sampleCount = Int(try u32())
    var values: [Double?] = []
    for _ in 0..<6 { values.append(try optional { r throws(DecodeError) in try r.f64() }) }
    (s.sum, s.average, s.minimum, s.maximum, s.mostRecent, s.duration) = (
      values[0], values[1], values[2], values[3], values[4], values[5]
    )
    s.mostRecentDates = try optional { r throws(DecodeError) -> ClosedRange<Date> in
      let start = try r.date()
      let end = try r.date()
      guard start <= end else { throw r.error("most recent sample ends before it starts") }
      return start...end
    }
    let parts = try array(minElementSize: 31) { r throws(DecodeError) -> (String, Statistics) in
      guard depth < 1 else { throw r.error("nested per-source statistics") }
      return (try r.bundle(), try r.statistics(depth: depth + 1))
    }
    for (k, v) in parts { s.bySource[k] = v }
    return s
  }

  mutating func callResult() throws(DecodeError) -> AuthorizationCallResult {
    AuthorizationCallResult(success: try bool(), error: try optional { r throws(DecodeError) in try r.healthError() })
  }

  mutating func syncStatus() throws(DecodeError) -> DeviceSnapshot.SyncStatus {
    var status = DeviceSnapshot.SyncStatus(
      lastSeq: try u64(), peerAcked: try u64(), appliedFromPeer: try u64(), pendingEntries: Int(try u32()),
      pendingItems: Int(try u32()))
    status.logID = try u64()
    status.peerLogID = try u64()
    status.verified = try bool()
    status.diverged = try bool()
    status.conflicts = Int(try u32())
    return status
  }

  mutating func linkStatus() throws(DecodeError) -> LinkStatus {
    LinkStatus(
      enabled: try bool(), connected: try bool(), holding: try bool(), latency: try f64(), sync: try syncStatus())
  }

  mutating func promptOutcome() throws(DecodeError) -> PromptOutcome {
    switch try u8() {
    case 0: return .pending
    case 1: return .answered(try array(minElementSize: 4) { r throws(DecodeError) in try r.change() })
    case 2: return .cancelled
    case 3:
      let m = try u8()
      guard m <= 1 else { throw error("unknown presentation failure mode \(m)") }
      return .failedToPresent(m == 0 ? .error : .silent)
    case 4: return .withdrawn
    case 5: return .dismissed
    case let t: throw error("unknown prompt outcome \(t)")
    }
  }

  mutating func deviceSnapshot() throws(DecodeError) -> DeviceSnapshot {
    let device = try self.device()
    let policy = try self.policy()
    let now = try date()
    let virtualClock = try bool()
    let earliest = try date()
    let apps = try array(minElementSize: 16) { r throws(DecodeError) in
      var record = try r.app()
      record.entitlements = try r.entitlements()
      return DeviceSnapshot.AppState(
        record: record, decisions: try r.array(minElementSize: 4) { r throws(DecodeError) in try r.change() },
        lockedOut: try r.bool())
    }
    let pending = try array(minElementSize: 24) { r throws(DecodeError) in try r.prompt() }
    let history = try array(minElementSize: 25) { r throws(DecodeError) in
      PromptRecord(prompt: try r.prompt(), outcome: try r.promptOutcome())
    }
    let counts = try array(minElementSize: 10) { r throws(DecodeError) in (try r.sampleType(), try r.count64()) }
    var sampleCounts: [SampleType: Int] = [:]
    for (t, c) in counts { sampleCounts[t] = c }
    var snapshot = DeviceSnapshot(
      device: device, policy: policy, now: now, virtualClock: virtualClock, earliestPermittedSampleDate: earliest,
      apps: apps, pendingPrompts: pending, promptHistory: history, sampleCounts: sampleCounts,
      tombstoneCount: try count64(), changeCounter: try u64(), sync: try syncStatus())
    snapshot.locked = try bool()
    snapshot.lockedSamples = try count64()
    for (t, v) in try array(minElementSize: 4, { r throws(DecodeError) in try r.typedCharacteristic() }) {
      snapshot.characteristics[t] = v
    }
    for (t, u) in try array(minElementSize: 6, { r throws(DecodeError) in try r.typedUnit() }) {
      snapshot.preferredUnits[t] = u
    }
    return snapshot
  }

  /// A characteristic type and a value that fits it.
  mutating func typedCharacteristic() throws(DecodeError) -> (SampleType, CharacteristicValue) {
    let typeOffset = offset
    let type = try sampleType()
    guard type.descriptor.isCharacteristic else {
      throw DecodeError(offset: reportBase + typeOffset, "\(type.name) is not a characteristic type")
    }
    return (type, try characteristicValue(for: type))
  }

  /// A quantity type and a unit string.
  mutating func typedUnit() throws(DecodeError) -> (SampleType, String) {
    let typeOffset = offset
    let type = try sampleType()
    guard type.descriptor.isQuantity else {
      throw DecodeError(offset: reportBase + typeOffset, "\(type.name) is not a quantity type")
    }
    return (type, try string(maxLength: StoredLimits.unit))
  }

  mutating func reply() throws(DecodeError) -> Reply {
    let tagOffset = offset
    let raw = try u8()
    guard let tag = ReplyTag(rawValue: raw) else {
      throw DecodeError(offset: reportBase + tagOffset, "unknown reply tag \(raw)")
    }
    switch tag {
    case .ok: return .ok
    case .hello:
      return .hello(
        HelloInfo(
          version: try u16(), device: try device(), pid: Int32(bitPattern: try u32()),
          software: try string(maxLength: 256)))
    case .authorization: return .authorization(try callResult())
    case .prompt: return .prompt(try prompt())
    case .status:
      let raw = try u8()
      guard let s = AuthorizationStatus(rawValue: Int(raw)) else { throw error("unknown authorization status \(raw)") }
      return .status(s)
    case .requestStatus:
      let raw = try u8()
      guard let s = AuthorizationRequestStatus(rawValue: Int(raw)) else { throw error("unknown request status \(raw)") }
      return .requestStatus(s)
    case .samples: return .samples(try importSamples())
    case .statistics: return .statistics(try statistics())
    case .collection:
      return .collection(
        try array(minElementSize: 31) { r throws(DecodeError) in try r.statistics() },
        timeZone: try string(maxLength: 64))
    case .anchored:
      return .anchored(
        AnchoredResult(
          added: try importSamples(),
          deleted: try array(minElementSize: 31) { r throws(DecodeError) in try r.tombstone() }, newAnchor: try u64()))
    case .snapshot:
      return .snapshot(
        DaemonSnapshot(
          device: try deviceSnapshot(), link: try linkStatus(), pid: Int32(bitPattern: try u32()),
          clients: Int(try u32())))
    case .stored:
      return .stored(
        samples: try array(minElementSize: 50) { r throws(DecodeError) in try r.sample() },
        tombstones: try array(minElementSize: 31) { r throws(DecodeError) in try r.tombstone() },
        next: try optional { r throws(DecodeError) in try r.storedCursor() })
    case .date: return .date(try date())
    case .link: return .link(try linkStatus())
    case .count: return .count(Int(clamping: try u64()))
    case .imported:
      var added: [SampleType: Int] = [:]
      let entries = try array(minElementSize: 10) { r throws(DecodeError) in
        (try r.sampleType(), Int(clamping: try r.u64()))
      }
      for (type, count) in entries { added[type] = count }
      var outcome = ImportOutcome(
        added: added, alreadyPresent: Int(clamping: try u64()), beforeRetention: Int(clamping: try u64()))
      outcome.characteristicsSet = Int(clamping: try u64())
      return .imported(outcome)
    case .characteristic:
      let typeOffset = offset
      let type = try sampleType()
      guard type.descriptor.isCharacteristic else {
        throw DecodeError(offset: reportBase + typeOffset, "\(type.name) is not a characteristic type")
      }
      return .characteristic(type, try optional { r throws(DecodeError) in try r.characteristicValue(for: type) })
    case .units:
      var units: [SampleType: String] = [:]
      for (t, u) in try array(minElementSize: 6, { r throws(DecodeError) in try r.typedUnit() }) { units[t] = u }
      return .units(units)
    case .backgroundDeliveries:
      return .backgroundDeliveries(
        try array(minElementSize: 20) { r throws(DecodeError) in try r.backgroundStatus() },
        history: try array(minElementSize: 20) { r throws(DecodeError) in try r.backgroundEvent() })
    case .correlations:
      return .correlations(
        try array(minElementSize: 51) { r throws(DecodeError) in
          CorrelationResult(
            correlation: try r.correlation(),
            objects: try r.array(minElementSize: 50) { r throws(DecodeError) in try r.sample() })
        })
    }
  }

  /// The opcode, then the fields its row in ``RequestTable`` lays out.
  mutating func request() throws(DecodeError) -> Request {
    let opcodeOffset = offset
    let raw = try u8()
    guard let opcode = RequestOpcode(rawValue: raw) else {
      throw DecodeError(offset: reportBase + opcodeOffset, "unknown request opcode \(raw)")
    }
    return try opcode.readFields(from: &self)
  }

  mutating func daemonEvent() throws(DecodeError) -> DaemonEvent {
    let tagOffset = offset
    let raw = try u8()
    guard let tag = EventTag(rawValue: raw) else {
      throw DecodeError(offset: reportBase + tagOffset, "unknown event tag \(raw)")
    }
    switch tag {
    case .promptShown: return .promptShown(try prompt())
    case .promptClosed:
      return .promptClosed(promptID: try u64(), bundleID: try bundle(), outcome: try string(maxLength: 4096))
    case .samplesChanged:
      return .samplesChanged(types: try types(), origin: try device(), added: Int(try u32()), deleted: Int(try u32()))
    case .syncApplied: return .syncApplied(upTo: try u64(), items: Int(try u32()))
    case .peerAcknowledged: return .peerAcknowledged(try u64())
    case .linkChanged: return .linkChanged(connected: try bool())
    case .protectedDataChanged: return .protectedDataChanged(available: try bool())
    case .backgroundDelivery: return .backgroundDelivery(try backgroundEvent())
    case .samplesPruned:
      return .samplesPruned(
        type: try sampleType(), apps: try array(minElementSize: 4) { r throws(DecodeError) in try r.bundle() })
    }
  }
}
