#if canImport(HealthPairTesting)
  import Foundation
  import HealthKit
  import HealthPairTesting
  import StepsKit
  import Testing

  @Test func theUnchangedCodeRunsAgainstASimulatedPair() async throws {
    let start = Date(timeIntervalSince1970: 1_767_600_000)
    try await withHealthPair(HealthPairOptions(clock: start)) { pair in
      try pair.phone.install(
        app: "com.example.steps", readUsage: "Counts your steps.", entitlements: [.backgroundDelivery])
      try pair.watch.install(app: "com.example.walker", writeUsage: "Records steps.", readUsage: "Shows steps.")
      let suite = "StepsKitTests-\(UUID().uuidString)"
      let defaults = try #require(UserDefaults(suiteName: suite))
      defer { defaults.removePersistentDomain(forName: suite) }
      let observer = StepObserver(defaults: defaults)
      try await pair.phone.use(app: "com.example.steps") {
        async let asked: Void = observer.requestAccess()
        try await pair.phone.user.allowAll()
        try await asked
        try await observer.enableBackgroundDelivery()
        let first = try await observer.newSamples {}
        #expect(first == 0)
      }
      try await pair.watch.use(app: "com.example.walker") {
        async let asked: Void = HKHealthStore().requestAuthorization(
          toShare: [HKQuantityType(.stepCount)], read: [])
        try await pair.watch.user.allowAll()
        try await asked
        let steps = HKQuantitySample(
          type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 900), start: start,
          end: start)
        let typed = HKQuantitySample(
          type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 5000), start: start,
          end: start, metadata: [HKMetadataKeyWasUserEntered: true])
        try await HKHealthStore().save([steps, typed])
      }
      try await pair.waitForSync()
      try await pair.phone.use(app: "com.example.steps") {
        let synced = try await observer.newSamples {}
        let again = try await observer.newSamples {}
        #expect(synced == 2)
        #expect(again == 0, "the archived anchor moved on")
        let counted = try await observer.steps(from: start - 3600, to: start + 3600)
        #expect(counted == 900, "the steps typed in by hand are left out")
        let calendar = try pair.phone.calendar()
        let daily = await withCheckedContinuation { continuation in
          DailySteps().totals(days: 2, endingAt: start, calendar: calendar) { continuation.resume(returning: $0) }
        }
        #expect(daily == [0, 5900])
      }
      #expect(try pair.phone.backgroundDelivery(app: "com.example.steps", of: HKQuantityType(.stepCount)) != nil)
    }
  }
#endif
