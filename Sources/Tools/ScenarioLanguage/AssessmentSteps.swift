import FoundationEssentials
import HealthEngine
import HealthModel

/// A scored assessment to log, as `logs GAD-7|PHQ-9 answers …` writes it.
package struct AssessmentSpec: Hashable, Sendable {
  /// GAD-7 or PHQ-9.
  package var kind: AssessmentKind
  /// The answers' raw values as written (the device checks their number and range).
  package var answers: [Int]
  /// `at <time>` (nil: now).
  package var date: TimeSpec?
  /// `as <name>`: a sample name (`deletes <name>` deletes it).
  package var name: String?
}

/// What every result of `<App> sees <n> GAD-7|PHQ-9 assessments …` must have.
package struct AssessmentCheck: Hashable, Sendable {
  /// `scoring <s>`: each result's score.
  package var score: Int?
  /// `at risk <risk>`: each result's risk, as its Swift case name.
  package var risk: String?

  /// Checks nothing but the count.
  package init() {}
}

/// `logs GAD-7|PHQ-9 answers …` and `sees <n> GAD-7|PHQ-9 assessments …` (docs/scenario-language.md; behavior.md
/// section N).
extension ParseState {
  /// Whether the cursor is at `GAD-7` or `PHQ-9`.
  static func isAssessmentKind(_ c: Cursor) -> Bool {
    c.peek.map { t in AssessmentKind.allCases.contains { $0.description.lowercased() == t.keyword } } == true
  }

  /// `logs GAD-7|PHQ-9 answers <a>… [at <time>] [as <name>]`: answers 0–3, and 4 for "prefer not to answer".
  mutating func parseLogAssessment(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic)
    -> StepKind
  {
    let kind = try c.assessmentKind()
    try c.expect("answers", what: "'answers <a>…', each 0–3 (4: prefer not to answer)")
    var spec = AssessmentSpec(kind: kind, answers: [])
    while c.peek.map({ Int($0.text) != nil }) == true { spec.answers.append(try c.integer()) }
    while let t = c.peek {
      if c.take("at") {
        spec.date = try c.time()
      } else if c.take("as") {
        spec.name = try newSampleName(&c)
      } else {
        throw c.error(.expected("an answer, 'at <time>' or 'as <name>'", found: t.text), at: t)
      }
    }
    return .logAssessment(device, app: app.name, spec)
  }

  /// `sees <n> GAD-7|PHQ-9 assessments [scoring <s>] [at risk <risk>] [query]`, or `sees no GAD-7|PHQ-9
  /// assessments …` (`count` 0: "no" is read already).
  func parseSeesAssessments(_ c: inout Cursor, _ subject: AppExpectation, count known: Int? = nil)
    throws(Diagnostic) -> Expectation
  {
    let count = try c.seesCount(known: known, noun: 0)
    let kind = try c.assessmentKind()
    guard c.take("assessments") || c.take("assessment") else {
      throw c.error(.expected("'assessments'", found: c.peek?.text ?? "end of line"), at: c.peek)
    }
    var check = AssessmentCheck()
    while true {
      if c.take("scoring") {
        check.score = try c.integer()
      } else if c.take("at", "risk") {
        let names = kind.riskNames
        let t = try c.word("a risk (\(names.joined(separator: ", ")))")
        guard let found = names.first(where: { $0.lowercased() == t.keyword }) else {
          throw c.error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
        }
        check.risk = found
      } else {
        break
      }
    }
    var query = SampleQuerySpec(app: subject.app.name, type: SpecialObjectStore.assessmentType(kind))
    try sampleModifiers(&c, &query)
    try c.finish()
    return .seesAssessments(subject.devices, query, count, check)
  }
}

extension Cursor {
  /// `GAD-7` or `PHQ-9`.
  mutating func assessmentKind() throws(Diagnostic) -> AssessmentKind {
    let names = AssessmentKind.allCases.map(\.description)
    let t = try word("an assessment (GAD-7 or PHQ-9)")
    guard let kind = AssessmentKind.allCases.first(where: { $0.description.lowercased() == t.keyword }) else {
      throw error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
    }
    return kind
  }
}
