import FoundationEssentials
import HealthEngine
import HealthModel

// The binary encoding of a device's durable state, as a snapshot stores it (docs/journal.md#snapshots). Built on
// the same primitives and value encodings as the journal's events; slots and date indexes are bulk arrays of
// fixed-layout little-endian records.
//
// state        := device u8 | policy | virtualNow date? | apps [app] | decisions [string, change] |
//                 lockedOut [string] | conflicts [uuid, type u16, kept u8] | conflictCount u64 |
//                 stamps [bundleID string, permission, at date, device u8] | ledger | store | userData?
// ledger       := logID u64 | peerLogID u64 | lastSeq u64 | peerAcked u64 | appliedFromPeer u64 | pending [entry]
// entry        := seq u64 | tag u8 | payload (SyncPayloadTable.swift: as a sync entry's, but tag 0 is the store
//                 slots `start u32, count u32` and tag 4 never occurs)
// userData     := locked bool | lockedJournal [sample] | characteristics [type u16, characteristic-value] |
//                 units [type u16, string] | settingStamps [kind u8, type u16, at date, device u8]
//                 (absent in snapshots written before the device lock existed: unlocked, nothing set)
// store        := changeCounter u64 | sources [source] | metadata [metadata] | tombstones [tombstone, change u64] |
//                 slotCount u64 | slot × slotCount | identifierCount u64 | bucketCount u64 | u64 × bucketCount |
//                 dayDigests [day i64, sum u64, count u64] | startOrders [type u16, sortedCount u64, n u64, i32 × n]
//                 | extras
// extras       := entitled [bundleID string, [entitlement u8]] | background [bundleID string, type u16, frequency u8]
//                 (written by every build since background delivery; a snapshot that ends before it has neither)
//                 | correlations? | workouts | resend? | locked? | objects? (ElectrocardiogramCoding.swift)
//                 | records?
// records      := u8 7 | [bundleID string, health-records-info]: the apps' clinical-record Info.plist keys, written
//                 only when an app has any (absent: none, as in snapshots of earlier builds)
// correlations := live [correlation] | deleted [tombstone]   (written by every build since correlations; a snapshot
//                 that ends before it, from an earlier build, has none — so the snapshot version did not change)
// workouts     := live [workout, change u64] | routes [route, change u64] | series [heartbeat-series, change u64]
//                 | summaries [activity-summary] | deleted [tombstone, change u64]   (snapshot version 2 on: always
//                 after the correlations; a version-1 snapshot is refused by its header, so the journal is replayed)
// resend       := u8 1, written only while the ledger's re-send request is pending (absent: none)
// locked       := u8 2 | workouts [workout] | routes [route]: what was saved while locked and waits for the unlock
//                 (behavior.md E31), written only when there is any (absent: none, as in snapshots of earlier builds)
// slot (64 B)  := uuid 16 | start f64 | end f64 | value f64 | change u64 | metadataIndex i32 | source u32 |
//                 type u16 | live u8 | 5 zero bytes

/// Bytes in one encoded slot. (`SampleStore.Slot` packs the same fields into 56 bytes in memory; the record keeps
/// its 64-byte layout, so snapshots written before the packing read unchanged and the format version stays.)
let slotRecordSize = 64
/// Slots encoded per batch between flushes.
private let slotsPerBatch = 16_384
/// Buffered bytes after which the encoder hands its buffer to `flush`.
private let flushThreshold = 1 << 20

extension BinaryWriter {
  /// Encodes a device's durable state (everything journal replay rebuilds; pending sheets are left out), handing
  /// the buffer to `flush` whenever more than about 1 MiB is buffered and once at the end, so a large store
  /// streams out without a second copy in memory. `flush` should consume (empty) the buffer.
  package mutating func deviceState<E: Error>(
    _ state: DeviceState, flush: (inout BinaryWriter) throws(E) -> Void
  ) throws(E) {
    u8(state.device.rawValue)
    policy(state.policy)
    optional(state.virtualNow) { $0.date($1) }
    array(state.apps.values.sorted { $0.bundleID < $1.bundleID }) { $0.app($1) }
    sortedEntries(state.decisions, by: appThenPermission) { w, key, decision in
      w.string(key.bundleID)
      w.change(AuthorizationChange(key.permission, decision))
    }
    array(state.lockedOut.sorted()) { $0.string($1) }
    array(state.syncConflicts) { w, conflict in
      w.uuid(conflict.uuid)
      w.sampleType(conflict.type)
      w.u8(conflict.kept.rawValue)
    }
    u64(UInt64(state.syncConflictCount))
    sortedEntries(state.decisionStamps, by: appThenPermission) { w, key, stamp in
      w.string(key.bundleID)
      w.permission(key.permission)
      w.date(stamp.at)
      w.u8(stamp.device.rawValue)
    }
    let ledger = state.sync
    u64(ledger.logID)
    u64(ledger.peerLogID)
    u64(ledger.lastSeq)
    u64(ledger.peerAcked)
    u64(ledger.appliedFromPeer)
    u32(UInt32(ledger.pendingEntries.count))
    for entry in ledger.pendingEntries {
      storedEntry(entry)
      if bytes.count >= flushThreshold { try flush(&self) }
    }
    let store = state.store.contents
    u64(store.changeCounter)
    array(store.sources) { $0.source($1) }
    u32(UInt32(store.metadata.count))
    for metadata in store.metadata {
      self.metadata(metadata)
      if bytes.count >= flushThreshold { try flush(&self) }
    }
    u32(UInt32(store.tombstones.count))
    for stored in store.tombstones {
      tombstone(stored.tombstone)
      u64(stored.change)
      if bytes.count >= flushThreshold { try flush(&self) }
    }
    u64(UInt64(store.slots.count))
    var first = 0
    while first < store.slots.count {
      let n = min(slotsPerBatch, store.slots.count - first)
      raw(n * slotRecordSize) { out in
        store.slots.withUnsafeBufferPointer { slots in
          for k in 0..<n { encodeSlot(slots[first + k], into: out.baseAddress! + k * slotRecordSize) }
        }
      }
      first += n
      if bytes.count >= flushThreshold { try flush(&self) }
    }
    u64(UInt64(store.identifierCount))
    u64(UInt64(store.identifierBuckets.count))
    var bucket = 0
    while bucket < store.identifierBuckets.count {
      let n = min(slotsPerBatch * 8, store.identifierBuckets.count - bucket)
      raw(n * 8) { out in
        for k in 0..<n {
          out.storeBytes(of: store.identifierBuckets[bucket + k].littleEndian, toByteOffset: k * 8, as: UInt64.self)
        }
      }
      bucket += n
      if bytes.count >= flushThreshold { try flush(&self) }
    }
    array(store.dayDigests) { w, digest in
      w.i64(digest.day)
      w.u64(digest.sum)
      w.u64(digest.count)
    }
    u32(UInt32(store.startOrders.count))
    for order in store.startOrders {
      u16(order.type)
      u64(UInt64(order.sortedCount))
      u64(UInt64(order.order.count))
      var first = 0
      while first < order.order.count {
        let n = min(slotsPerBatch * 16, order.order.count - first)
        raw(n * 4) { out in
          for k in 0..<n {
            out.storeBytes(of: order.order[first + k].littleEndian, toByteOffset: k * 4, as: Int32.self)
          }
        }
        first += n
        if bytes.count >= flushThreshold { try flush(&self) }
      }
    }
    let user = state.userData
    bool(user.isLocked)
    array(user.lockedJournal) { $0.sample($1) }
    sortedEntries(user.characteristics) { w, type, value in
      w.sampleType(type)
      w.characteristicValue(value)
    }
    sortedEntries(user.preferredUnits) { w, type, unit in
      w.sampleType(type)
      w.string(unit)
    }
    sortedEntries(user.stamps) { w, key, stamp in
      switch key {
      case .characteristic(let t):
        w.u8(0)
        w.sampleType(t)
      case .preferredUnit(let t):
        w.u8(1)
        w.sampleType(t)
      }
      w.date(stamp.at)
      w.u8(stamp.device.rawValue)
    }
    let entitled = state.apps.values.filter { !$0.entitlements.isEmpty }.sorted { $0.bundleID < $1.bundleID }
    array(entitled) { w, app in
      w.string(app.bundleID)
      w.entitlements(app.entitlements)
    }
    sortedEntries(state.backgroundRegistrations) { w, key, frequency in
      w.string(key.bundleID)
      w.sampleType(key.type)
      w.u8(frequency.rawValue)
    }
    array(state.correlationStore.ordered) { $0.correlation($1) }
    array(state.correlationStore.orderedDeletions) { $0.tombstone($1) }
    workoutStore(state.workoutStore)
    if state.sync.resendRequested { u8(1) }
    if !state.lockedWorkouts.isEmpty || !state.lockedRoutes.isEmpty {
      u8(2)
      array(state.lockedWorkouts) { $0.workout($1) }
      array(state.lockedRoutes) { $0.workoutRoute($1) }
    }
    specialObjects(state.specialObjects)
    prescriptionsSection(state.specialObjects)
    assessmentsSection(state.specialObjects)
    medicationsSection(state.specialObjects)
    healthRecordsSection(state.apps)
    try flush(&self)
  }

  /// Writes a dictionary as an array (`u32` count, then each entry) in the order `areInIncreasingOrder` gives its
  /// keys, so equal states encode to equal bytes whatever the dictionary's iteration order.
  private mutating func sortedEntries<Key, Value>(
    _ dictionary: [Key: Value], by areInIncreasingOrder: (Key, Key) -> Bool,
    _ entry: (inout BinaryWriter, Key, Value) -> Void
  ) {
    array(dictionary.sorted { areInIncreasingOrder($0.key, $1.key) }) { w, item in entry(&w, item.key, item.value) }
  }

  /// ``sortedEntries(_:by:_:)`` in the keys' own order.
  private mutating func sortedEntries<Key: Comparable, Value>(
    _ dictionary: [Key: Value], _ entry: (inout BinaryWriter, Key, Value) -> Void
  ) {
    sortedEntries(dictionary, by: <, entry)
  }
}

/// Authorization keys by app, then permission: the order decisions and their stamps are written in.
private func appThenPermission(_ a: AuthorizationKey, _ b: AuthorizationKey) -> Bool {
  a.bundleID != b.bundleID ? a.bundleID < b.bundleID : a.permission < b.permission
}

/// Writes one slot's 64-byte record at `out` (zero-filled: the padding stays zero).
@inline(__always)
private func encodeSlot(_ slot: SampleStore.Slot, into out: UnsafeMutableRawPointer) {
  withUnsafeBytes(of: slot.uuid.uuid) { out.copyMemory(from: $0.baseAddress!, byteCount: 16) }
  out.storeBytes(of: slot.start.bitPattern.littleEndian, toByteOffset: 16, as: UInt64.self)
  out.storeBytes(of: slot.end.bitPattern.littleEndian, toByteOffset: 24, as: UInt64.self)
  out.storeBytes(of: slot.value.bitPattern.littleEndian, toByteOffset: 32, as: UInt64.self)
  out.storeBytes(of: slot.change.littleEndian, toByteOffset: 40, as: UInt64.self)
  out.storeBytes(of: slot.metadataIndex.littleEndian, toByteOffset: 48, as: Int32.self)
  out.storeBytes(of: slot.source.littleEndian, toByteOffset: 52, as: UInt32.self)
  out.storeBytes(of: slot.type.littleEndian, toByteOffset: 56, as: UInt16.self)
  out.storeBytes(of: slot.live ? 1 : 0, toByteOffset: 58, as: UInt8.self)
}

extension BinaryReader {
  /// Decodes what ``BinaryWriter/deviceState(_:flush:)`` wrote and restores the device, derived indexes
  /// included.
  /// - Throws: ``DecodeError`` for malformed bytes and for contents that break an engine invariant (the offset
  ///   is then the end of the section that failed to restore).
  package mutating func deviceState() throws(DecodeError) -> DeviceState {
    let device = try self.device()
    let policy = try self.policy()
    let virtualNow = try optional { r throws(DecodeError) in try r.date() }
    var apps: [String: AppRecord] = [:]
    for app in try array(minElementSize: 10, { r throws(DecodeError) in try r.app() }) {
      guard apps.updateValue(app, forKey: app.bundleID) == nil else {
        throw error("app '\(app.bundleID)' listed twice")
      }
    }
    var decisions: [AuthorizationKey: Decision] = [:]
    let decisionList = try array(minElementSize: 8) { r throws(DecodeError) in
      (try r.string(maxLength: 1024), try r.change())
    }
    for (bundleID, change) in decisionList {
      decisions[AuthorizationKey(bundleID, change.permission)] = change.decision
    }
    let lockedOut = Set(try array(minElementSize: 4) { r throws(DecodeError) in try r.string(maxLength: 1024) })
    let conflicts = try array(minElementSize: 19) { r throws(DecodeError) in
      SyncConflict(uuid: try r.uuid(), type: try r.sampleType(), kept: try r.device())
    }
    let conflictCount = try count64()
    var stamps: [AuthorizationKey: DecisionStamp] = [:]
    let stampList = try array(minElementSize: 16) { r throws(DecodeError) in
      (
        try r.string(maxLength: StoredLimits.identifier), try r.permission(), try r.finiteDate("decision time"),
        try r.device()
      )
    }
    for (bundleID, permission, at, device) in stampList {
      stamps[AuthorizationKey(bundleID, permission)] = DecisionStamp(at: at, device: device)
    }
    let logID = try u64()
    let peerLogID = try u64()
    let lastSeq = try u64()
    let peerAcked = try u64()
    let appliedFromPeer = try u64()
    let pending = try array(minElementSize: 9) { r throws(DecodeError) in try r.storedEntry() }
    var ledger: SyncLedger
    do {
      ledger = try SyncLedger(
        restoringLogID: logID, peerLogID: peerLogID, lastSeq: lastSeq, peerAcked: peerAcked,
        appliedFromPeer: appliedFromPeer, pending: pending)
    } catch { throw self.error(error.message) }
    let store = try sampleStore()
    var userData = remaining > 0 ? try self.userData() : DeviceState.UserData()
    var registrations: [BackgroundKey: UpdateFrequency] = [:]
    var correlations = CorrelationStore()
    var workouts = WorkoutStore()
    var objects = SpecialObjectStore()
    if !isAtEnd {
      let entitled = try array(minElementSize: 8) { r throws(DecodeError) in
        (try r.string(maxLength: StoredLimits.identifier), try r.entitlements())
      }
      for (bundleID, entitlements) in entitled {
        guard apps[bundleID] != nil else { throw error("entitlements of app '\(bundleID)', which is not installed") }
        apps[bundleID]!.entitlements = entitlements
      }
      let listed = try array(minElementSize: 7) { r throws(DecodeError) in
        (try r.string(maxLength: StoredLimits.identifier), try r.sampleType(), try r.updateFrequency())
      }
      for (bundleID, type, frequency) in listed {
        guard registrations.updateValue(frequency, forKey: BackgroundKey(bundleID, type)) == nil else {
          throw error("background delivery of \(type) for '\(bundleID)' listed twice")
        }
      }
      if !isAtEnd {
        let live = try array(minElementSize: 47) { r throws(DecodeError) in try r.correlation() }
        let deleted = try array(minElementSize: 31) { r throws(DecodeError) in try r.tombstone() }
        do { correlations = try CorrelationStore(restoring: live, deleted: deleted) } catch {
          throw self.error(error.message)
        }
        workouts = try workoutStore(changeCounter: store.changeCounter)
      }
      // The optional re-send request: a 1; anything else is left for the caller's check for trailing bytes.
      var probe = self
      if !isAtEnd, try probe.u8() == 1 {
        self = probe
        ledger.requestResend()
      }
      // What was saved while locked: a 2, then the workouts and routes.
      probe = self
      if !isAtEnd, try probe.u8() == 2 {
        self = probe
        userData.lockedWorkouts = try array(minElementSize: 76) { r throws(DecodeError) in try r.workout() }
        userData.lockedRoutes = try array(minElementSize: 44) { r throws(DecodeError) in try r.workoutRoute() }
      }
      // The special object families: a 3, then their lists.
      probe = self
      if !isAtEnd, try probe.u8() == 3 {
        self = probe
        objects = try specialObjects(changeCounter: store.changeCounter)
      }
      // Vision prescriptions and per-object choices: a 4, then their lists.
      probe = self
      if !isAtEnd, try probe.u8() == 4 {
        self = probe
        try prescriptionsSection(into: &objects, changeCounter: store.changeCounter)
      }
      // Scored assessments, CDA documents and the documents' per-object choices: a 5, then their lists.
      probe = self
      if !isAtEnd, try probe.u8() == 5 {
        self = probe
        try assessmentsSection(into: &objects, changeCounter: store.changeCounter)
      }
      // Medications, their doses and their per-object choices: a 6, then their lists.
      probe = self
      if !isAtEnd, try probe.u8() == 6 {
        self = probe
        try medicationsSection(into: &objects, changeCounter: store.changeCounter)
      }
      // The apps' clinical-record Info.plist keys: a 7, then each app's.
      probe = self
      if !isAtEnd, try probe.u8() == 7 {
        self = probe
        try healthRecordsSection(into: &apps)
      }
    }
    do {
      return try DeviceState(
        restoring: device, policy: policy, virtualNow: virtualNow, apps: apps, decisions: decisions,
        lockedOut: lockedOut, store: store, sync: ledger, syncConflicts: conflicts, syncConflictCount: conflictCount,
        decisionStamps: stamps, userData: userData, backgroundRegistrations: registrations,
        correlations: correlations, workouts: workouts, specialObjects: objects)
    } catch { throw self.error(error.message) }
  }

  /// The lock and Health app section (see the grammar above).
  private mutating func userData() throws(DecodeError) -> DeviceState.UserData {
    var data = DeviceState.UserData()
    data.isLocked = try bool()
    data.lockedJournal = try array(minElementSize: 50) { r throws(DecodeError) in try r.sample() }
    let characteristics = try array(minElementSize: 4) { r throws(DecodeError) -> (SampleType, CharacteristicValue) in
      let type = try r.sampleType()
      guard type.descriptor.isCharacteristic else { throw r.error("\(type.name) is not a characteristic type") }
      return (type, try r.characteristicValue(for: type))
    }
    for (type, value) in characteristics { data.characteristics[type] = value }
    let units = try array(minElementSize: 6) { r throws(DecodeError) -> (SampleType, String) in
      let type = try r.sampleType()
      return (type, try r.string(maxLength: StoredLimits.unit))
    }
    for (type, unit) in units { data.preferredUnits[type] = unit }
    let stamps = try array(minElementSize: 12) { r throws(DecodeError) -> (UserSettingKey, DecisionStamp) in
      let kind = try r.u8()
      let type = try r.sampleType()
      let key: UserSettingKey
      switch kind {
      case 0: key = .characteristic(type)
      case 1: key = .preferredUnit(type)
      default: throw r.error("unknown Health app setting kind \(kind)")
      }
      return (key, DecisionStamp(at: try r.finiteDate("setting time"), device: try r.device()))
    }
    for (key, stamp) in stamps { data.stamps[key] = stamp }
    return data
  }

  private mutating func sampleStore() throws(DecodeError) -> SampleStore {
    let changeCounter = try u64()
    let sources = try array(minElementSize: 5) { r throws(DecodeError) in try r.source() }
    let metadata = try array(minElementSize: 4) { r throws(DecodeError) in try r.metadata() }
    let tombstones = try array(minElementSize: 39) { r throws(DecodeError) in
      SampleStore.StoredTombstone(tombstone: try r.tombstone(), change: try r.u64())
    }
    let slotCount = try count64()
    guard slotCount <= remaining / slotRecordSize else {
      throw error("slot count \(slotCount) exceeds the \(remaining) bytes left")
    }
    let slotStart = offset
    let records = try raw(slotCount * slotRecordSize, "slots")
    // The first bad field: (slot, offset of the field in its record, what is wrong).
    var bad: (slot: Int, field: Int, message: String)?
    let slots = ContiguousArray<SampleStore.Slot>(unsafeUninitializedCapacity: slotCount) { buffer, initialized in
      for k in 0..<slotCount {
        let at = k * slotRecordSize
        func u64(_ field: Int) -> UInt64 {
          UInt64(littleEndian: records.loadUnaligned(fromByteOffset: at + field, as: UInt64.self))
        }
        let live = records[at + 58]
        let change = u64(40)
        let source = UInt32(littleEndian: records.loadUnaligned(fromByteOffset: at + 52, as: UInt32.self))
        guard live <= 1, change <= SampleStore.Slot.maxChange, source <= SampleStore.Slot.maxSource else {
          bad =
            live > 1
            ? (k, 58, "invalid live byte")
            : change > SampleStore.Slot.maxChange
              ? (k, 40, "change number \(change) above \(SampleStore.Slot.maxChange)")
              : (k, 52, "source index \(source) above \(SampleStore.Slot.maxSource)")
          initialized = k
          return
        }
        (buffer.baseAddress! + k).initialize(
          to: SampleStore.Slot(
            uuid: UUID(uuid: records.loadUnaligned(fromByteOffset: at, as: uuid_t.self)),
            start: Double(bitPattern: u64(16)), end: Double(bitPattern: u64(24)), value: Double(bitPattern: u64(32)),
            change: change,
            metadataIndex: Int32(littleEndian: records.loadUnaligned(fromByteOffset: at + 48, as: Int32.self)),
            source: source, type: UInt16(littleEndian: records.loadUnaligned(fromByteOffset: at + 56, as: UInt16.self)),
            live: live == 1))
      }
      initialized = slotCount
    }
    if let bad {
      throw DecodeError(
        offset: reportBase + slotStart + bad.slot * slotRecordSize + bad.field, "\(bad.message) in slot \(bad.slot)")
    }
    let identifierCount = try count64()
    let bucketCount = try count64()
    guard bucketCount <= remaining / 8 else {
      throw error("identifier map of \(bucketCount) buckets exceeds the \(remaining) bytes left")
    }
    let bucketBytes = try raw(bucketCount * 8, "identifier map")
    let buckets = [UInt64](unsafeUninitializedCapacity: bucketCount) { buffer, initialized in
      for k in 0..<bucketCount {
        buffer[k] = UInt64(littleEndian: bucketBytes.loadUnaligned(fromByteOffset: k * 8, as: UInt64.self))
      }
      initialized = bucketCount
    }
    let dayDigests = try array(minElementSize: 24) { r throws(DecodeError) in
      SampleStore.DayDigest(day: try r.i64(), sum: try r.u64(), count: try r.u64())
    }
    let startOrders = try array(minElementSize: 18) { r throws(DecodeError) in
      let type = try r.u16()
      let sortedCount = try r.count64()
      let n = try r.count64()
      guard n <= r.remaining / 4 else {
        throw r.error("date index of \(n) entries exceeds the \(r.remaining) bytes left")
      }
      let bytes = try r.raw(n * 4, "date index")
      let order = [Int32](unsafeUninitializedCapacity: n) { buffer, initialized in
        for k in 0..<n { buffer[k] = Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: k * 4, as: Int32.self)) }
        initialized = n
      }
      return SampleStore.StartOrder(type: type, order: order, sortedCount: sortedCount)
    }
    do {
      return try SampleStore(
        restoring: SampleStore.Contents(
          slots: slots, metadata: metadata, sources: sources, tombstones: tombstones, changeCounter: changeCounter,
          startOrders: startOrders, identifierBuckets: buckets, identifierCount: identifierCount,
          dayDigests: dayDigests))
    } catch { throw self.error(error.message) }
  }
}
