import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// `HKDeletedObject.metadata` carries the deleted object's `HKMetadataKeySyncIdentifier` and
/// `HKMetadataKeySyncVersion`, and nothing else (Apple's HKDeletedObject.metadata documentation).
@Suite("A deleted object keeps its sync identifier and version, against real daemons")
struct DeletedObjectMetadataTests {
  /// The deletions an anchored query from `anchor` reports, and its new anchor.
  private func deletions(_ store: HKHealthStore, since anchor: HKQueryAnchor?) async throws
    -> (deleted: [HKDeletedObject], anchor: HKQueryAnchor)
  {
    let result = try await HKAnchoredObjectQueryDescriptor(
      predicates: [.quantitySample(type: waterType)], anchor: anchor
    ).result(for: store)
    return (result.deletedObjects, result.newAnchor)
  }

  @Test func aDeletionOnThePhoneCarriesTheTwoKeysThereAndOnTheWatch() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      try await pair.watch.authorize(waterID, share: [waterType], read: [waterType])
      let store = HKHealthStore()
      let synced = water(
        250,
        metadata: [
          HKMetadataKeySyncIdentifier: "cup-1", HKMetadataKeySyncVersion: 3, HKMetadataKeyWasUserEntered: true,
        ])
      let plain = water(100, metadata: [HKMetadataKeyWasUserEntered: true])
      let (phoneAnchor, watchAnchor) = try await pair.phone.use(app: waterID) {
        try await store.save([synced, plain])
        return (try await deletions(store, since: nil).anchor, HKQueryAnchor?.none)
      }
      try await pair.waitForSync(timeout: 30)
      let watchStart = try await pair.watch.use(app: waterID) { try await deletions(store, since: watchAnchor).anchor }
      try await pair.phone.use(app: waterID) { try await store.delete([synced, plain]) }
      try await pair.waitForSync(timeout: 30)
      for (device, anchor) in [(pair.phone, phoneAnchor), (pair.watch, watchStart)] {
        let deleted = try await device.use(app: waterID) { try await deletions(store, since: anchor).deleted }
        let byUUID = Dictionary(uniqueKeysWithValues: deleted.map { ($0.uuid, $0) })
        let kept = try #require(byUUID[synced.uuid]?.metadata)
        #expect(kept.count == 2, "only the sync identifier and version: \(kept)")
        #expect(kept[HKMetadataKeySyncIdentifier] as? String == "cup-1")
        #expect(kept[HKMetadataKeySyncVersion] as? Int == 3)
        #expect(byUUID[plain.uuid] != nil)
        #expect(byUUID[plain.uuid]?.metadata == nil, "no sync keys: nil, as for any object without metadata")
      }
    }
  }

  @Test func aSampleReplacedByAHigherSyncVersionLeavesADeletionWithTheOldVersion() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      let store = HKHealthStore()
      let first = water(250, metadata: [HKMetadataKeySyncIdentifier: "cup-2", HKMetadataKeySyncVersion: 1])
      let second = water(300, metadata: [HKMetadataKeySyncIdentifier: "cup-2", HKMetadataKeySyncVersion: 2])
      let deleted = try await pair.phone.use(app: waterID) {
        try await store.save(first)
        let anchor = try await deletions(store, since: nil).anchor
        try await store.save(second)
        return try await deletions(store, since: anchor).deleted
      }
      #expect(deleted.map(\.uuid) == [first.uuid])
      #expect(deleted.first?.metadata?[HKMetadataKeySyncIdentifier] as? String == "cup-2")
      #expect(deleted.first?.metadata?[HKMetadataKeySyncVersion] as? Int == 1)
    }
  }
}
