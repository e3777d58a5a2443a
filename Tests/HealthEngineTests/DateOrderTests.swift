import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

/// The store's date index: inserts in any order, settled in batches (or not at all), give the date order a full
/// sort gives, and queries only read the store.
@Suite("The date index")
struct DateOrderTests {
  static let source = SampleSource(bundleID: "com.example.water", device: .phone)

  /// A sample of water at `start` lasting `duration` seconds.
  static func sample(_ rng: inout SeededGenerator, start: Double, duration: Double) -> Sample {
    Sample(
      uuid: rng.uuid(), type: water, value: .quantity(1), start: Date(timeIntervalSinceReferenceDate: start),
      end: Date(timeIntervalSinceReferenceDate: start + duration), source: source)
  }

  /// What a scan must return: the live slots whose dates pass `range`, by start date, then insertion.
  static func expected(_ store: SampleStore, _ range: DateRange) -> [Int] {
    store.slots.indices
      .filter { store.slots[$0].live && store.slots[$0].type == water.code }
      .filter { range.matches(start: store.slots[$0].start, end: store.slots[$0].end) }
      .sorted { a, b in
        let sa = store.slots[a]
        let sb = store.slots[b]
        return sa.start != sb.start ? sa.start < sb.start : sa.change < sb.change
      }
  }

  /// Every scan of `store` over a few ranges, against the brute-force order.
  static func check(
    _ store: SampleStore, _ rng: inout SeededGenerator, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for _ in 0..<8 {
      let a = Double(rng.next() % 100_000)
      let b = a + Double(rng.next() % 20_000)
      let options: QueryOptions = [[], .strictStartDate, .strictEndDate][Int(rng.next() % 3)]
      let range = DateRange(
        start: Date(timeIntervalSinceReferenceDate: a), end: Date(timeIntervalSinceReferenceDate: b), options: options)
      var seen: [Int] = []
      store.scan(type: water, range: range, floor: -.infinity, visibility: .all) { seen.append($0) }
      #expect(seen == expected(store, range), "range \(a)…\(b) \(options)", sourceLocation: sourceLocation)
    }
  }

  /// `inStoredOrder` gives a full sort's order whether the samples come in that order, reversed or shuffled, with
  /// equal start dates ordered by identifier; ordered input is returned as it is.
  @Test func storedOrderMatchesAFullSort() {
    var rng = SeededGenerator(seed: 7)
    var samples: [Sample] = []
    for i in 0..<300 { samples.append(Self.sample(&rng, start: Double(i / 3), duration: 60)) }
    let sorted = samples.sorted(by: Sample.storedOrder)
    #expect(Sample.inStoredOrder(sorted).map(\.uuid) == sorted.map(\.uuid))
    #expect(Sample.inStoredOrder(sorted.reversed()).map(\.uuid) == sorted.map(\.uuid))
    var shuffled = sorted
    shuffled.shuffle(using: &rng)
    #expect(Sample.inStoredOrder(shuffled).map(\.uuid) == sorted.map(\.uuid))
    #expect(Sample.inStoredOrder([]).isEmpty)
  }

  @Test(
    "Any insertion order, settled after each batch or not at all, scans in date order",
    arguments: [(1 as UInt64, true), (2, true), (3, false), (4, true)])
  func anyOrder(seed: UInt64, settles: Bool) {
    var rng = SeededGenerator(seed: seed)
    var store = SampleStore()
    var inserted = 0
    // Batches in date order, in reverse, and shuffled; enough out-of-order inserts to pass the tail's limit
    // (SampleStore.tailLimit) more than once.
    while inserted < 14_000 {
      let count = 1 + Int(rng.next() % 1_500)
      let base = Double(rng.next() % 100_000)
      var starts = (0..<count).map { base + Double($0) * Double(1 + rng.next() % 7) }
      switch rng.next() % 3 {
      case 0: break
      case 1: starts.reverse()
      default: starts.shuffle(using: &rng)
      }
      for start in starts {
        store.insert(Self.sample(&rng, start: start, duration: Double(rng.next() % 3) * 600))
      }
      inserted += count
      if rng.next() % 4 == 0, let victim = store.slots.indices.randomElement(using: &rng) {
        _ = store.delete(store.slots[victim].uuid, at: t0)
      }
      if settles { store.settle() }
      Self.check(store, &rng)
    }
  }

  @Test(
    "Small batches, placed into the tail one by one, scan in date order before and after the tail passes its limit",
    arguments: [5 as UInt64, 6])
  func smallBatches(seed: UInt64) {
    var rng = SeededGenerator(seed: seed)
    var store = SampleStore()
    // Equal starts (ties broken by insertion) and batches of up to a dozen (the in-place limit and past it), in
    // random order, until the tail has been merged into the main run once.
    var inserted = 0
    while inserted < SampleStore.tailLimit(for: 0) + 600 {
      let count = 1 + Int(rng.next() % 12)
      for _ in 0..<count {
        store.insert(Self.sample(&rng, start: Double(rng.next() % 5_000) * 20, duration: 0))
      }
      inserted += count
      store.settle()
      if rng.next() % 64 == 0 { Self.check(store, &rng) }
    }
    Self.check(store, &rng)
  }

  @Test("A snapshot keeps the merged order, and an older snapshot's unsorted rest is sorted in on restore")
  func restore() throws {
    var rng = SeededGenerator(seed: 9)
    var store = SampleStore()
    for i in 0..<3_000 { store.insert(Self.sample(&rng, start: Double(i * 10), duration: 0)) }
    store.settle()
    // Out of order, settled (the tail) and not settled (pending).
    for i in 0..<50 { store.insert(Self.sample(&rng, start: Double(i * 37 + 5), duration: 60)) }
    store.settle()
    for i in 0..<20 { store.insert(Self.sample(&rng, start: Double(29_999 - i * 41), duration: 0)) }
    let contents = store.contents
    let order = try #require(contents.startOrders.first { $0.type == water.code })
    #expect(order.sortedCount == order.order.count, "written merged")
    let restored = try SampleStore(restoring: contents)
    #expect(restored.differences(from: store) == [])
    Self.check(restored, &rng)

    // A build before this one wrote the date index with its out-of-order inserts unsorted at the end.
    var older = contents
    let sorted = order.order
    let tail = Array(sorted.enumerated().filter { $0.offset % 9 == 4 }.map(\.element).reversed())
    let prefix = sorted.enumerated().filter { $0.offset % 9 != 4 }.map(\.element)
    older.startOrders = [SampleStore.StartOrder(type: water.code, order: prefix + tail, sortedCount: prefix.count)]
    let fromOlder = try SampleStore(restoring: older)
    #expect(fromOlder.differences(from: store) == [])
    Self.check(fromOlder, &rng)
  }

  @Test("A date index whose sorted part is not sorted is refused")
  func unsortedPrefixRefused() {
    var rng = SeededGenerator(seed: 11)
    var store = SampleStore()
    for i in 0..<10 { store.insert(Self.sample(&rng, start: Double(i), duration: 0)) }
    var contents = store.contents
    contents.startOrders[0].order.swapAt(2, 7)
    #expect(throws: StateRestoreError.self) { _ = try SampleStore(restoring: contents) }
  }
}
