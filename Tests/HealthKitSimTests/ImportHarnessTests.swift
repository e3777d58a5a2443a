import Foundation
import HealthKitSim
import HealthPairTesting
import TestSupport
import Testing

private let fixture = Repository.exportFixtures + "/export.zip"

@Suite("HealthPairTesting: Apple Health exports")
struct ImportHarnessTests {
  @Test func anAppReadsTheImportedHistoryWithItsSources() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      let report = try pair.phone.importHealthExport(at: fixture, sources: ["Drink & Track": waterID])
      #expect(report.added == 21 && report.records == 20, "19 samples, the audiogram and the prescription")
      #expect(report.visionPrescriptions == 1)
      #expect(report.audiograms == 1 && report.skipped["Audiogram"] == nil)
      #expect(report.skipped["Workout"] == nil && report.skipped["Record HKDataTypeSleepDurationGoal"] == 1)
      #expect(report.workouts == 1 && report.routes == 1 && report.activitySummaries == 1)
      #expect(report.skipped["FileReference"] == 1, "the fixture holds no workout-routes/ folder")
      #expect(report.sources.first?.name == "Robin’s Apple Watch" && report.sources.first?.isApple == true)
      #expect(report.sources.first { $0.name == "Drink & Track" }?.bundleIdentifier == waterID)
      try pair.phone.install(app: waterID, writeUsage: "Water logs what you drink.", readUsage: "Water shows totals.")
      try await pair.phone.use(app: waterID) {
        async let asked: Void = HKHealthStore().requestAuthorization(toShare: [waterType], read: [waterType])
        try await pair.phone.user.allowAll()
        try await asked
        let found = try await samples(HKHealthStore(), waterType)
        #expect(found.count == 2)
        #expect(found.allSatisfy { $0.sourceRevision.source.bundleIdentifier == waterID })
        #expect(found.allSatisfy { $0.sourceRevision.source.name == "Drink & Track" })
        #expect(found.allSatisfy { $0.sourceRevision.version == "4.2.0" })
      }
      #expect(report.characteristicsSet == 4, "Me: date of birth, sex, blood type, skin type")
      let heartRateType = HKQuantityType(.heartRate)
      let bloodType = HKCharacteristicType(.bloodType)
      try pair.phone.install(app: "com.example.pulse", readUsage: "Pulse shows your heart rate.")
      try await pair.phone.use(app: "com.example.pulse") {
        let store = HKHealthStore()
        async let asked: Void = store.requestAuthorization(toShare: [], read: [heartRateType, bloodType])
        try await pair.phone.user.allowAll()
        try await asked
        #expect(try store.bloodType().bloodType == .oNegative)
        let beats = try await samples(store, heartRateType)
        let watch = try #require(beats.first { $0.sourceRevision.source.name == "Robin’s Apple Watch" })
        // The export's device description is the sample's HKDevice, and device predicates find it.
        #expect(watch.device?.name == "Apple Watch" && watch.device?.manufacturer == "Apple Inc.")
        #expect(watch.device?.hardwareVersion == "Watch7,1" && watch.device?.softwareVersion == "11.2")
        #expect(watch.sourceRevision.productType == "Watch7,1")
        let os = watch.sourceRevision.operatingSystemVersion
        #expect((os.majorVersion, os.minorVersion, os.patchVersion) == (11, 2, 0), "the export's software version")
        let byHardware = HKQuery.predicateForObjects(
          withDeviceProperty: HKDevicePropertyKeyHardwareVersion, allowedValues: ["Watch7,1"])
        let found = try await samples(store, heartRateType, predicate: byHardware)
        #expect(!found.isEmpty && found.allSatisfy { $0.sourceRevision.source.name == "Robin’s Apple Watch" })
        #expect(found.allSatisfy { byHardware.evaluate(with: $0) })
      }
      try await pair.waitForSync()
      #expect(try pair.watch.sampleCount() == 13, "the watch keeps the last 7 days")
      // Importing again adds nothing; a missing file is a located error and changes nothing.
      #expect(try pair.phone.importHealthExport(at: fixture).alreadyPresent == 21)
      #expect(throws: HealthPairTestingError.self) { try pair.phone.importHealthExport(at: fixture + ".missing") }
      #expect(try pair.phone.sampleCount() == 19)
    }
  }
}
