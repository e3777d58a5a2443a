import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Sync bookkeeping in the engine")
struct EngineSyncTests {
  @Test func samplesAndDeletionsFlowAndReDeliveryIsIgnored() throws {
    var phone = makeDevice(.phone)
    var watch = makeDevice(.watch)
    try watch.grant(returnApp.bundleID, share: [mindful])
    let id = UUID()
    _ = try watch.save(returnApp.bundleID, [mindfulInput(minutes: 10, uuid: id)], wall: t0)
    let entries = watch.outboundEntries(after: 0, maxItems: 100)
    #expect(entries.map(\.seq) == [1])
    #expect(!phone.receivePeerEntries(entries, wall: t0).isEmpty)
    #expect(phone.receivePeerEntries(entries, wall: t0).isEmpty, "a re-delivery applies nothing")
    let mirrored = try #require(phone.storedSamples(wall: t0).first)
    #expect(mirrored.uuid == id && mirrored.source == SampleSource(bundleID: returnApp.bundleID, device: .watch))
    _ = try watch.delete(returnApp.bundleID, [id], wall: t0)
    _ = phone.receivePeerEntries(watch.outboundEntries(after: 1, maxItems: 100), wall: t0)
    #expect(phone.storedSamples(wall: t0).isEmpty)
    #expect(phone.storedTombstones.map(\.uuid) == [id])
    // The phone never received authorization.
    #expect(try phone.authorizationStatus(returnApp.bundleID, mindful) == .notDetermined)
    _ = watch.receivePeerAck(2)
    #expect(watch.sync.pendingCount == 0)
  }

  @Test func gapsAreNotApplied() throws {
    var phone = makeDevice(.phone)
    var watch = makeDevice(.watch)
    try watch.grant(returnApp.bundleID, share: [mindful])
    for _ in 0..<3 { _ = try watch.save(returnApp.bundleID, [mindfulInput(minutes: 1)], wall: t0) }
    let entries = watch.outboundEntries(after: 0, maxItems: 100)
    _ = phone.receivePeerEntries([entries[0], entries[2]], wall: t0)
    #expect(phone.sync.appliedFromPeer == 1)
  }

  @Test func theWatchDoesNotMirrorPhoneSamplesOlderThanItsWindow() throws {
    var phone = makeDevice(.phone)
    var watch = makeDevice(.watch)
    try phone.grant(waterApp.bundleID, share: [water])
    _ = try phone.save(
      waterApp.bundleID, [waterInput(1, at: t0.addingTimeInterval(-30 * 86400)), waterInput(2)], wall: t0)
    _ = watch.receivePeerEntries(phone.outboundEntries(after: 0, maxItems: 100), wall: t0)
    #expect(watch.storedSamples(wall: t0).map { $0.quantityValue! } == [2])
  }

  @Test func largeSavesAreSplitIntoBoundedEntries() throws {
    var phone = makeDevice(.phone)
    try phone.grant(waterApp.bundleID, share: [water])
    _ = try phone.save(waterApp.bundleID, (0..<10_000).map { _ in waterInput(1) }, wall: t0)
    #expect(phone.sync.lastSeq == 3)
    #expect(phone.outboundEntries(after: 0, maxItems: 5000).count == 1)
    #expect(phone.outboundEntries(after: 1, maxItems: 100_000).map(\.seq) == [2, 3])
  }
}
