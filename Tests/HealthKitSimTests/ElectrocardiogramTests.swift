import Foundation
import HealthKitSim
import HealthPairTesting
import PublishedStyles
import Testing

/// Electrocardiograms the way published readers use them (Sources/Examples/PublishedStyles/ECGReader.swift, which
/// imports `HealthKit`), against a real pair: recorded on the watch by the world, synced, read-only to apps
/// (behavior.md G1–G5).
@Suite("Electrocardiograms, against real daemons")
struct ElectrocardiogramTests {
  static let app = "com.example.rhythm"
  static let ecgType = HKObjectType.electrocardiogramType()

  static func install(_ pair: HealthPair) throws {
    for device in [pair.phone, pair.watch] {
      try device.install(app: app, name: "Rhythm", readUsage: "Shows your ECGs.")
    }
  }

  static func read(_ device: HealthDevice, classification: HKElectrocardiogram.Classification? = nil) async throws
    -> [ECGReading]
  {
    let found = Mailbox<Result<[ECGReading], any Error>>()
    device.use(app: app) {
      ECGReader().readings(from: t0 - 86_400, to: t0 + 86_400, classification: classification) { readings, error in
        found.post(readings.map { .success($0) } ?? .failure(error!))
      }
    }
    return try await found.next().get()
  }

  @Test func aRecordingOnTheWatchReachesThePhoneWithEveryVoltage() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try Self.install(pair)
      let id = try pair.watch.recordElectrocardiogram(.atrialFibrillation, symptoms: .present, start: t0 - 120)
      try await pair.phone.authorize(Self.app, read: [Self.ecgType])
      try await pair.waitForSync()
      let readings = try await Self.read(pair.phone)
      #expect(readings.count == 1)
      let reading = try #require(readings.first)
      #expect(reading.id == id)
      #expect(reading.classification == HKElectrocardiogram.Classification.atrialFibrillation.rawValue)
      #expect(reading.averageHeartRate == 96)
      #expect(reading.samplingFrequency == 512)
      #expect(reading.measurementCount == 15_360)
      #expect(reading.source == "com.apple.NanoHeartRhythm")
      #expect(reading.voltages.count == 15_360)
      #expect(reading.times.last == 15_359.0 / 512)
      // The voltages the phone reads are the ones the watch recorded (volts; stored in microvolts).
      let onWatch = try #require(try pair.watch.storedElectrocardiograms().first)
      #expect(onWatch.uuid == id && onWatch.symptomsStatus == .present)
      #expect(reading.voltages.contains { abs($0) > 0.0005 }, "R peaks of hundreds of microvolts")
      #expect(reading.voltages.allSatisfy { abs($0) < 0.005 })
    }
  }

  @Test func onlyTheWatchRecordsAndAppsCannotShareTheType() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try Self.install(pair)
      #expect(throws: HealthPairTestingError.self) { try pair.phone.recordElectrocardiogram(.sinusRhythm) }
      try pair.watch.lock()
      #expect(throws: HealthPairTestingError.self) { try pair.watch.recordElectrocardiogram(.sinusRhythm) }
      try pair.watch.unlock()
      try pair.watch.recordElectrocardiogram(.sinusRhythm)
      #expect(try pair.watch.storedElectrocardiograms().count == 1)
    }
  }

  @Test func aDeniedReadSeesNoRecordingAndANeverAskedReadFails() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try Self.install(pair)
      try pair.watch.recordElectrocardiogram(.sinusRhythm, start: t0 - 60)
      await #expect(throws: HKError.self) { _ = try await Self.read(pair.watch) }
      try await pair.watch.authorize(Self.app, read: [Self.ecgType]) { try await $0.dontAllow() }
      #expect(try await Self.read(pair.watch).isEmpty)
    }
  }

  @Test func aReadRevokedAfterTheQueryGivesNoVoltages() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try Self.install(pair)
      try pair.watch.recordElectrocardiogram(.inconclusiveHighHeartRate, start: t0 - 60)
      try await pair.watch.authorize(Self.app, read: [Self.ecgType])
      let ecg = try await pair.watch.use(app: Self.app) {
        try await HKSampleQueryDescriptor(predicates: [.electrocardiogram()], sortDescriptors: [])
          .result(for: HKHealthStore())
      }
      #expect(ecg.count == 1)
      #expect(ecg.first?.averageHeartRate?.doubleValue(for: .count().unitDivided(by: .minute())) == 160)
      #expect(ecg.first?.sourceRevision.source.name == "ECG")
      #expect(ecg.first?.device?.name == "Apple Watch" && ecg.first?.device?.manufacturer == "Apple Inc.")
      #expect(ecg.first?.metadata?[HKMetadataKeyAppleECGAlgorithmVersion] as? Int == 2)
      try pair.watch.settings.revoke(read: Self.ecgType, of: Self.app)
      let measurements = try await pair.watch.use(app: Self.app) {
        var count = 0
        for try await _ in HKElectrocardiogramQueryDescriptor(ecg[0]).results(for: HKHealthStore()) { count += 1 }
        return count
      }
      #expect(measurements == 0, "a denied read looks like no data")
    }
  }

  @Test func theClassificationAndSymptomsPredicatesSelectRecordings() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try Self.install(pair)
      let sinus = try pair.watch.recordElectrocardiogram(.sinusRhythm, symptoms: .none, start: t0 - 600)
      let fib = try pair.watch.recordElectrocardiogram(.atrialFibrillation, symptoms: .present, start: t0 - 300)
      try pair.watch.recordElectrocardiogram(.inconclusivePoorReading, start: t0 - 60)
      try await pair.watch.authorize(Self.app, read: [Self.ecgType])
      #expect(try await Self.read(pair.watch, classification: .sinusRhythm).map(\.id) == [sinus])
      let all = try await Self.read(pair.watch)
      #expect(all.count == 3)
      #expect(all.last?.id == sinus, "newest end date first")
      #expect(all.first?.averageHeartRate == nil, "a poor reading has no heart rate")
      let withSymptoms = try await pair.watch.use(app: Self.app) {
        try await HKSampleQueryDescriptor(
          predicates: [.electrocardiogram(HKQuery.predicateForElectrocardiograms(symptomsStatus: .present))],
          sortDescriptors: []
        ).result(for: HKHealthStore())
      }
      #expect(withSymptoms.map(\.uuid) == [fib])
    }
  }
}
