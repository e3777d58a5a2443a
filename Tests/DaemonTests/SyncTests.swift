import Dispatch
import FoundationEssentials
import Synchronization
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix
@testable import Wire

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Daemons and sync (real processes)")
struct SyncIntegrationTests {
  @Test func samplesFlowBothWaysWithTheirIdentity() throws {
    try withPair { pair in
      try grant(pair.watch, returnApp.bundleID, share: [mindful])
      try grant(pair.phone, waterApp.bundleID, share: [water], read: [water])
      let fromWatch = UUID()
      let fromPhone = UUID()
      try pair.watch.save(returnApp.bundleID, [mindfulSample(minutes: 10, uuid: fromWatch)])
      try pair.phone.save(waterApp.bundleID, [waterSample(250, uuid: fromPhone)])
      try pair.waitSynced(timeout: 10)
      for client in [pair.phone, pair.watch] {
        let stored = try client.storedSamples().samples
        #expect(Set(stored.map(\.uuid)) == [fromWatch, fromPhone])
        #expect(
          stored.first { $0.uuid == fromWatch }?.source == SampleSource(bundleID: returnApp.bundleID, device: .watch))
        #expect(
          stored.first { $0.uuid == fromPhone }?.source == SampleSource(bundleID: waterApp.bundleID, device: .phone))
      }
      // Authorization did not cross in either direction.
      #expect(try pair.phone.authorizationStatus(returnApp.bundleID, mindful) == .notDetermined)
      #expect(try pair.watch.authorizationStatus(waterApp.bundleID, water) == .notDetermined)
    }
  }

  @Test func aDeletionPropagatesAsATombstone() throws {
    try withPair { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water])
      let id = UUID()
      try pair.phone.save(waterApp.bundleID, [waterSample(250, uuid: id)])
      try pair.waitSynced(timeout: 10)
      #expect(try pair.watch.storedSamples().samples.map(\.uuid) == [id])
      try pair.phone.delete(waterApp.bundleID, [id])
      try pair.waitSynced(timeout: 10)
      let (samples, tombstones) = try pair.watch.storedSamples()
      #expect(samples.isEmpty)
      #expect(tombstones.map(\.uuid) == [id])
    }
  }

  /// Saves continuously on `writer` from another thread while `victim` is killed with SIGKILL and restarted; then
  /// checks every acknowledged sample is on both devices exactly once.
  @Test(arguments: [DeviceKind.phone, .watch])
  func killNineMidStreamLosesNothingAcknowledged(victim: DeviceKind) throws {
    try withPair { pair in
      try grant(pair.watch, returnApp.bundleID, share: [mindful])
      let acknowledged = Mutex<[UUID]>([])
      let stop = Atomic<Bool>(false)
      let batches = Atomic<Int>(0)
      let progress = DispatchSemaphore(value: 0)
      let restarted = DispatchSemaphore(value: 0)
      let finished = DispatchSemaphore(value: 0)
      let socket = pair.layout.socket(.watch)
      Posix.startThread {
        defer { finished.signal() }
        var client = try? DeviceClient(socketPath: socket, clientName: "writer", timeout: 10)
        var batch = 0
        var waitedForRestart = false
        while !stop.load(ordering: .sequentiallyConsistent) {
          batch += 1
          let samples = (0..<20).map { i in
            mindfulSample(minutes: 1, at: t0.addingTimeInterval(Double(batch * 100 + i)))
          }
          do {
            guard let c = client else { throw ClientError.disconnected("not connected") }
            try c.save(returnApp.bundleID, samples)
            acknowledged.withLock { $0 += samples.map(\.uuid) }
            batches.add(1, ordering: .sequentiallyConsistent)
            progress.signal()
          } catch {
            // The save is unacknowledged. If the watch itself died, wait until the test restarted it.
            if (try? DeviceClient(socketPath: socket, clientName: "probe", timeout: 10)) == nil
              || client?.isClosed == true
            {
              if !waitedForRestart {
                _ = restarted.wait(timeout: .now() + 30)
                waitedForRestart = true
              }
              client = try? DeviceClient(socketPath: socket, clientName: "writer", timeout: 10)
            }
          }
        }
      }
      func waitForBatches(_ n: Int) {
        while batches.load(ordering: .sequentiallyConsistent) < n {
          if progress.wait(timeout: .now() + 20) == .timedOut {
            Issue.record("the writer made no progress")
            return
          }
        }
      }
      // Kill after some batches are acknowledged, while the writer keeps going.
      waitForBatches(5)
      pair.kill(victim)
      try pair.restart(victim)
      restarted.signal()
      waitForBatches(batches.load(ordering: .sequentiallyConsistent) + 10)
      stop.store(true, ordering: .sequentiallyConsistent)
      #expect(finished.wait(timeout: .now() + 20) == .success, "the writer stops")
      try pair.waitSynced(timeout: 20)
      let acked = Set(acknowledged.withLock { $0 })
      let phone = try pair.phone.storedSamples().samples.map(\.uuid)
      let watch = try pair.watch.storedSamples().samples.map(\.uuid)
      #expect(Set(phone).count == phone.count, "no sample is stored twice on the phone")
      #expect(Set(watch).count == watch.count, "no sample is stored twice on the watch")
      #expect(
        acked.isSubset(of: Set(phone)), "\(acked.subtracting(phone).count) acknowledged samples missing on the phone")
      #expect(
        acked.isSubset(of: Set(watch)), "\(acked.subtracting(watch).count) acknowledged samples missing on the watch")
      #expect(Set(phone) == Set(watch), "the devices converge")
    }
  }

  @Test func watchAppSettingsWaitForTheLinkAndApplyOnReconnect() throws {
    try withPair { pair in
      try grant(pair.watch, returnApp.bundleID, share: [mindful], answer: .denyAll)
      try pair.watch.link(.disconnect)
      try pair.phone.link(.disconnect)
      try pair.phone.watchSettings(returnApp.bundleID, .set(Permission(mindful, .share), on: true))
      #expect(try pair.watch.authorizationStatus(returnApp.bundleID, mindful) == .sharingDenied)
      // The watch still locks Return out while the change waits.
      let ticket = try pair.watch.beginAuthorization(returnApp.bundleID, share: [mindful], read: [])
      guard case .final = try ticket.waitFirst(timeout: 10) else {
        Issue.record("no sheet while locked out")
        return
      }
      // The queued change survives a phone restart while the link is down.
      pair.kill(.phone)
      try pair.restart(.phone, waitForLink: false)
      try pair.phone.link(.disconnect)
      #expect(try pair.phone.dump().link.sync.pendingItems == 1)
      try pair.phone.link(.connect)
      try pair.watch.link(.connect)
      try pair.waitLinked(timeout: 10)
      try pair.waitSynced(timeout: 10)
      #expect(try pair.watch.authorizationStatus(returnApp.bundleID, mindful) == .sharingAuthorized)
      #expect(try pair.watch.dump().device.app(returnApp.bundleID)?.lockedOut == false)
    }
  }

  @Test func theWatchRefusesSettingsSentToItDirectlyInTheIPhoneOnlyModel() throws {
    try withPair { pair in
      var policy = try pair.watch.dump().device.policy
      policy.watchSettings = .iPhoneOnly
      try pair.watch.setPolicy(policy)
      try grant(pair.watch, returnApp.bundleID, share: [mindful])
      let refusal = rejection { try pair.watch.changeSettings(returnApp.bundleID, .turnAllOff) }
      #expect(refusal?.kind == .simulator && refusal?.message.hasPrefix("the watch has no Health settings") == true)
      #expect(try pair.watch.authorizationStatus(returnApp.bundleID, mindful) == .sharingAuthorized)
    }
  }

  @Test func holdQueuesDeliveryUntilRelease() throws {
    try withPair { pair in
      try grant(pair.phone, waterApp.bundleID, share: [water])
      try pair.phone.link(.hold)
      try pair.phone.save(waterApp.bundleID, [waterSample(100)])
      let held = try pair.phone.link(.hold)
      #expect(held.holding && held.sync.pendingItems == 1)
      #expect(try pair.watch.storedSamples().samples.isEmpty)
      try pair.phone.link(.release)
      try pair.waitSynced(timeout: 10)
      #expect(try pair.watch.storedSamples().samples.count == 1)
      let delayed = try pair.phone.link(.latency(0.02))
      #expect(delayed.latency == 0.02)
      try pair.phone.save(waterApp.bundleID, [waterSample(200)])
      try pair.waitSynced(timeout: 10)
      #expect(try pair.watch.storedSamples().samples.count == 2)
    }
  }

  @Test func aPendingRequestIsSeenByAnotherClientThatAnswersIt() throws {
    try withPair { pair in
      let user = try DeviceClient(socketPath: pair.layout.socket(.phone), clientName: "user")
      defer { user.close() }
      let shown = Mutex<[Prompt]>([])
      _ = user.addListener { event in if case .promptShown(let p) = event { shown.withLock { $0.append(p) } } }
      try user.subscribe(.prompts)
      let ticket = try pair.phone.beginAuthorization(waterApp.bundleID, share: [water], read: [water])
      guard case .sheet(let prompt) = try ticket.waitFirst(timeout: 10) else {
        Issue.record("expected a sheet")
        return
      }
      #expect(try user.dump().device.pendingPrompts == [prompt])
      try pair.wait(for: "the prompt event", timeout: 10) { !shown.withLock { $0 }.isEmpty }
      #expect(shown.withLock { $0 } == [prompt])
      #expect(ticket.result == nil, "still pending until the user answers")
      try user.answerPrompt(.cancel)
      let result = try ticket.wait(timeout: 10)
      #expect(result.success == false && result.error?.code == .errorUserCanceled)
    }
  }
}
