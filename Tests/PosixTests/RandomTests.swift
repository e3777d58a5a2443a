import Posix
import Testing

@Suite("Posix: pooled random bytes")
struct RandomTests {
  @Test func drawsAreNeverHandedOutTwiceAcrossRefills() {
    // 600 draws of 16 bytes cross two refills of the 4 KiB pool.
    var seen = Set<[UInt8]>()
    for _ in 0..<600 {
      var bytes = [UInt8](repeating: 0, count: 16)
      bytes.withUnsafeMutableBytes { Posix.fillRandom($0) }
      #expect(seen.insert(bytes).inserted)
    }
    #expect(seen.count == 600)
    let zeros = seen.filter { $0.allSatisfy { $0 == 0 } }
    #expect(zeros.isEmpty, "a wiped or unfilled part of the pool was handed out")
  }

  @Test func aForkedChildDoesNotRepeatItsParentsNextBytes() throws {
    // Without the fork handler the child hands out the very bytes the parent hands out next (checked by removing it).
    for _ in 0..<4 {
      let draws = try #require(Posix.randomDrawsAcrossFork(32))
      #expect(draws.parent != draws.child)
      #expect(!draws.child.allSatisfy { $0 == 0 })
    }
  }
}
