import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import Journal
@testable import Posix
@testable import Wire

/// The `key=value` of the last log line containing `message`.
func lastLogValue(_ log: String, _ message: String, _ key: String) -> String? {
  guard let line = log.split(separator: "\n").last(where: { $0.contains(message) }) else { return nil }
  guard let field = line.split(separator: " ").first(where: { $0.hasPrefix(key + "=") }) else { return nil }
  return String(field.dropFirst(key.count + 1))
}

@Suite("Snapshots in the daemon (real processes)")
struct DaemonSnapshotTests {
  /// More than a MiB of journal (the shutdown threshold), then a clean stop: the next start resumes from the
  /// snapshot, anchors handed out before stay valid, and sync carries on.
  @Test func aCleanShutdownLeavesASnapshotTheNextStartResumesFrom() throws {
    try withPair { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water], read: [water])
      for batch in 0..<20 {
        try pair.phone.save(
          waterApp.bundleID,
          (0..<1000).map { i in
            waterSample(1, at: t0.addingTimeInterval(-Double(batch * 1000 + i) * 30))
          })
      }
      try pair.waitSynced(timeout: 30)
      let anchor = try pair.phone.anchoredQuery(waterApp.bundleID, type: water, anchor: 0).newAnchor
      #expect(pair.stop(.phone) == .exited(0))
      let snapshotPath = SnapshotFile.path(forJournal: pair.layout.journal(.phone))
      #expect(Posix.exists(snapshotPath))
      try pair.restart(.phone)
      let log = String(decoding: try Posix.readFile(pair.layout.log(.phone)), as: UTF8.self)
      #expect(log.contains("snapshot written"))
      #expect(!log.contains("snapshot not used"))
      let covered = Int(lastLogValue(log, " ready", "snapshot_records") ?? "") ?? 0
      #expect(covered > 20, "the start resumed from the snapshot (\(covered) records covered)")
      #expect(try pair.phone.storedSamples(type: water).samples.count == 20_000)
      let unchanged = try pair.phone.anchoredQuery(waterApp.bundleID, type: water, anchor: anchor)
      #expect(unchanged.added.isEmpty && unchanged.deleted.isEmpty && unchanged.newAnchor == anchor)
      let later = waterSample(2)
      try pair.phone.save(waterApp.bundleID, [later])
      let since = try pair.phone.anchoredQuery(waterApp.bundleID, type: water, anchor: anchor)
      #expect(since.added.map(\.uuid) == [later.uuid])
      try pair.waitSynced(timeout: 30)
      #expect(try pair.watch.storedSamples(type: water).samples.count == 20_001)
    }
  }

  /// A damaged snapshot is logged and ignored: the journal is replayed and nothing is lost.
  @Test func aDamagedSnapshotIsLoggedAndTheJournalReplayed() throws {
    try withPair { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water], read: [water])
      for batch in 0..<18 {
        try pair.phone.save(
          waterApp.bundleID,
          (0..<1000).map { i in
            waterSample(1, at: t0.addingTimeInterval(-Double(batch * 1000 + i)))
          })
      }
      #expect(pair.stop(.phone) == .exited(0))
      let snapshotPath = SnapshotFile.path(forJournal: pair.layout.journal(.phone))
      var bytes = try Posix.readFile(snapshotPath)
      bytes[bytes.count / 2] ^= 0x10
      try Posix.writeFileAtomically(snapshotPath, bytes)
      try pair.restart(.phone)
      let log = String(decoding: try Posix.readFile(pair.layout.log(.phone)), as: UTF8.self)
      #expect(log.contains("snapshot not used, the journal was replayed in full"))
      #expect(lastLogValue(log, " ready", "snapshot_records") == "0")
      #expect(try pair.phone.storedSamples(type: water).samples.count == 18_000)
    }
  }
}
