import FoundationEssentials
import HealthModel

// Each type's date order (start, then change number): inserts in order extend the main run, others wait for
// ``SampleStore/settle()``, which sorts them into the tail and merges a long tail into the main run.
extension SampleStore {
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
  func sortedByDate(_ indices: [Int32]) -> [Int32] {
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
  func mergedByDate(_ a: ArraySlice<Int32>, _ b: ArraySlice<Int32>) -> [Int32] {
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

  /// The whole date order of a type index, its runs merged (what a snapshot keeps settled, and what stores compare).
  func mergedDateOrder(_ index: TypeIndex) -> [Int32] {
    mergedByDate(index.byStart[...], mergedByDate(index.tail[...], sortedByDate(index.pending)[...])[...])
  }
}
