import FoundationEssentials
import HealthModel

/// The samples one device holds, indexed for the queries HealthKit offers.
///
/// Samples live in one contiguous slot array (56 bytes each) with interned sources and a side table for metadata,
/// so a million samples stay well under 100 MB. Slots are stored in change order; each type keeps the blocks of
/// slots it has slots in (for anchored queries) and its slots sorted by start date (for date-range queries:
/// inserts in date order extend the sorted run, others are sorted in by ``settle()`` after each applied event).
/// Every insert and delete gets the next change number, which anchored queries use as the anchor. Queries only
/// read: none of them sorts or caches anything.
///
/// The store's jobs are split by file: this one holds its storage, inserts, deletions and lookups;
/// SampleStore+DateOrder.swift the per-type date order and ``settle()``; SampleStore+Scans.swift the queries'
/// candidate windows and scans; SampleStore+Digests.swift the per-day digests; SampleStore+Snapshots.swift the
/// durable contents and their restore; StatisticsSummary.swift the statistics summaries.
package struct SampleStore: Sendable {
  /// One stored sample: 56 bytes (a stride of 56, pinned by `PackedSlotTests.packing`). The change number shares a
  /// word with the type code (48 + 16 bits) and the source index one with the live flag (31 + 1 bits);
  /// ``maxChange`` and ``maxSource`` are the limits.
  package struct Slot: Sendable {
    /// The sample's identifier.
    package var uuid: UUID
    /// Start, seconds since the reference date.
    package var start: Double
    /// End, seconds since the reference date.
    package var end: Double
    /// Quantity in the canonical unit, or the category value.
    package var value: Double
    /// The change number in the low 48 bits, the type code in the high 16.
    private var changeAndType: UInt64
    /// Index into the metadata table, or -1.
    package var metadataIndex: Int32
    /// The source index in the low 31 bits; the top bit is set while the slot is live.
    private var sourceAndLive: UInt32

    /// The largest change number a slot can hold (2⁴⁸ − 1: a device would need centuries of a million changes a
    /// second to reach it; a snapshot claiming more is refused).
    package static let maxChange: UInt64 = 1 << 48 - 1
    /// The largest source index a slot can hold (2³¹ − 1).
    package static let maxSource: UInt32 = 1 << 31 - 1

    /// Creates a slot. `change` must be at most ``maxChange`` and `source` at most ``maxSource`` (the store and
    /// the snapshot decoder check before calling).
    @inline(__always)
    package init(
      uuid: UUID, start: Double, end: Double, value: Double, change: UInt64, metadataIndex: Int32, source: UInt32,
      type: UInt16, live: Bool
    ) {
      precondition(change <= Self.maxChange && source <= Self.maxSource, "slot field out of range")
      self.uuid = uuid
      self.start = start
      self.end = end
      self.value = value
      self.changeAndType = change | UInt64(type) << 48
      self.metadataIndex = metadataIndex
      self.sourceAndLive = source | (live ? 1 << 31 : 0)
    }

    /// The change number of the insert.
    package var change: UInt64 {
      @inline(__always) get { changeAndType & Self.maxChange }
    }
    /// The type code.
    package var type: UInt16 {
      @inline(__always) get { UInt16(truncatingIfNeeded: changeAndType >> 48) }
    }
    /// Index into the source table.
    package var source: UInt32 {
      @inline(__always) get { sourceAndLive & Self.maxSource }
    }
    /// False once deleted or pruned.
    package var live: Bool {
      @inline(__always) get { sourceAndLive >> 31 != 0 }
      @inline(__always) set { sourceAndLive = sourceAndLive & Self.maxSource | (newValue ? 1 << 31 : 0) }
    }
  }

  /// A stored deletion record.
  package struct StoredTombstone: Sendable {
    /// The tombstone.
    package var tombstone: Tombstone
    /// The change number of the deletion.
    package var change: UInt64

    /// Creates a stored deletion record.
    package init(tombstone: Tombstone, change: UInt64) {
      self.tombstone = tombstone
      self.change = change
    }
  }

  /// One type's indexes. The date order is kept in two sorted runs and an unsorted batch: `byStart` holds most of
  /// the type, `tail` the recent out-of-order inserts, `pending` the out-of-order inserts since the last
  /// ``SampleStore/settle()``. Inserts in date order (the usual case) append to `byStart`; a settle sorts
  /// `pending` into `tail`, and merges `tail` into `byStart` once it passes ``SampleStore/tailLimit(for:)``, so
  /// no query ever sorts or writes: queries are reads.
  struct TypeIndex: Sendable {
    /// The blocks of ``SampleStore/blockSize`` consecutive slots that hold a slot of the type, ascending (what an
    /// anchored query walks: a type's slots in change order, at 4 bytes a block instead of 4 bytes a slot).
    var blocks: [UInt32] = []
    /// How many slots of the type were ever stored, live or not.
    var count = 0
    /// Slot indices in date order (start, then change number).
    var byStart: [Int32] = []
    /// Out-of-order inserts already settled, in date order, each ordered before `byStart`'s last entry.
    var tail: [Int32] = []
    /// Out-of-order inserts not yet settled, in insertion order.
    var pending: [Int32] = []
    /// The start of `byStart`'s last entry (kept here so an insert reads no slot and copies no index).
    var lastStart = -Double.infinity
    /// The longest duration of a slot of the type ever stored.
    var maxDuration = 0.0
    /// How many slots of the type are live.
    var live = 0
    /// Indices into the store's tombstones of the type's deletions, in change order.
    var tombstones: [Int32] = []

    /// Counts a slot of the type, noting its block.
    mutating func note(_ slot: Int32) {
      let block = UInt32(slot) >> SampleStore.blockShift
      if blocks.last != block { blocks.append(block) }
      count += 1
    }

    /// How many slots the date order holds.
    var dateOrderCount: Int { byStart.count + tail.count + pending.count }

    /// Places the unsorted inserts into the tail one by one, each at the first tail position that sorts after it
    /// (a binary search), and empties `pending` keeping its capacity. For a few inserts: each insert moves the
    /// tail's entries after it.
    mutating func settleInPlace(_ slots: UnsafeBufferPointer<Slot>) {
      for x in pending {
        let sx = slots[Int(x)]
        var low = 0
        var high = tail.count
        while low < high {
          let mid = (low + high) / 2
          let sm = slots[Int(tail[mid])]
          if sm.start != sx.start ? sm.start < sx.start : sm.change < sx.change { low = mid + 1 } else { high = mid }
        }
        tail.insert(x, at: low)
      }
      pending.removeAll(keepingCapacity: true)
    }

    /// Adds a slot; returns true when it is the first out-of-order insert since the last settle. A slot that
    /// starts at or after `byStart`'s last entry sorts after it (its change number is the highest) and extends it.
    mutating func append(_ slot: Int32, start: Double, duration: Double) -> Bool {
      note(slot)
      maxDuration = max(maxDuration, duration)
      live += 1
      if start >= lastStart {
        byStart.append(slot)
        lastStart = start
        return false
      }
      pending.append(slot)
      return pending.count == 1
    }
  }

  /// Every slot ever stored, live or not.
  package internal(set) var slots: ContiguousArray<Slot> = []
  /// Each identifier ever stored, to its slot.
  var byUUID = SlotIdentifierMap()
  /// The metadata of the slots that have any, indexed by ``Slot/metadataIndex``.
  var metadataTable: [Metadata] = []
  /// The interned sources, in interning order, indexed by ``Slot/source``.
  var sources: [SampleSource] = []
  /// Each interned source to its index in `sources`.
  var sourceIndex: [SampleSource: UInt32] = [:]
  /// The sources interned last (a cache in front of `sourceIndex`).
  private var recentSources: [(source: SampleSource, index: UInt32)] = []
  /// Each type's indexes, by type code.
  var types: [UInt16: TypeIndex] = [:]
  /// Every deletion recorded on this device.
  package internal(set) var tombstones: [StoredTombstone] = []
  /// Each deleted identifier to its index in `tombstones`.
  var tombstoneByUUID: [UUID: Int32] = [:]
  /// The last change number handed out.
  package internal(set) var changeCounter: UInt64 = 0
  /// How many samples are live.
  package internal(set) var liveCount = 0
  /// Per UTC day of a live sample's end: the sum of its fingerprints and how many there are
  /// (see ``dayDigests(from:)``).
  var days: [Int64: DayDigest] = [:]
  /// Each interned source's fingerprint, by source index.
  var sourceFingerprints: [UInt64] = []
  /// The live slot carrying each (source, `HKMetadataKeySyncIdentifier`) pair.
  private var syncIndex: [SyncKey: Int32] = [:]
  /// The types whose date order has out-of-order inserts waiting for ``settle()``.
  var unsettled: [UInt16] = []
  /// Per cumulative type, its statistics summary (StatisticsSummary.swift): derived, never stored.
  var summaries: [UInt16: StatisticsSummary] = [:]

  private struct SyncKey: Hashable, Sendable {
    var source: UInt32
    var identifier: String
  }

  /// Creates an empty store.
  package init() {}

  /// Whether the identifier was ever used on this device (live, deleted or pruned).
  package func isKnown(_ uuid: UUID) -> Bool { byUUID.find(uuid, in: slots) != nil || tombstoneByUUID[uuid] != nil }

  /// The live sample with this identifier.
  package func liveSample(_ uuid: UUID) -> Sample? {
    guard let index = byUUID.find(uuid, in: slots), slots[Int(index)].live else { return nil }
    return materialize(Int(index))
  }

  /// The live sample `source` saved with this `HKMetadataKeySyncIdentifier`, if any.
  package func liveSample(syncIdentifier: String, source: SampleSource) -> Sample? {
    guard let sourceIndex = sourceIndex[source],
      let slot = syncIndex[SyncKey(source: sourceIndex, identifier: syncIdentifier)]
    else { return nil }
    return materialize(Int(slot))
  }

  /// Rebuilds the sync-identifier index from the live slots (after a restore).
  package mutating func rebuildSyncIndex() {
    syncIndex = [:]
    for index in slots.indices where slots[index].live && slots[index].metadataIndex >= 0 {
      if let identifier = metadataTable[Int(slots[index].metadataIndex)].syncIdentifier {
        syncIndex[SyncKey(source: slots[index].source, identifier: identifier)] = Int32(index)
      }
    }
  }

  /// Whether a deletion of this identifier is recorded.
  package func isTombstoned(_ uuid: UUID) -> Bool { tombstoneByUUID[uuid] != nil }

  /// Whether the store held a sample with this identifier and pruned it (its retention window moved past it): known,
  /// not live, and not deleted.
  package func wasPruned(_ uuid: UUID) -> Bool {
    guard let index = byUUID.find(uuid, in: slots) else { return false }
    return !slots[Int(index)].live && tombstoneByUUID[uuid] == nil
  }

  /// Live sample count per type.
  package var countsByType: [SampleType: Int] {
    var counts: [SampleType: Int] = [:]
    for (code, index) in types where index.live > 0 { counts[SampleType(unchecked: code)] = index.live }
    return counts
  }

  /// Moves the change counter up to `mark`, never down (the next change is numbered above it), capped at half the
  /// slots' limit as a restored store is: numbers a lost journal tail handed out are never handed out again.
  package mutating func advanceChangeCounter(to mark: UInt64) {
    changeCounter = Swift.max(changeCounter, Swift.min(mark, Slot.maxChange / 2))
  }

  /// Stores a sample (the caller has checked its identifier is new) and returns its change number.
  @discardableResult
  package mutating func insert(_ sample: Sample) -> UInt64 {
    changeCounter += 1
    let start = sample.start.timeIntervalSinceReferenceDate
    let end = sample.end.timeIntervalSinceReferenceDate
    let value: Double
    switch sample.value {
    case .quantity(let v): value = v
    case .category(let c): value = Double(c)
    }
    var metadataIndex: Int32 = -1
    if !sample.metadata.isEmpty {
      metadataIndex = Int32(metadataTable.count)
      metadataTable.append(sample.metadata)
    }
    let slotIndex = Int32(slots.count)
    slots.append(
      Slot(
        uuid: sample.uuid, start: start, end: end, value: value, change: changeCounter,
        metadataIndex: metadataIndex, source: intern(sample.source), type: sample.type.code, live: true))
    byUUID.set(sample.uuid, slotIndex, in: slots)
    account(Int(slotIndex), sign: 1)
    noteSummaryChange(type: sample.type.code, start: start, end: end)
    if let identifier = sample.metadata.syncIdentifier {
      syncIndex[SyncKey(source: slots[Int(slotIndex)].source, identifier: identifier)] = slotIndex
    }
    // Mutated in place through the dictionary's accessor: copying the index out would copy its arrays on
    // every insert (quadratic). A slot that sorts after the last of `byStart` (its change number is the
    // highest, so an equal start does) extends it; any other waits in `pending` for the next settle.
    let code = sample.type.code
    if types[code, default: TypeIndex()].append(slotIndex, start: start, duration: end - start) {
      unsettled.append(code)
    }
    liveCount += 1
    return changeCounter
  }

  /// Deletes a live sample, recording a tombstone; returns nil when no live sample has the identifier.
  package mutating func delete(_ uuid: UUID, at date: Date) -> Tombstone? {
    guard let index = byUUID.find(uuid, in: slots), slots[Int(index)].live else { return nil }
    let slot = slots[Int(index)]
    let tombstone = Tombstone(
      uuid: uuid, type: SampleType(unchecked: slot.type), source: sources[Int(slot.source)], deletedAt: date,
      metadata: metadata(ofSlot: Int(index)))
    kill(Int(index))
    record(tombstone)
    return tombstone
  }

  /// Applies a deletion that happened on the peer: removes the live copy if any and records the tombstone.
  package mutating func applyRemoteDeletion(_ tombstone: Tombstone) {
    if tombstoneByUUID[tombstone.uuid] != nil { return }
    if let index = byUUID.find(tombstone.uuid, in: slots), slots[Int(index)].live { kill(Int(index)) }
    record(tombstone)
  }

  /// Drops live samples that end before `floor` (the watch's retention), without tombstones; returns, per type, the
  /// bundle identifiers of the dropped samples' sources.
  @discardableResult
  package mutating func prune(endingBefore floor: Date) -> [SampleType: Set<String>] {
    let limit = floor.timeIntervalSinceReferenceDate
    var dropped: [SampleType: Set<String>] = [:]
    for index in slots.indices where slots[index].live && slots[index].end < limit {
      kill(index)
      dropped[SampleType(unchecked: slots[index].type), default: []].insert(source(ofSlot: index).bundleID)
    }
    return dropped
  }

  /// Replaces the live sample that has `sample`'s identifier with `sample` (a sync conflict the peer's copy won).
  package mutating func replaceLive(with sample: Sample) {
    if let index = byUUID.find(sample.uuid, in: slots), slots[Int(index)].live { kill(Int(index)) }
    insert(sample)
  }

  private mutating func kill(_ index: Int) {
    account(index, sign: -1)
    let slot = slots[index]
    noteSummaryChange(type: slot.type, start: slot.start, end: slot.end)
    if slot.metadataIndex >= 0, let identifier = metadataTable[Int(slot.metadataIndex)].syncIdentifier {
      let key = SyncKey(source: slot.source, identifier: identifier)
      if syncIndex[key] == Int32(index) { syncIndex[key] = nil }
    }
    slots[index].live = false
    types[slots[index].type]!.live -= 1
    liveCount -= 1
  }

  private mutating func record(_ tombstone: Tombstone) {
    changeCounter += 1
    let index = Int32(tombstones.count)
    tombstones.append(StoredTombstone(tombstone: tombstone, change: changeCounter))
    tombstoneByUUID[tombstone.uuid] = index
    types[tombstone.type.code, default: TypeIndex()].tombstones.append(index)
  }

  /// The index of `source` in the source table, interning it (with its fingerprint) when it is new.
  mutating func intern(_ source: SampleSource) -> UInt32 {
    // Samples come from a few sources at a time (a save, an imported batch): those are compared — pointers first,
    // for imported ones — before anything is hashed.
    for recent in recentSources where recent.source == source { return recent.index }
    if let index = sourceIndex[source] {
      remember(source, index)
      return index
    }
    let index = UInt32(sources.count)
    sources.append(source)
    var print = Fingerprint()
    for byte in source.bundleID.utf8 { print.add(UInt64(byte)) }
    print.add(UInt64(source.device.rawValue) | 0x100)
    sourceFingerprints.append(print.value)
    sourceIndex[source] = index
    remember(source, index)
    return index
  }

  private mutating func remember(_ source: SampleSource, _ index: UInt32) {
    if recentSources.count == 8 { recentSources.removeFirst() }
    recentSources.append((source, index))
  }

  /// Rebuilds the public sample value of a slot.
  package func materialize(_ index: Int) -> Sample {
    let slot = slots[index]
    let type = SampleType(unchecked: slot.type)
    let value: SampleValue = type.isQuantity ? .quantity(slot.value) : .category(Int(exactly: slot.value) ?? 0)
    return Sample(
      uuid: slot.uuid, type: type, value: value, start: Date(timeIntervalSinceReferenceDate: slot.start),
      end: Date(timeIntervalSinceReferenceDate: slot.end),
      metadata: slot.metadataIndex >= 0 ? metadataTable[Int(slot.metadataIndex)] : [:],
      source: sources[Int(slot.source)])
  }

  /// The interned source with this index.
  package func source(at index: UInt32) -> SampleSource { sources[Int(index)] }

  /// The longest duration of a sample of `type` ever stored (0 when none).
  func maxDuration(of type: SampleType) -> Double { types[type.code]?.maxDuration ?? 0 }

  /// The rank of every entry of the source table under `order` (0 = highest priority; docs/behavior.md P1–P3).
  /// Entries that differ only in what an imported export said of them (version, hardware) are one source, with one
  /// rank; the order is total, so ranking every source orders any subset the same way.
  package func sourceRanks(order: SourceOrder?) -> [Int32] {
    let keys = sources.map { SampleSource(bundleID: $0.bundleID, device: $0.device) }
    var position: [SampleSource: Int32] = [:]
    for (i, key) in SourceOrder.ranked(Array(Set(keys)), by: order).enumerated() { position[key] = Int32(i) }
    return keys.map { position[$0]! }
  }

  /// How many entries the source table holds.
  package var sourceCount: Int { sources.count }

  /// The source of a slot.
  package func source(ofSlot index: Int) -> SampleSource { sources[Int(slots[index].source)] }

  /// The metadata of the sample in slot `index` (empty when it has none).
  package func metadata(ofSlot index: Int) -> Metadata {
    slots[index].metadataIndex >= 0 ? metadataTable[Int(slots[index].metadataIndex)] : [:]
  }

  /// The slot indices whose source belongs to the app (at most one per device).
  package func sourceIndices(of bundleID: String) -> [UInt32] {
    sources.indices.filter { sources[$0].bundleID == bundleID }.map { UInt32($0) }
  }

  /// The live slots as contiguous runs `start..<start+count`, in slot order (what a restarted sync log re-sends).
  package func liveRuns() -> [(start: Int32, count: Int32)] {
    var runs: [(start: Int32, count: Int32)] = []
    var index = 0
    while index < slots.count {
      guard slots[index].live else {
        index += 1
        continue
      }
      let start = index
      while index < slots.count, slots[index].live { index += 1 }
      runs.append((Int32(start), Int32(index - start)))
    }
    return runs
  }
}
