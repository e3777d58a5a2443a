import FoundationEssentials
import HealthModel

/// Which samples of a type an app's query may see (WWDC16 session 209's table).
package enum Visibility: Hashable, Sendable {
  /// Read granted: every sample of the type.
  case all
  /// Share granted, read not: only the samples this app saved.
  case own(bundleID: String)
  /// Neither: nothing (an empty result, never an error).
  case none
}

/// The samples one device holds, indexed for the queries HealthKit offers.
///
/// Samples live in one contiguous slot array (56 bytes each) with interned sources and a side table for metadata,
/// so a million samples stay well under 100 MB. Slots are stored in change order; each type keeps the blocks of
/// slots it has slots in (for anchored queries) and its slots sorted by start date (for date-range queries:
/// inserts in date order extend the sorted run, others are sorted in by ``settle()`` after each applied event).
/// Every insert and delete gets the next change number, which anchored queries use as the anchor. Queries only
/// read: none of them sorts or caches anything.
package struct SampleStore: Sendable {
  /// One stored sample: 56 bytes. The change number shares a word with the type code (48 + 16 bits) and the
  /// source index one with the live flag (31 + 1 bits), so ten million slots take 534 MiB rather than 610 MiB
  /// (docs/history/performance.md, "Ten million samples in 710 MiB"); ``maxChange`` and ``maxSource`` are the limits.
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
  fileprivate struct TypeIndex: Sendable {
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
    var maxDuration = 0.0
    var live = 0
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
  package private(set) var slots: ContiguousArray<Slot> = []
  private var byUUID = SlotIdentifierMap()
  private var metadataTable: [Metadata] = []
  private var sources: [SampleSource] = []
  private var sourceIndex: [SampleSource: UInt32] = [:]
  /// The sources interned last (a cache in front of `sourceIndex`).
  private var recentSources: [(source: SampleSource, index: UInt32)] = []
  private var types: [UInt16: TypeIndex] = [:]
  /// Every deletion recorded on this device.
  package private(set) var tombstones: [StoredTombstone] = []
  private var tombstoneByUUID: [UUID: Int32] = [:]
  /// The last change number handed out.
  package private(set) var changeCounter: UInt64 = 0
  /// How many samples are live.
  package private(set) var liveCount = 0
  /// Per UTC day of a live sample's end: the sum of its fingerprints and how many there are
  /// (see ``dayDigests(from:)``).
  private var days: [Int64: DayDigest] = [:]
  /// Each interned source's fingerprint, by source index.
  private var sourceFingerprints: [UInt64] = []
  /// The live slot carrying each (source, `HKMetadataKeySyncIdentifier`) pair.
  private var syncIndex: [SyncKey: Int32] = [:]
  /// The types whose date order has out-of-order inserts waiting for ``settle()``.
  private var unsettled: [UInt16] = []
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

  /// Brings every date order up to date after inserts out of date order: each type's unsorted inserts are sorted
  /// and merged into its tail, and a tail longer than ``tailLimit(for:)`` into the main run. The engine calls it
  /// after applying each event (a save, a sync batch, an import's commit, a replayed record), so a batch of
  /// out-of-order inserts is sorted once; a query never does it, and reads a store that was not settled correctly
  /// (only more slowly).
  package mutating func settle() {
    guard !unsettled.isEmpty else { return }
    for code in unsettled {
      // A few inserts (a save, a small sync batch) are placed in the tail where it lies, through the dictionary's
      // in-place accessor: no index is copied out, and no array allocated.
      if let pending = types[code]?.pending.count, pending <= Self.inPlaceSettleLimit {
        let shared = slots  // read while the index changes (shares the buffer; nothing is copied)
        shared.withUnsafeBufferPointer { slots in types[code]?.settleInPlace(slots) }
        if types[code]!.tail.count <= Self.tailLimit(for: types[code]!.byStart.count) { continue }
      }
      guard var index = types[code] else { continue }
      types[code] = nil  // avoid a copy while merging
      if !index.pending.isEmpty {
        let pending = sortedByDate(index.pending)
        index.pending.removeAll(keepingCapacity: true)
        index.tail = mergedByDate(index.tail[...], pending[...])
      }
      if index.tail.count > Self.tailLimit(for: index.byStart.count) {
        merge(index.tail, into: &index.byStart)
        index.tail = []
        index.lastStart = slots[Int(index.byStart[index.byStart.count - 1])].start
      }
      types[code] = index
    }
    unsettled.removeAll(keepingCapacity: true)
  }

  /// How long a type's settled tail may grow before it is merged into a main run of `count` slots: a merge
  /// copies the whole run, a longer tail costs each settle and each query that reads it more (HealthPair's
  /// choice: about 8·√n, at least 4,096 — amortized, O(√n) work per out-of-order insert either way).
  package static func tailLimit(for count: Int) -> Int { max(4096, 8 * Int(Double(count).squareRoot())) }

  /// The most unsorted inserts ``settle()`` places one by one into a type's tail (each moves the tail's entries
  /// after it); more are sorted and merged in one pass into a new tail.
  static let inPlaceSettleLimit = 8

  /// Merges `run` (in date order) into `main` (in date order) in place, from the back: each entry of `run` finds
  /// its place by a galloping search down from the last place, and the entries of `main` after it move up in one
  /// overlapping copy; those before the first place are not touched, and nothing is allocated beyond `main`'s growth.
  private func merge(_ run: [Int32], into main: inout [Int32]) {
    guard !run.isEmpty else { return }
    let placed = main.count
    main.append(contentsOf: run)  // room; overwritten below
    slots.withUnsafeBufferPointer { slots in
      run.withUnsafeBufferPointer { run in
        main.withUnsafeMutableBufferPointer { out in
          /// Whether slot `x` sorts before slot `y`.
          func before(_ x: Int32, _ y: Int32) -> Bool {
            let sx = slots[Int(x)]
            let sy = slots[Int(y)]
            return sx.start != sy.start ? sx.start < sy.start : sx.change < sy.change
          }
          let base = out.baseAddress!
          var i = placed  // out[0..<i]: entries of `main` not yet moved
          var k = out.count  // out[k...]: final
          for j in stride(from: run.count - 1, through: 0, by: -1) {
            let x = run[j]
            // The first position in out[0..<i] whose entry sorts after x: probe i-1, i-2, i-4, … then bisect.
            var low = 0
            var high = i
            var probe = i - 1
            var step = 1
            while probe >= 0 {
              if before(out[probe], x) {
                low = probe + 1
                break
              }
              high = probe
              probe -= step
              step <<= 1
            }
            while low < high {
              let mid = (low + high) / 2
              if before(out[mid], x) { low = mid + 1 } else { high = mid }
            }
            let moving = i - low
            if moving > 0 {
              UnsafeMutableRawPointer(base + (k - moving)).copyMemory(
                from: base + low, byteCount: moving * MemoryLayout<Int32>.stride)
              k -= moving
              i = low
            }
            k -= 1
            base[k] = x
          }
        }
      }
    }
  }

  /// Slot indices in date order: start, then change number (unique, so the order is total).
  private func sortedByDate(_ indices: [Int32]) -> [Int32] {
    slots.withUnsafeBufferPointer { slots in
      indices.sorted { a, b in
        let sa = slots[Int(a)]
        let sb = slots[Int(b)]
        return sa.start != sb.start ? sa.start < sb.start : sa.change < sb.change
      }
    }
  }

  /// Two runs in date order merged into one. Each entry of `b` (usually the shorter run) finds its place in `a`
  /// by a galloping search from the last place, and the stretch of `a` before it is copied in bulk: merging a few
  /// entries into a long run costs a copy of the run and a few comparisons per entry, not a comparison (two slot
  /// reads) per entry of the run.
  private func mergedByDate(_ a: ArraySlice<Int32>, _ b: ArraySlice<Int32>) -> [Int32] {
    if b.isEmpty { return Array(a) }
    if a.isEmpty { return Array(b) }
    return slots.withUnsafeBufferPointer { slots in
      a.withUnsafeBufferPointer { a in
        b.withUnsafeBufferPointer { b in
          [Int32](unsafeUninitializedCapacity: a.count + b.count) { out, initialized in
            /// Whether slot `x` sorts before slot `y` (start, then change number: never equal for two slots).
            func before(_ x: Int32, _ y: Int32) -> Bool {
              let sx = slots[Int(x)]
              let sy = slots[Int(y)]
              return sx.start != sy.start ? sx.start < sy.start : sx.change < sy.change
            }
            let source = a.baseAddress!
            let target = out.baseAddress!
            var i = 0
            var k = 0
            for x in b {
              // The first position from i whose entry sorts after x: probe i, i+1, i+3, i+7, … then bisect.
              var low = i
              var probe = i
              var step = 1
              while probe < a.count && before(a[probe], x) {
                low = probe + 1
                probe += step
                step <<= 1
              }
              var high = min(probe, a.count)
              while low < high {
                let mid = (low + high) / 2
                if before(a[mid], x) { low = mid + 1 } else { high = mid }
              }
              if low > i {
                (target + k).initialize(from: source + i, count: low - i)
                k += low - i
                i = low
              }
              (target + k).initialize(to: x)
              k += 1
            }
            if i < a.count {
              (target + k).initialize(from: source + i, count: a.count - i)
              k += a.count - i
            }
            initialized = k
          }
        }
      }
    }
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

  private mutating func intern(_ source: SampleSource) -> UInt32 {
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

  // MARK: - Digests

  /// What the live samples ending on one UTC day add up to: the wrapping sum of their fingerprints and their count.
  /// Two devices holding the same samples for a day have equal digests; the sums are kept up to date on every
  /// insert, delete and prune, so comparing stores costs one entry per day, never a scan.
  package struct DayDigest: Hashable, Sendable {
    /// Days since the reference date (2001-01-01T00:00:00Z), UTC.
    package var day: Int64
    /// The wrapping sum of the fingerprints of the day's live samples.
    package var sum: UInt64
    /// How many live samples end on the day.
    package var count: UInt64

    /// Creates a day digest.
    package init(day: Int64, sum: UInt64, count: UInt64) {
      self.day = day
      self.sum = sum
      self.count = count
    }
  }

  /// The UTC day (since the reference date) that `seconds` (since the reference date) falls on.
  package static func day(of seconds: Double) -> Int64 {
    let days = (seconds / 86_400).rounded(.down)
    return days.isFinite ? Int64(max(-1e15, min(1e15, days))) : (days < 0 ? Int64(-1e15) : Int64(1e15))
  }

  /// The digests of every day from `first` on that has live samples, in day order.
  package func dayDigests(from first: Int64) -> [DayDigest] {
    days.values.filter { $0.day >= first && $0.count > 0 }.sorted { $0.day < $1.day }
  }

  /// A slot's fingerprint: its identifier, type, dates, value and source (metadata is not covered).
  private func fingerprint(of slot: Slot) -> UInt64 {
    var print = Fingerprint()
    withUnsafeBytes(of: slot.uuid.uuid) { bytes in
      print.add(bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
      print.add(bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }
    print.add(UInt64(slot.type))
    print.add(slot.start.bitPattern)
    print.add(slot.end.bitPattern)
    print.add(slot.value.bitPattern)
    print.add(sourceFingerprints[Int(slot.source)])
    return print.value
  }

  private mutating func account(_ index: Int, sign: Int) {
    let slot = slots[index]
    let day = Self.day(of: slot.end)
    let print = fingerprint(of: slot)
    if sign > 0 {
      // In place through the dictionary's accessor: one lookup.
      Self.add(print, to: &days[day, default: DayDigest(day: day, sum: 0, count: 0)])
      return
    }
    var digest = days[day] ?? DayDigest(day: day, sum: 0, count: 0)
    digest.sum &-= print
    digest.count -= 1
    days[day] = digest.count == 0 ? nil : digest
  }

  /// Counts a live sample's fingerprint in its day's digest.
  private static func add(_ print: UInt64, to digest: inout DayDigest) {
    digest.sum &+= print
    digest.count += 1
  }

  // MARK: - Scans

  /// The candidates of a scan: the start-ordered slots of a type, the bounds within them that can match the
  /// range, and the source filters to apply. Nil when nothing can match.
  package struct Candidates {
    /// Slot indices sorted by start date.
    package var order: [Int32]
    /// First position that may match.
    package var lower: Int
    /// One past the last position that may match.
    package var upper: Int
    /// Only these sources (the app's own) may be seen; empty means any.
    package var own: [UInt32]
    /// Only these sources were asked for (a source predicate); nil means any.
    package var allowed: [UInt32]?
  }

  /// Computes the candidates for a scan: the window of the type's date order that can match the range. A read:
  /// when out-of-order inserts sit in the tail (or, unsettled, in `pending`) within the window, the window is
  /// merged into a new array; otherwise it is the main run itself.
  package func candidates(
    type: SampleType, range: DateRange?, visibility: Visibility, sources allowed: Set<String>?
  ) -> Candidates? {
    let own: [UInt32]
    switch visibility {
    case .none: return nil
    case .all: own = []
    case .own(let bundleID):
      own = sourceIndices(of: bundleID)
      if own.isEmpty { return nil }
    }
    let allowedSources: [UInt32]? = allowed.map { names in
      sources.indices.filter { names.contains(sources[$0].bundleID) }.map { UInt32($0) }
    }
    guard let index = types[type.code] else { return nil }
    // The window's bounds as predicates on a slot's start, true from some position of a run in date order on.
    var atOrAfterLower: ((Double) -> Bool)?
    var atOrAfterUpper: ((Double) -> Bool)?
    if let range {
      if let s = range.start?.timeIntervalSinceReferenceDate {
        let bound = range.options.contains(.strictStartDate) ? s : s - index.maxDuration
        atOrAfterLower = { $0 >= bound }
      }
      if let e = range.end?.timeIntervalSinceReferenceDate {
        atOrAfterUpper = range.options.contains(.strictEndDate) ? { $0 > e } : { $0 >= e }
      }
    }
    func window(_ run: [Int32]) -> Range<Int> {
      let lower = atOrAfterLower.map { p in firstIndex(in: run, where: { p(self.slots[Int($0)].start) }) } ?? 0
      let upper = atOrAfterUpper.map { p in firstIndex(in: run, where: { p(self.slots[Int($0)].start) }) } ?? run.count
      return lower..<max(lower, upper)
    }
    let main = window(index.byStart)
    var extra = index.tail[window(index.tail)]
    if !index.pending.isEmpty {
      // Not settled (a caller between inserts): the unsorted inserts in the window, sorted here, never stored.
      let inWindow = index.pending.filter { slot in
        let start = self.slots[Int(slot)].start
        return !(atOrAfterUpper?(start) ?? false) && (atOrAfterLower?(start) ?? true)
      }
      extra = mergedByDate(extra, sortedByDate(inWindow)[...])[...]
    }
    if extra.isEmpty {
      if main.isEmpty { return nil }
      return Candidates(
        order: index.byStart, lower: main.lowerBound, upper: main.upperBound, own: own, allowed: allowedSources)
    }
    let merged = mergedByDate(index.byStart[main], extra)
    return Candidates(order: merged, lower: 0, upper: merged.count, own: own, allowed: allowedSources)
  }

  /// The whole date order of a type index, its runs merged (what a snapshot keeps settled, and what stores compare).
  private func mergedDateOrder(_ index: TypeIndex) -> [Int32] {
    mergedByDate(index.byStart[...], mergedByDate(index.tail[...], sortedByDate(index.pending)[...])[...])
  }

  /// Calls `body` with the slot index of every live sample of `type` the visibility allows, ending at or after
  /// `floor`, whose dates pass `range`, in start-date order.
  package func scan(
    type: SampleType, range: DateRange?, floor: Double, visibility: Visibility, sources allowed: Set<String>? = nil,
    _ body: (Int) -> Void
  ) {
    scanSlots(type: type, range: range, floor: floor, visibility: visibility, sources: allowed) { index, _ in
      body(index)
    }
  }

  /// ``scan(type:range:floor:visibility:sources:_:)`` that also hands `body` the slot it already loaded, so callers
  /// needing the dates do not fetch each slot a second time (the store is walked in date order, not memory order).
  package func scanSlots(
    type: SampleType, range: DateRange?, floor: Double, visibility: Visibility, sources allowed: Set<String>? = nil,
    _ body: (Int, borrowing Slot) -> Void
  ) {
    guard let c = candidates(type: type, range: range, visibility: visibility, sources: allowed) else { return }
    let checkOwn = !c.own.isEmpty
    let matcher = (range ?? DateRange(start: nil, end: nil)).matcher
    slots.withUnsafeBufferPointer { buffer in
      c.order.withUnsafeBufferPointer { order in
        for position in c.lower..<c.upper {
          let slotIndex = Int(order[position])
          let slot = buffer[slotIndex]
          if !slot.live || slot.end < floor { continue }
          if checkOwn, !c.own.contains(slot.source) { continue }
          if let allowedSources = c.allowed, !allowedSources.contains(slot.source) { continue }
          if !matcher.matches(start: slot.start, end: slot.end) { continue }
          body(slotIndex, slot)
        }
      }
    }
  }

  /// Log₂ of the slots in a block of a type's ``TypeIndex/blocks`` (256 slots, 14 KiB: an anchored query of a
  /// rare type reads at most one block per sample of it beyond the samples themselves).
  static let blockShift: UInt32 = 8

  /// Samples of `type` with a change number above `anchor` (live or not), in change order, as slot indices: the
  /// slots after the first such change (slots are in change order), in the blocks that hold the type.
  package func slotsChanged(type: SampleType, after anchor: UInt64) -> [Int32] {
    guard let index = types[type.code] else { return [] }
    let code = type.code
    var result: [Int32] = []
    slots.withUnsafeBufferPointer { slots in
      var low = 0
      var high = slots.count
      while low < high {
        let mid = (low + high) / 2
        if slots[mid].change > anchor { high = mid } else { low = mid + 1 }
      }
      let first = low
      guard first < slots.count else { return }
      var position = firstIndex(in: index.blocks, where: { $0 >= UInt32(first) >> Self.blockShift })
      while position < index.blocks.count {
        let block = Int(index.blocks[position])
        for i in max(first, block << Self.blockShift)..<min(slots.count, (block + 1) << Self.blockShift)
        where slots[i].type == code {
          result.append(Int32(i))
        }
        position += 1
      }
    }
    return result
  }

  /// Tombstones of `type` with a change number above `anchor`, in change order.
  package func tombstonesChanged(type: SampleType, after anchor: UInt64) -> [StoredTombstone] {
    guard let index = types[type.code] else { return [] }
    let start = firstIndex(in: index.tombstones, where: { self.tombstones[Int($0)].change > anchor })
    return index.tombstones[start...].map { tombstones[Int($0)] }
  }

  private func firstIndex<T>(in array: [T], where predicate: (T) -> Bool) -> Int {
    var low = 0
    var high = array.count
    while low < high {
      let mid = (low + high) / 2
      if predicate(array[mid]) { high = mid } else { low = mid + 1 }
    }
    return low
  }
}

// MARK: - Snapshots

extension SampleStore {
  /// One type's date index as a snapshot keeps it: slot indices by start date, of which the first `sortedCount`
  /// are in order. This build writes them all in order; a snapshot of an older build may hold an unsorted rest,
  /// which the restore sorts in.
  package struct StartOrder: Hashable, Sendable {
    /// The type code.
    package var type: UInt16
    /// Slot indices of the type, the sorted prefix first.
    package var order: [Int32]
    /// How many leading entries of `order` are sorted by start date.
    package var sortedCount: Int

    /// Creates a start order.
    package init(type: UInt16, order: [Int32], sortedCount: Int) {
      self.type = type
      self.order = order
      self.sortedCount = sortedCount
    }
  }

  /// What a snapshot stores of a store. Everything else (the tombstone map, per-type blocks and counts,
  /// the interned-source map and fingerprints) is derived from it by ``init(restoring:)``.
  package struct Contents: Sendable {
    /// Every slot ever stored, dead ones included (outbound sync entries refer to slot ranges).
    package var slots: ContiguousArray<Slot>
    /// The metadata table slots index into.
    package var metadata: [Metadata]
    /// The interned sources, in interning order.
    package var sources: [SampleSource]
    /// Every deletion recorded, in change order.
    package var tombstones: [StoredTombstone]
    /// The last change number handed out.
    package var changeCounter: UInt64
    /// The date index of every type that has slots, by type code.
    package var startOrders: [StartOrder]
    /// The identifier map's buckets as they are (``SlotIdentifierMap``): rebuilding it would cost a random
    /// memory access per slot.
    package var identifierBuckets: [UInt64]
    /// How many identifiers the map holds.
    package var identifierCount: Int
    /// The day digests of the live samples, by day (kept rather than recomputed: a fingerprint per live sample).
    package var dayDigests: [DayDigest]

    /// Creates contents.
    package init(
      slots: ContiguousArray<Slot>, metadata: [Metadata], sources: [SampleSource], tombstones: [StoredTombstone],
      changeCounter: UInt64, startOrders: [StartOrder], identifierBuckets: [UInt64], identifierCount: Int,
      dayDigests: [DayDigest]
    ) {
      self.slots = slots
      self.metadata = metadata
      self.sources = sources
      self.tombstones = tombstones
      self.changeCounter = changeCounter
      self.startOrders = startOrders
      self.identifierBuckets = identifierBuckets
      self.identifierCount = identifierCount
      self.dayDigests = dayDigests
    }
  }

  /// The store's durable contents (shares storage with the store; nothing is copied).
  package var contents: Contents {
    let orders = types.keys.sorted().compactMap { code -> StartOrder? in
      guard let index = types[code], index.dateOrderCount > 0 else { return nil }
      // Written settled and merged: the main run as it is (shared, not copied) unless inserts out of order are
      // waiting in the tail.
      let order = index.tail.isEmpty && index.pending.isEmpty ? index.byStart : mergedDateOrder(index)
      return StartOrder(type: code, order: order, sortedCount: order.count)
    }
    return Contents(
      slots: slots, metadata: metadataTable, sources: sources, tombstones: tombstones, changeCounter: changeCounter,
      startOrders: orders, identifierBuckets: byUUID.buckets, identifierCount: byUUID.count,
      dayDigests: dayDigests(from: .min))
  }

  /// Rebuilds a store from its durable contents: the result equals the store they were taken from, derived
  /// indexes included. Contents that break an invariant the queries rely on (an unknown type, an index out of
  /// range, change numbers out of order, a date index that is not a permutation of its type's slots or whose
  /// sorted prefix is not sorted) are refused, never trusted.
  /// - Throws: ``StateRestoreError`` naming the first broken invariant.
  package init(restoring c: Contents) throws(StateRestoreError) {
    guard c.slots.count < Int(Int32.max), c.tombstones.count < Int(Int32.max) else {
      throw StateRestoreError("store of \(c.slots.count) slots and \(c.tombstones.count) tombstones is too large")
    }
    // Half the slots' limit: a restored store keeps 2⁴⁷ changes of room, so no insert after it can pass the limit.
    guard c.changeCounter <= Slot.maxChange / 2 else {
      throw StateRestoreError("change counter \(c.changeCounter) exceeds \(Slot.maxChange / 2)")
    }
    for source in c.sources {
      guard sourceIndex[source] == nil else { throw StateRestoreError("source \(source) is listed twice") }
      _ = intern(source)
    }
    metadataTable = c.metadata
    changeCounter = c.changeCounter
    slots = c.slots
    // Per-type indexes in a flat table by code while rebuilding (a dictionary lookup per slot costs more).
    var position = [Int32](repeating: -1, count: Int(UInt16.max) + 1)
    var indexes: [TypeIndex] = []
    var codes: [UInt16] = []
    byUUID = try SlotIdentifierMap(restoring: c.identifierBuckets, count: c.identifierCount, slotCount: slots.count)
    var previousChange: UInt64 = 0
    for i in 0..<slots.count {
      let slot = slots[i]
      guard Int(slot.source) < sources.count else {
        throw StateRestoreError("slot \(i) refers to source \(slot.source) of \(sources.count)")
      }
      guard slot.metadataIndex >= -1, Int(slot.metadataIndex) < metadataTable.count else {
        throw StateRestoreError("slot \(i) refers to metadata \(slot.metadataIndex) of \(metadataTable.count)")
      }
      guard slot.change > previousChange, slot.change <= changeCounter else {
        throw StateRestoreError("slot \(i) has change number \(slot.change) out of order")
      }
      previousChange = slot.change
      var t = Int(position[Int(slot.type)])
      if t < 0 {
        guard SampleType.lookup(code: slot.type) != nil else {
          throw StateRestoreError("slot \(i) has the unknown type code \(slot.type)")
        }
        t = indexes.count
        position[Int(slot.type)] = Int32(t)
        indexes.append(TypeIndex())
        codes.append(slot.type)
      }
      indexes[t].note(Int32(i))
      indexes[t].maxDuration = max(indexes[t].maxDuration, slot.end - slot.start)
      if slot.live {
        indexes[t].live += 1
        liveCount += 1
      }
    }
    var digested: UInt64 = 0
    for digest in c.dayDigests {
      guard digest.count > 0, days.updateValue(digest, forKey: digest.day) == nil else {
        throw StateRestoreError("day digest of day \(digest.day) is empty or listed twice")
      }
      digested &+= digest.count
    }
    guard digested == UInt64(liveCount) else {
      throw StateRestoreError("day digests count \(digested) samples, the store has \(liveCount) live")
    }
    tombstones = c.tombstones
    tombstoneByUUID.reserveCapacity(tombstones.count)
    previousChange = 0
    for (i, stored) in tombstones.enumerated() {
      let code = stored.tombstone.type.code
      guard SampleType.lookup(code: code) != nil else {
        throw StateRestoreError("tombstone \(i) has the unknown type code \(code)")
      }
      guard stored.change > previousChange, stored.change <= changeCounter else {
        throw StateRestoreError("tombstone \(i) has change number \(stored.change) out of order")
      }
      previousChange = stored.change
      tombstoneByUUID[stored.tombstone.uuid] = Int32(i)
      var t = Int(position[Int(code)])
      if t < 0 {
        t = indexes.count
        position[Int(code)] = Int32(t)
        indexes.append(TypeIndex())
        codes.append(code)
      }
      indexes[t].tombstones.append(Int32(i))
    }
    var seen = [UInt64](repeating: 0, count: slots.count / 64 + 1)
    for startOrder in c.startOrders {
      let t = Int(position[Int(startOrder.type)])
      guard t >= 0, indexes[t].dateOrderCount == 0, startOrder.order.count == indexes[t].count else {
        throw StateRestoreError("the date index of type code \(startOrder.type) does not match its slots")
      }
      guard startOrder.sortedCount >= 0, startOrder.sortedCount <= startOrder.order.count else {
        throw StateRestoreError("the date index of type code \(startOrder.type) has a sorted count out of range")
      }
      var previousStart = -Double.infinity
      for (p, element) in startOrder.order.enumerated() {
        let i = Int(element)
        guard i >= 0, i < slots.count, slots[i].type == startOrder.type, seen[i >> 6] & (1 << (i & 63)) == 0 else {
          throw StateRestoreError("the date index of type code \(startOrder.type) lists slot \(i) wrongly")
        }
        seen[i >> 6] |= 1 << (i & 63)
        if p < startOrder.sortedCount {
          guard slots[i].start >= previousStart else {
            throw StateRestoreError("the date index of type code \(startOrder.type) is not sorted at \(p)")
          }
          previousStart = slots[i].start
        }
      }
      // An older snapshot may hold an unsorted tail: it waits for the settle below, as inserts out of order do.
      if startOrder.sortedCount == startOrder.order.count {
        indexes[t].byStart = startOrder.order  // shared with the contents, not copied
      } else {
        indexes[t].byStart = Array(startOrder.order[..<startOrder.sortedCount])
        indexes[t].pending = Array(startOrder.order[startOrder.sortedCount...])
      }
      indexes[t].lastStart = indexes[t].byStart.last.map { slots[Int($0)].start } ?? -.infinity
      if !indexes[t].pending.isEmpty { unsettled.append(startOrder.type) }
    }
    for (t, code) in codes.enumerated() {
      guard indexes[t].dateOrderCount == indexes[t].count else {
        throw StateRestoreError("type code \(code) has slots but no date index")
      }
      types[code] = indexes[t]
      // Built by the first statistics query's refresh (``refreshSummaries(orders:only:)``), which knows the orders.
      if indexes[t].live > 0, Self.summarizes(SampleType(unchecked: code)) { summaries[code] = StatisticsSummary() }
    }
    settle()
    rebuildSyncIndex()
  }

  /// The names of the fields, derived indexes included, in which two stores differ (empty when they are the
  /// same): what tests compare a restored store with.
  package func differences(from other: SampleStore) -> [String] {
    var result: [String] = []
    func check(_ name: String, _ equal: Bool) { if !equal { result.append(name) } }
    check(
      "slots",
      slots.count == other.slots.count
        && zip(slots, other.slots).allSatisfy { a, b in
          a.uuid == b.uuid && a.start.bitPattern == b.start.bitPattern && a.end.bitPattern == b.end.bitPattern
            && a.value.bitPattern == b.value.bitPattern && a.change == b.change && a.metadataIndex == b.metadataIndex
            && a.source == b.source && a.type == b.type && a.live == b.live
        })
    check("byUUID", byUUID == other.byUUID)
    check("metadata", metadataTable == other.metadataTable)
    check("sources", sources == other.sources)
    check("sourceIndex", sourceIndex == other.sourceIndex)
    check("sourceFingerprints", sourceFingerprints == other.sourceFingerprints)
    // A date index compares by its merged order: when a tail is merged into the main run depends on the batches
    // the inserts came in, so a live store and its restore may hold the same order in different runs.
    check(
      "types",
      types.keys.sorted() == other.types.keys.sorted()
        && types.allSatisfy { code, mine in
          guard let theirs = other.types[code] else { return false }
          return mine.blocks == theirs.blocks && mine.count == theirs.count && mine.maxDuration == theirs.maxDuration
            && mine.live == theirs.live
            && mine.tombstones == theirs.tombstones
            && mergedDateOrder(mine) == other.mergedDateOrder(theirs)
        })
    check(
      "tombstones",
      tombstones.map(\.tombstone) == other.tombstones.map(\.tombstone)
        && tombstones.map(\.change) == other.tombstones.map(\.change))
    check("tombstoneByUUID", tombstoneByUUID == other.tombstoneByUUID)
    check("changeCounter", changeCounter == other.changeCounter)
    check("liveCount", liveCount == other.liveCount)
    check("days", days == other.days)
    return result
  }
}

/// A date predicate: `HKQuery.predicateForSamples(withStart:end:options:)`.
///
/// With no options a sample matches when `endDate >= start AND startDate < end` (Apple's documented NSPredicate
/// equivalent). `strictStartDate` requires `startDate >= start`; `strictEndDate` requires `endDate <= end`.
package struct DateRange: Hashable, Sendable {
  /// The range start, or nil for unbounded.
  package var start: Date?
  /// The range end, or nil for unbounded.
  package var end: Date?
  /// Strictness options.
  package var options: QueryOptions

  /// Creates a range.
  package init(start: Date?, end: Date?, options: QueryOptions = []) {
    self.start = start
    self.end = end
    self.options = options
  }

  /// A precomputed form for tight loops (the option checks go through generic `SetAlgebra` code otherwise).
  package struct Matcher: Sendable {
    let start: Double
    let end: Double
    let strictStart: Bool
    let strictEnd: Bool

    /// Whether a sample with these dates matches the range.
    @inline(__always)
    package func matches(start sampleStart: Double, end sampleEnd: Double) -> Bool {
      if strictStart ? sampleStart < start : sampleEnd < start { return false }
      if strictEnd { return sampleEnd <= end }
      return sampleStart < end
    }
  }

  /// The range as a ``Matcher``.
  package var matcher: Matcher {
    Matcher(
      start: start?.timeIntervalSinceReferenceDate ?? -.infinity, end: end?.timeIntervalSinceReferenceDate ?? .infinity,
      strictStart: options.contains(.strictStartDate), strictEnd: options.contains(.strictEndDate))
  }

  /// Whether a sample with these dates (seconds since the reference date) matches.
  package func matches(start sampleStart: Double, end sampleEnd: Double) -> Bool {
    if let s = start?.timeIntervalSinceReferenceDate {
      if options.contains(.strictStartDate) ? sampleStart < s : sampleEnd < s { return false }
    }
    if let e = end?.timeIntervalSinceReferenceDate {
      if options.contains(.strictEndDate) {
        if sampleEnd > e { return false }
        if sampleStart >= e && sampleEnd > sampleStart { return false }
      } else if sampleStart >= e {
        return false
      }
    }
    return true
  }
}

/// A deterministic 64-bit fingerprint (the same in every process, unlike `Hasher`): each word is mixed in with the
/// splitmix64 finalizer.
package struct Fingerprint: Sendable {
  /// The fingerprint so far.
  package private(set) var value: UInt64 = 0x9E37_79B9_7F4A_7C15

  /// Starts an empty fingerprint.
  package init() {}

  /// Mixes in one word.
  package mutating func add(_ word: UInt64) {
    var z = (value ^ word) &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    value = z ^ (z >> 31)
  }
}
