import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Index against brute force")
struct IndexPropertyTests {
  /// Saves in random date order (with ties and durations), deletes, and range queries sorted by start or end date,
  /// ascending or descending, with and without a limit: every answer lists the same samples in the same order as
  /// filtering and sorting everything directly — ties by save order, as HealthPair orders them.
  @Test(arguments: [5 as UInt64, 6, 7, 8])
  func queriesMatchBruteForceUnderOutOfOrderInsertsAndDeletes(seed: UInt64) throws {
    var rng = SplitMix(seed: seed)
    var device = makeDevice()
    _ = try device.requestAuthorization(waterApp.bundleID, share: [water], read: [water], wall: t0)
    _ = try device.answerPrompt(id: nil, bundleID: nil, answer: .allowAll)
    struct Saved {
      var uuid: UUID
      var start: Date
      var end: Date
      var order: Int
    }
    var live: [Saved] = []
    var order = 0
    for round in 0..<80 {
      if rng.next() % 4 == 0, !live.isEmpty {
        let victim = live.remove(at: Int(rng.next() % UInt64(live.count)))
        _ = try device.delete(waterApp.bundleID, [victim.uuid], wall: t0)
      }
      let batch = (0..<Int(1 + rng.next() % 20)).map { _ -> SampleInput in
        // Coarse dates, so equal dates are common; durations, so start order and end order differ.
        let start = t0.addingTimeInterval(-Double(rng.next() % 200) * 600)
        let end = start.addingTimeInterval(Double(rng.next() % 4) * 900)
        return SampleInput(
          uuid: UUID(uuid: rng.uuid()), type: water, value: .quantity(Double(1 + rng.next() % 100), unit: "mL"),
          start: start, end: end)
      }
      _ = try device.save(waterApp.bundleID, batch, wall: t0)
      for input in batch {
        live.append(Saved(uuid: input.uuid, start: input.start, end: input.end, order: order))
        order += 1
      }
      let from = t0.addingTimeInterval(-Double(rng.next() % 200) * 600)
      let to = from.addingTimeInterval(Double(rng.next() % 50) * 600)
      let limit = Int(rng.next() % 30)
      let ascending = rng.next() % 2 == 0
      let byEnd = rng.next() % 2 == 0
      let query = SampleQuery(
        type: water, range: DateRange(start: from, end: to), limit: limit,
        sort: [SampleSort(byEnd ? .endDate : .startDate, ascending: ascending)])
      let got = try device.sampleQuery(waterApp.bundleID, query, wall: t0).map(\.uuid)
      // HealthKit's default predicate: endDate >= start and startDate < end.
      var expected = live.filter { $0.end >= from && $0.start < to }.sorted { a, b in
        let (ka, kb) = byEnd ? (a.end, b.end) : (a.start, b.start)
        if ka != kb { return ascending ? ka < kb : ka > kb }
        return a.order < b.order
      }.map(\.uuid)
      if limit > 0 { expected = Array(expected.prefix(limit)) }
      #expect(
        got == expected,
        "round \(round), limit \(limit), \(byEnd ? "end" : "start") \(ascending ? "ascending" : "descending")")
    }
  }
}
