import FoundationEssentials
import HealthEngine
import HealthModel

/// A CDA document to save, as `saves CDA document …` writes it: the runner writes the XML.
package struct DocumentSpec: Hashable, Sendable {
  /// `ClinicalDocument/title`.
  package var title: String
  /// `for "<name>"`: the patient ("Jane Appleseed" by default).
  package var patient = "Jane Appleseed"
  /// `by "<name>"`: the author ("Anna Ortiz" by default).
  package var author = "Anna Ortiz"
  /// `from "<name>"`: the custodian organization ("Cupertino Clinic" by default).
  package var custodian = "Cupertino Clinic"
  /// `at <time>`: the `effectiveTime` (nil: now).
  package var date: TimeSpec?
  /// `without custodian`: the document lacks the custodian CDA R2 requires (HealthKit refuses it).
  package var withoutCustodian = false
  /// `as <name>`: a sample name (`deletes <name>`, `turns on <name>`).
  package var name: String?
}

/// `saves CDA document …`, `asks to read CDA documents …` and `sees <n> CDA documents …` (docs/scenario-language.md;
/// behavior.md section O).
extension ParseState {
  /// `saves CDA document "<title>" [for "<patient>"] [by "<author>"] [from "<custodian>"] [at <time>]
  /// [without custodian] [as <name>]`, after `saves CDA document`.
  mutating func parseSaveDocument(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic)
    -> StepKind
  {
    var spec = DocumentSpec(title: try quoted(&c, "the document's title, quoted"))
    while let t = c.peek {
      if c.take("for") {
        spec.patient = try quoted(&c, "the patient's name, quoted")
      } else if c.take("by") {
        spec.author = try quoted(&c, "the author's name, quoted")
      } else if c.take("from") {
        spec.custodian = try quoted(&c, "the custodian's name, quoted")
      } else if c.take("at") {
        spec.date = try c.time()
      } else if c.take("without", "custodian") {
        spec.withoutCustodian = true
      } else if c.take("as") {
        spec.name = try newSampleName(&c)
      } else {
        throw c.error(
          .expected("'for', 'by', 'from', 'at <time>', 'without custodian' or 'as <name>'", found: t.text), at: t)
      }
    }
    return .saveDocument(device, app: app.name, spec)
  }

  /// `asks to read CDA documents [titled "<title>"]`, after `asks to read CDA documents`.
  func parseAskToReadDocuments(_ c: inout Cursor, device: DeviceKind, app: AppDeclaration) throws(Diagnostic)
    -> StepKind
  {
    let title = c.take("titled") ? try quoted(&c, "a title, quoted") : nil
    try c.finish()
    return .requestDocuments(device, app: app.name, title: title)
  }

  /// `sees <n> CDA documents [titled "<title>"] [query]`, or `sees no CDA documents …` (`count` 0: the words are
  /// read already).
  func parseSeesDocuments(_ c: inout Cursor, _ subject: AppExpectation, count known: Int? = nil)
    throws(Diagnostic) -> Expectation
  {
    let count = try c.seesCount(known: known, noun: 2)  // "CDA documents"
    let title = c.take("titled") ? try quoted(&c, "a title, quoted") : nil
    var query = SampleQuerySpec(app: subject.app.name, type: SpecialObjectStore.cdaType)
    try sampleModifiers(&c, &query)
    try c.finish()
    return .seesDocuments(subject.devices, query, count, title: title)
  }

  private func quoted(_ c: inout Cursor, _ what: String) throws(Diagnostic) -> String {
    let t = try c.word(what)
    guard t.quoted else { throw c.error(.expected(what, found: t.text), at: t) }
    return t.text
  }
}
