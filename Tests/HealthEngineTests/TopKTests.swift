import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Top-k selection")
struct TopKTests {
  @Test func theSmallestKEqualTheSortedPrefix() {
    var state: UInt64 = 42
    func next() -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(state >> 45)
    }
    for size in [0, 1, 2, 7, 50, 51, 1000] {
      let values = (0..<size).map { _ in next() % 300 }  // many ties
      for k in [0, 1, 3, 50, 999, 2000] {
        // Ties broken by position, so the order is total, as the engine's is.
        let indexed = Array(values.enumerated())
        let order = { (a: (offset: Int, element: Int), b: (offset: Int, element: Int)) in
          a.element != b.element ? a.element > b.element : a.offset < b.offset
        }
        let expected = Array(indexed.sorted(by: order).prefix(k))
        #expect(indexed.smallest(k, by: order).map(\.offset) == expected.map(\.offset), "size \(size), k \(k)")
        // With the first key given (descending element: the key is its negation), the result is the same.
        #expect(
          indexed.smallest(k, key: { -Double($0.element) }, by: order).map(\.offset) == expected.map(\.offset),
          "keyed, size \(size), k \(k)")
      }
    }
  }
}
