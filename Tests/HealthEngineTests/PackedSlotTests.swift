import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

/// The 56-byte slot (its packed fields keep their values) and the per-type block lists that replaced the per-type
/// insertion arrays (anchored queries see what a scan of every slot sees).
@Suite("The packed store")
struct PackedSlotTests {
  static let types = ["dietaryWater", "stepCount", "heartRate"].map { SampleType.lookup(name: $0)! }
  static let sources = [
    SampleSource(bundleID: "com.example.water", device: .phone),
    SampleSource(bundleID: "com.example.steps", device: .watch),
  ]

  @Test("A slot is 56 bytes and each packed field keeps its value, at the limits too")
  func packing() {
    #expect(MemoryLayout<SampleStore.Slot>.stride == 56)
    let uuid = UUID()
    for (change, source, type) in [
      (SampleStore.Slot.maxChange, SampleStore.Slot.maxSource, UInt16.max), (1, 0, 0), (0x1234_5678_9ABC, 7, 42),
    ] as [(UInt64, UInt32, UInt16)] {
      for live in [true, false] {
        var slot = SampleStore.Slot(
          uuid: uuid, start: -1.5, end: 2.5, value: .nan, change: change, metadataIndex: -1, source: source,
          type: type, live: live)
        #expect(slot.change == change && slot.source == source && slot.type == type && slot.live == live)
        slot.live.toggle()
        #expect(slot.change == change && slot.source == source && slot.type == type && slot.live == !live)
        #expect(slot.uuid == uuid && slot.start == -1.5 && slot.end == 2.5 && slot.value.isNaN)
        #expect(slot.metadataIndex == -1)
      }
    }
  }

  /// Every slot of `type` with a change number above `anchor`, in slot order: what the block lists must give.
  static func expected(_ store: SampleStore, _ type: SampleType, after anchor: UInt64) -> [Int32] {
    store.slots.indices.filter { store.slots[$0].type == type.code && store.slots[$0].change > anchor }.map {
      Int32($0)
    }
  }

  @Test(
    "Anchored reads by block list equal a scan of every slot, over runs and rare types", arguments: [1 as UInt64, 2])
  func changedSlots(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    var store = SampleStore()
    var anchors: [UInt64] = [0]
    // Runs of one type longer than a block, single samples of a rare type between them, and deletions (which take
    // change numbers of their own).
    for round in 0..<40 {
      let type = round % 7 == 3 ? Self.types[2] : Self.types[Int(rng.next() % 2)]
      let count = type == Self.types[2] ? 1 : 1 + Int(rng.next() % 700)
      for _ in 0..<count {
        let start = Double(rng.next() % 1_000_000)
        store.insert(
          Sample(
            uuid: rng.uuid(), type: type, value: .quantity(1), start: Date(timeIntervalSinceReferenceDate: start),
            end: Date(timeIntervalSinceReferenceDate: start + 60), source: Self.sources[Int(rng.next() % 2)]))
      }
      if rng.next() % 3 == 0, let victim = store.slots.indices.randomElement(using: &rng) {
        _ = store.delete(store.slots[victim].uuid, at: t0)
      }
      store.settle()
      anchors.append(store.changeCounter - rng.next() % 5)
    }
    let restored = try SampleStore(restoring: store.contents)
    #expect(restored.differences(from: store) == [])
    for candidate in [store, restored] {
      for type in Self.types + [SampleType.lookup(name: "bodyMass")!] {
        for anchor in anchors + [candidate.changeCounter, candidate.changeCounter + 1] {
          #expect(
            candidate.slotsChanged(type: type, after: anchor) == Self.expected(candidate, type, after: anchor),
            "\(type) after \(anchor)")
        }
      }
    }
  }

  @Test("Contents whose change counter leaves less than 2⁴⁷ changes before the slots' limit are refused")
  func changeCounterLimit() {
    var store = SampleStore()
    var rng = SeededGenerator(seed: 3)
    store.insert(
      Sample(
        uuid: rng.uuid(), type: Self.types[0], value: .quantity(1), start: t0, end: t0, source: Self.sources[0]))
    var contents = store.contents
    contents.changeCounter = SampleStore.Slot.maxChange / 2
    #expect(throws: Never.self) { _ = try SampleStore(restoring: contents) }
    contents.changeCounter += 1
    #expect(throws: StateRestoreError.self) { _ = try SampleStore(restoring: contents) }
  }
}
