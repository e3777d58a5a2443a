import FoundationEssentials
import HealthEngine
import HealthModel

/// A health record a provider sends, as `the provider sends …` writes it.
package struct ClinicalRecordSpec: Hashable, Sendable {
  /// The clinical type it is filed under.
  package var type: SampleType
  /// The name the Health app shows.
  package var displayName: String
  /// The FHIR resource type.
  package var resourceType: String
  /// `from "<provider>"` (nil: a default provider).
  package var provider: String?
  /// `fails [with "<text>"]`: the delivery must be refused; nil when it must succeed.
  package var failure: String?
}

/// `the provider sends …` and `sees <n> <clinical type> records …` (docs/scenario-language.md; behavior.md F).
extension ParseState {
  /// `sends <clinical type> "<display name>" as <FHIR type> [from "<provider>"] [fails [with "<text>"]]`, after
  /// `<device>: the provider`.
  func parseProviderSends(_ c: inout Cursor, device: DeviceKind) throws(Diagnostic) -> StepKind {
    let typeToken = c.peek
    let type = try c.type()
    guard type.descriptor.objectKind == .clinicalRecord else {
      throw c.error(
        .expected("a clinical type (allergyRecord, labResultRecord, …)", found: typeToken?.text), at: typeToken)
    }
    let name = try c.word("the record's display name, quoted")
    guard name.quoted else { throw c.error(.expected("a quoted display name", found: name.text), at: name) }
    try c.expect("as", what: "'as <FHIR resource type>' (Observation, AllergyIntolerance, …)")
    let resource = try c.word("a FHIR resource type")
    guard ClinicalRecord.resourceTypes.contains(resource.text) else {
      throw c.error(
        .unknownStatus(
          resource.text, valid: ClinicalRecord.resourceTypes,
          suggestion: suggest(resource.text, from: ClinicalRecord.resourceTypes)), at: resource)
    }
    var spec = ClinicalRecordSpec(type: type, displayName: name.text, resourceType: resource.text)
    if c.take("from") { spec.provider = try c.word("the provider's name, quoted").text }
    if c.take("fails") {
      spec.failure = ""
      if c.take("with") { spec.failure = try c.word("a quoted part of the error message").text }
    }
    try c.finish()
    return .providerSends(device, spec)
  }

  /// `sees <n> <clinical type> records [of <FHIR type>] [query]`, or `sees no <clinical type> records …`.
  func parseSeesClinicalRecords(_ c: inout Cursor, _ subject: AppExpectation) throws(Diagnostic) -> Expectation {
    var count = 0
    if !c.take("no") {
      count = try c.integer()
      guard count >= 0 else { throw c.error(.invalidNumber(String(count)), at: c.line.tokens[c.index - 1]) }
    }
    let type = try c.type()
    c.index += 1  // "records"
    var resource: String?
    if c.take("of") { resource = try c.word("a FHIR resource type").text }
    var query = SampleQuerySpec(app: subject.app.name, type: type)
    try sampleModifiers(&c, &query)
    try c.finish()
    return .seesClinicalRecords(subject.devices, query, count, resourceType: resource)
  }

  /// Whether the line reads `<n>|no <clinical type> records|record`.
  static func isClinicalRecordsForm(_ c: Cursor) -> Bool {
    guard let t = c.peek, Int(t.text) != nil || t.keyword == "no", c.line.tokens.count > c.index + 2,
      Cursor.sampleType(c.line.tokens[c.index + 1])?.descriptor.objectKind == .clinicalRecord
    else { return false }
    return ["records", "record"].contains(c.line.tokens[c.index + 2].keyword)
  }
}
