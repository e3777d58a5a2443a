import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

@Suite("Sync ledger")
struct SyncLedgerTests {
  /// The pending item count is kept as entries come and go (the daemon reads it for every request); it must stay
  /// the sum over the pending entries through appends, acknowledgements, compaction, restarts and restores.
  @Test(arguments: [1, 2, 3] as [UInt64])
  func pendingItemsIsAlwaysTheSumOfThePendingEntries(seed: UInt64) throws {
    var rng = SeededGenerator(seed: seed)
    var ledger = SyncLedger()
    let source = SampleSource(bundleID: "com.example.water", device: .phone)
    func expected(_ l: SyncLedger) -> Int { l.pendingEntries.reduce(0) { $0 + $1.payload.itemCount } }
    for step in 0..<3_000 {
      switch Int.random(in: 0..<10, using: &rng) {
      case 0..<5:
        ledger.appendSlots(start: Int32(step), count: Int32.random(in: 1...5_000, using: &rng))
      case 5:
        let tombstones = (0..<Int.random(in: 1...300, using: &rng)).map { _ in
          Tombstone(uuid: UUID(), type: water, source: source, deletedAt: Date(timeIntervalSince1970: 0))
        }
        ledger.appendDeletions(tombstones)
      case 6:
        let order = SourceOrder(sources: [source], at: Date(timeIntervalSince1970: 0), device: .phone)
        ledger.appendSourceOrder(water, order)
      case 7, 8:
        ledger.acknowledge(upTo: UInt64.random(in: ledger.peerAcked...ledger.lastSeq, using: &rng))
      default:
        if Int.random(in: 0..<20, using: &rng) == 0 {
          ledger.restart(logID: UInt64(step), liveRuns: [(0, 10), (20, 3)], tombstones: [])
        } else {
          ledger = try SyncLedger(
            restoringLogID: ledger.logID, peerLogID: 0, lastSeq: ledger.lastSeq, peerAcked: ledger.peerAcked,
            appliedFromPeer: 0, pending: Array(ledger.pendingEntries))
        }
      }
      #expect(ledger.pendingItems == expected(ledger), "after step \(step)")
      if ledger.pendingItems != expected(ledger) { return }
    }
    ledger.acknowledge(upTo: ledger.lastSeq)
    #expect(ledger.pendingItems == 0 && ledger.pendingCount == 0)
  }
}
