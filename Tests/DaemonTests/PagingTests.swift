import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix
@testable import Wire

/// Replies that grow with the store: `storedSamples` is paged so any store can be read; the others are bounded
/// by the reply limit with an error that says how to ask for less — never by dropping the client.
@Suite("Paged and bounded replies (real processes)")
struct PagingTests {
  /// 10,000 water samples (about 700 KB encoded), one second apart, saved on the phone in one batch.
  func saveMany(_ pair: Pair, count: Int = 10_000) throws -> [SampleInput] {
    try grant(pair.phone, waterApp.bundleID, share: [water], read: [water])
    let batch = (0..<count).map { waterSample(Double($0 % 500 + 1), at: t0.addingTimeInterval(-Double($0))) }
    try pair.phone.save(waterApp.bundleID, batch)
    return batch
  }

  @Test func storedSamplesLargerThanTheBacklogLimitAreReadInPages() throws {
    // A 256 KiB backlog limit: one reply with every sample would get the client dropped as too slow.
    try withPair(extraArguments: ["--max-client-backlog", "262144"]) { pair in
      let batch = try saveMany(pair)
      let deleted = Array(batch.prefix(10).map(\.uuid))
      try pair.phone.delete(waterApp.bundleID, deleted)
      let stored = try pair.phone.storedSamples()
      #expect(stored.samples.count == batch.count - deleted.count)
      #expect(stored.tombstones.map(\.uuid) == deleted)
      // The order callers relied on: start date, then identifier (as its string).
      let expected = stored.samples.sorted { ($0.start, $0.uuid.uuidString) < ($1.start, $1.uuid.uuidString) }
      #expect(stored.samples.map(\.uuid) == expected.map(\.uuid))
      #expect(Set(stored.samples.map(\.uuid)) == Set(batch.dropFirst(10).map(\.uuid)))
      // The same connection is still served.
      try pair.phone.ping()
      // Pages of a given size, by type too.
      #expect(try pair.phone.storedSamples(type: water, pageLimit: 777).samples.map(\.uuid) == expected.map(\.uuid))
      #expect(try pair.phone.storedSamples(type: mindful).samples.isEmpty)
    }
  }

  @Test func eachPageStaysUnderItsSizeAndTheCursorWalksTheWholeStore() throws {
    try withPair(extraArguments: ["--max-client-backlog", "262144"]) { pair in
      let batch = try saveMany(pair)
      try pair.phone.delete(waterApp.bundleID, [batch[0].uuid])
      let raw = try RawConnection(pair.layout.socket(.phone))
      try raw.send(.request(id: 1, .hello(version: WireProtocol.version, client: "pager")))
      _ = try raw.nextFrame()
      var cursor: StoredCursor? = .start
      var pages = 0
      var samples = 0
      var tombstones = 0
      while let from = cursor {
        try raw.send(.request(id: 2, .storedSamples(type: nil, from: from, limit: 0)))
        let frame = try raw.nextFrame()
        guard case .response(2, .success(let reply))? = frame, case .stored(let s, let t, let next) = reply else {
          Issue.record("expected a page, got \(String(describing: frame))")
          return
        }
        // Half the backlog limit, plus the frame's own few bytes.
        #expect(Frame.response(id: 2, .success(reply)).encoded().count <= 131_072 + 64)
        pages += 1
        samples += s.count
        tombstones += t.count
        cursor = next
      }
      #expect(pages >= 5)
      #expect(samples == batch.count - 1 && tombstones == 1)
    }
  }

  @Test func aReadOverlappingWritesSeesEachSampleOnceAndDropsTheDeletedOnes() throws {
    try withPair(extraArguments: []) { pair in
      let batch = try saveMany(pair, count: 3000)
      let first = try pair.phone.perform(.storedSamples(from: .start, limit: 1000))
      let page = first.samples
      guard let next = first.next else {
        Issue.record("expected a first page with more to come")
        return
      }
      // Between pages: a sample already returned is deleted, and a new one is added.
      let added = waterSample(5, at: t0.addingTimeInterval(60))
      try pair.phone.delete(waterApp.bundleID, [page[0].uuid])
      try pair.phone.save(waterApp.bundleID, [added])
      var seen = page
      var tombstones: [Tombstone] = []
      var cursor: StoredCursor? = next
      while let from = cursor {
        let reply = try pair.phone.perform(.storedSamples(from: from, limit: 1000))
        seen += reply.samples
        tombstones += reply.tombstones
        cursor = reply.next
      }
      #expect(Set(seen.map(\.uuid)).count == seen.count, "a sample came twice")
      #expect(seen.count == batch.count + 1)
      #expect(tombstones.map(\.uuid) == [page[0].uuid])
      // The client library's merged view leaves the deleted one out.
      let merged = try pair.phone.storedSamples(pageLimit: 1000).samples.map(\.uuid)
      #expect(merged.count == batch.count && merged.contains(added.uuid) && !merged.contains(page[0].uuid))
    }
  }

  @Test func anUnlimitedQueryOverTheReplyLimitIsAClearErrorAndTheClientStays() throws {
    try withPair(extraArguments: ["--max-client-backlog", "262144"]) { pair in
      _ = try saveMany(pair)
      /// The message of the error `body` fails with.
      func failure(_ body: () throws(ClientError) -> Void) -> String {
        do throws(ClientError) {
          try body()
          return "no error"
        } catch { return error.healthError?.message ?? "\(error)" }
      }
      let sampleQuery = failure { () throws(ClientError) in
        _ = try pair.phone.sampleQuery(waterApp.bundleID, SampleQuery(type: water))
      }
      #expect(sampleQuery.contains("exceeds the 262144-byte reply limit; set a limit or narrow the date range"))
      let anchored = failure { () throws(ClientError) in
        _ = try pair.phone.anchoredQuery(waterApp.bundleID, type: water, anchor: 0)
      }
      #expect(anchored.contains("pass a limit and continue from the returned anchor"), "\(anchored)")
      // Not dropped: the same client asks for less and gets it.
      #expect(try pair.phone.sampleQuery(waterApp.bundleID, SampleQuery(type: water, limit: 1000)).count == 1000)
      var anchor: UInt64 = 0
      var total = 0
      while true {
        let result = try pair.phone.anchoredQuery(waterApp.bundleID, type: water, anchor: anchor, limit: 2000)
        total += result.added.count
        if result.added.count < 2000 { break }
        anchor = result.newAnchor
      }
      #expect(total == 10_000)
      #expect(!logText(pair, .phone).contains("client too slow"))
    }
  }
}
