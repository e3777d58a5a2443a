// Published-style mental-health code (iOS 18): a check-in app saves the GAD-7 and PHQ-9 questionnaires its user
// fills in and shows the latest risk of each.

import Foundation
import HealthKit

/// Saves and reads the user's anxiety and depression check-ins.
public struct CheckIns: Sendable {
  /// A store user.
  public init() {}

  static let types: Set<HKSampleType> = [HKScoredAssessmentType(.GAD7), HKScoredAssessmentType(.PHQ9)]

  /// Asks to save and read both questionnaires.
  public func requestAccess() async throws {
    try await HKHealthStore().requestAuthorization(toShare: Self.types, read: Self.types)
  }

  /// Saves a GAD-7 check-in; answers are 0 (not at all) … 3 (nearly every day). Returns its score.
  @discardableResult
  public func saveAnxietyCheckIn(_ answers: [Int], at date: Date) async throws -> Int {
    let assessment = HKGAD7Assessment(
      date: date, answers: answers.compactMap(HKGAD7Assessment.Answer.init(rawValue:)))
    try await HKHealthStore().save(assessment)
    return assessment.score
  }

  /// Saves a PHQ-9 check-in; a nil ninth answer is "prefer not to answer". Returns its score.
  @discardableResult
  public func saveMoodCheckIn(_ answers: [Int], ninth: Int?, at date: Date) async throws -> Int {
    let all = answers.compactMap(HKPHQ9Assessment.Answer.init(rawValue:))
      + [ninth.flatMap(HKPHQ9Assessment.Answer.init(rawValue:)) ?? .preferNotToAnswer]
    let assessment = HKPHQ9Assessment(date: date, answers: all)
    try await HKHealthStore().save(assessment)
    return assessment.score
  }

  /// The newest GAD-7 check-in's risk, or nil when there is none the app may read.
  public func latestAnxietyRisk() async throws -> HKGAD7Assessment.Risk? {
    let descriptor = HKSampleQueryDescriptor(
      predicates: [.gad7Assessment()], sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)], limit: 1)
    return try await descriptor.result(for: HKHealthStore()).first?.risk
  }

  /// The newest PHQ-9 check-in's risk, or nil when there is none the app may read.
  public func latestMoodRisk() async throws -> HKPHQ9Assessment.Risk? {
    let descriptor = HKSampleQueryDescriptor(
      predicates: [.phq9Assessment()], sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)], limit: 1)
    return try await descriptor.result(for: HKHealthStore()).first?.risk
  }
}
