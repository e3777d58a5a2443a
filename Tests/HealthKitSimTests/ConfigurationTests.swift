import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

@testable import ReturnApp
@testable import WaterApp

// Serialized: one test sets the process-wide target, which the others expect to be unset.
@Suite("Configuration: which device and app a store talks to", .serialized)
struct ConfigurationTests {
  @Test func withNothingConfiguredHealthDataIsUnavailable() async throws {
    // Tests bind targets task-locally, so here nothing is configured (the process-wide target and the environment
    // are set only by tests holding the process-wide target's lock).
    await ProcessWideTarget.lock.acquire()
    defer { Task { await ProcessWideTarget.lock.release() } }
    try #require(HealthKitSim.configuredTarget == nil)
    try #require(ProcessInfo.processInfo.environment[HealthKitSim.socketEnvironmentVariable] == nil)
    #expect(HealthKitSim.currentTarget == nil)
    #expect(!HKHealthStore.isHealthDataAvailable())
    let store = HKHealthStore()
    #expect(store.authorizationStatus(for: waterType) == .notDetermined)
    #expect(store.earliestPermittedSampleDate() == .distantPast)
    await #expect { try await store.save(water(250)) } throws: { isHKError($0, .errorHealthDataUnavailable) }
    await #expect { try await store.requestAuthorization(toShare: [waterType], read: []) } throws: {
      isHKError($0, .errorHealthDataUnavailable)
    }
    let completion = Mailbox<String>()
    store.requestAuthorization(toShare: [waterType], read: nil) { success, error in
      completion.post("\(success) \((error as? HKError)?.code.rawValue ?? -1)")
    }
    #expect(try await completion.next() == "false 1")
    let query = Mailbox<Int>()
    store.execute(
      HKSampleQuery(sampleType: waterType, predicate: nil, limit: 0, sortDescriptors: nil) { _, samples, error in
        query.post(samples == nil ? (error as? HKError)?.code.rawValue ?? -1 : -2)
      })
    #expect(try await query.next() == HKError.Code.errorHealthDataUnavailable.rawValue)
  }

  @Test @MainActor func withoutHealthKitTheArticlesAppsSaySo() async throws {
    await ProcessWideTarget.lock.acquire()
    defer { Task { await ProcessWideTarget.lock.release() } }
    let service = HealthKitService()
    #expect(!service.isHealthDataAvailable)
    #expect(await WaterScreen(service: service).tapGlass(milliliters: 250) == .unavailable)
    await #expect(throws: HealthKitError.notAvailable) { try await service.requestAuthorization() }
    let manager = HealthKitManager(defaults: UserDefaults(suiteName: "HealthKitSimTests.unavailable")!)
    #expect(manager.nextTapAction == .unavailable)
    #expect(await manager.saveMindfulSession(start: t0, end: t0.addingTimeInterval(60)) == false)
    #expect(await WatchHealthKitManager.shared.nextTapAction() == .unavailable)
  }

  @Test func theTaskLocalTargetWinsAndIsInheritedByChildTasksOnly() async throws {
    let phone = HealthKitSim.Target(socketPath: "/nonexistent/phone.sock", bundleIdentifier: "com.example.a")
    let watch = HealthKitSim.Target(socketPath: "/nonexistent/watch.sock", bundleIdentifier: "com.example.b")
    await HealthKitSim.withTarget(phone) {
      #expect(HealthKitSim.currentTarget == phone)
      #expect(HKHealthStore.isHealthDataAvailable())
      async let child = HealthKitSim.currentTarget
      #expect(await child == phone)
      HealthKitSim.withTarget(watch) { #expect(HealthKitSim.currentTarget == watch) }
      #expect(HealthKitSim.currentTarget == phone)
      let detached = await Task.detached { HealthKitSim.currentTarget }.value
      #expect(detached == nil, "a detached task does not inherit the target")
    }
    #expect(HealthKitSim.currentTarget == nil)
  }

  @Test func anUnreachableDaemonIsASimulatorErrorNotAHealthKitError() async throws {
    let target = HealthKitSim.Target(socketPath: "/nonexistent/phone.sock", bundleIdentifier: waterID)
    try await HealthKitSim.withTarget(target) {
      await #expect { try await HKHealthStore().save(water(250)) } throws: { error in
        guard case .unreachable(let path, _) = error as? HealthKitSimError else { return false }
        return path == target.socketPath
      }
      let reported = Mailbox<HealthKitSimError>()
      // The non-throwing API reports to the issue handler and returns its neutral value.
      HealthKitSim.withIssueHandler({ reported.post($0) }) {
        #expect(HKHealthStore().authorizationStatus(for: waterType) == .notDetermined)
      }
      let issue = try await reported.next()
      guard case .unreachable = issue else {
        Issue.record("expected an unreachable issue, got \(issue)")
        return
      }
    }
  }

  @Test func oneStoreFollowsTheTargetOfEachCall() async throws {
    try await withArticlePair { pair in
      let store = HKHealthStore()
      try await pair.phone.authorize(waterID, share: [waterType])
      try await pair.phone.use(app: waterID) { try await store.save(water(250)) }
      pair.watch.use(app: waterID) {
        #expect(store.authorizationStatus(for: waterType) == .notDetermined, "authorization is per device")
      }
      pair.phone.use(app: waterID) { #expect(store.authorizationStatus(for: waterType) == .sharingAuthorized) }
      pair.phone.use(app: returnID) {
        #expect(store.authorizationStatus(for: waterType) == .notDetermined, "and per app")
      }
    }
  }

  @Test func aProcessWideTargetIsUsedOutsideTaskLocalsAndClearedWithItsPair() async throws {
    await ProcessWideTarget.lock.acquire()
    defer { Task { await ProcessWideTarget.lock.release() } }
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType])
      pair.phone.useGlobally(app: waterID)
      // A detached task sees no task-local target: the process-wide one applies.
      let status = await Task.detached { HKHealthStore().authorizationStatus(for: waterType) }.value
      #expect(status == .sharingAuthorized)
      #expect(HealthKitSim.configuredTarget == pair.phone.target(app: waterID))
    }
    #expect(HealthKitSim.configuredTarget == nil, "shutting the pair down clears a target that pointed into it")
  }
}
