import FoundationEssentials

/// Which questionnaire a scored assessment answers (`HKScoredAssessmentTypeIdentifier`): the GAD-7 anxiety or the
/// PHQ-9 depression screening.
package enum AssessmentKind: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// GAD-7: seven questions, answers 0–3, score 0–21, risk 1–4.
  case gad7 = 1
  /// PHQ-9: nine questions, answers 0–3 (the ninth may also be 4, prefer not to answer), score 0–27, risk 1–5.
  case phq9 = 2

  /// How many answers an assessment holds.
  package var questionCount: Int { self == .gad7 ? 7 : 9 }

  /// The name scenarios, logs and messages use (`GAD-7`, `PHQ-9`).
  package var description: String { self == .gad7 ? "GAD-7" : "PHQ-9" }

  /// The catalog name of its sample type (`GAD7`, `PHQ9`).
  package var typeName: String { self == .gad7 ? "GAD7" : "PHQ9" }

  /// The Objective-C class name HealthKit's messages use.
  package var className: String { self == .gad7 ? "HKGAD7Assessment" : "HKPHQ9Assessment" }

  /// The risk's raw value for `score` (`HKGAD7Assessment.Risk` 1–4, `HKPHQ9Assessment.Risk` 1–5): bands of five
  /// points from 0, the last open (GAD-7: 0–4, 5–9, 10–14, 15+; PHQ-9: … 15–19, 20+).
  package func risk(score: Int) -> Int {
    min(score / 5, self == .gad7 ? 3 : 4) + 1
  }

  /// The Swift case names of the risk, by raw value from 1.
  package var riskNames: [String] {
    self == .gad7
      ? ["noneToMinimal", "mild", "moderate", "severe"]
      : ["noneToMinimal", "mild", "moderate", "moderatelySevere", "severe"]
  }
}

/// The Swift case names of the answers, by raw value from 0 (`preferNotToAnswer`, 4, is PHQ-9's ninth only).
package let assessmentAnswerNames = [
  "notAtAll", "severalDays", "moreThanHalfTheDays", "nearlyEveryDay", "preferNotToAnswer",
]

/// A scored assessment (`HKGAD7Assessment`, `HKPHQ9Assessment`, iOS 18): a questionnaire's answers at one instant,
/// with the score and risk they give.
package struct ScoredAssessment: Hashable, Sendable {
  /// The sample's identifier.
  package var uuid: UUID
  /// GAD-7 or PHQ-9.
  package var kind: AssessmentKind
  /// When it was taken (start and end).
  package var date: Date
  /// The answers' raw values, one per question.
  package var answers: [Int]
  /// The sample's metadata.
  package var metadata: Metadata
  /// The app and device that saved it.
  package var source: SampleSource

  /// Creates a sample; `answers` must be valid for `kind` (``ScoredAssessmentInput/validated(source:)`` checks).
  package init(
    uuid: UUID, kind: AssessmentKind, date: Date, answers: [Int], metadata: Metadata = [:], source: SampleSource
  ) {
    self.uuid = uuid
    self.kind = kind
    self.date = date
    self.answers = answers
    self.metadata = metadata
    self.source = source
  }

  /// The end of the sample: its date.
  package var end: Date { date }

  /// The sum of the answers, PHQ-9's "prefer not to answer" counting 0.
  package var score: Int { Self.score(of: answers) }

  /// The sum of `answers`' raw values, 4 ("prefer not to answer") counting 0.
  package static func score(of answers: [Int]) -> Int { answers.reduce(0) { $0 + ($1 == 4 ? 0 : $1) } }

  /// The risk's raw value for the score.
  package var risk: Int { kind.risk(score: score) }

  /// The risk's Swift case name.
  package var riskName: String { kind.riskNames[risk - 1] }

  /// The sample as an app would save it again (import checks, decoding).
  package var input: ScoredAssessmentInput {
    ScoredAssessmentInput(uuid: uuid, kind: kind.rawValue, date: date, answers: answers, metadata: metadata)
  }
}

/// A scored assessment as an app saves it: everything but the source, the kind and answers as raw values so a bad
/// one reaches the device's check.
package struct ScoredAssessmentInput: Hashable, Sendable {
  /// The sample's identifier.
  package var uuid: UUID
  /// ``AssessmentKind``'s raw value.
  package var kind: Int
  /// When it was taken.
  package var date: Date
  /// The answers' raw values.
  package var answers: [Int]
  /// The metadata.
  package var metadata: Metadata

  /// Creates an input.
  package init(uuid: UUID, kind: Int, date: Date, answers: [Int], metadata: Metadata = [:]) {
    self.uuid = uuid
    self.kind = kind
    self.date = date
    self.answers = answers
    self.metadata = metadata
  }

  /// The stored sample of `source`, checked as HealthKit validates one when it is made: the date as a sample's,
  /// exactly one answer per question, each 0–3 (PHQ-9's ninth also 4), metadata values a sample may carry.
  /// - Throws: `wouldTerminate` with HealthKit's message (`_validateAnswers:` raises when the object is made).
  package func validated(source: SampleSource) throws(HealthError) -> ScoredAssessment {
    guard let kind = AssessmentKind(rawValue: kind) else {
      throw .invalidArgumentException("Invalid HKScoredAssessmentTypeIdentifier identifier \(self.kind)")
    }
    try checkObjectDates(date, date, kind.className)
    guard answers.count == kind.questionCount else {
      throw .invalidArgumentException("\(kind.className) requires \(kind.questionCount) answers.")
    }
    switch kind {
    case .gad7:
      guard answers.allSatisfy({ (0...3).contains($0) }) else {
        throw .invalidArgumentException("\(kind.className) answer must be on a scale of 0 to 3.")
      }
    case .phq9:
      guard answers.prefix(8).allSatisfy({ (0...3).contains($0) }) else {
        throw .invalidArgumentException("\(kind.className) answer for questions #1-8 must be on a scale of 0 to 3.")
      }
      guard (0...4).contains(answers[8]) else {
        throw .invalidArgumentException(
          "\(kind.className) answer for questions #9 must be on a scale of 0 to 3 or unanswered.")
      }
    }
    try metadata.checkValues()
    return ScoredAssessment(uuid: uuid, kind: kind, date: date, answers: answers, metadata: metadata, source: source)
  }
}
