import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Journal
@testable import Posix
@testable import Wire

/// The payload offsets of a journal's intact records.
func journalRecords(_ path: String) throws -> [(offset: Int, length: Int)] {
  let bytes = try Posix.readFile(path)
  return try bytes.withUnsafeBytes { buffer in try JournalFormat.scan(file: buffer).records }
}

func storedUUIDs(_ client: DeviceClient) throws -> Set<UUID> { Set(try client.storedSamples().samples.map(\.uuid)) }

@Suite("Sync heals itself (real processes)")
struct HealingTests {
  /// Issue 10 item 3: the phone's journal loses synced records; it used to restart its sequence numbers below what
  /// the watch had applied, flap the link and report "synced" while new samples never reached the watch.
  @Test func aJournalThatLostSyncedRecordsIsReconciledByContent() throws {
    try withPair { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water])
      var first: [UUID] = []
      for i in 0..<20 {
        let id = UUID()
        first.append(id)
        try pair.phone.save(
          waterApp.bundleID, [waterSample(Double(i + 1), at: t0.addingTimeInterval(Double(i)), uuid: id)])
      }
      try pair.waitSynced(timeout: 20)
      #expect(try storedUUIDs(pair.watch) == Set(first))
      // The link stays down until the phone has saved more, so what it starts with can be seen.
      _ = try pair.watch.link(.disconnect)
      pair.kill(.phone)
      try JournalSurgery.dropLastRecords(pair.layout.journal(.phone), count: 12)
      try pair.restart(.phone, waitForLink: false)
      #expect(try storedUUIDs(pair.phone).count == 8, "the cut journal starts with fewer samples")
      var later: [UUID] = []
      for i in 0..<12 {
        let id = UUID()
        later.append(id)
        try pair.phone.save(waterApp.bundleID, [waterSample(100, at: t0.addingTimeInterval(Double(100 + i)), uuid: id)])
      }
      _ = try pair.watch.link(.connect)
      try pair.waitSynced(timeout: 20)
      let everything = Set(first + later)
      #expect(try storedUUIDs(pair.watch) == everything, "the samples saved after the cut reach the watch")
      #expect(try storedUUIDs(pair.phone) == everything, "the phone gets back what its journal lost from the watch")
      let phone = try pair.phone.dump().link.sync
      let watch = try pair.watch.dump().link.sync
      #expect(phone.isSynced(with: watch) && !phone.diverged && !watch.diverged)
      let log = String(decoding: try Posix.readFile(pair.layout.log(.phone)), as: UTF8.self)
      #expect(log.contains("restarting the sync log"))
      #expect(!log.contains("peer claims"), "no flapping")
    }
  }

  /// The same with a byte flipped inside a synced record and `--repair`, which cuts everything after it.
  @Test func aRepairedJournalRestartsItsLogAndConverges() throws {
    try withPair { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water])
      var saved: [UUID] = []
      for i in 0..<10 {
        let id = UUID()
        saved.append(id)
        try pair.phone.save(
          waterApp.bundleID, [waterSample(Double(i + 1), at: t0.addingTimeInterval(Double(i)), uuid: id)])
      }
      try pair.waitSynced(timeout: 20)
      pair.kill(.phone)
      let path = pair.layout.journal(.phone)
      let records = try journalRecords(path)
      var bytes = try Posix.readFile(path)
      bytes[records[records.count - 5].offset + 3] ^= 0xFF
      try Posix.writeFileAtomically(path, bytes)
      try pair.restart(.phone, extraArguments: ["--repair"])
      // The repair cut records that had reached the watch (what the phone holds right now depends on how far the
      // reconciliation already got, so the log says what happened).
      let log = String(decoding: try Posix.readFile(pair.layout.log(.phone)), as: UTF8.self)
      #expect(log.contains("journal damage cut off") && log.contains("sync log restarted after the cut"))
      let after = UUID()
      try pair.phone.save(waterApp.bundleID, [waterSample(5, at: t0.addingTimeInterval(50), uuid: after)])
      try pair.waitSynced(timeout: 20)
      #expect(try storedUUIDs(pair.phone) == Set(saved + [after]))
      #expect(try storedUUIDs(pair.watch) == Set(saved + [after]))
    }
  }

  /// Issue 10 item 7: the same UUID saved on both devices while the link was held used to diverge forever.
  @Test func theSameIdentifierSavedOnBothDevicesIsDetectedAndTheIPhoneCopyWins() throws {
    try withPair { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water])
      try grant(pair.watch, waterApp.bundleID, share: [water])
      _ = try pair.phone.link(.hold)
      _ = try pair.watch.link(.hold)
      let id = UUID()
      try pair.phone.save(waterApp.bundleID, [waterSample(250, uuid: id)])
      try pair.watch.save(waterApp.bundleID, [waterSample(100, uuid: id)])
      _ = try pair.phone.link(.release)
      _ = try pair.watch.link(.release)
      try pair.waitSynced(timeout: 20)
      for client in [pair.phone, pair.watch] {
        let stored = try client.storedSamples().samples.filter { $0.uuid == id }
        #expect(stored.count == 1)
        #expect(stored.first?.value == .quantity(250), "the iPhone's copy is kept on both devices")
        #expect(stored.first?.source.device == .phone)
        #expect(try client.dump().link.sync.conflicts == 1, "the conflict is reported on both devices")
      }
    }
  }

  /// Issue 10 item 1: a latency beyond what a timer can hold used to trap the daemon on the next save.
  @Test func anExtremeLatencyIsRefusedAndTheDaemonKeepsServing() throws {
    try withPair { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water])
      for bad in [300_000 * 86_400.0, 1e300, .infinity, -.infinity, .nan, -1] {
        let error = rejection { _ = try pair.phone.link(.latency(bad)) }
        #expect(error == .simulator("link latency must be between 0 and 86400 seconds (got \(bad))"), "\(bad)")
      }
      #expect(try pair.phone.link(.latency(0.001)).latency == 0.001)
      try pair.phone.save(waterApp.bundleID, [waterSample(1)])
      _ = try pair.phone.link(.latency(0))
      try pair.waitSynced(timeout: 20)
      #expect(try pair.watch.storedSamples().samples.count == 1)
    }
  }
}
