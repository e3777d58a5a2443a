import Foundation
import HealthEngine
import HealthExport
import HealthModel

/// The key path of a CDA document's title in a predicate format (`title`).
public let HKPredicateKeyPathCDATitle = "title"
/// The key path of a CDA document's patient name (`patient_name`).
public let HKPredicateKeyPathCDAPatientName = "patient_name"
/// The key path of a CDA document's author name (`author_name`).
public let HKPredicateKeyPathCDAAuthorName = "author_name"
/// The key path of a CDA document's custodian name (`custodian_name`).
public let HKPredicateKeyPathCDACustodianName = "custodian_name"
/// The `userInfo` key of a CDA validation error's detail (a string saying what is wrong and where).
public let HKDetailedCDAValidationErrorKey = "HKDetailedCDAValidationErrorKey"

/// A document sample (abstract): HealthKit's one concrete kind is ``HKCDADocumentSample``.
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public class HKDocumentSample: HKSample, @unchecked Sendable {
  /// The sample's document type.
  public var documentType: HKDocumentType { HKDocumentType(.CDA) }
}

/// A CDA document's content and the header fields HealthKit extracted from it.
///
/// Immutable: `@unchecked Sendable`, every property a `let` of a Sendable type.
public final class HKCDADocument: NSObject, @unchecked Sendable {
  /// The XML; nil when the document query asked for summaries (`includeDocumentData: false`).
  public let documentData: Data?
  /// The document's title.
  public let title: String
  /// The patient's name.
  public let patientName: String
  /// The author's name (usually the treating physician).
  public let authorName: String
  /// The custodian's name (usually the treating institution).
  public let custodianName: String

  init(_ document: CDADocument, includeData: Bool) {
    documentData = includeData ? Data(document.data) : nil
    title = document.title
    patientName = document.patientName
    authorName = document.authorName
    custodianName = document.custodianName
  }
}

/// An HL7 CDA R2 document saved to HealthKit (iOS 10; unavailable on watchOS): kept on the iPhone and read object
/// by object (behavior.md O1–O4).
///
/// Immutable: `@unchecked Sendable` for the reason ``HKObject`` gives.
public final class HKCDADocumentSample: HKDocumentSample, @unchecked Sendable {
  /// The document: nil from sample and anchored queries, set by a document query (and on a sample the app made).
  public let document: HKCDADocument?
  /// What the daemon stores (the source is set when it is saved).
  let stored: CDADocument

  /// A document sample of `documentData`, validated as HealthKit does (the XML well-formed, a `ClinicalDocument`
  /// with the header CDA R2 requires, behavior.md O1). When the document has an `effectiveTime`, it is both the
  /// start and the end; `startDate` and `endDate` are used otherwise.
  /// - Throws: ``HKError`` `errorInvalidArgument` (3) with the detail under ``HKDetailedCDAValidationErrorKey``.
  public init(data documentData: Data, start startDate: Date, end endDate: Date, metadata: [String: Any]?) throws {
    let bytes = [UInt8](documentData)
    let header: CDAHeader
    switch CDAReader.read(bytes) {
    case .success(let read): header = read
    case .failure(let invalid):
      throw HKError(
        .errorInvalidArgument, message: invalid.message, details: [HKDetailedCDAValidationErrorKey: invalid.detail])
    }
    let start = header.effectiveTime ?? startDate
    let end = header.effectiveTime ?? endDate
    stored = CDADocument(
      uuid: .fresh(), start: start, end: end, data: bytes, title: header.title, patientName: header.patientName,
      authorName: header.authorName, custodianName: header.custodianName,
      source: SampleSource(bundleID: "", device: .phone))
    document = HKCDADocument(stored, includeData: true)
    super.init(
      uuid: stored.uuid, start: start, end: end, metadata: MetadataPayload(metadata),
      origin: HKSample.unsavedOrigin(HKDocumentType(.CDA)))
  }

  /// The object for a stored document, with its document (its data only when `includeData`) or without.
  init(_ document: CDADocument, content: Bool, includeData: Bool = false) {
    stored = document
    self.document = content ? HKCDADocument(document, includeData: includeData) : nil
    super.init(
      uuid: document.uuid, start: document.start, end: document.end, metadata: .valid(document.metadata),
      origin: SampleOrigin(type: HKDocumentType(.CDA), unit: nil, source: HKSourceRevision(document.source)))
  }

  override var valueDescription: String? { "\"\(stored.title)\"" }

  /// The document as the daemon's save takes it.
  /// - Throws: ``HKSimulatedTermination`` for metadata HealthKit refuses.
  func documentInput(api: String) throws -> CDADocument {
    var document = stored
    document.metadata = try metadataPayload.checked(api: api)
    return document
  }
}

/// Reads CDA documents (iOS 10): it first shows the per-object sheet for the matching documents the app has not
/// been asked about (none when there are none), then returns the documents the app may read, one per call of
/// `resultsHandler` (`done` false), and a last call with no documents and `done` true (behavior.md O2–O3).
public final class HKDocumentQuery: HKQuery, @unchecked Sendable {
  /// The most documents returned; ``HKObjectQueryNoLimit`` (0) for all.
  public let limit: Int
  /// The sort descriptors, as given.
  public let sortDescriptors: [NSSortDescriptor]?
  /// Whether the documents carry their XML (false: the header fields only).
  public let includeDocumentData: Bool
  private let resultsHandler: @Sendable (HKDocumentQuery, [HKDocumentSample]?, Bool, (any Error)?) -> Void

  /// Creates a query; `resultsHandler` receives the documents in batches, or nil, `true` and an error.
  public init(
    documentType: HKDocumentType, predicate: NSPredicate?, limit: Int, sortDescriptors: [NSSortDescriptor]?,
    includeDocumentData: Bool,
    resultsHandler: @escaping @Sendable (HKDocumentQuery, [HKDocumentSample]?, Bool, (any Error)?) -> Void
  ) {
    self.limit = limit
    self.sortDescriptors = sortDescriptors
    self.includeDocumentData = includeDocumentData
    self.resultsHandler = resultsHandler
    super.init(objectType: documentType, predicate: predicate)
  }

  static let api = "HKDocumentQuery"

  override func start(_ session: Session) {
    let type = objectType!
    let filter = filter
    let limit = limit
    let sort = SampleSort.from(sortDescriptors)
    let includeData = includeDocumentData
    deliver({ () async throws -> [CDADocument] in
      let query = try filter.get().sampleQuery(of: type, limit: limit, sort: try sort.get())
      var asking = query
      asking.limit = 0
      asking.sort = []
      try await HKHealthStore.presentSheet(session, .requestPerObjectRead(session.bundleID, asking), api: Self.api)
      return try await session.performAsync(.cdaDocumentQuery(session.bundleID, query), api: Self.api)
    }) { [self] result in
      run.deliver {
        switch result {
        case .success(let documents):
          for document in documents {
            resultsHandler(self, [HKCDADocumentSample(document, content: true, includeData: includeData)], false, nil)
          }
          resultsHandler(self, [], true, nil)
        case .failure(let error): resultsHandler(self, nil, true, error)
        }
      }
    }
  }

  override func fail(_ error: any Error) {
    run.deliver { resultsHandler(self, nil, true, error) }
  }
}
