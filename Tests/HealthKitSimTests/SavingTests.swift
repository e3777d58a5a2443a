import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

@Suite("Saving and deleting, against real daemons")
struct SavingTests {
  @Test func savingNeedsAskedAndGrantedSharePermission() async throws {
    try await withArticlePair { pair in
      let store = HKHealthStore()
      await pair.phone.use(app: waterID) {
        await #expect { try await store.save(water(250)) } throws: { isHKError($0, .errorAuthorizationNotDetermined) }
      }
      try await pair.phone.authorize(waterID, share: [waterType]) { try await $0.dontAllow() }
      await pair.phone.use(app: waterID) {
        await #expect { try await store.save(water(250)) } throws: { isHKError($0, .errorAuthorizationDenied) }
      }
      #expect(try pair.phone.storedSamples().isEmpty)
    }
  }

  @Test func aSavedSampleIsStoredInTheCanonicalUnitWithItsMetadataAndSource() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      let sample = HKQuantitySample(
        type: waterType, quantity: HKQuantity(unit: .fluidOunceUS(), doubleValue: 8), start: t0, end: t0,
        metadata: [HKMetadataKeyWasUserEntered: true])
      try await pair.phone.use(app: waterID) { try await HKHealthStore().save(sample) }
      let stored = try #require(try pair.phone.storedSamples(of: waterType).first as? HKQuantitySample)
      #expect(stored.uuid == sample.uuid)
      #expect(stored.quantity.description == "236.5882365 mL")
      #expect(stored.metadata?[HKMetadataKeyWasUserEntered] as? Bool == true)
      #expect(stored.sourceRevision.source.bundleIdentifier == waterID)
      #expect(stored.sourceRevision.productType == "iPhone")
      await pair.phone.use(app: waterID) {
        // The same object twice is refused.
        await #expect { try await HKHealthStore().save(sample) } throws: { isHKError($0, .errorInvalidArgument) }
      }
    }
  }

  @Test func invalidObjectsFailTheSaveAsSimulatedTerminations() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType])
      try await pair.phone.authorize(returnID, share: [mindfulType])
      let store = HKHealthStore()
      func reason(_ object: HKObject, as app: String) async -> String? {
        await pair.phone.use(app: app) {
          do {
            try await store.save(object)
            return nil
          } catch {
            return (error as? HKSimulatedTermination)?.reason ?? "not a termination: \(error)"
          }
        }
      }
      let kcal = HKQuantitySample(
        type: waterType, quantity: HKQuantity(unit: .kilocalorie(), doubleValue: 1), start: t0, end: t0)
      #expect(await reason(kcal, as: waterID)?.contains("incompatible unit") == true)
      let backwards = HKCategorySample(type: mindfulType, value: 0, start: t0, end: t0.addingTimeInterval(-60))
      #expect(await reason(backwards, as: returnID)?.contains("must be equal to or earlier than") == true)
      let nonzero = HKCategorySample(type: mindfulType, value: 3, start: t0, end: t0.addingTimeInterval(60))
      #expect(
        await reason(nonzero, as: returnID)
          == "Value 3 is not compatible with type HKCategoryTypeIdentifierMindfulSession")
      struct Opaque {}
      let badMetadata = water(1, metadata: ["thing": Opaque()])
      #expect(await reason(badMetadata, as: waterID)?.hasPrefix("Invalid class Opaque for metadata key: thing") == true)
      #expect(try pair.phone.storedSamples().isEmpty, "nothing was saved")
    }
  }

  @Test func aBatchIsAllOrNothing() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType])
      await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let ok = water(100)
        await #expect { try await store.save([ok, session(minutes: 5)]) } throws: {
          isHKError($0, .errorAuthorizationNotDetermined)
        }
        await #expect { try await store.save([HKObject]()) } throws: { isHKError($0, .errorInvalidArgument) }
      }
      #expect(try pair.phone.storedSamples().isEmpty)
    }
  }

  @Test func aBatchWithAWorkoutIsAllOrNothing() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType])
      await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        let workout = HKWorkout(activityType: .running, start: t0 - 1_800, end: t0)
        await #expect { try await store.save([water(100), workout]) } throws: {
          isHKError($0, .errorAuthorizationNotDetermined)
        }
      }
      #expect(try pair.phone.storedSamples().isEmpty)
    }
  }

  @Test func deletingOwnSamplesOnlyWithTheCompletionForms() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType])
      try await pair.phone.authorize(otherID, share: [waterType])
      let mine = water(250)
      let theirs = water(500)
      let store = HKHealthStore()
      let done = Mailbox<String>()
      pair.phone.use(app: waterID) { store.save(mine) { ok, error in done.post("saved \(ok) \(error == nil)") } }
      #expect(try await done.next() == "saved true true")
      pair.phone.use(app: otherID) { store.save([theirs]) { ok, error in done.post("saved \(ok) \(error == nil)") } }
      #expect(try await done.next() == "saved true true")
      pair.phone.use(app: waterID) {
        store.delete(theirs) { ok, error in done.post("delete theirs \(ok) \((error as? HKError)?.code.rawValue ?? -1)")
        }
      }
      #expect(try await done.next() == "delete theirs false 3", "not found among its own objects (D6)")
      pair.phone.use(app: waterID) {
        store.delete([mine]) { ok, error in done.post("delete mine \(ok) \(error == nil)") }
      }
      #expect(try await done.next() == "delete mine true true")
      #expect(try pair.phone.storedSamples().map(\.uuid) == [theirs.uuid])
      await pair.phone.use(app: waterID) {
        await #expect { try await store.delete(mine) } throws: { isHKError($0, .errorInvalidArgument) }
      }
    }
  }

  @Test func theWatchKeepsOnlyItsRetentionWindow() async throws {
    try await withArticlePair { pair in
      try await pair.watch.authorize(returnID, share: [mindfulType])
      let store = HKHealthStore()
      try await pair.watch.use(app: returnID) {
        let earliest = store.earliestPermittedSampleDate()
        #expect(earliest == t0.addingTimeInterval(-7 * 86_400))
        await #expect { try await store.save(session(minutes: 10, at: earliest.addingTimeInterval(-3600))) } throws: {
          isHKError($0, .errorInvalidArgument)
        }
        try await store.save(session(minutes: 10, at: earliest.addingTimeInterval(3600)))
      }
      pair.phone.use(app: returnID) { #expect(store.earliestPermittedSampleDate() == .distantPast) }
    }
  }
}

@Suite("deleteObjects(of:predicate:) against real daemons")
struct DeleteObjectsTests {
  @Test func deletesOnlyTheAppsOwnMatchingObjectsAndCountsThem() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType])
      try await pair.phone.authorize(otherID, share: [waterType])
      let store = HKHealthStore()
      let early = water(250, at: t0)
      let late = water(300, at: t0.addingTimeInterval(6 * 3600))
      let theirs = water(500, at: t0)
      try await pair.phone.use(app: waterID) { try await store.save([early, late]) }
      try await pair.phone.use(app: otherID) { try await store.save(theirs) }
      let morning = HKQuery.predicateForSamples(withStart: t0.addingTimeInterval(-60), end: t0.addingTimeInterval(3600))
      let deleted = try await pair.phone.use(app: waterID) {
        try await store.deleteObjects(of: waterType, predicate: morning)
      }
      #expect(deleted == 1)
      #expect(Set(try pair.phone.storedSamples().map(\.uuid)) == [late.uuid, theirs.uuid])
      let done = Mailbox<String>()
      pair.phone.use(app: waterID) {
        store.deleteObjects(of: waterType, predicate: morning) { ok, count, error in
          done.post("\(ok) \(count) \(error == nil)")
        }
      }
      #expect(try await done.next() == "true 0 true", "matching nothing succeeds with 0")
    }
  }
}
