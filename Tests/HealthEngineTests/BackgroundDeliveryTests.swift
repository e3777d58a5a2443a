import FoundationEssentials
import Testing

@testable import HealthEngine
@testable import HealthModel

let tracker = AppRecord(
  bundleID: "com.example.tracker", displayName: "Tracker", writeUsageDescription: "w", readUsageDescription: "r",
  entitlements: [.backgroundDelivery])

/// A device with Water (read + write of water) and Tracker (background delivery entitlement, reads water).
func makeBackgroundDevice(_ kind: DeviceKind = .phone) throws -> DeviceState {
  var device = makeDevice(kind, apps: [waterApp, tracker])
  try device.grant(waterApp.bundleID, share: [water], read: [water])
  try device.grant(tracker.bundleID, share: [water], read: [water])
  _ = device.backgroundStep(wall: t0)
  return device
}

extension DeviceState {
  /// Moves the virtual clock by `seconds` and runs the daemon's background step; returns its events' kinds.
  mutating func advance(_ seconds: Double) -> [BackgroundDeliveryEvent.Kind] {
    _ = try! advanceClock(by: seconds, wall: t0)
    return backgroundStep(wall: t0).events.map(\.kind)
  }

  /// Water saves a sample and the daemon runs its background step; returns its events' kinds.
  mutating func waterSaves(_ mL: Double = 250) -> [BackgroundDeliveryEvent.Kind] {
    _ = try! save(waterApp.bundleID, [waterInput(mL)], wall: t0)
    return backgroundStep(wall: t0).events.map(\.kind)
  }

  var trackerStatus: BackgroundDeliveryStatus? {
    backgroundDeliveries(tracker.bundleID).first { $0.key.type == water }
  }
}

@Suite("Background delivery (behavior.md section B)")
struct BackgroundDeliveryTests {
  @Test func theEntitlementIsRequiredAndCorrelationTypesAreRefused() throws {
    var device = try makeBackgroundDevice()
    expectError(.errorAuthorizationDenied) {
      _ = try device.enableBackgroundDelivery(waterApp.bundleID, water, .hourly)
    }
    expectError(.errorInvalidArgument) {
      _ = try device.enableBackgroundDelivery(tracker.bundleID, bloodPressure, .hourly)
    }
    let events = try device.enableBackgroundDelivery(tracker.bundleID, water, .hourly)
    #expect(events == [.backgroundDeliveryChanged(bundleID: tracker.bundleID, type: water, frequency: .hourly)])
    #expect(try device.enableBackgroundDelivery(tracker.bundleID, water, .hourly).isEmpty, "nothing new to journal")
    #expect(device.trackerStatus?.frequency == .hourly)
  }

  @Test func aVisibleChangeWakesTheAppAndTheCompletionHandlerEndsTheDelivery() throws {
    var device = try makeBackgroundDevice()
    _ = try device.enableBackgroundDelivery(tracker.bundleID, water, .immediate)
    #expect(device.waterSaves() == [.woken])
    let waiting = try #require(device.trackerStatus?.waiting)
    #expect(try !device.completeBackgroundDelivery(waterApp.bundleID, id: waiting, wall: t0), "another app's call")
    #expect(try device.completeBackgroundDelivery(tracker.bundleID, id: waiting, wall: t0))
    #expect(try !device.completeBackgroundDelivery(tracker.bundleID, id: waiting, wall: t0), "a second call is late")
    #expect(device.trackerStatus?.waiting == nil)
    #expect(device.trackerStatus?.completed == 1)
    // Two changes while a delivery waits are one later delivery.
    #expect(device.waterSaves() == [.woken])
    #expect(device.waterSaves().isEmpty)
    #expect(device.trackerStatus?.pending == true)
    _ = try device.completeBackgroundDelivery(tracker.bundleID, id: device.trackerStatus!.waiting!, wall: t0)
    #expect(device.backgroundStep(wall: t0).events.map(\.kind) == [.woken])
  }

  @Test func missesAreRetriedWithBackOffAndThreeStopDelivery() throws {
    var device = try makeBackgroundDevice()
    _ = try device.enableBackgroundDelivery(tracker.bundleID, water, .immediate)
    #expect(device.waterSaves() == [.woken])
    #expect(device.advance(29).isEmpty)
    #expect(device.advance(1) == [.missed])
    #expect(device.advance(59).isEmpty)
    #expect(device.advance(1) == [.woken])
    #expect(device.advance(30) == [.missed])
    #expect(device.advance(119).isEmpty, "the second retry waits twice as long")
    #expect(device.advance(1) == [.woken])
    #expect(device.advance(30) == [.missed, .stopped])
    #expect(device.trackerStatus?.stopped == true)
    #expect(device.waterSaves().isEmpty, "stopped")
    _ = try device.enableBackgroundDelivery(tracker.bundleID, water, .immediate)
    #expect(device.trackerStatus?.stopped == false)
    #expect(device.waterSaves() == [.woken])
    let attempts = device.backgroundHistory.filter { $0.kind == .woken }.map(\.attempt)
    #expect(attempts == [1, 2, 3, 1])
  }

  @Test func aLongClockJumpMissesEachAttemptInTurn() throws {
    var device = try makeBackgroundDevice()
    _ = try device.enableBackgroundDelivery(tracker.bundleID, water, .immediate)
    _ = device.waterSaves()
    #expect(device.advance(86_400) == [.missed, .missed, .missed, .stopped], "retries woken and missed in the jump")
    #expect(device.backgroundHistory.map(\.kind) == [.woken, .missed, .woken, .missed, .woken, .missed, .stopped])
  }

  @Test func frequenciesHoldChangesBackOnTheDevicesClock() throws {
    var device = try makeBackgroundDevice()
    _ = try device.enableBackgroundDelivery(tracker.bundleID, water, .daily)
    #expect(device.waterSaves() == [.woken])
    _ = try device.completeBackgroundDelivery(tracker.bundleID, id: device.trackerStatus!.waiting!, wall: t0)
    #expect(device.waterSaves().isEmpty)
    #expect(device.advance(86_399).isEmpty)
    #expect(device.nextBackgroundDue() == t0.addingTimeInterval(86_400), "a day after the first wake")
    #expect(device.advance(1) == [.woken])
  }

  @Test func effectiveFrequenciesFollowApplesLimits() {
    let phone = makeDevice(.phone)
    let watch = makeDevice(.watch)
    #expect(phone.effectiveFrequency(steps, .immediate) == .hourly)
    #expect(phone.effectiveFrequency(water, .immediate) == .immediate)
    #expect(phone.effectiveFrequency(steps, .weekly) == .weekly)
    #expect(watch.effectiveFrequency(water, .immediate) == .hourly)
    #expect(watch.effectiveFrequency(heartRate, .daily) == .daily)
  }

  @Test func theWatchWakesAnAppAtMostFourTimesAnHour() throws {
    var device = makeDevice(.watch, apps: [waterApp, tracker])
    let types = ["dietaryWater", "stepCount", "heartRate", "bodyMass", "mindfulSession"].map {
      SampleType.lookup(name: $0)!
    }
    try device.grant(waterApp.bundleID, share: Set(types), read: Set(types))
    try device.grant(tracker.bundleID, read: Set(types))
    for type in types { _ = try device.enableBackgroundDelivery(tracker.bundleID, type, .immediate) }
    let inputs = types.map { type -> SampleInput in
      type == mindful
        ? mindfulInput(minutes: 1)
        : SampleInput(
          uuid: UUID(), type: type, value: .quantity(1, unit: type.descriptor.canonicalUnit!.description), start: t0,
          end: t0)
    }
    _ = try device.save(waterApp.bundleID, inputs, wall: t0)
    let woken = device.backgroundStep(wall: t0).events.filter { $0.kind == .woken }
    #expect(woken.count == 4)
    for event in woken { #expect(try device.completeBackgroundDelivery(tracker.bundleID, id: event.id, wall: t0)) }
    #expect(device.advance(3599).filter { $0 == .woken }.isEmpty)
    #expect(device.advance(1).filter { $0 == .woken }.count == 1, "the fifth type, an hour after the first wake")
  }

  @Test func onlyChangesTheAppMaySeeWakeIt() throws {
    var device = makeDevice(.phone, apps: [waterApp, tracker])
    try device.grant(waterApp.bundleID, share: [water], read: [water])
    try device.grant(
      tracker.bundleID, share: [water], read: [water], answer: .choices([Permission(water, .share): true]))
    _ = try device.enableBackgroundDelivery(tracker.bundleID, water, .immediate)
    #expect(device.waterSaves().isEmpty, "read denied: Water's sample is invisible to Tracker")
    _ = try device.save(tracker.bundleID, [waterInput(10)], wall: t0)
    #expect(device.backgroundStep(wall: t0).events.map(\.kind) == [.woken], "its own sample")
  }

  @Test func pruningIsAChangeAndReportsWhoCouldSeeThePrunedSamples() throws {
    var device = try makeBackgroundDevice(.watch)
    _ = try device.save(waterApp.bundleID, [waterInput(250)], wall: t0)
    _ = device.backgroundStep(wall: t0)
    _ = try device.enableBackgroundDelivery(tracker.bundleID, water, .immediate)
    _ = try device.advanceClock(by: 8 * 86_400, wall: t0)
    let step = device.backgroundStep(wall: t0)
    #expect(step.pruned.map(\.type) == [water])
    #expect(step.pruned.first?.apps == [tracker.bundleID, waterApp.bundleID].sorted())
    #expect(step.events.map(\.kind) == [.woken])
  }

  @Test func registrationsAreJournaledAndRemovedWithTheApp() throws {
    var device = try makeBackgroundDevice()
    var journal: [DeviceEvent] = []
    journal += try device.enableBackgroundDelivery(tracker.bundleID, water, .hourly)
    journal += try device.enableBackgroundDelivery(tracker.bundleID, steps, .weekly)
    journal += try device.disableBackgroundDelivery(tracker.bundleID, water)
    var replayed = try makeBackgroundDevice()
    for event in journal { replayed.apply(event) }
    #expect(replayed.backgroundRegistrations == device.backgroundRegistrations)
    #expect(device.differences(from: replayed).isEmpty)
    #expect(try device.disableBackgroundDelivery(tracker.bundleID, water).isEmpty, "nothing to disable")
    journal = try device.disableBackgroundDelivery(tracker.bundleID, nil)
    #expect(journal == [.backgroundDeliveryChanged(bundleID: tracker.bundleID, type: nil, frequency: nil)])
    #expect(device.backgroundRegistrations.isEmpty)
    _ = try device.enableBackgroundDelivery(tracker.bundleID, water, .hourly)
    _ = try device.uninstall(tracker.bundleID)
    #expect(device.backgroundRegistrations.isEmpty)
  }

  @Test func replayedChangesAreNotDeliveredAgain() throws {
    var device = try makeBackgroundDevice()
    var journal: [DeviceEvent] = []
    journal += try device.enableBackgroundDelivery(tracker.bundleID, water, .immediate)
    journal += try device.save(waterApp.bundleID, [waterInput(250)], wall: t0)
    var replayed = try makeBackgroundDevice()
    for event in journal { replayed.apply(event) }
    var undiscarded = replayed
    #expect(undiscarded.backgroundStep(wall: t0).events.map(\.kind) == [.woken], "what discarding prevents")
    replayed.discardChanges()
    #expect(replayed.backgroundStep(wall: t0).isEmpty)
  }

  @Test func theModelIsValidatedAsAPolicy() throws {
    var device = makeDevice()
    var policy = device.policy
    policy.background = BackgroundDeliveryModel(responseWindow: 0, retryDelay: 60)
    expectError(.unknownError, kind: .simulator) { _ = try device.setPolicy(policy) }
    policy.background = BackgroundDeliveryModel(responseWindow: .nan, retryDelay: 60)
    expectError(.unknownError, kind: .simulator) { _ = try device.setPolicy(policy) }
    policy.background = BackgroundDeliveryModel(responseWindow: 300, retryDelay: 600)
    _ = try device.setPolicy(policy)
    #expect(device.policy.background.responseWindow == 300)
  }
}
