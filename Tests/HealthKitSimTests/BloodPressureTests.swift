import Foundation
import HealthKitSim
import HealthPairTesting
import PublishedStyles
import Testing

/// Blood pressure the way published apps write and read it (Sources/Examples/PublishedStyles/BloodPressureLog.swift,
/// which imports `HealthKit`), against a real pair: behavior.md T8–T13.
@Suite("Published-style blood pressure (HKCorrelation), against real daemons")
struct BloodPressureTests {
  static let cuffID = "com.example.cuff"
  static let parts: Set<HKSampleType> = [
    HKQuantityType(.bloodPressureSystolic), HKQuantityType(.bloodPressureDiastolic),
  ]

  @Test func aReadingIsSavedAsOneCorrelationReadBackDeletedAndSyncedToTheWatch() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      for device in [pair.phone, pair.watch] {
        try device.install(app: Self.cuffID, name: "Cuff", writeUsage: "Saves readings.", readUsage: "Shows them.")
      }
      try await pair.watch.authorize(Self.cuffID, share: Self.parts, read: Set(Self.parts.map { $0 as HKObjectType }))
      try await pair.phone.use(app: Self.cuffID) {
        let log = BloodPressureLog()
        let asked = Mailbox<Bool>()
        log.requestAuthorization { success, _ in asked.post(success) }
        try await pair.phone.user.allowAll()
        #expect(try await asked.next())
        let first = try await log.save(systolic: 121, diastolic: 79, date: t0 - 3_600)
        let second = try await log.save(systolic: 150, diastolic: 95, date: t0 - 60)
        let readings = Mailbox<[BloodPressureReading]>()
        log.readings(since: t0 - 86_400) { found, _ in readings.post(found ?? []) }
        #expect(
          try await readings.next() == [
            BloodPressureReading(id: second, systolic: 150, diastolic: 95, date: t0 - 60),
            BloodPressureReading(id: first, systolic: 121, diastolic: 79, date: t0 - 3_600),
          ])
        let high = Mailbox<[UUID]>()
        log.highReadings(threshold: 140) { found, _ in high.post(found ?? []) }
        #expect(try await high.next() == [second])
        // The parts are samples of their own types too.
        let systolic = try await HKSampleQueryDescriptor(
          predicates: [.quantitySample(type: HKQuantityType(.bloodPressureSystolic))], sortDescriptors: []
        ).result(for: HKHealthStore())
        #expect(systolic.count == 2)
        let both = try await HKSampleQueryDescriptor(
          predicates: [.correlation(type: HKCorrelationType(.bloodPressure))],
          sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)]
        ).result(for: HKHealthStore())
        #expect(both.map(\.uuid) == [second, first])
        #expect(both.allSatisfy { $0.objects.count == 2 })
        let deleted = Mailbox<Bool>()
        log.delete(first) { success, _ in deleted.post(success) }
        #expect(try await deleted.next())
        log.readings(since: t0 - 86_400) { found, _ in readings.post(found ?? []) }
        #expect(try await readings.next().map(\.id) == [second])
      }
      try await pair.waitForSync()
      let onWatch = Mailbox<[BloodPressureReading]>()
      pair.watch.use(app: Self.cuffID) {
        BloodPressureLog().readings(since: t0 - 86_400) { found, _ in onWatch.post(found ?? []) }
      }
      #expect(try await onWatch.next().map(\.systolic) == [150], "the deletion reached the watch too")
    }
  }

  /// `predicateForObjectsWithNoCorrelation()` leaves a correlation's members out of sample and statistics queries of
  /// their types (behavior.md T11); its negation keeps only them; once the correlation is deleted its samples stand
  /// alone (T12) and match.
  @Test func theNoCorrelationPredicateLeavesOutACorrelationsMembers() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try pair.phone.install(app: Self.cuffID, name: "Cuff", writeUsage: "Saves readings.", readUsage: "Shows them.")
      try await pair.phone.authorize(Self.cuffID, share: Self.parts, read: Set(Self.parts.map { $0 as HKObjectType }))
      try await pair.phone.use(app: Self.cuffID) {
        let store = HKHealthStore()
        let systolicType = HKQuantityType(.bloodPressureSystolic)
        func systolic(_ value: Double, _ date: Date) -> HKQuantitySample {
          HKQuantitySample(
            type: systolicType, quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: value), start: date,
            end: date)
        }
        let reading = HKCorrelation(
          type: HKCorrelationType(.bloodPressure), start: t0 - 600, end: t0 - 600,
          objects: [
            systolic(121, t0 - 600),
            HKQuantitySample(
              type: HKQuantityType(.bloodPressureDiastolic),
              quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 79), start: t0 - 600, end: t0 - 600),
          ])
        try await store.save(reading)
        try await store.save(systolic(150, t0 - 60))
        let alone = HKQuery.predicateForObjectsWithNoCorrelation()
        func values(_ predicate: NSPredicate?) async throws -> [Double] {
          try await HKSampleQueryDescriptor(
            predicates: [.quantitySample(type: systolicType, predicate: predicate)],
            sortDescriptors: [SortDescriptor(\.startDate)]
          ).result(for: store).map { $0.quantity.doubleValue(for: .millimeterOfMercury()) }
        }
        #expect(try await values(nil) == [121, 150])
        #expect(try await values(alone) == [150])
        #expect(try await values(NSCompoundPredicate(notPredicateWithSubpredicate: alone)) == [121])
        let average = try await statistics(store, systolicType, predicate: alone, options: .discreteAverage)
        #expect(average.averageQuantity()?.doubleValue(for: .millimeterOfMercury()) == 150)
        try await store.delete(reading)
        #expect(try await values(alone) == [121, 150], "a deleted correlation's samples stand alone")
      }
    }
  }

  @Test func aCorrelationThatDoesNotFitItsTypeFailsTheSave() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try pair.phone.install(app: Self.cuffID, name: "Cuff", writeUsage: "Saves readings.", readUsage: "Shows them.")
      try await pair.phone.authorize(Self.cuffID, share: Self.parts, read: Set(Self.parts.map { $0 as HKObjectType }))
      try await pair.phone.use(app: Self.cuffID) {
        let systolic = HKQuantitySample(
          type: HKQuantityType(.bloodPressureSystolic),
          quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 120),
          start: t0, end: t0)
        let lonely = HKCorrelation(type: HKCorrelationType(.bloodPressure), start: t0, end: t0, objects: [systolic])
        await #expect(throws: HKError.self) { try await HKHealthStore().save(lonely) }
        #expect(lonely.objects(for: HKQuantityType(.bloodPressureSystolic)).count == 1)
        #expect(lonely.correlationType == HKCorrelationType(.bloodPressure))
      }
      #expect(try pair.phone.sampleCount() == 0)
    }
  }
}
