import Foundation
import HealthKitSim
import HealthPairTesting
import Synchronization
import Testing

@Suite("NSObject behaviour, archiving and the special types (no daemon)")
struct ObjectBehaviourTests {
  @Test func typesAreNSObjectsEqualByIdentifier() {
    let a: HKObjectType = HKQuantityType(.stepCount)
    let b = HKObjectType.quantityType(forIdentifier: .stepCount)!
    #expect(a == b)
    #expect(a.isEqual(b))
    #expect(a.hash == b.hash)
    #expect(!a.isEqual(HKQuantityType(.heartRate)))
    #expect(!a.isEqual("HKQuantityTypeIdentifierStepCount"))
    #expect(a.description == "HKQuantityTypeIdentifierStepCount")
    #expect(a.debugDescription == "HKQuantityType(HKQuantityTypeIdentifierStepCount)")
    // Sets of types, mixing the factories and the initializers, as authorization sets do.
    let set: Set<HKObjectType> = [a, b, HKObjectType.workoutType(), HKObjectType.workoutType()]
    #expect(set.count == 2)
    let nsObject: NSObject = a
    #expect(nsObject.isEqual(HKQuantityType(.stepCount)))
  }

  @Test func unitsQuantitiesAndSourcesBehaveLikeNSObjects() {
    #expect(HKUnit(from: "mL").isEqual(HKUnit.literUnit(with: .milli)))
    #expect(HKUnit(from: "mL").hash == HKUnit.literUnit(with: .milli).hash)
    #expect(HKUnit.count().description == "count")
    let cup = HKQuantity(unit: .literUnit(with: .milli), doubleValue: 250)
    #expect(cup.isEqual(HKQuantity(unit: .liter(), doubleValue: 0.25)), "equal once converted")
    #expect(cup.hash == HKQuantity(unit: .liter(), doubleValue: 0.25).hash)
    #expect(!cup.isEqual(HKQuantity(unit: .count(), doubleValue: 250)), "another dimension is never equal")
    #expect(cup.description == "250 mL")
    let source = HKSource(bundleIdentifier: "com.example.water", name: "Water")
    #expect(source == HKSource(bundleIdentifier: "com.example.water"))
    #expect(source.debugDescription == "HKSource Water (com.example.water)")
    let revision = HKSourceRevision(source: source, version: "1.0")
    #expect(revision.isEqual(HKSourceRevision(source: source, version: "1.0", productType: nil)))
  }

  /// Every object an app creates gets a new random identifier: RFC 4122 version 4, none repeated over many.
  @Test func newObjectsGetRandomVersion4Identifiers() {
    var seen = Set<UUID>()
    for i in 0..<2_000 {
      let date = Date(timeIntervalSinceReferenceDate: Double(i))
      let sample = HKQuantitySample(
        type: HKQuantityType(.dietaryWater), quantity: HKQuantity(unit: .liter(), doubleValue: 1), start: date,
        end: date)
      let bytes = sample.uuid.uuid
      #expect(bytes.6 >> 4 == 4 && bytes.8 >> 6 == 0b10, "\(sample.uuid)")
      seen.insert(sample.uuid)
    }
    #expect(seen.count == 2_000)
  }

  @Test func samplesAreEqualByUUIDAndDescribeThemselves() {
    let sample = water(250, metadata: [HKMetadataKeyWasUserEntered: true])
    #expect(sample.isEqual(sample))
    #expect(!sample.isEqual(water(250)))
    #expect(sample.hash == sample.uuid.hashValue)
    #expect(sample.description.hasPrefix("250 mL \(sample.uuid.uuidString)"))
    #expect(sample.description.contains("2026-01-05 08:00:00 +0000 - 2026-01-05 08:00:00 +0000"))
    #expect(sample.debugDescription.contains("HKWasUserEntered = true"))
  }

  @Test func anAnchorArchivesWithSecureCodingAndIntoUserDefaults() throws {
    let anchor = HKQueryAnchor(fromValue: 42)
    let data = try NSKeyedArchiver.archivedData(withRootObject: anchor, requiringSecureCoding: true)
    let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: data))
    #expect(back == anchor)
    #expect(back.hash == anchor.hash)
    #expect(back.description == "HKQueryAnchor(42)")
    #expect(HKQueryAnchor.supportsSecureCoding)
    let temporary = TemporaryDefaults()
    defer { temporary.remove() }
    let defaults = temporary.defaults
    defaults.set(data, forKey: "anchor")
    let stored = try #require(defaults.data(forKey: "anchor"))
    #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: stored) == anchor)
    // Bytes that are not an archive do not decode (no crash).
    #expect((try? NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: Data([1, 2, 3]))) == nil)
  }

  @Test func theSpecialTypesHaveApplesClassesAndIdentifiers() {
    #expect(HKObjectType.workoutType().identifier == "HKWorkoutTypeIdentifier")
    #expect(HKObjectType.activitySummaryType().identifier == "HKActivitySummaryTypeIdentifier")
    #expect(HKObjectType.electrocardiogramType().identifier == "HKDataTypeIdentifierElectrocardiogram")
    #expect(HKObjectType.audiogramSampleType().identifier == "HKDataTypeIdentifierAudiogram")
    #expect(HKObjectType.visionPrescriptionType().identifier == "HKVisionPrescriptionTypeIdentifier")
    #expect(HKObjectType.visionPrescriptionType().requiresPerObjectAuthorization())
    #expect(!HKObjectType.workoutType().requiresPerObjectAuthorization())
    #expect(HKSeriesType.workoutRoute().identifier == "HKWorkoutRouteTypeIdentifier")
    #expect(HKSeriesType.heartbeat().identifier == "HKDataTypeIdentifierHeartbeatSeries")
    #expect(
      HKObjectType.clinicalType(forIdentifier: .allergyRecord)?.identifier == "HKClinicalTypeIdentifierAllergyRecord")
    #expect(HKObjectType.clinicalType(forIdentifier: HKClinicalTypeIdentifier("HKClinicalTypeIdentifierNope")) == nil)
    #expect(HKObjectType.documentType(forIdentifier: .CDA)?.identifier == "HKDocumentTypeIdentifierCDA")
    #expect(HKObjectType.stateOfMindType().identifier == "HKDataTypeStateOfMind")
    let workout: HKSampleType = HKObjectType.workoutType()
    #expect(workout is HKWorkoutType)
    #expect(!(HKObjectType.activitySummaryType() is HKSampleType), "activity summaries are not samples")
  }

  @Test func predicatesEvaluateOnSamplesAsTheDaemonFiltersThem() {
    let typed = water(250, metadata: [HKMetadataKeyWasUserEntered: true, "cup": "large"])
    let measured = water(500)
    let notTyped = HKQuery.predicateForObjects(
      withMetadataKey: HKMetadataKeyWasUserEntered, operatorType: .notEqualTo, value: true)
    #expect(!notTyped.evaluate(with: typed))
    #expect(notTyped.evaluate(with: measured), "a missing key is nil, and nil != true holds (behavior.md Q9)")
    let heavy = HKQuery.predicateForObjects(withMetadataKey: "cup", operatorType: .greaterThan, value: 1)
    #expect(!heavy.evaluate(with: measured), "nil compares as no other operator")
    #expect(HKQuery.predicateForObjects(withMetadataKey: "cup").evaluate(with: typed))
    #expect(
      HKQuery.predicateForObjects(withMetadataKey: "cup", allowedValues: ["small", "large"]).evaluate(with: typed))
    #expect(!HKQuery.predicateForObjects(withMetadataKey: "cup", allowedValues: ["small"]).evaluate(with: typed))
    #expect(HKQuery.predicateForObject(with: typed.uuid).evaluate(with: typed))
    #expect(!HKQuery.predicateForObjects(with: [typed.uuid]).evaluate(with: measured))
    let atLeastHalfALiter = HKQuery.predicateForQuantitySamples(
      with: .greaterThanOrEqualTo, quantity: HKQuantity(unit: .liter(), doubleValue: 0.5))
    #expect(atLeastHalfALiter.evaluate(with: measured))
    #expect(!atLeastHalfALiter.evaluate(with: typed))
    let either = NSCompoundPredicate(orPredicateWithSubpredicates: [
      HKQuery.predicateForObject(with: typed.uuid), atLeastHalfALiter,
    ])
    #expect(either.evaluate(with: typed) && either.evaluate(with: measured))
    let neither = NSCompoundPredicate(notPredicateWithSubpredicate: either)
    #expect(!neither.evaluate(with: typed))
    let recorded = HKQuantitySample(
      type: waterType, quantity: HKQuantity(unit: .liter(), doubleValue: 1), start: t0, end: t0,
      device: HKDevice(
        name: "Bottle", manufacturer: "Acme", model: "B1", hardwareVersion: nil, firmwareVersion: nil,
        softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil), metadata: nil)
    #expect(recorded.device?.model == "B1")
    #expect(recorded.metadata == nil, "the device's keys are not the app's metadata")
    #expect(
      HKQuery.predicateForObjects(withDeviceProperty: HKDevicePropertyKeyModel, allowedValues: ["B1"]).evaluate(
        with: recorded))
    #expect(
      !HKQuery.predicateForObjects(withDeviceProperty: "nonsense", allowedValues: ["B1"]).evaluate(with: recorded))
    #expect(HKQuery.predicateForObjects(from: [recorded.device!]).evaluate(with: recorded))
    #expect(!HKQuery.predicateForObjects(from: [recorded.device!]).evaluate(with: measured))
  }

  @Test func updateFrequenciesHaveApplesRawValues() {
    #expect(HKUpdateFrequency.immediate.rawValue == 1)
    #expect(HKUpdateFrequency.hourly.rawValue == 2)
    #expect(HKUpdateFrequency.daily.rawValue == 3)
    #expect(HKUpdateFrequency.weekly.rawValue == 4)
  }
}

@Suite("Predicates, source queries, descriptors and special types, against real daemons")
struct PublishedQueryTests {
  @Test func metadataUUIDDeviceAndQuantityPredicatesFilterEveryQueryKind() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      let typed = water(250, at: t0, metadata: [HKMetadataKeyWasUserEntered: true])
      let measured = HKQuantitySample(
        type: waterType, quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: 600),
        start: t0.addingTimeInterval(60), end: t0.addingTimeInterval(60), device: .local(),
        metadata: ["bottle": "steel"])
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        try await store.save([typed, measured])
        let notTyped = HKQuery.predicateForObjects(
          withMetadataKey: HKMetadataKeyWasUserEntered, operatorType: .notEqualTo, value: true)
        let withoutKey = NSCompoundPredicate(
          notPredicateWithSubpredicate: HKQuery.predicateForObjects(
            withMetadataKey: HKMetadataKeyWasUserEntered))
        #expect(try await samples(store, waterType, predicate: notTyped).map(\.uuid) == [measured.uuid])
        #expect(try await samples(store, waterType, predicate: withoutKey).map(\.uuid) == [measured.uuid])
        let mL = HKUnit.literUnit(with: .milli)
        let notTypedSum = try await statistics(store, waterType, predicate: notTyped, options: .cumulativeSum)
        #expect(notTypedSum.sumQuantity()?.doubleValue(for: mL) == 600, "the exclude-manual-entries idiom")
        let sum = try await statistics(store, waterType, predicate: withoutKey, options: .cumulativeSum)
        #expect(sum.sumQuantity()?.doubleValue(for: mL) == 600, "statistics apply the predicate on the daemon")
        let big = HKQuery.predicateForQuantitySamples(
          with: .greaterThan, quantity: HKQuantity(unit: .liter(), doubleValue: 0.3))
        #expect(try await samples(store, waterType, predicate: big, limit: 1).map(\.uuid) == [measured.uuid])
        let local = HKQuery.predicateForObjects(withDeviceProperty: HKDevicePropertyKeyModel, allowedValues: ["iPhone"])
        let found = try await samples(store, waterType, predicate: local)
        #expect(found.map(\.uuid) == [measured.uuid])
        #expect(found.first?.device?.name == "iPhone")
        #expect(found.first?.metadata?["bottle"] as? String == "steel")
        #expect(found.first?.metadata?.count == 1)
        let byUUID = HKQuery.predicateForObjects(with: [typed.uuid])
        let anchored: [HKSample] = try await run(store) { done in
          HKAnchoredObjectQuery(type: waterType, predicate: byUUID, anchor: nil, limit: HKObjectQueryNoLimit) {
            _, added, _, _, error in done(added.map { .success($0) } ?? .failure(error!))
          }
        }
        #expect(anchored.map(\.uuid) == [typed.uuid])
      }
    }
  }

  @Test func aSourceQueryFindsTheAppsTheCallerMaySee() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      try await pair.phone.authorize(otherID, share: [waterType], read: [waterType]) {
        try await $0.choose(share: [waterType])
      }
      try await pair.phone.use(app: waterID) { try await HKHealthStore().save(water(100)) }
      try await pair.phone.use(app: otherID) { try await HKHealthStore().save(water(200)) }
      let store = HKHealthStore()
      let byWater: Set<HKSource> = try await pair.phone.use(app: waterID) {
        try await run(store) { done in
          HKSourceQuery(sampleType: waterType, samplePredicate: nil) { _, sources, error in
            done(sources.map { .success($0) } ?? .failure(error!))
          }
        }
      }
      #expect(Set(byWater.map(\.bundleIdentifier)) == [waterID, otherID])
      let byOther = try await pair.phone.use(app: otherID) {
        try await HKSourceQueryDescriptor(predicate: .quantitySample(type: waterType)).result(for: store)
      }
      #expect(byOther.map(\.bundleIdentifier) == [otherID], "share only: itself")
    }
  }

  @Test func queryDescriptorsRunEveryKindWithoutHandlers() async throws {
    try await withArticlePair { pair in
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      try await pair.phone.use(app: waterID) {
        let store = HKHealthStore()
        try await store.save([water(250, at: t0), water(300, at: t0.addingTimeInterval(3660))])
        let newestFirst = HKSampleQueryDescriptor(
          predicates: [.quantitySample(type: waterType)],
          sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)],
          limit: 1)
        let latest = try await newestFirst.result(for: store)
        #expect(latest.map { $0.quantity.doubleValue(for: .literUnit(with: .milli)) } == [300])
        let total = try await HKStatisticsQueryDescriptor(
          predicate: .quantitySample(type: waterType), options: .cumulativeSum
        ).result(for: store)
        #expect(total?.sumQuantity()?.doubleValue(for: .literUnit(with: .milli)) == 550)
        let none = try await HKStatisticsQueryDescriptor(
          predicate: .quantitySample(
            type: waterType, predicate: HKQuery.predicateForSamples(withStart: t0.addingTimeInterval(-60), end: t0)),
          options: .cumulativeSum
        ).result(for: store)
        #expect(none == nil, "no data is nil, not an error")
        let hourly = try await HKStatisticsCollectionQueryDescriptor(
          predicate: .quantitySample(type: waterType), options: .cumulativeSum, anchorDate: t0,
          intervalComponents: DateComponents(hour: 1)
        ).result(for: store)
        #expect(hourly.statistics().count == 2)
        let first = try await HKAnchoredObjectQueryDescriptor(
          predicates: [.quantitySample(type: waterType)], anchor: nil
        ).result(for: store)
        #expect(first.addedSamples.count == 2)
        var updates = HKAnchoredObjectQueryDescriptor(
          predicates: [.quantitySample(type: waterType)], anchor: first.newAnchor
        ).results(for: store).makeAsyncIterator()
        #expect(try await updates.next()?.addedSamples.isEmpty == true)
        try await store.save(water(100))
        #expect(try await updates.next()?.addedSamples.count == 1)
      }
    }
  }

  @Test func theSpecialTypesAreRequestableAndQueryable() async throws {
    try await withArticlePair { pair in
      let store = HKHealthStore()
      let read: Set<HKObjectType> = [
        HKObjectType.workoutType(), HKObjectType.activitySummaryType(), HKObjectType.electrocardiogramType(),
        HKObjectType.audiogramSampleType(), HKSeriesType.workoutRoute(),
      ]
      try await pair.phone.authorize(waterID, share: [HKObjectType.workoutType()], read: read)
      try await pair.phone.use(app: waterID) {
        #expect(store.authorizationStatus(for: HKObjectType.workoutType()) == .sharingAuthorized)
        let workouts = try await samples(store, HKObjectType.workoutType())
        #expect(workouts.isEmpty, "HealthPair stores no workouts")
        // Sharing a read-only type would terminate the app; so would reading clinical records without the
        // entitlement, and reading vision prescriptions through requestAuthorization.
        await #expect(throws: HKSimulatedTermination.self) {
          try await store.requestAuthorization(toShare: [HKObjectType.electrocardiogramType()], read: [])
        }
        await #expect(throws: HKSimulatedTermination.self) {
          try await store.requestAuthorization(
            toShare: [], read: [HKObjectType.clinicalType(forIdentifier: .labResultRecord)!])
        }
        await #expect(throws: HKSimulatedTermination.self) {
          try await store.requestAuthorization(toShare: [], read: [HKObjectType.visionPrescriptionType()])
        }
      }
      #expect(try pair.phone.decision(app: waterID, read: HKObjectType.activitySummaryType()) == .authorized)
    }
  }
}

@Suite("Background delivery on the real clock, against real daemons")
struct RealClockBackgroundDeliveryTests {
  @Test func withoutAVirtualClockTheDaemonTimesMissesAndRetriesItself() async throws {
    try await withHealthPair { pair in
      try pair.phone.install(
        app: waterID, writeUsage: "Logs water.", readUsage: "Reads water.", entitlements: [.backgroundDelivery])
      try pair.phone.setBackgroundDeliveryModel(responseWindow: 0.2, retryDelay: 0.2)
      try await pair.phone.authorize(waterID, share: [waterType], read: [waterType])
      try await pair.phone.use(app: waterID) {
        try await HKHealthStore().enableBackgroundDelivery(for: waterType, frequency: .immediate)
        try await HKHealthStore().save(water(250, at: Date()))
      }
      // Nobody answers: the daemon's own timer misses the delivery, retries twice with back-off, and stops.
      try await pair.phone.waitForBackgroundDelivery(app: waterID, of: waterType, .stopped, timeout: 30)
      #expect(
        try pair.phone.backgroundDeliveryHistory(app: waterID).map(\.kind)
          == [.woken, .missed, .woken, .missed, .woken, .missed, .stopped])
    }
  }
}
