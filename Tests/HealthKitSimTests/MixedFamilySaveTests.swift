import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// One `save(_:)` of an array mixing object families: all or nothing, against a real pair
/// (healthkit-semantics.md §4; behavior.md D3).
@Suite("A save mixing object families, against real daemons")
struct MixedFamilySaveTests {
  static let app = "com.example.journal"
  static let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
  static let mood = HKObjectType.stateOfMindType()
  static let water = HKQuantityType(.dietaryWater)
  static let gad7 = HKScoredAssessmentType(.GAD7)

  static func install(_ pair: HealthPair, share: Set<HKSampleType>) async throws {
    try pair.phone.install(app: app, name: "Journal", writeUsage: "Logs your day.", readUsage: "Shows your day.")
    try await pair.phone.authorize(app, share: share, read: [mood, water, gad7])
  }

  static func glass(_ date: Date) -> HKQuantitySample {
    HKQuantitySample(
      type: water, quantity: HKQuantity(unit: .literUnit(with: .milli), doubleValue: 250), start: date, end: date)
  }

  @Test func aStateOfMindAQuantityAndAnAssessmentAreSavedTogether() async throws {
    try await withHealthPair(HealthPairOptions(clock: Self.t0)) { pair in
      try await Self.install(pair, share: [Self.mood, Self.water, Self.gad7])
      try await pair.phone.use(app: Self.app) {
        let store = HKHealthStore()
        let state = HKStateOfMind(date: Self.t0 - 60, kind: .dailyMood, valence: 0.3, labels: [.calm], associations: [])
        let assessment = HKGAD7Assessment(date: Self.t0 - 30, answers: Array(repeating: .notAtAll, count: 7))
        try await store.save([Self.glass(Self.t0 - 90), state, assessment])
        let moods = try await HKSampleQueryDescriptor(predicates: [.stateOfMind()], sortDescriptors: []).result(
          for: store)
        let drinks = try await HKSampleQueryDescriptor(
          predicates: [.quantitySample(type: Self.water)], sortDescriptors: []
        )
        .result(for: store)
        let scores = try await HKSampleQueryDescriptor(predicates: [.gad7Assessment()], sortDescriptors: [])
          .result(for: store)
        #expect(moods.map(\.uuid) == [state.uuid] && drinks.count == 1 && scores.map(\.uuid) == [assessment.uuid])
      }
    }
  }

  @Test func aPartTheAppMayNotSaveStoresNothing() async throws {
    try await withHealthPair(HealthPairOptions(clock: Self.t0)) { pair in
      try await Self.install(pair, share: [Self.mood, Self.water])  // not GAD-7
      try await pair.phone.use(app: Self.app) {
        let store = HKHealthStore()
        let state = HKStateOfMind(date: Self.t0 - 60, kind: .dailyMood, valence: 0.3, labels: [.calm], associations: [])
        let assessment = HKGAD7Assessment(date: Self.t0 - 30, answers: Array(repeating: .notAtAll, count: 7))
        let error = await #expect(throws: HKError.self) {
          try await store.save([Self.glass(Self.t0 - 90), state, assessment])
        }
        #expect(error?.code == .errorAuthorizationNotDetermined, "GAD-7 was never asked for")
        let moods = try await HKSampleQueryDescriptor(predicates: [.stateOfMind()], sortDescriptors: []).result(
          for: store)
        let drinks = try await HKSampleQueryDescriptor(
          predicates: [.quantitySample(type: Self.water)], sortDescriptors: []
        )
        .result(for: store)
        #expect(moods.isEmpty && drinks.isEmpty, "the glass and the mood before the refused part are not stored")
      }
    }
  }
}
