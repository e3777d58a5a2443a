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

// The reads queries make: candidate windows of a type's date order, scans, and changes since an anchor.
extension SampleStore {
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
