import FoundationEssentials
import HealthEngine
import HealthModel

/// What `<device>: the wearer records an ECG …` asks the watch's ECG app to record.
package struct ECGSpec: Hashable, Sendable {
  /// The ECG app's conclusion.
  package var classification: ECGClassification
  /// `at <time>`: when the recording starts (nil: the device's time).
  package var start: TimeSpec?
  /// `heart rate <n> bpm` (nil: the classification's typical rate).
  package var heartRate: Double?
  /// `with symptoms` / `with no symptoms` (absent: not set).
  package var symptoms: ECGSymptomsStatus = .notSet
  /// `with symptoms <symptom>…`: the symptoms logged (category types the ECG app offers).
  package var symptomTypes: [SampleType] = []
  /// `for <duration>` (nil: the ECG app's 30 seconds).
  package var duration: Double?
  /// `fails [with "<text>"]`: the recording must be refused (its message containing the text, when given); nil when
  /// it must succeed.
  package var failure: String?

  /// A recording of `classification` with every default.
  package init(classification: ECGClassification) { self.classification = classification }
}

/// What `<App> sees <n> electrocardiograms …` checks: the query's filter and each recording's voltages.
package struct ECGCheck: Hashable, Sendable {
  /// `of <classification> [or <classification>]…`: the classification predicate.
  package var classifications: Set<ECGClassification> = []
  /// `with symptoms` / `with no symptoms`: the symptoms predicate (`present` / `none`).
  package var symptoms: ECGSymptomsStatus?
  /// `with <m> voltages each`: what an `HKElectrocardiogramQuery` of every recording returned enumerates.
  package var voltages: Int?

  /// Checks only the count.
  package init() {}
}

/// `the wearer records an ECG …` and `sees <n> electrocardiograms …` (docs/scenario-language.md; behavior.md
/// section G).
extension ParseState {
  /// `records an ECG <classification> [at <time>] [heart rate <n> bpm] [with symptoms [<symptom>…]|with no
  /// symptoms] [for <duration>] [fails [with "<text>"]]`, after `<device>: the wearer`.
  func parseRecordECG(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    try c.expect("an", "ECG", what: "'an ECG <classification>'")
    var spec = ECGSpec(classification: try c.ecgClassification())
    while let t = c.peek {
      if c.take("at") {
        spec.start = try c.time()
      } else if c.take("heart", "rate") {
        let rateToken = c.peek
        let rate = try c.number()
        guard rate > 0, rate < 300 else {
          throw c.error(.expected("a heart rate from 1 to 299 bpm", found: rateToken?.text), at: rateToken)
        }
        try c.expect("bpm")
        spec.heartRate = rate
      } else if c.take("with", "no", "symptoms") {
        spec.symptoms = .none
      } else if c.take("with", "symptoms") {
        spec.symptoms = .present
        let offered = ECGRecording.symptomTypes.map(\.name)
        while let next = c.peek,
          let type = ECGRecording.symptomTypes.first(where: { $0.name.lowercased() == next.keyword })
        {
          c.index += 1
          guard !spec.symptomTypes.contains(type) else {
            throw c.error(
              .expected("each symptom once (\(offered.joined(separator: ", ")))", found: next.text), at: next)
          }
          spec.symptomTypes.append(type)
        }
      } else if c.take("for") {
        let lengthToken = c.peek
        let length = try c.duration()
        guard length > 0, length <= 600 else {
          throw c.error(.expected("a recording length from 1s to 10m", found: lengthToken?.text), at: lengthToken)
        }
        spec.duration = length
      } else if c.take("fails") {
        spec.failure = ""
        if c.take("with") { spec.failure = try c.word("a quoted part of the error message").text }
        try c.finish()
      } else {
        throw c.error(
          .expected(
            "'at <time>', 'heart rate <n> bpm', 'with symptoms', 'with no symptoms', 'for <duration>' or 'fails'",
            found: t.text), at: t)
      }
    }
    return .wearer(device, .recordECG(spec))
  }

  /// `sees <n> electrocardiograms [of <classification> [or <classification>]…] [with symptoms|with no symptoms]
  /// [with <m> voltages [each]] [query]`, or `sees no electrocardiograms …` (`count` 0: the words are read already).
  func parseSeesElectrocardiograms(_ c: inout Cursor, _ subject: AppExpectation, count known: Int? = nil)
    throws(Diagnostic) -> Expectation
  {
    let count = try c.seesCount(known: known, noun: 1)  // "electrocardiograms"
    var check = ECGCheck()
    if c.take("of") {
      repeat { check.classifications.insert(try c.ecgClassification()) } while c.take("or")
    }
    while c.peek?.keyword == "with" {
      if c.take("with", "no", "symptoms") {
        check.symptoms = ECGSymptomsStatus.none
      } else if c.take("with", "symptoms") {
        check.symptoms = .present
      } else if c.index + 2 < c.line.tokens.count,
        ["voltages", "voltage"].contains(c.line.tokens[c.index + 2].keyword)
      {
        c.index += 1
        let t = c.peek
        let n = try c.integer()
        guard n >= 0 else { throw c.error(.invalidNumber(String(n)), at: t) }
        c.index += 1
        _ = c.take("each")
        check.voltages = n
      } else {
        break  // `with <key>=<value>`: a query modifier
      }
    }
    var query = SampleQuerySpec(app: subject.app.name, type: SpecialObjectStore.electrocardiogramType)
    try sampleModifiers(&c, &query)
    try c.finish()
    return .seesElectrocardiograms(subject.devices, query, count, check)
  }
}

extension Cursor {
  /// An `HKElectrocardiogram.Classification` by its Swift case name (`sinusRhythm`, `atrialFibrillation`, …).
  mutating func ecgClassification() throws(Diagnostic) -> ECGClassification {
    let names = ECGClassification.allCases.map(\.description)
    let t = try word("a classification (\(names.joined(separator: ", ")))")
    guard let found = ECGClassification.allCases.first(where: { $0.description.lowercased() == t.keyword }) else {
      throw error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
    }
    return found
  }
}
