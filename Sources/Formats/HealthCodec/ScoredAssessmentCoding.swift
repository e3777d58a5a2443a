import FoundationEssentials
import HealthEngine
import HealthModel

// Binary encodings of scored assessments, shared by the wire protocol, the journal and snapshots (docs/journal.md).
//
// assessment-input := uuid | kind i64 | date | answers [i64] | metadata
// assessment       := assessment-input's fields | source   (kind 1 GAD-7 or 2 PHQ-9, its number of answers, each
//                     in range: a reader refuses anything else)
// assessments      := u8 5 | [assessment, change u64] | [cda-document, change u64] | [bundle string, choices]
//                     (a snapshot's trailing section after the prescriptions section, written only when an
//                     assessment or a CDA document is stored; the choices are those of documents, the
//                     prescriptions section holding the others; absent: none)

/// The smallest encoded assessment input: no answers or metadata.
package let minimumScoredAssessmentInputSize = 16 + 8 + 8 + 4 + 4
/// The smallest encoded stored assessment: seven answers, the shortest source.
package let minimumScoredAssessmentSize = minimumScoredAssessmentInputSize + 7 * 8 + 5

extension BinaryWriter {
  /// An assessment as an app saves it (layout above).
  package mutating func scoredAssessmentInput(_ a: ScoredAssessmentInput) {
    uuid(a.uuid)
    i64(Int64(a.kind))
    date(a.date)
    array(a.answers) { $0.i64(Int64($1)) }
    metadata(a.metadata)
  }

  /// A stored assessment (layout above).
  package mutating func scoredAssessment(_ a: ScoredAssessment) {
    scoredAssessmentInput(a.input)
    source(a.source)
  }

  /// A snapshot's trailing assessments section, when one is stored (layout above).
  package mutating func assessmentsSection(_ store: SpecialObjectStore) {
    guard !store.hasNoAssessmentsOrDocuments else { return }
    u8(5)
    entries(store.scoredAssessments.ordered) { $0.scoredAssessment($1) }
    entries(store.cdaDocuments.ordered) { $0.cdaDocument($1) }
    objectChoicesList(store.objectReadChoices, of: store.cdaDocuments.contains)
  }
}

extension BinaryReader {
  /// Reads an assessment as an app sends it (numbers as sent, within Int32's range: the device validates them).
  package mutating func scoredAssessmentInput() throws(DecodeError) -> ScoredAssessmentInput {
    func small(_ r: inout BinaryReader) throws(DecodeError) -> Int {
      let v = try r.i64()
      guard v.magnitude <= 1 << 31 else { throw r.error("scored assessment value \(v) out of range") }
      return Int(v)
    }
    let uuid = try uuid()
    let kind = try small(&self)
    let date = try finiteDate("scored assessment date")
    let answers = try array(minElementSize: 8) { r throws(DecodeError) in try small(&r) }
    return ScoredAssessmentInput(
      uuid: uuid, kind: kind, date: date, answers: answers, metadata: try metadata(finite: true))
  }

  /// Reads a stored assessment: one ``ScoredAssessmentInput/validated(source:)`` accepts.
  package mutating func scoredAssessment() throws(DecodeError) -> ScoredAssessment {
    let start = offset
    let input = try scoredAssessmentInput()
    let source = try source()
    do { return try input.validated(source: source) } catch {
      throw DecodeError(offset: reportBase + start, "scored assessment \(input.uuid) is not valid: \(error.message)")
    }
  }

  /// Reads a snapshot's assessments section after its tag into `store`, whose other shelves are read already.
  /// - Throws: ``DecodeError`` for a malformed list or an identifier another family holds.
  package mutating func assessmentsSection(into store: inout SpecialObjectStore, changeCounter: UInt64)
    throws(DecodeError)
  {
    let assessments = try entries(minValueSize: minimumScoredAssessmentSize) { r throws(DecodeError) in
      try r.scoredAssessment()
    }
    let documents = try entries(minValueSize: minimumCDADocumentSize) { r throws(DecodeError) in try r.cdaDocument() }
    var choices = store.objectReadChoices
    for (app, chosen) in try objectChoicesList() {
      choices[app, default: [:]].merge(chosen) { _, new in new }
    }
    do {
      store = try SpecialObjectStore(
        restoring: store.electrocardiograms.ordered, audiograms: store.audiograms.ordered,
        statesOfMind: store.statesOfMind.ordered, clinicalRecords: store.clinicalRecords.ordered,
        visionPrescriptions: store.visionPrescriptions.ordered, objectReadChoices: choices,
        scoredAssessments: assessments, cdaDocuments: documents, changeCounter: changeCounter)
    } catch {
      throw self.error(error.message)
    }
  }
}

extension Fields {
  /// `[assessment]`.
  static let scoredAssessments = RecordField<[ScoredAssessment]>(
    write: { w, assessments in w.array(assessments) { $0.scoredAssessment($1) } },
    read: { r throws(DecodeError) in
      try r.array(minElementSize: minimumScoredAssessmentSize) { r throws(DecodeError) in try r.scoredAssessment() }
    })
}
