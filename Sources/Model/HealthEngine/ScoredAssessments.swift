import FoundationEssentials
import HealthModel

/// `DeviceState`: scored assessments (GAD-7, PHQ-9) — saved by apps with share permission for their type, synced to
/// the other device, read with read permission, deleted by the app that saved them (behavior.md N1–N3).
extension DeviceState {
  /// `save(_:)` of `HKGAD7Assessment`s and `HKPHQ9Assessment`s, all or nothing: each validated
  /// (``ScoredAssessmentInput/validated(source:)``), share permission for each one's type, new identifiers, inside
  /// the retention window, the device unlocked.
  /// - Throws: what the save's completion would receive; `wouldTerminate` for what a device raises on.
  package mutating func saveScoredAssessments(_ bundleID: String, _ inputs: [ScoredAssessmentInput], wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    _ = try installedAppRecord(bundleID)
    guard !inputs.isEmpty else { throw .healthKit(.errorInvalidArgument, "Nothing to save") }
    let source = SampleSource(bundleID: bundleID, device: device)
    var assessments: [ScoredAssessment] = []
    for input in inputs { assessments.append(try input.validated(source: source)) }
    for kind in AssessmentKind.allCases {
      let ofKind = assessments.filter { $0.kind == kind }
      guard !ofKind.isEmpty else { continue }
      try requireShelvable(
        bundleID, ofKind, SpecialObjectStore.assessmentType(kind), what: "\(kind) assessments", wall: wall)
    }
    guard Set(assessments.map(\.uuid)).count == assessments.count else {
      throw .healthKit(.errorInvalidArgument, "An object is listed twice in one save")
    }
    return commitEvents([.scoredAssessmentsSaved(assessments)])
  }

  /// `HKSampleQuery` of an `HKScoredAssessmentType`: the assessments of that kind the app may see (R1–R5: a denied
  /// read sees only its own), inside the retention window, matching the range, sources and filter, sorted by date
  /// and limited.
  package func scoredAssessmentQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError)
    -> [ScoredAssessment]
  {
    guard query.type.descriptor.objectKind == .scoredAssessment else {
      throw .healthKit(.errorInvalidArgument, "\(query.type.identifier) is not a scored assessment type")
    }
    try workoutQueryable(bundleID, query.type, expected: query.type, range: query.range, limit: query.limit)
    try requireDateSort(query.sort, query.type)
    let candidates = shelvedCandidates(ScoredAssessment.self) { $0.objectType == query.type }
    return select(candidates, bundleID, query, wall: wall) { assessment, filter in filter.matches(assessment) }
  }
}

extension SampleFilter {
  /// Whether `assessment` passes the filter: every condition a sample without a value of its own passes
  /// (identifiers, dates, sources, metadata, devices); value, quantity and other families' conditions match none.
  package func matches(_ assessment: ScoredAssessment) -> Bool {
    switch self {
    case .and(let parts): return parts.allSatisfy { $0.matches(assessment) }
    case .or(let parts): return parts.contains { $0.matches(assessment) }
    case .not(let part): return !part.matches(assessment)
    case .value, .quantity, .workoutActivityType, .workoutDuration, .workoutStatistic, .workoutActivity,
      .associatedWith, .electrocardiogram, .fhirResource, .stateOfMindValence, .stateOfMind, .cdaField,
      .medication:
      return false
    case .constant, .dates, .sources, .uuids, .metadata, .device, .date, .notInCorrelation:
      return matches(
        Sample(
          uuid: assessment.uuid, type: assessment.objectType, value: .quantity(.nan), start: assessment.date,
          end: assessment.date, metadata: assessment.metadata, source: assessment.source))
    }
  }
}
