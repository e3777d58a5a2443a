import FoundationEssentials
import HealthModel

// What a snapshot keeps of a store, and the restore that rebuilds (and checks) everything derived from it.
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
