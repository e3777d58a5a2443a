import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

@Suite("HKAnchoredObjectQuery pages by its predicate (the daemon filters before the limit)")
struct AnchoredPagingTests {
  /// Four changes that do not match come first: each page still holds `limit` matches, and paging until a short
  /// page finds every one of them.
  @Test func aLimitedQueryWithAPredicatePagesThroughEveryMatch() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let others = (0..<4).map { water(100, at: t0.addingTimeInterval(Double($0) * 60)) }
        let kept = (0..<6).map {
          water(200, at: t0.addingTimeInterval(600 + Double($0) * 60), metadata: ["keep": true])
        }
        try await store.save(others)
        try await store.save(kept)
        let predicate = HKQuery.predicateForObjects(withMetadataKey: "keep")
        var anchor: HKQueryAnchor?
        var pages: [[UUID]] = []
        repeat {
          let (added, next): ([UUID], HKQueryAnchor) = try await withCheckedThrowingContinuation { done in
            store.execute(
              HKAnchoredObjectQuery(type: waterType, predicate: predicate, anchor: anchor, limit: 2) {
                _, added, _, newAnchor, error in
                if let error { return done.resume(throwing: error) }
                done.resume(returning: ((added ?? []).map(\.uuid), newAnchor!))
              })
          }
          pages.append(added)
          anchor = next
        } while pages.last?.count == 2 && pages.count < 10
        #expect(pages.map(\.count) == [2, 2, 2, 0])
        #expect(pages.flatMap { $0 } == kept.map(\.uuid))
      }
    }
  }
}
