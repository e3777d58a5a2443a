import Dispatch
import Foundation
import HealthKitSim
import HealthPairClient
import HealthPairTesting
import Synchronization
import Testing

@Suite("HealthPairTesting: the harness itself")
struct HarnessTests {
  @Test func thePairIsTornDownEvenWhenTheBodyThrows() async throws {
    struct Boom: Error {}
    let launched = Mutex<(directory: String, socket: String)?>(nil)
    await #expect(throws: Boom.self) {
      try await withHealthPair(HealthPairOptions(reportFailures: false)) { pair in
        launched.withLock { $0 = (pair.directory, pair.phone.socketPath) }
        #expect(FileManager.default.fileExists(atPath: pair.phone.socketPath))
        try await pair.waitForSync()
        throw Boom()
      }
    }
    let (directory, socket) = try #require(launched.withLock { $0 })
    #expect(!FileManager.default.fileExists(atPath: directory), "the temporary directory is removed")
    await HealthKitSim.withTarget(HealthKitSim.Target(socketPath: socket, bundleIdentifier: waterID)) {
      await #expect { try await HKHealthStore().save(water(1)) } throws: {
        guard case .unreachable = $0 as? HealthKitSimError else { return false }
        return true
      }
    }
  }

  @Test func theBlockingFormsServeSynchronousAndXCTestStyleTests() throws {
    try withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try pair.phone.install(app: waterID, writeUsage: "Water logs what you drink.")
      let finished = DispatchSemaphore(value: 0)
      let outcome = Mutex<(Bool, (any Error)?)?>(nil)
      pair.phone.use(app: waterID) {
        HKHealthStore().requestAuthorization(toShare: [waterType], read: nil) { success, error in
          outcome.withLock { $0 = (success, error) }
          finished.signal()
        }
      }
      let sheet = try pair.phone.user.waitForSheet(app: waterID)
      #expect(sheet.share == [waterType] && sheet.read.isEmpty && sheet.outcome == .pending)
      try pair.phone.user.allowAll(app: waterID)
      #expect(finished.wait(timeout: .now() + 10) == .success)
      #expect(outcome.withLock { $0?.0 } == true)
      #expect(try pair.phone.decision(app: waterID, share: waterType) == .authorized)
      #expect(try pair.phone.decision(app: waterID, read: waterType) == .notDetermined)
    }
  }

  /// Answering on the wrong device: the timeout says where the test asked, and that the app's sheet is up on the
  /// other device.
  @Test func aSheetAwaitedOnTheWrongDeviceSaysWhereItIsUp() async throws {
    try await withArticlePair { pair in
      try await pair.phone.use(app: waterID) {
        async let request: Void = HKHealthStore().requestAuthorization(toShare: [waterType], read: [])
        _ = try await pair.phone.user.waitForSheet()
        await #expect {
          try await pair.watch.user.allowAll(timeout: 0.2)
        } throws: { error in
          "\(error)".contains("on the watch (asked at HealthKitSimTests/HarnessTests.swift:")
            && "\(error)".hasSuffix("a sheet for \(waterID) is up on the phone: answer it with pair.phone.user")
        }
        try await pair.phone.user.allowAll()
        try await request
      }
    }
  }

  @Test func waitingForASheetThatNeverComesTimesOutAndAWrongChoiceIsRefused() async throws {
    try await withArticlePair { pair in
      let line = #line + 1  // inside #expect's closure, a call's #line is the macro's
      await #expect(throws: HealthPairTestingError.timeout(
        waitingFor: "a permission sheet on the phone (asked at HealthKitSimTests/HarnessTests.swift:\(line))",
        seconds: 0.2)
      ) {
        try await pair.phone.user.waitForSheet(timeout: 0.2)
      }
      try await pair.phone.use(app: waterID) {
        async let request: Void = HKHealthStore().requestAuthorization(toShare: [waterType], read: [])
        await #expect {
          try await pair.phone.user.choose(share: [stepsType])
        } throws: { error in
          guard case .deviceRefused(.phone, _, let reason) = error as? HealthPairTestingError else { return false }
          return reason.contains("does not list share stepCount")
        }
        try await pair.phone.user.choose(share: [waterType])
        try await request
      }
    }
  }

  /// The harness's sheet watchdog and its waits listen on the pair's own connections: a test's pair costs each
  /// daemon one control connection.
  @Test func theHarnessOpensNoConnectionsOfItsOwn() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await pair.waitForSync()
      for socket in [pair.phone.socketPath, pair.watch.socketPath] {
        let probe = try DeviceClient(socketPath: socket, clientName: "probe")
        defer { probe.close() }
        #expect(try probe.dump().clients == 2, "the pair's connection and this probe, at \(socket)")
      }
    }
  }

  @Test func theLinkCanBeCutHeldAndRestored() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType])
      try pair.link.disconnect()
      #expect(try pair.link.isConnected() == false)
      let first = water(250)
      try await pair.phone.use(app: waterID) { try await HKHealthStore().save(first) }
      let notSynced = HealthPairTestingError.timeout(waitingFor: "the pair to sync", seconds: 0.2)
      await #expect(throws: notSynced) { try await pair.waitForSync(timeout: 0.2) }
      #expect(try pair.watch.storedSamples().isEmpty)
      try pair.link.connect()
      try await pair.waitForSync()
      #expect(try pair.watch.storedSamples().map(\.uuid) == [first.uuid])

      try pair.link.hold(.phone)
      let second = water(300, at: t0.addingTimeInterval(60))
      try await pair.phone.use(app: waterID) { try await HKHealthStore().save(second) }
      await #expect(throws: notSynced) { try await pair.waitForSync(timeout: 0.2) }
      try pair.link.release(.phone)
      try pair.link.setLatency(0.01)
      try await pair.waitForSync()
      #expect(Set(try pair.watch.storedSamples().map(\.uuid)) == [first.uuid, second.uuid])
    }
  }

  @Test func theClockIsVirtualAndPerDevice() async throws {
    try withHealthPair(HealthPairOptions(clock: t0)) { pair in
      #expect(try pair.phone.now() == t0)
      #expect(try pair.watch.now() == t0)
      try pair.advanceClock(by: 3600)
      #expect(try pair.phone.now() == t0.addingTimeInterval(3600))
      #expect(try pair.watch.now() == t0.addingTimeInterval(3600))
      try pair.watch.setClock(t0.addingTimeInterval(10 * 86_400))
      #expect(try pair.watch.earliestPermittedSampleDate() == t0.addingTimeInterval(3 * 86_400))
      #expect(try pair.phone.earliestPermittedSampleDate() == .distantPast)
    }
  }

  @Test func watchLockoutIsVisibleAndTheWatchAppResetEndsIt() async throws {
    try await withArticlePair { pair in
      try await pair.watch.authorize(returnID, share: [mindfulType]) { try await $0.dontAllow() }
      #expect(try pair.watch.isLockedOut(app: returnID))
      #expect(try pair.watch.decision(app: returnID, share: mindfulType) == .denied)
      try pair.watch.settings.reset(app: returnID)
      try await pair.waitForSync()
      #expect(try pair.watch.isLockedOut(app: returnID) == false)
      #expect(try pair.watch.decision(app: returnID, share: mindfulType) == .notDetermined)
      try await pair.watch.authorize(returnID, share: [mindfulType])
      #expect(try pair.watch.sheets(app: returnID).map(\.outcome) == [.answered, .answered])
      #expect(try pair.phone.sheets().isEmpty, "the watch's sheets are the watch's")
    }
  }

  @Test func aDeviceRestartedAfterACrashKeepsItsStateAndHealthKitSimReconnects() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType]) {
        try await $0.choose(share: [waterType])
      }
      let kept = water(250)
      let store = HKHealthStore()
      try await pair.phone.use(app: waterID) { try await store.save(kept) }
      pair.phone.kill()
      try pair.phone.restart()
      #expect(try pair.phone.decision(app: waterID, read: waterType) == .denied)
      #expect(try pair.phone.storedSamples().map(\.uuid) == [kept.uuid])
      pair.phone.use(app: waterID) { #expect(store.authorizationStatus(for: waterType) == .sharingAuthorized) }
      try await pair.phone.use(app: waterID) { try await store.save(water(300)) }
      try await pair.waitForSync()
      #expect(try pair.watch.storedSamples().count == 2)
    }
  }

  @Test func aWouldTerminateReportFailsTheRunningTest() async throws {
    try withHealthPair { _ in
      withKnownIssue("HKUnit(from:) with a string that is not a unit would crash a device") {
        _ = HKUnit(from: "not a unit")
      }
    }
  }
}

@Suite("HealthPairTesting: what a failing test leaves")
struct FailureReportTests {
  struct Deliberate: Error {}

  @Test func aFailingTestCanKeepItsPairsDirectory() async throws {
    let kept = Mutex<String?>(nil)
    #expect(throws: Deliberate.self) {
      try withHealthPair(HealthPairOptions(reportFailures: false, keepDirectoryOnFailure: true)) { pair in
        kept.withLock { $0 = pair.directory }
        throw Deliberate()
      }
    }
    let directory = try #require(kept.withLock { $0 })
    defer { try? FileManager.default.removeItem(atPath: directory) }
    #expect(FileManager.default.fileExists(atPath: directory + "/phone/phone.journal"), "journals and logs are kept")
    #expect(FileManager.default.fileExists(atPath: directory + "/watch/watch.log"))
  }

  @Test func aPassingTestLeavesNothing() async throws {
    let used = Mutex<String?>(nil)
    try withHealthPair(HealthPairOptions(keepDirectoryOnFailure: true)) { pair in
      used.withLock { $0 = pair.directory }
    }
    let directory = try #require(used.withLock { $0 })
    #expect(!FileManager.default.fileExists(atPath: directory))
  }
}
