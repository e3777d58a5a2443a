import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// States of Mind as mood-journal apps log and read them (iOS 18), against a real pair (behavior.md M1–M3).
@Suite("States of Mind, against real daemons")
struct StateOfMindTests {
  static let app = "com.example.mood"
  static let type = HKObjectType.stateOfMindType()

  static func authorize(_ device: HealthDevice) async throws {
    try device.install(app: app, name: "Mood", writeUsage: "Logs your mood.", readUsage: "Shows it.")
    try await device.authorize(app, share: [type], read: [type])
  }

  static func query(_ device: HealthDevice, _ predicate: NSPredicate? = nil) async throws -> [HKStateOfMind] {
    try await device.use(app: app) {
      try await HKSampleQueryDescriptor(
        predicates: [.stateOfMind(predicate)], sortDescriptors: [SortDescriptor(\.startDate)]
      ).result(for: HKHealthStore())
    }
  }

  @Test func theValenceClassesAreSevenBandsOfTwoSevenths() {
    typealias Class = HKStateOfMind.ValenceClassification
    #expect(Class(valence: -1) == .veryUnpleasant)
    #expect(Class(valence: -0.52) == .unpleasant)
    #expect(Class(valence: -1.0 / 7) == .neutral)
    #expect(Class(valence: 1.0 / 7) == .neutral)
    #expect(Class(valence: 0.27) == .slightlyPleasant)
    #expect(Class(valence: 0.6) == .pleasant)
    #expect(Class(valence: 1) == .veryPleasant)
    #expect(Class(valence: 1.01) == nil)
    #expect(Class(valence: .nan) == nil)
  }

  @Test func aMoodLoggedOnTheWatchReachesThePhoneAndThePredicatesSelectIt() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.authorize(pair.watch)
      try await Self.authorize(pair.phone)
      try await pair.watch.use(app: Self.app) {
        let store = HKHealthStore()
        try await store.save(
          HKStateOfMind(
            date: t0 - 3_600, kind: .momentaryEmotion, valence: 0.6, labels: [.happy, .grateful],
            associations: [.family]))
        try await store.save(
          HKStateOfMind(
            date: t0 - 600, kind: .dailyMood, valence: -0.52, labels: [.stressed], associations: [.work, .money],
            metadata: ["note": "deadline"]))
      }
      try await pair.waitForSync()
      let all = try await Self.query(pair.phone)
      #expect(all.map(\.kind) == [.momentaryEmotion, .dailyMood])
      #expect(all.map(\.valenceClassification) == [.pleasant, .unpleasant])
      #expect(all.first?.labels == [.happy, .grateful])
      #expect(all.last?.associations == [.work, .money])
      #expect(all.last?.metadata?["note"] as? String == "deadline")
      #expect(all.allSatisfy { $0.startDate == $0.endDate })
      #expect(try await Self.query(pair.phone, HKQuery.predicateForStatesOfMind(with: .dailyMood)).count == 1)
      #expect(
        try await Self.query(pair.phone, HKQuery.predicateForStatesOfMind(with: HKStateOfMind.Label.happy)).count == 1)
      #expect(try await Self.query(pair.phone, HKQuery.predicateForStatesOfMind(with: .money)).count == 1)
      let pleasant = HKQuery.predicateForStatesOfMind(withValence: 0, operatorType: .greaterThan)
      #expect(try await Self.query(pair.phone, pleasant).map(\.valence) == [0.6])
    }
  }

  @Test func aValenceOutOfRangeWouldTerminateAtTheSaveAndTheAppDeletesItsOwn() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.authorize(pair.phone)
      try await pair.phone.use(app: Self.app) {
        let store = HKHealthStore()
        await #expect(throws: HKSimulatedTermination.self) {
          try await store.save(
            HKStateOfMind(date: t0, kind: .momentaryEmotion, valence: 1.5, labels: [], associations: []))
        }
        let kept = HKStateOfMind(date: t0 - 60, kind: .momentaryEmotion, valence: 0, labels: [.calm], associations: [])
        try await store.save(kept)
        try await store.delete(kept)
        for minutes in [30.0, 20, 10] {
          try await store.save(
            HKStateOfMind(date: t0 - minutes * 60, kind: .dailyMood, valence: 0.2, labels: [], associations: []))
        }
        let recent = HKQuery.predicateForSamples(withStart: t0 - 25 * 60, end: t0)
        #expect(try await store.deleteObjects(of: Self.type, predicate: recent) == 2)
      }
      #expect(try await Self.query(pair.phone).map(\.startDate) == [t0 - 30 * 60])
    }
  }
}
