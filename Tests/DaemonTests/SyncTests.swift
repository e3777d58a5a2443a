import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import Posix
@testable import Wire

@Suite("Daemons and sync (real processes)")
struct SyncIntegrationTests {
  @Test func aSampleSavedOnTheWatchAppearsOnThePhone() throws {
    try withPair { pair in
      try grant(pair.watch, returnApp.bundleID, share: [mindful])
      let id = UUID()
      try pair.watch.save(returnApp.bundleID, [mindfulSample(minutes: 10, uuid: id)])
      try pair.waitSynced(timeout: 10)
      let (stored, _) = try pair.phone.storedSamples()
      let mirrored = try #require(stored.first)
      #expect(mirrored.uuid == id)
      #expect(mirrored.source == SampleSource(bundleID: returnApp.bundleID, device: .watch))
      // Authorization did not cross.
      #expect(try pair.phone.authorizationStatus(returnApp.bundleID, mindful) == .notDetermined)
    }
  }
}
