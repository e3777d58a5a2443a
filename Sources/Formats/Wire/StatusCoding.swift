import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel

// The layouts of what a reply carries besides samples: statistics, authorization results, sync and link
// status, sheets' outcomes, the device snapshot, background delivery (docs/protocol.md, "Replies").

extension BinaryWriter {
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
    u64(l.sessions.sent)
    u64(l.sessions.received)
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
      w.healthRecordsInfo(a.record.healthRecords)
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
    array(s.waitingExtensionRequests) { $0.prompt($1) }
  }
}

extension BinaryReader {
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
      enabled: try bool(), connected: try bool(), holding: try bool(), latency: try f64(), sync: try syncStatus(),
      sessions: SessionTraffic(sent: try u64(), received: try u64()))
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
    let apps = try array(minElementSize: 21) { r throws(DecodeError) in
      var record = try r.app()
      record.entitlements = try r.entitlements()
      record.healthRecords = try r.healthRecordsInfo()
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
    snapshot.waitingExtensionRequests = try array(minElementSize: 24) { r throws(DecodeError) in try r.prompt() }
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
}
