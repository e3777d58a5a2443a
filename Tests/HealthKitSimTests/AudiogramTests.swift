import Foundation
import HealthKitSim
import HealthPairTesting
import PublishedStyles
import Testing

/// Audiograms the way published plugins write and read them (Sources/Examples/PublishedStyles/HearingLog.swift,
/// which imports `HealthKit`), and the iOS 18.1 test API, against a real pair (behavior.md H1–H3).
@Suite("Audiograms, against real daemons")
struct AudiogramTests {
  static let app = "com.example.hearing"
  static let type = HKObjectType.audiogramSampleType()

  static func authorize(_ device: HealthDevice) async throws {
    try device.install(app: app, name: "Hearing", writeUsage: "Saves hearing tests.", readUsage: "Shows them.")
    try await device.authorize(app, share: [type], read: [type])
  }

  static func tests(_ device: HealthDevice) async throws -> [HearingTest] {
    let found = Mailbox<Result<[HearingTest], any Error>>()
    device.use(app: app) {
      HearingLog().tests(from: t0 - 86_400, to: t0 + 86_400) { tests, error in
        found.post(tests.map { .success($0) } ?? .failure(error!))
      }
    }
    return try await found.next().get()
  }

  static func write(_ device: HealthDevice, _ frequencies: [Double], _ left: [Double], _ right: [Double]) async
    -> (Bool, (any Error)?)
  {
    let saved = Mailbox<Pair>()
    device.use(app: app) {
      HearingLog().write(
        frequencies: frequencies, left: left, right: right, start: t0 - 600, end: t0 - 300, deviceName: "AirPods Pro"
      ) { ok, error in saved.post(Pair(ok: ok, error: error.map { "\($0)" })) }
    }
    guard let result = try? await saved.next() else { return (false, nil) }
    return (result.ok, result.error.map { Failure(text: $0) })
  }

  struct Pair: Sendable {
    var ok: Bool
    var error: String?
  }

  struct Failure: Error, CustomStringConvertible {
    var text: String
    var description: String { text }
  }

  @Test func aHearingTestSavedOnThePhoneReadsBackAndReachesTheWatch() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.authorize(pair.phone)
      try await Self.authorize(pair.watch)
      let (ok, error) = await Self.write(pair.phone, [500, 1_000, 4_000], [10, 15, 35], [5, 20, 40])
      #expect(ok, "\(String(describing: error))")
      let tests = try await Self.tests(pair.phone)
      #expect(tests.count == 1)
      #expect(tests.first?.frequencies == [500, 1_000, 4_000])
      #expect(tests.first?.left == [10, 15, 35])
      #expect(tests.first?.right == [5, 20, 40])
      try await pair.waitForSync()
      #expect(try await Self.tests(pair.watch) == tests)
    }
  }

  @Test func theTestAPIsMaskedAndClampedTestsRoundTrip() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.authorize(pair.watch)
      try await pair.watch.use(app: Self.app) {
        let dBHL = HKUnit.decibelHearingLevel()
        let clamp = try HKAudiogramSensitivityPointClampingRange(lowerBound: 0, upperBound: 90)
        let tests = [
          try HKAudiogramSensitivityTest(
            sensitivity: HKQuantity(unit: dBHL, doubleValue: 45), type: .air, masked: true, side: .left,
            clampingRange: clamp),
          try HKAudiogramSensitivityTest(
            sensitivity: HKQuantity(unit: dBHL, doubleValue: 12), type: .air, masked: false, side: .right,
            clampingRange: nil),
        ]
        let point = try HKAudiogramSensitivityPoint(
          frequency: HKQuantity(unit: .hertz(), doubleValue: 2_000), tests: tests)
        let sample = HKAudiogramSample(
          sensitivityPoints: [point], start: t0 - 60, end: t0, device: nil, metadata: ["test": "clinic"])
        try await HKHealthStore().save(sample)
        let found = try await HKSampleQueryDescriptor(
          predicates: [.sample(type: Self.type)], sortDescriptors: [SortDescriptor(\.endDate, order: .reverse)],
          limit: 1
        ).result(for: HKHealthStore())
        let audiogram = try #require(found.first as? HKAudiogramSample)
        #expect(audiogram.uuid == sample.uuid)
        let read = try #require(audiogram.sensitivityPoints.first)
        #expect(read.tests.map(\.masked) == [true, false])
        #expect(read.tests.map(\.side) == [.left, .right])
        #expect(read.tests.first?.clampingRange?.upperBound?.doubleValue(for: dBHL) == 90)
        #expect(read.leftEarSensitivity?.doubleValue(for: dBHL) == 45, "the masked test when it is the ear's only one")
        #expect(audiogram.metadata?["test"] as? String == "clinic")
      }
    }
  }

  @Test func outOfRangeValuesThrowAndABadAudiogramWouldTerminateAtTheSave() async throws {
    let hz = HKUnit.hertz()
    let dBHL = HKUnit.decibelHearingLevel()
    #expect(throws: HKError.self) {
      try HKAudiogramSensitivityPoint(
        frequency: HKQuantity(unit: hz, doubleValue: 30_001),
        leftEarSensitivity: HKQuantity(unit: dBHL, doubleValue: 0), rightEarSensitivity: nil)
    }
    #expect(throws: HKError.self) {
      try HKAudiogramSensitivityPoint(
        frequency: HKQuantity(unit: hz, doubleValue: 500), leftEarSensitivity: HKQuantity(unit: dBHL, doubleValue: 161),
        rightEarSensitivity: nil)
    }
    #expect(throws: HKError.self) {
      try HKAudiogramSensitivityPoint(frequency: HKQuantity(unit: hz, doubleValue: 500), tests: [])
    }
    #expect(throws: HKError.self) {
      try HKAudiogramSensitivityPointClampingRange(lowerBound: 50, upperBound: 10)
    }
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.authorize(pair.phone)
      let (ok, error) = await Self.write(pair.phone, [1_000, 500], [10, 10], [10, 10])
      #expect(!ok)
      #expect("\(String(describing: error))".contains("Audiogram frequencies must be unique and in ascending order"))
      #expect(try await Self.tests(pair.phone).isEmpty)
    }
  }

  @Test func anAppThatMayOnlyShareSeesItsOwnAndADeniedShareCannotSave() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try pair.phone.install(app: Self.app, name: "Hearing", writeUsage: "Saves.", readUsage: "Shows.")
      try await pair.phone.authorize(Self.app, share: [Self.type], read: [Self.type]) {
        try await $0.choose(share: [Self.type], read: [])
      }
      #expect(await Self.write(pair.phone, [500], [10], [10]).0)
      #expect(try await Self.tests(pair.phone).count == 1, "share granted, read denied: its own audiogram")
      try pair.phone.settings.revoke(share: Self.type, of: Self.app)
      let (ok, error) = await Self.write(pair.phone, [500], [10], [10])
      #expect(!ok)
      #expect("\(String(describing: error))".contains("Not authorized"))
    }
  }
}
