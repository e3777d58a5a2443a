import FoundationEssentials
import HealthModel

/// `DeviceState`: CDA documents — saved by apps with share permission on the iPhone (the watch has none), kept
/// there, and read object by object: an app reads its own documents and those the user turned on for it on the
/// sheet a document query shows for the documents it has not been asked about (behavior.md O1–O4).
extension DeviceState {
  /// `save(_:)` of `HKCDADocumentSample`s, all or nothing: on the iPhone only, each valid
  /// (``CDADocument/validate()``), share permission for the type, new identifiers, the device unlocked. The source
  /// is the app on this device, whatever `documents` say.
  /// - Throws: what the save's completion would receive (`errorHealthDataRestricted` on the watch); `wouldTerminate`
  ///   for what a device raises on.
  package mutating func saveCDADocuments(_ bundleID: String, _ documents: [CDADocument], wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    _ = try installedAppRecord(bundleID)
    guard !documents.isEmpty else { throw .healthKit(.errorInvalidArgument, "Nothing to save") }
    guard device == .phone else {
      throw .healthKit(.errorHealthDataRestricted, "CDA documents are not available on this device")
    }
    let source = SampleSource(bundleID: bundleID, device: device)
    var stored: [CDADocument] = []
    for var document in documents {
      try document.validate()
      document.source = source
      stored.append(document)
    }
    try requireShelvable(bundleID, stored, SpecialObjectStore.cdaType, what: "CDA documents", wall: wall)
    return commitEvents([.cdaDocumentsSaved(stored)])
  }

  /// Whether `bundleID` may read the per-object object `uuid` saved by `source` (a prescription or a CDA document of
  /// `type`): the user's choice for it, else whether the app saved it and may still share the type (V3–V4, O3).
  func mayReadObject(_ bundleID: String, _ uuid: UUID, _ source: SampleSource, _ type: SampleType) -> Bool {
    if let choice = specialObjects.objectReadChoices[bundleID]?[uuid] { return choice }
    return source.bundleID == bundleID && decision(bundleID, Permission(type, .share)) == .authorized
  }

  /// `HKDocumentQuery` and `HKSampleQuery` of `HKDocumentType(.CDA)`: the documents the app may read
  /// (``mayReadObject(_:_:_:_:)``; no type-level read decision is needed), matching the range, sources and filter
  /// (the CDA header fields included), sorted by date and limited.
  package func cdaDocumentQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError)
    -> [CDADocument]
  {
    try requireObjectQuery(
      bundleID, query, of: SpecialObjectStore.cdaType, refusal: "[\(query.type.identifier)] Unsupported document type")
    let candidates = shelvedCandidates(CDADocument.self) { mayReadObject(bundleID, $0.uuid, $0.source, $0.objectType) }
    return select(candidates, bundleID, query, wall: wall, everyCandidateVisible: true) { document, filter in
      filter.matches(document)
    }
  }

  /// The sheet an `HKDocumentQuery` shows first: the stored documents matching `range` and `filter` that the app
  /// has not been asked about and does not read as their author, in date order — or none (the query goes on) when
  /// there are none (O2). On a locked iPhone the query fails with `errorDatabaseInaccessible`, as its reading would.
  mutating func documentReadSheet(
    _ bundleID: String, _ type: SampleType, range: DateRange?, filter: SampleFilter?, wall: Date
  ) -> RequestOutcome {
    do { try requireProtectedData() } catch {
      return .completed(AuthorizationCallResult(success: false, error: error))
    }
    let asked = specialObjects.objectReadChoices[bundleID] ?? [:]
    let listed = specialObjects.cdaDocuments.entries.values.map(\.value).filter { document in
      asked[document.uuid] == nil && !mayReadObject(bundleID, document.uuid, document.source, type)
        && (range?.matches(
          start: document.start.timeIntervalSinceReferenceDate, end: document.end.timeIntervalSinceReferenceDate)
          ?? true)
        && (filter.map { $0.matches(document) } ?? true)
    }.sorted { ($0.start, $0.uuid.uuidString) < ($1.start, $1.uuid.uuidString) }
    guard !listed.isEmpty else { return .completed(.succeeded) }
    return .prompt(presentObjectSheet(bundleID, type, listed.map(\.uuid), wall: wall))
  }
}

extension SampleFilter {
  /// Whether `document` passes the filter: the CDA header conditions, and every condition a sample without a value
  /// of its own passes; other families' conditions match none.
  package func matches(_ document: CDADocument) -> Bool {
    switch self {
    case .cdaField(let field, let text): return document.value(of: field) == text
    case .and(let parts): return parts.allSatisfy { $0.matches(document) }
    case .or(let parts): return parts.contains { $0.matches(document) }
    case .not(let part): return !part.matches(document)
    case .value, .quantity, .workoutActivityType, .workoutDuration, .workoutStatistic, .workoutActivity,
      .associatedWith, .electrocardiogram, .stateOfMindValence, .stateOfMind, .fhirResource, .medication:
      return false
    case .constant, .dates, .sources, .uuids, .metadata, .device, .date, .notInCorrelation:
      return matches(
        Sample(
          uuid: document.uuid, type: document.objectType, value: .quantity(.nan), start: document.start,
          end: document.end, metadata: document.metadata, source: document.source))
    }
  }
}
