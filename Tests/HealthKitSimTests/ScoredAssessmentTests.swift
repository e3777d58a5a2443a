import Foundation
import HealthKitSim
import HealthPairTesting
import Testing

/// GAD-7 and PHQ-9 assessments as mental-health apps save and read them (iOS 18), against a real pair (behavior.md
/// N1–N3).
@Suite("Scored assessments, against real daemons")
struct ScoredAssessmentTests {
  static let app = "com.example.calm"
  static let gad7 = HKScoredAssessmentType(.GAD7)
  static let phq9 = HKScoredAssessmentType(.PHQ9)

  static func authorize(_ device: HealthDevice) async throws {
    try device.install(app: app, name: "Calm", writeUsage: "Saves your check-ins.", readUsage: "Shows them.")
    try await device.authorize(app, share: [gad7, phq9], read: [gad7, phq9])
  }

  @Test func theTypesAreApplesIdentifiersAndAnAssessmentScoresItsAnswers() {
    #expect(Self.gad7.identifier == "HKScoredAssessmentTypeIdentifierGAD7")
    #expect(Self.phq9.identifier == "HKScoredAssessmentTypeIdentifierPHQ9")
    #expect(Self.gad7 == HKScoredAssessmentType(.GAD7))
    #expect(HKGAD7Assessment.Risk.noneToMinimal.rawValue == 1)
    #expect(HKPHQ9Assessment.Answer.preferNotToAnswer.rawValue == 4)
    let gad = HKGAD7Assessment(
      date: t0,
      answers: [
        .nearlyEveryDay, .severalDays, .notAtAll, .moreThanHalfTheDays,
        .notAtAll, .notAtAll, .notAtAll,
      ])
    #expect(gad.score == 6)
    #expect(gad.risk == .mild)
    #expect(gad.startDate == gad.endDate)
    #expect(gad.sampleType == Self.gad7)
    let phq = HKPHQ9Assessment(
      date: t0, answers: Array(repeating: .nearlyEveryDay, count: 6) + [.severalDays, .notAtAll, .preferNotToAnswer])
    #expect(phq.score == 19)
    #expect(phq.risk == .moderatelySevere)
    #expect(phq.answers.last == .preferNotToAnswer)
  }

  @Test func assessmentsSavedOnThePhoneReachTheWatchAndTheQueriesReadThem() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.authorize(pair.phone)
      try await Self.authorize(pair.watch)
      try await pair.phone.use(app: Self.app) {
        let store = HKHealthStore()
        try await store.save([
          HKGAD7Assessment(date: t0 - 3_600, answers: Array(repeating: .moreThanHalfTheDays, count: 7)),
          HKPHQ9Assessment(
            date: t0 - 600, answers: Array(repeating: .severalDays, count: 9), metadata: ["clinic": "north"]),
        ])
      }
      try await pair.waitForSync()
      try await pair.watch.use(app: Self.app) {
        let store = HKHealthStore()
        let gads = try await HKSampleQueryDescriptor(predicates: [.gad7Assessment()], sortDescriptors: [])
          .result(for: store)
        #expect(gads.map(\.score) == [14])
        #expect(gads.first?.risk == .moderate)
        let phqs = try await HKSampleQueryDescriptor(predicates: [.phq9Assessment()], sortDescriptors: [])
          .result(for: store)
        #expect(phqs.map(\.risk) == [.mild])
        #expect(phqs.first?.metadata?["clinic"] as? String == "north")
        #expect(phqs.first?.sourceRevision.source.bundleIdentifier == Self.app)
        // The completion-handler query of the abstract type returns the concrete class.
        let found: [HKSample] = try await withCheckedThrowingContinuation { done in
          store.execute(
            HKSampleQuery(sampleType: Self.gad7, predicate: nil, limit: HKObjectQueryNoLimit, sortDescriptors: nil) {
              _, samples, error in
              if let error { done.resume(throwing: error) } else { done.resume(returning: samples ?? []) }
            })
        }
        #expect(found.first is HKGAD7Assessment)
      }
    }
  }

  @Test func wrongAnswersWouldTerminateAtTheSaveAndTheAppDeletesItsOwn() async throws {
    try await withHealthPair(HealthPairOptions(clock: t0)) { pair in
      try await Self.authorize(pair.phone)
      try await pair.phone.use(app: Self.app) {
        let store = HKHealthStore()
        await #expect(throws: HKSimulatedTermination.self) {
          try await store.save(HKGAD7Assessment(date: t0, answers: [.notAtAll]))
        }
        await #expect(throws: HKSimulatedTermination.self) {
          try await store.save(
            HKPHQ9Assessment(date: t0, answers: [.preferNotToAnswer] + Array(repeating: .notAtAll, count: 8)))
        }
        let kept = HKGAD7Assessment(date: t0 - 60, answers: Array(repeating: .notAtAll, count: 7))
        try await store.save(kept)
        try await store.delete(kept)
        let left = try await HKSampleQueryDescriptor(predicates: [.gad7Assessment()], sortDescriptors: [])
          .result(for: store)
        #expect(left.isEmpty)
      }
    }
  }
}
