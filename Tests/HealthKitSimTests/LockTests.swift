import Foundation
import HealthKitSim
import HealthPairTesting
import Synchronization
import Testing

let bodyMassType = HKQuantityType(.bodyMass)
let sexType = HKCharacteristicType(.biologicalSex)
let birthType = HKCharacteristicType(.dateOfBirth)
let bloodTypeType = HKCharacteristicType(.bloodType)
let skinType = HKCharacteristicType(.fitzpatrickSkinType)
let wheelchairType = HKCharacteristicType(.wheelchairUse)
let moveModeType = HKCharacteristicType(.activityMoveMode)

/// Runs `body` and expects it to throw an `HKError` with `code`.
func expectHKError(
  _ code: HKError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
  do {
    try body()
    Issue.record("expected HKError \(code)", sourceLocation: sourceLocation)
  } catch {
    #expect(isHKError(error, code), "\(error)", sourceLocation: sourceLocation)
  }
}

/// Awaits `body` and expects it to throw an `HKError` with `code`.
func expectHKError(
  _ code: HKError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
  do {
    try await body()
    Issue.record("expected HKError \(code)", sourceLocation: sourceLocation)
  } catch {
    #expect(isHKError(error, code), "\(error)", sourceLocation: sourceLocation)
  }
}

extension HealthPair {
  /// The phone or the watch.
  func device(_ kind: HealthDeviceKind) -> HealthDevice { kind == .phone ? phone : watch }
}

@Suite("The device lock through HealthKitSim (behavior.md L1–L6)")
struct LockTests {
  @Test(arguments: HealthDeviceKind.allCases)
  func queriesFailWithCode6AndSavesWaitForTheUnlock(_ kind: HealthDeviceKind) async throws {
    try await withArticlePair { pair in
      let device = pair.device(kind)
      try await device.authorize(waterID, share: [waterType], read: [waterType])
      let store = HKHealthStore()
      let kept = water(100)
      try await device.use(app: waterID) { try await store.save(kept) }
      try device.lock()
      #expect(try device.isLocked())
      let early = water(250, at: t0.addingTimeInterval(60))
      try await device.use(app: waterID) {
        await expectHKError(.errorDatabaseInaccessible) { _ = try await samples(store, waterType) }
        await expectHKError(.errorDatabaseInaccessible) { try await store.delete(kept) }
        // Authorization records stay readable.
        #expect(store.authorizationStatus(for: waterType) == .sharingAuthorized)
        try await store.save(early)
      }
      #expect(try device.sampleCount(of: waterType) == 1, "the save waits in the locked journal")
      try device.unlock()
      let seen = try await device.use(app: waterID) { try await samples(store, waterType) }
      #expect(Set(seen.map(\.uuid)) == [kept.uuid, early.uuid])
      try await pair.waitForSync()
      #expect(try pair.device(kind == .phone ? .watch : .phone).storedSamples(of: waterType).count == 2)
    }
  }

  @Test(arguments: HealthDeviceKind.allCases)
  func anObserverHoldsItsDeliveriesUntilTheUnlock(_ kind: HealthDeviceKind) async throws {
    try await withArticlePair { pair in
      let device = pair.device(kind)
      let other = pair.device(kind == .phone ? .watch : .phone)
      try await device.authorize(dashboardID, read: [waterType])
      try await other.authorize(waterID, share: [waterType])
      let fired = Mailbox<Bool>()
      let store = HKHealthStore()
      let query = HKObserverQuery(sampleType: waterType, predicate: nil) { _, completion, error in
        fired.post(error == nil)
        completion()
      }
      device.use(app: dashboardID) { store.execute(query) }
      defer { store.stop(query) }
      #expect(try await fired.next() == true, "once at start")
      try device.lock()
      // A change arrives by sync while the device is locked: nothing is delivered (an error would be the next
      // item), and the sample is in the store already.
      try await other.use(app: waterID) { try await store.save(water(330)) }
      try await pair.waitForSync()
      #expect(try device.sampleCount(of: waterType) == 1)
      try device.unlock()
      #expect(try await fired.next() == true, "one delivery at the unlock")
      #expect(try await device.use(app: dashboardID) { try await samples(store, waterType) }.count == 1)
    }
  }

  @Test func anObserverStartedWhileLockedGetsItsFirstCallAtTheUnlock() async throws {
    try await withArticlePair { pair in
      try await pair.watch.authorize(waterID, share: [waterType], read: [waterType])
      try pair.watch.lock()
      let fired = Mailbox<Bool>()
      let store = HKHealthStore()
      let query = HKObserverQuery(sampleType: waterType, predicate: nil) { _, _, error in fired.post(error == nil) }
      pair.watch.use(app: waterID) { store.execute(query) }
      defer { store.stop(query) }
      // Nothing is delivered while locked (an error would be the first item); an anchored query's first result, by
      // contrast, fails.
      let anchored = Mailbox<Bool>()
      pair.watch.use(app: waterID) {
        store.execute(
          HKAnchoredObjectQuery(type: waterType, predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) {
            _, _, _, _, error in anchored.post(error.map { isHKError($0, .errorDatabaseInaccessible) } ?? false)
          })
      }
      #expect(try await anchored.next() == true)
      try pair.watch.unlock()
      #expect(try await fired.next() == true)
      #expect(fired.all == [true])
    }
  }

  @Test func aSheetUpWhenTheDeviceLocksIsDismissed() async throws {
    try await withArticlePair { pair in
      try await pair.phone.use(app: waterID) {
        async let asked: Void = HKHealthStore().requestAuthorization(toShare: [waterType], read: [waterType])
        try await pair.phone.user.waitForSheet()
        try pair.phone.lock()
        do {
          try await asked
          Issue.record("the request should fail when the device locks")
        } catch {
          #expect(isHKError(error, .errorAuthorizationNotDetermined), "\(error)")
        }
      }
      #expect(try pair.phone.decision(app: waterID, share: waterType) == .notDetermined)
      #expect(try pair.phone.sheets().last?.outcome == .dismissed)
    }
  }
}

@Suite("Characteristics and preferred units through HealthKitSim (behavior.md C1–C5, R6)")
struct CharacteristicTests {
  @Test(arguments: HealthDeviceKind.allCases)
  func healthDetailsEnteredOnThePhoneAreReadOnBothDevices(_ kind: HealthDeviceKind) async throws {
    try await withArticlePair { pair in
      let health = pair.phone.healthApp
      try health.setDateOfBirth(year: 1990, month: 4, day: 2)
      try health.setBiologicalSex(.female)
      try health.setBloodType(.oNegative)
      try health.setFitzpatrickSkinType(.IV)
      try health.setWheelchairUse(.no)
      try health.setActivityMoveMode(.appleMoveTime)
      try await pair.waitForSync()
      let device = pair.device(kind)
      try await device.authorize(
        dashboardID, read: [birthType, sexType, bloodTypeType, skinType, wheelchairType, moveModeType])
      try device.use(app: dashboardID) {
        let store = HKHealthStore()
        let birth = try store.dateOfBirthComponents()
        #expect(birth.year == 1990 && birth.month == 4 && birth.day == 2)
        #expect(birth.calendar?.identifier == .gregorian)
        #expect(try store.biologicalSex().biologicalSex == .female)
        #expect(try store.bloodType().bloodType == .oNegative)
        #expect(try store.fitzpatrickSkinType().skinType == .IV)
        #expect(try store.wheelchairUse().wheelchairUse == .no)
        #expect(try store.activityMoveMode().activityMoveMode == .appleMoveTime)
      }
    }
  }

  @Test func neverDecidedFailsDeniedReadsAsNotSetAndAnUnsetDateThrowsANilResult() async throws {
    try await withArticlePair { pair in
      try pair.phone.healthApp.setBiologicalSex(.male)
      let store = HKHealthStore()
      pair.phone.use(app: dashboardID) {
        expectHKError(.errorAuthorizationNotDetermined) { _ = try store.biologicalSex() }
      }
      try await pair.phone.authorize(dashboardID, read: [sexType, birthType]) { try await $0.dontAllow() }
      try pair.phone.use(app: dashboardID) { () throws in
        #expect(try store.biologicalSex().biologicalSex == .notSet, "denied reads as not set")
        #expect(throws: HKNilResultError.self) { try store.dateOfBirthComponents() }
      }
      try pair.phone.settings.grant(read: birthType, of: dashboardID)
      pair.phone.use(app: dashboardID) {
        #expect(throws: HKNilResultError.self) { try store.dateOfBirthComponents() }
      }
      try pair.phone.lock()
      pair.phone.use(app: dashboardID) {
        expectHKError(.errorDatabaseInaccessible) { _ = try store.biologicalSex() }
      }
    }
  }

  @Test func characteristicTypesCannotBeShared() async throws {
    try await withArticlePair { pair in
      #expect(HKObjectType.characteristicType(forIdentifier: .bloodType) == bloodTypeType)
      #expect(HKObjectType.characteristicType(forIdentifier: HKCharacteristicTypeIdentifier("nope")) == nil)
      try await pair.phone.authorize(dashboardID, read: [bloodTypeType])
      let status = pair.phone.use(app: dashboardID) { HKHealthStore().authorizationStatus(for: bloodTypeType) }
      #expect(status == .sharingDenied)
    }
  }

  @Test(arguments: HealthDeviceKind.allCases)
  func preferredUnitsAsyncAndWithACompletion(_ kind: HealthDeviceKind) async throws {
    try await withArticlePair { pair in
      let device = pair.device(kind)
      let store = HKHealthStore()
      await device.use(app: waterID) {
        await expectHKError(.errorAuthorizationNotDetermined) { _ = try await store.preferredUnits(for: [waterType]) }
      }
      try await device.authorize(waterID, share: [waterType, bodyMassType])
      let units = try await device.use(app: waterID) { try await store.preferredUnits(for: [waterType, bodyMassType]) }
      #expect(units[waterType] == HKUnit(from: "fl_oz_us") && units[bodyMassType] == .pound())
      try pair.phone.healthApp.setPreferredUnit(.gramUnit(with: .kilo), for: bodyMassType)
      try await pair.waitForSync()
      try device.setUnitLocale(.metric)
      let box = Mailbox<[HKQuantityType: HKUnit]>()
      device.use(app: waterID) {
        store.preferredUnits(for: [waterType, bodyMassType]) { units, error in
          #expect(error == nil)
          box.post(units)
        }
      }
      let after = try await box.next()
      #expect(after[bodyMassType] == .gramUnit(with: .kilo) && after[waterType] == .literUnit(with: .milli))
      try device.lock()
      let failed = Mailbox<(Int, Bool)>()
      device.use(app: waterID) {
        store.preferredUnits(for: [waterType]) { units, error in
          failed.post((units.count, error.map { isHKError($0, .errorDatabaseInaccessible) } ?? false))
        }
      }
      let (count, inaccessible) = try await failed.next()
      #expect(count == 0 && inaccessible)
    }
  }
}
