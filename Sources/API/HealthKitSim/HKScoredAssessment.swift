import Foundation
import HealthEngine
import HealthModel

/// A scored assessment's questionnaire (`HKScoredAssessmentTypeIdentifier`, iOS 18): Apple's identifier strings.
public struct HKScoredAssessmentTypeIdentifier: RawRepresentable, Hashable, Sendable {
  /// Apple's identifier string.
  public let rawValue: String
  /// Wraps an identifier string.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// The GAD-7 anxiety screening.
  public static let GAD7 = Self(rawValue: "HKScoredAssessmentTypeIdentifierGAD7")
  /// The PHQ-9 depression screening.
  public static let PHQ9 = Self(rawValue: "HKScoredAssessmentTypeIdentifierPHQ9")
}

/// A scored assessment type: `HKScoredAssessmentType(.GAD7)` or `(.PHQ9)`. Apps share and read it as any sample
/// type (behavior.md N1).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObjectType`` gives.
public final class HKScoredAssessmentType: HKSampleType, @unchecked Sendable {
  /// The type with this identifier. An identifier HealthKit does not know raises on a device; HealthKitSim's
  /// requests with the type fail with ``HealthKitSimError``.
  public convenience init(_ identifier: HKScoredAssessmentTypeIdentifier) {
    self.init(identifier: identifier.rawValue)
  }
}

/// The result of a questionnaire at one instant: its score (the sum of the answers) and the risk the score falls in
/// (behavior.md N1). Abstract: HealthKit's objects are ``HKGAD7Assessment`` and ``HKPHQ9Assessment``.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public class HKScoredAssessment: HKSample, @unchecked Sendable {
  /// The sum of the answers (PHQ-9's "prefer not to answer" counts 0).
  public let score: Int
  /// The answers' raw values, as the daemon stores them.
  let answerValues: [Int]

  init(kind: AssessmentKind, date: Date, answers: [Int], metadata: [String: Any]?) {
    answerValues = answers
    score = ScoredAssessment.score(of: answers)
    super.init(
      uuid: .fresh(), start: date, end: date, metadata: MetadataPayload(metadata),
      origin: HKSample.unsavedOrigin(
        HKScoredAssessmentType(identifier: SpecialObjectStore.assessmentType(kind).identifier)))
  }

  init(_ assessment: ScoredAssessment) {
    answerValues = assessment.answers
    score = assessment.score
    super.init(
      uuid: assessment.uuid, start: assessment.date, end: assessment.date, metadata: .valid(assessment.metadata),
      origin: SampleOrigin(
        type: HKScoredAssessmentType(identifier: assessment.objectType.identifier), unit: nil,
        source: HKSourceRevision(assessment.source)))
  }

  /// The object for a stored assessment: an ``HKGAD7Assessment`` or an ``HKPHQ9Assessment``.
  package static func make(_ assessment: ScoredAssessment) -> HKScoredAssessment {
    assessment.kind == .gad7 ? HKGAD7Assessment(stored: assessment) : HKPHQ9Assessment(stored: assessment)
  }

  var kind: AssessmentKind { self is HKGAD7Assessment ? .gad7 : .phq9 }

  override var valueDescription: String? { "score \(score)" }

  /// The sample as the daemon's save takes it.
  /// - Throws: ``HKSimulatedTermination`` for metadata HealthKit refuses.
  func assessmentInput(api: String) throws -> ScoredAssessmentInput {
    ScoredAssessmentInput(
      uuid: uuid, kind: kind.rawValue, date: startDate, answers: answerValues,
      metadata: try metadataPayload.checked(api: api))
  }
}

/// A GAD-7 anxiety screening: seven answers, score 0–21 and its risk.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKGAD7Assessment: HKScoredAssessment, @unchecked Sendable {
  /// How often a problem bothered the user over the last two weeks (Apple's raw values 0–3).
  public enum Answer: Int, Sendable {
    case notAtAll = 0
    case severalDays = 1
    case moreThanHalfTheDays = 2
    case nearlyEveryDay = 3
  }

  /// The risk the score falls in (Apple's raw values 1–4: scores 0–4, 5–9, 10–14, 15–21).
  public enum Risk: Int, Sendable {
    case noneToMinimal = 1
    case mild = 2
    case moderate = 3
    case severe = 4
  }

  /// The answers, one per question.
  public var answers: [Answer] { answerValues.compactMap(Answer.init(rawValue:)) }
  /// The score's risk.
  public var risk: Risk { Risk(rawValue: AssessmentKind.gad7.risk(score: score)) ?? .noneToMinimal }

  /// An assessment taken at `date` (start and end). Other than seven answers is refused when it is saved, where a
  /// device would have raised already ("HKGAD7Assessment requires 7 answers.").
  public init(date: Date, answers: [Answer], metadata: [String: Any]? = [:]) {
    super.init(kind: .gad7, date: date, answers: answers.map(\.rawValue), metadata: metadata)
  }

  init(stored assessment: ScoredAssessment) { super.init(assessment) }
}

/// A PHQ-9 depression screening: nine answers (the ninth may be "prefer not to answer"), score 0–27 and its risk.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKPHQ9Assessment: HKScoredAssessment, @unchecked Sendable {
  /// How often a problem bothered the user over the last two weeks (Apple's raw values 0–4; 4 only for question 9).
  public enum Answer: Int, Sendable {
    case notAtAll = 0
    case severalDays = 1
    case moreThanHalfTheDays = 2
    case nearlyEveryDay = 3
    case preferNotToAnswer = 4
  }

  /// The risk the score falls in (Apple's raw values 1–5: scores 0–4, 5–9, 10–14, 15–19, 20–27).
  public enum Risk: Int, Sendable {
    case noneToMinimal = 1
    case mild = 2
    case moderate = 3
    case moderatelySevere = 4
    case severe = 5
  }

  /// The answers, one per question.
  public var answers: [Answer] { answerValues.compactMap(Answer.init(rawValue:)) }
  /// The score's risk.
  public var risk: Risk { Risk(rawValue: AssessmentKind.phq9.risk(score: score)) ?? .noneToMinimal }

  /// An assessment taken at `date` (start and end). Other than nine answers, or "prefer not to answer" before the
  /// ninth, is refused when it is saved, where a device would have raised already.
  public init(date: Date, answers: [Answer], metadata: [String: Any]? = [:]) {
    super.init(kind: .phq9, date: date, answers: answers.map(\.rawValue), metadata: metadata)
  }

  init(stored assessment: ScoredAssessment) { super.init(assessment) }
}

extension HKSamplePredicate where Sample == HKGAD7Assessment {
  /// GAD-7 assessments matching `predicate` (nil: all).
  public static func gad7Assessment(_ predicate: NSPredicate? = nil) -> Self {
    Self(HKScoredAssessmentType(.GAD7), predicate)
  }
}

extension HKSamplePredicate where Sample == HKPHQ9Assessment {
  /// PHQ-9 assessments matching `predicate` (nil: all).
  public static func phq9Assessment(_ predicate: NSPredicate? = nil) -> Self {
    Self(HKScoredAssessmentType(.PHQ9), predicate)
  }
}
