import FoundationEssentials
import HealthEngine
import HealthModel

/// A State of Mind to log, as `logs state of mind …` writes it.
package struct StateOfMindSpec: Hashable, Sendable {
  /// Momentary emotion or daily mood.
  package var kind: StateOfMindKind
  /// The valence as written (the device checks its range).
  package var valence: Double
  /// Label raw values.
  package var labels: [Int] = []
  /// Association raw values.
  package var associations: [Int] = []
  /// `at <time>` (nil: now).
  package var date: TimeSpec?
  /// `as <name>`: a sample name (`deletes <name>` deletes it).
  package var name: String?
}

/// What `<App> sees <n> states of mind …` selects with HealthKit's predicates, and the class every result has.
package struct StateOfMindCheck: Hashable, Sendable {
  /// `of <kind>`.
  package var kind: StateOfMindKind?
  /// `labelled <label>`.
  package var label: Int?
  /// `about <association>`.
  package var association: Int?
  /// `with valence above|below <v>`: strictly greater (true) or less than the value.
  package var valence: (above: Bool, value: Double)?
  /// `classified <class>`: the `valenceClassification` of every result.
  package var classification: ValenceClassification?

  /// Selects every State of Mind.
  package init() {}

  /// Equal when every part is.
  package static func == (a: StateOfMindCheck, b: StateOfMindCheck) -> Bool {
    a.kind == b.kind && a.label == b.label && a.association == b.association
      && a.valence?.above == b.valence?.above && a.valence?.value == b.valence?.value
      && a.classification == b.classification
  }

  /// Hashes every part.
  package func hash(into hasher: inout Hasher) {
    hasher.combine(kind)
    hasher.combine(label)
    hasher.combine(association)
    hasher.combine(valence?.above)
    hasher.combine(valence?.value)
    hasher.combine(classification)
  }
}

/// `logs state of mind …` and `sees <n> states of mind …` (docs/scenario-language.md; behavior.md section M).
extension ParseState {
  /// `logs state of mind <kind> valence <v> [labels <label>…] [associations <association>…] [at <time>]
  /// [as <name>]`.
  mutating func parseLogStateOfMind(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic)
    -> StepKind
  {
    try c.expect("state", "of", "mind", what: "'state of mind <kind> valence <v>'")
    let kind = try c.stateOfMindKind()
    try c.expect("valence", what: "'valence <v>', from -1 to 1")
    var spec = StateOfMindSpec(kind: kind, valence: try c.number())
    while let t = c.peek {
      if c.take("labels") || c.take("label") {
        repeat {
          spec.labels.append(try c.named(stateOfMindLabels, "a label (happy, calm, stressed, …)"))
        } while c.peek.map { stateOfMindLabels.contains($0.text) } == true
      } else if c.take("associations") || c.take("association") {
        repeat {
          spec.associations.append(try c.named(stateOfMindAssociations, "an association (work, family, health, …)"))
        } while c.peek.map { stateOfMindAssociations.contains($0.text) } == true
      } else if c.take("at") {
        spec.date = try c.time()
      } else if c.take("as") {
        spec.name = try newSampleName(&c)
      } else {
        throw c.error(.expected("'labels', 'associations', 'at <time>' or 'as <name>'", found: t.text), at: t)
      }
    }
    return .logStateOfMind(device, app: app.name, spec)
  }

  /// `sees <n> states of mind [of <kind>] [labelled <label>] [about <association>] [with valence above|below <v>]
  /// [classified <class>] [query]`, or `sees no states of mind …` (`count` 0: the words are read already).
  func parseSeesStatesOfMind(_ c: inout Cursor, _ subject: AppExpectation, count known: Int? = nil)
    throws(Diagnostic) -> Expectation
  {
    let count = try c.seesCount(known: known, noun: 3)  // "states of mind"
    var check = StateOfMindCheck()
    while true {
      if c.take("of") {
        check.kind = try c.stateOfMindKind()
      } else if c.take("labelled") || c.take("labeled") {
        check.label = try c.named(stateOfMindLabels, "a label (happy, calm, stressed, …)")
      } else if c.take("about") {
        check.association = try c.named(stateOfMindAssociations, "an association (work, family, health, …)")
      } else if c.take("with", "valence") {
        let above: Bool
        if c.take("above") {
          above = true
        } else {
          try c.expect("below", what: "'above <v>' or 'below <v>'")
          above = false
        }
        check.valence = (above, try c.number())
      } else if c.take("classified") {
        let names = ValenceClassification.allCases.map(\.description)
        let t = try c.word("a valence class (\(names.joined(separator: ", ")))")
        guard let found = ValenceClassification.allCases.first(where: { $0.description.lowercased() == t.keyword })
        else { throw c.error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t) }
        check.classification = found
      } else {
        break
      }
    }
    var query = SampleQuerySpec(app: subject.app.name, type: SpecialObjectStore.stateOfMindType)
    try sampleModifiers(&c, &query)
    try c.finish()
    return .seesStatesOfMind(subject.devices, query, count, check)
  }
}

extension Cursor {
  /// `momentaryEmotion` or `dailyMood`.
  mutating func stateOfMindKind() throws(Diagnostic) -> StateOfMindKind {
    let names = StateOfMindKind.allCases.map(\.description)
    let t = try word("a kind (momentaryEmotion or dailyMood)")
    guard let kind = StateOfMindKind.allCases.first(where: { $0.description.lowercased() == t.keyword }) else {
      throw error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
    }
    return kind
  }

  /// The raw value (1-based position) of one of `names`, written as its Swift case name.
  mutating func named(_ names: [String], _ what: String) throws(Diagnostic) -> Int {
    let t = try word(what)
    guard let index = names.firstIndex(where: { $0.lowercased() == t.keyword }) else {
      throw error(.unknownStatus(t.text, valid: names, suggestion: suggest(t.text, from: names)), at: t)
    }
    return index + 1
  }
}
