import FoundationEssentials
import HealthEngine
import HealthModel

/// A medication the user adds, as `user on phone: adds medication "<text>" …` writes it.
package struct MedicationSpec: Hashable, Sendable {
  /// The concept's display text.
  package var displayText: String
  /// The concept identifier: `concept "<id>"`, else the display text lowercased.
  package var conceptID: String
  /// `form <form>` (`HKMedicationGeneralForm`'s raw value; nil: tablet).
  package var form: String?
  /// `nickname "<text>"`.
  package var nickname: String?
  /// `scheduled`: the medication has a schedule.
  package var hasSchedule = false
  /// `archived`: the user archived it.
  package var isArchived = false
  /// `as <name>`: the name later steps use (`logs a dose of <name>`, `turns on <name>`).
  package var name: String?
  /// `fails [with "<text>"]`: the addition must be refused; nil when it must succeed.
  package var failure: String?
}

/// A dose the user logs, as `user on <device>: logs a dose of <name> …` writes it.
package struct DoseSpec: Hashable, Sendable {
  /// The medication's name (`as <name>` of its `adds medication`).
  package var medication: String
  /// The medication's concept identifier.
  package var conceptID: String
  /// `taken|skipped|snoozed|…` (`HKMedicationDoseEvent.LogStatus`; default taken).
  package var status: DoseLogStatus = .taken
  /// `at <time>` (nil: the device's time).
  package var at: TimeSpec?
  /// `scheduled for <time>`: a scheduled dose (nil: as needed).
  package var scheduled: TimeSpec?
  /// `amount <n>`: the dose taken.
  package var amount: Double?
  /// `fails [with "<text>"]`: the log must be refused; nil when it must succeed.
  package var failure: String?
}

/// What `<App> sees <n> medications …` and `<App> sees <n> dose events …` filter by.
package struct MedicationCheck: Hashable, Sendable {
  /// `archived` / `not archived`.
  package var archived: Bool?
  /// `scheduled` / `not scheduled`.
  package var scheduled: Bool?
  /// `of <name>`: the concept identifier of the medication whose doses are counted.
  package var medication: String?
  /// `taken|skipped|…`: the doses with this status.
  package var status: DoseLogStatus?

  /// Checks only the count.
  package init() {}
}

/// The medications family's steps: the user's `adds medication …` and `logs a dose of …`, an app's
/// `asks to read medications`, and the `sees <n> medications|dose events` expectations (docs/scenario-language.md;
/// behavior.md section Z).
extension ParseState {
  /// `adds medication "<text>" [concept "<id>"] [form <form>] [nickname "<text>"] [scheduled] [archived]
  /// [as <name>] [fails [with "<text>"]]`, after `user on <device>:`.
  mutating func parseAddMedication(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    let text = try c.word("the medication's display text, quoted")
    guard text.quoted else { throw c.error(.expected("a quoted display text", found: text.text), at: text) }
    var spec = MedicationSpec(displayText: text.text, conceptID: text.text.lowercased())
    while let t = c.peek {
      if c.take("concept") {
        spec.conceptID = try c.word("a concept identifier, quoted").text
      } else if c.take("form") {
        let form = try c.word("a general form")
        guard Medication.generalForms.contains(form.text) else {
          let valid = Medication.generalForms.sorted()
          throw c.error(
            .unknownStatus(form.text, valid: valid, suggestion: suggest(form.text, from: valid)), at: form)
        }
        spec.form = form.text
      } else if c.take("nickname") {
        spec.nickname = try c.word("a nickname, quoted").text
      } else if c.take("scheduled") {
        spec.hasSchedule = true
      } else if c.take("archived") {
        spec.isArchived = true
      } else if c.take("as") {
        spec.name = try newSampleName(&c)
      } else if c.take("fails") {
        spec.failure = c.take("with") ? try c.word("a quoted part of the error message").text : ""
      } else {
        throw c.error(
          .expected(
            "'concept \"<id>\"', 'form <form>', 'nickname \"<text>\"', 'scheduled', 'archived', 'as <name>' or "
              + "'fails'", found: t.text), at: t)
      }
    }
    if let name = spec.name { medicationConcepts[name] = spec.conceptID }
    return .addMedication(device, spec)
  }

  /// `logs a dose of <name> [<status>] [at <time>] [scheduled for <time>] [amount <n>] [fails [with "<text>"]]`,
  /// after `user on <device>:`.
  func parseLogDose(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    let medication = try c.medicationName()
    var spec = DoseSpec(medication: medication, conceptID: medicationConcepts[medication] ?? medication)
    while let t = c.peek {
      if let status = DoseLogStatus(name: t.text) {
        c.index += 1
        spec.status = status
      } else if c.take("at") {
        spec.at = try c.time()
      } else if c.take("scheduled", "for") {
        spec.scheduled = try c.time()
      } else if c.take("amount") {
        let token = c.peek
        let amount = try c.number()
        guard amount > 0 else { throw c.error(.expected("a positive amount", found: token?.text), at: token) }
        spec.amount = amount
      } else if c.take("fails") {
        spec.failure = c.take("with") ? try c.word("a quoted part of the error message").text : ""
      } else {
        let statuses = DoseLogStatus.allCases.map(\.description).joined(separator: "|")
        throw c.error(
          .expected("'\(statuses)', 'at <time>', 'scheduled for <time>', 'amount <n>' or 'fails'", found: t.text),
          at: t)
      }
    }
    return .logDose(device, spec)
  }

  /// `sees <n> medications [archived|not archived] [scheduled|not scheduled]` or `sees no medications …` (`count`
  /// 0: the words are read already).
  func parseSeesMedications(_ c: inout Cursor, _ subject: AppExpectation, count known: Int? = nil)
    throws(Diagnostic) -> Expectation
  {
    let count = try c.seesCount(known: known, noun: 1)  // "medications"
    var check = MedicationCheck()
    while let t = c.peek {
      let negated = c.take("not")
      if c.take("archived") {
        check.archived = !negated
      } else if c.take("scheduled") {
        check.scheduled = !negated
      } else {
        throw c.error(.expected("'archived', 'scheduled' or 'not …'", found: c.peek?.text ?? t.text), at: c.peek)
      }
    }
    return .seesMedications(subject.devices, app: subject.app.name, count, check)
  }

  /// `sees <n> dose events [of <name>] [<status>] [query]` or `sees no dose events …`.
  func parseSeesDoses(_ c: inout Cursor, _ subject: AppExpectation, count known: Int? = nil)
    throws(Diagnostic) -> Expectation
  {
    let count = try c.seesCount(known: known, noun: 2)  // "dose events"
    var check = MedicationCheck()
    if c.take("of") { check.medication = medicationConcepts[try c.medicationName()] }
    if let t = c.peek, let status = DoseLogStatus(name: t.text) {
      c.index += 1
      check.status = status
    }
    var query = SampleQuerySpec(app: subject.app.name, type: SpecialObjectStore.medicationDoseEventType)
    try sampleModifiers(&c, &query)
    try c.finish()
    return .seesDoses(subject.devices, query, count, check)
  }
}

extension Cursor {
  /// A name an `adds medication … as <name>` gave.
  mutating func medicationName() throws(Diagnostic) -> String {
    let t = try word("a medication's name")
    guard state.medicationConcepts[t.text] != nil else {
      let known = state.medicationConcepts.keys.sorted()
      throw error(.unknownSampleName(t.text, suggestion: suggest(t.text, from: known)), at: t)
    }
    return t.text
  }
}
