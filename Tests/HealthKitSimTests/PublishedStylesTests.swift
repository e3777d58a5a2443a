import Dispatch
import Foundation
import HealthKitSim
import HealthPairTesting
import PublishedStyles
import Synchronization
import Testing

/// The app-style example code (Sources/Examples/PublishedStyles, which imports `HealthKit`) run against a real pair,
/// unchanged: completion handlers, async/await over continuations, a wrapper hopping to its own queue, a Sendable
/// singleton, anchors archived into UserDefaults, background delivery.
@Suite("Published-style HealthKit code, against real daemons")
struct PublishedStylesTests {
  static let stepsID = "com.example.steps"
  static let walkerID = "com.example.walker"

  /// A pair with the clock at `t0`, the step syncer (with the background delivery entitlement) on the phone and a
  /// step writer on the watch, both authorized.
  func withStepPair(_ body: (HealthPair) async throws -> Void) async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try pair.phone.install(
        app: Self.stepsID, name: "Steps", writeUsage: "Saves workouts.", readUsage: "Syncs your steps.",
        entitlements: [.backgroundDelivery])
      try pair.watch.install(app: Self.walkerID, name: "Walker", writeUsage: "Counts steps.", readUsage: "Shows steps.")
      try await pair.watch.authorize(Self.walkerID, share: [stepsType], read: [stepsType])
      try await pair.phone.use(app: Self.stepsID) {
        let manager = StepSyncManager(defaults: TemporaryDefaults().defaults)
        let done = Mailbox<Bool>()
        manager.requestAuthorization { success, _ in done.post(success) }
        try await pair.phone.user.allowAll()
        let succeeded = try await done.next()
        #expect(succeeded)
      }
      try await body(pair)
    }
  }

  func steps(_ count: Double, at date: Date) -> HKQuantitySample {
    HKQuantitySample(type: stepsType, quantity: HKQuantity(unit: .count(), doubleValue: count), start: date, end: date)
  }

  @Test func aCompletionHandlerManagerSyncsInTheBackgroundAndResumesFromItsArchivedAnchorAfterARestart()
    async throws
  {
    try await withStepPair { pair in
      let temporary = TemporaryDefaults()
      defer { temporary.remove() }
      let defaults = temporary.defaults
      let reports = Mailbox<StepSyncManager.SyncReport>()
      let manager = StepSyncManager(defaults: defaults)
      manager.onSync = { reports.post($0) }
      try await pair.phone.use(app: Self.stepsID) {
        let enabled = Mailbox<Bool>()
        manager.startObserving { success, _ in enabled.post(success) }
        let started = try await enabled.next()
        #expect(started)
      }
      // The observer's first call (at execute) syncs from no anchor: nothing yet.
      #expect(try await reports.next() == .init(added: 0, deleted: 0))
      // Steps counted on the watch reach the phone by sync: background delivery wakes the manager, whose handler
      // syncs and then calls the completion handler.
      try await pair.watch.use(app: Self.walkerID) { try await HKHealthStore().save(steps(1200, at: t0)) }
      #expect(try await reports.next() == .init(added: 1, deleted: 0))
      try await pair.phone.waitForBackgroundDelivery(app: Self.stepsID, of: stepsType, .completed)
      let info = try #require(try pair.phone.backgroundDelivery(app: Self.stepsID, of: stepsType))
      #expect(info.effectiveFrequency == .hourly, "step counts are at most hourly on the iPhone")
      #expect(info.completed == 1 && info.missesInARow == 0)
      let archived = try #require(manager.storedAnchor())

      // The phone's daemon crashes and comes back; a relaunched app unarchives its anchor from UserDefaults.
      pair.phone.kill()
      try pair.phone.restart()
      try await pair.watch.use(app: Self.walkerID) { try await HKHealthStore().save(steps(300, at: t0 + 60)) }
      try await pair.waitForSync()
      let relaunched = StepSyncManager(defaults: defaults)
      #expect(relaunched.storedAnchor() == archived)
      let after = Mailbox<StepSyncManager.SyncReport>()
      relaunched.onSync = { after.post($0) }
      pair.phone.use(app: Self.stepsID) { relaunched.syncNewSamples {} }
      #expect(try await after.next() == .init(added: 1, deleted: 0), "only what changed since the archived anchor")
      #expect(try pair.phone.backgroundDelivery(app: Self.stepsID, of: stepsType) != nil, "registrations are durable")
    }
  }

  /// The exclude-manual-entries statistics predicate, as a format string: the watch's counted steps (no
  /// `HKWasUserEntered` key) are summed, the steps typed in by hand are not (behavior.md Q9).
  @Test func stepsExcludingManualEntriesCountTheSamplesWithoutTheKey() async throws {
    try await withStepPair { pair in
      try await pair.watch.use(app: Self.walkerID) {
        try await HKHealthStore().save([
          steps(1200, at: t0),
          HKQuantitySample(
            type: stepsType, quantity: HKQuantity(unit: .count(), doubleValue: 5000), start: t0 + 60, end: t0 + 60,
            metadata: [HKMetadataKeyWasUserEntered: true]),
          HKQuantitySample(
            type: stepsType, quantity: HKQuantity(unit: .count(), doubleValue: 30), start: t0 + 120, end: t0 + 120,
            metadata: [HKMetadataKeyWasUserEntered: false]),
        ])
      }
      try await pair.waitForSync()
      let total = Mailbox<Result<Double?, any Error>>()
      pair.phone.use(app: Self.stepsID) {
        StepSyncManager(defaults: TemporaryDefaults().defaults).fetchSteps(from: t0 - 3600, to: t0 + 3600) {
          steps, error in total.post(error.map { .failure($0) } ?? .success(steps))
        }
      }
      #expect(try await total.next().get() == 1230)
    }
  }

  @Test func forgettingTheCompletionHandlerStopsBackgroundDeliveryAfterThreeMisses() async throws {
    try await withStepPair { pair in
      let store = HKHealthStore()
      let calls = Mailbox<Int>()
      let count = Atomic<Int>(0)
      // An observer that never calls its completion handler, as a buggy app's does.
      let query = HKObserverQuery(sampleType: stepsType, predicate: nil) { _, _, _ in
        calls.post(count.add(1, ordering: .sequentiallyConsistent).newValue)
      }
      try await pair.phone.use(app: Self.stepsID) {
        store.execute(query)
        try await store.enableBackgroundDelivery(for: stepsType, frequency: .immediate)
      }
      defer { store.stop(query) }
      #expect(try await calls.next() == 1, "the call at execute")
      try await pair.watch.use(app: Self.walkerID) { try await store.save(steps(10, at: t0)) }
      #expect(try await calls.next() == 2, "woken by the delivery")
      // Each response window passes without a call: a retry follows, with back-off; three misses stop delivery.
      try pair.phone.advanceClock(by: 30)
      try await pair.phone.waitForBackgroundDelivery(app: Self.stepsID, of: stepsType, .missed)
      try pair.phone.advanceClock(by: 60)
      #expect(try await calls.next() == 3, "the first retry")
      try pair.phone.advanceClock(by: 30 + 120)
      #expect(try await calls.next() == 4, "the second retry")
      try pair.phone.advanceClock(by: 30)
      try await pair.phone.waitForBackgroundDelivery(app: Self.stepsID, of: stepsType, .stopped)
      let info = try #require(try pair.phone.backgroundDelivery(app: Self.stepsID, of: stepsType))
      #expect(info.isStopped && info.missesInARow == 3 && info.completed == 0)
      #expect(
        try pair.phone.backgroundDeliveryHistory(app: Self.stepsID).map(\.kind)
          == [.woken, .missed, .woken, .missed, .woken, .missed, .stopped])
    }
  }

  @Test func anAsyncReaderOverContinuationsUsesThePublishedPredicateFamilies() async throws {
    try await withStepPair { pair in
      let reader = AsyncHealthReader(.stepCount, unit: .count())
      try await pair.watch.use(app: Self.walkerID) {
        let watchReader = AsyncHealthReader(.stepCount, unit: .count())
        _ = try await watchReader.save(800, at: t0, metadata: ["session": "morning"])
        _ = try await watchReader.save(5, at: t0 + 600, metadata: ["session": "idle"])
      }
      try await pair.waitForSync()
      try await pair.phone.use(app: Self.stepsID) {
        let all = try await reader.readings(matching: nil)
        #expect(all.map(\.value) == [5, 800], "newest first")
        #expect(all.allSatisfy { $0.source == Self.walkerID && $0.deviceModel == "Watch" })
        #expect(try await reader.reading(id: all[1].id)?.value == 800)
        #expect(try await reader.readings(taggedWith: "session", in: ["morning"]).map(\.value) == [800])
        #expect(try await reader.readings(atLeast: 100).map(\.value) == [800])
        #expect(try await reader.readings(fromDeviceModel: "Watch").count == 2)
        #expect(try await reader.readings(fromDeviceModel: "iPhone").isEmpty)
        #expect(try await reader.sources() == [Self.walkerID])
      }
    }
  }

  @Test func aWrapperHoppingToItsOwnQueueWorksWithAProcessWideTarget() async throws {
    // The wrapper calls HealthKit from its own DispatchQueue, outside any task: like an app's whole process, it
    // needs the process-wide target.
    await ProcessWideTarget.lock.acquire()
    defer { Task { await ProcessWideTarget.lock.release() } }
    try await withStepPair { pair in
      try await pair.watch.use(app: Self.walkerID) { try await HKHealthStore().save(steps(640, at: t0)) }
      try await pair.waitForSync()
      pair.phone.useGlobally(app: Self.stepsID)
      let callbacks = DispatchQueue(label: "PublishedStylesTests.callbacks")
      let client = QueueHoppingHealthClient(callbackQueue: callbacks)
      let totals = Mailbox<Result<Double, Error>>()
      client.total(.stepCount, unit: .count(), from: t0 - 3600, to: t0 + 3600) { totals.post($0) }
      #expect(try await totals.next().get() == 640)
      client.total(.stepCount, unit: .count(), from: t0 - 7200, to: t0 - 3600) { totals.post($0) }
      #expect(try await totals.next().get() == 0, "no data reads as zero in this wrapper")
      #expect(client.cachedTotal(.stepCount) == 0)
      let authorized = Mailbox<Bool>()
      client.authorize(share: [], read: [heartRateType]) { authorized.post((try? $0.get()) != nil) }
      try await pair.phone.user.allowAll()
      #expect(try await authorized.next())
    }
  }

  @Test func aSendableSingletonRequestsTheSpecialTypesFromAnyTask() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try pair.phone.install(app: Self.stepsID, writeUsage: "Saves workouts.", readUsage: "Reads your health.")
      try await pair.phone.use(app: Self.stepsID) {
        #expect(SharedHealth.shared.isAvailable)
        async let asked: Void = SharedHealth.shared.requestEverything()
        let sheet = try await pair.phone.user.waitForSheet()
        #expect(sheet.share.count == 2 && sheet.read.count == 7)
        #expect(sheet.read.contains(HKObjectType.activitySummaryType()))
        try await pair.phone.user.allowAll()
        try await asked
        let fromChild = await withTaskGroup(of: Bool.self) { group in
          for _ in 0..<4 { group.addTask { SharedHealth.shared.canWriteWorkouts() } }
          return await group.reduce(true) { $0 && $1 }
        }
        #expect(fromChild, "child tasks inherit the target and share the singleton")
      }
    }
  }
}
