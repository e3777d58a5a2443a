import FoundationEssentials

/// A field HealthKit extracts from a CDA document's header, with the key path its predicates compare
/// (`HKPredicateKeyPathCDATitle` …).
package enum CDAField: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `ClinicalDocument/title`.
  case title = 0
  /// The patient's name (`recordTarget/patientRole/patient/name`).
  case patientName = 1
  /// The author's name (`author/assignedAuthor/assignedPerson/name`, else the authoring software's).
  case authorName = 2
  /// The custodian organization's name (`custodian/assignedCustodian/representedCustodianOrganization/name`).
  case custodianName = 3

  /// The key path a predicate format names (Apple's values).
  package var description: String {
    switch self {
    case .title: "title"
    case .patientName: "patient_name"
    case .authorName: "author_name"
    case .custodianName: "custodian_name"
    }
  }
}

/// A CDA document sample (`HKCDADocumentSample`, iOS 10): an HL7 CDA R2 XML document an app saved, with the header
/// fields HealthKit extracted from it. Kept on the iPhone (the class is unavailable on watchOS).
package struct CDADocument: Hashable, Sendable {
  /// The sample's identifier.
  package var uuid: UUID
  /// Its start: the document's `effectiveTime` when it has one, else the date the app gave.
  package var start: Date
  /// Its end (equal to the start when the document has an `effectiveTime`).
  package var end: Date
  /// The XML, as saved.
  package var data: [UInt8]
  /// The extracted title ("" when the document has none).
  package var title: String
  /// The extracted patient's name.
  package var patientName: String
  /// The extracted author's name.
  package var authorName: String
  /// The extracted custodian's name.
  package var custodianName: String
  /// The sample's metadata.
  package var metadata: Metadata
  /// The app and device that saved it.
  package var source: SampleSource

  /// Creates a document sample.
  package init(
    uuid: UUID, start: Date, end: Date, data: [UInt8], title: String, patientName: String, authorName: String,
    custodianName: String, metadata: Metadata = [:], source: SampleSource
  ) {
    self.uuid = uuid
    self.start = start
    self.end = end
    self.data = data
    self.title = title
    self.patientName = patientName
    self.authorName = authorName
    self.custodianName = custodianName
    self.metadata = metadata
    self.source = source
  }

  /// The value of one extracted field.
  package func value(of field: CDAField) -> String {
    switch field {
    case .title: title
    case .patientName: patientName
    case .authorName: authorName
    case .custodianName: custodianName
    }
  }

  /// The most bytes a document may hold.
  package static let maxDataSize = 4 << 20
  /// The longest extracted field.
  package static let maxFieldLength = 4096

  /// Checks what HealthKit's object checks would (the XML itself is validated when the object is made, by
  /// HealthKitSim): dates in order, data present and within ``maxDataSize``, fields within ``maxFieldLength``,
  /// metadata values a sample may carry.
  /// - Throws: `wouldTerminate` for dates out of order; `errorInvalidArgument` for the rest.
  package func validate() throws(HealthError) {
    try checkObjectDates(start, end, "HKCDADocumentSample")
    try SampleType.lookup(name: "CDA")!.descriptor.checkDuration(start, end)
    guard !data.isEmpty else {
      throw .healthKit(.errorInvalidArgument, "HKCDADocumentSample has no document data and can not be saved")
    }
    guard data.count <= Self.maxDataSize else {
      throw .healthKit(.errorInvalidArgument, "a CDA document of \(data.count) bytes (at most \(Self.maxDataSize))")
    }
    for field in CDAField.allCases where value(of: field).utf8.count > Self.maxFieldLength {
      throw .healthKit(.errorInvalidArgument, "a CDA \(field) longer than \(Self.maxFieldLength) bytes")
    }
    try metadata.checkValues()
  }
}
