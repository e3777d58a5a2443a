import FoundationEssentials
import HealthModel

/// `DeviceState`: clinical records — downloaded to the iPhone from a provider (the user's world, never an app's
/// save), kept on the iPhone (the watch has no Health Records), read by apps with the Health Records entitlement and
/// read permission for the record's clinical type (behavior.md F1–F3).
extension DeviceState {
  /// The provider's records arrive on this iPhone (F1): each valid (``ClinicalRecord/validate()``) with a new
  /// identifier; its source is the Health app on this device, named for the provider.
  /// - Throws: a simulator error on the watch, or for an invalid or known record.
  package mutating func receiveClinicalRecords(_ records: [ClinicalRecord]) throws(HealthError) -> [DeviceEvent] {
    guard device == .phone else {
      throw .simulator("Health Records are downloaded to the iPhone; the watch keeps none")
    }
    guard !records.isEmpty else { throw .simulator("no record to receive") }
    var seen: Set<UUID> = []
    for record in records {
      try record.validate()
      guard record.source.bundleID == ClinicalRecord.downloaderBundleID, record.source.device == device else {
        throw .simulator("a record's source is the Health app (\(ClinicalRecord.downloaderBundleID)) on the iPhone")
      }
      try requireNewIdentifier(record.uuid, &seen)
    }
    return commitEvents([.clinicalRecordsReceived(records)])
  }

  /// Stages the clinical records of an import (stored at its commit); the watch, which keeps none, leaves them out
  /// (F3).
  /// - Throws: a simulator error for identifier 0, a locked device or a bad source; `errorInvalidArgument` for an
  ///   invalid record.
  package mutating func stageImportClinicalRecords(_ id: UInt64, _ records: [ClinicalRecord]) throws(HealthError)
    -> [DeviceEvent]
  {
    try checkImportShelved(id, records, what: "clinical record") { record throws(HealthError) in try record.validate() }
    // The watch stages none, but the import is staged (its commit may hold nothing else).
    return commitEvents([.importClinicalRecordsStaged(id: id, device == .phone ? records : [])])
  }

  /// Every stored clinical record, in change order (exports, tests).
  package func storedClinicalRecords() -> [ClinicalRecord] { specialObjects.clinicalRecords.ordered.map(\.value) }

  /// `HKSampleQuery` of an `HKClinicalType`: the records of that type the app may read (R1–R5: a denied read sees
  /// none, as no app is their source), matching the range, sources and filter (`predicateForClinicalRecords…`
  /// included), sorted by date and limited.
  /// - Throws: `errorInvalidArgument` for a type that is not clinical; as any query for the rest.
  package func clinicalRecordQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError)
    -> [ClinicalRecord]
  {
    guard query.type.descriptor.objectKind == .clinicalRecord else {
      throw .healthKit(.errorInvalidArgument, "\(query.type.identifier) is not a clinical type")
    }
    try workoutQueryable(bundleID, query.type, expected: query.type, range: query.range, limit: query.limit)
    try requireDateSort(query.sort, query.type)
    let candidates = shelvedCandidates(ClinicalRecord.self) { $0.type == query.type }
    return select(candidates, bundleID, query, wall: wall) { record, filter in filter.matches(record) }
  }
}

extension SampleFilter {
  /// Whether `record` passes the filter: the FHIR conditions, and every condition a sample without a value of its
  /// own passes; other families' conditions match none.
  package func matches(_ record: ClinicalRecord) -> Bool {
    switch self {
    case .fhirResource(let type, let identifier):
      return record.resourceType == type && (identifier.map { $0 == record.identifier } ?? true)
    case .and(let parts): return parts.allSatisfy { $0.matches(record) }
    case .or(let parts): return parts.contains { $0.matches(record) }
    case .not(let part): return !part.matches(record)
    case .value, .quantity, .workoutActivityType, .workoutDuration, .workoutStatistic, .workoutActivity,
      .associatedWith, .electrocardiogram, .stateOfMindValence, .stateOfMind, .cdaField, .medication:
      return false
    case .constant, .dates, .sources, .uuids, .metadata, .device, .date, .notInCorrelation:
      return matches(
        Sample(
          uuid: record.uuid, type: record.type, value: .quantity(.nan), start: record.date, end: record.date,
          metadata: [:], source: record.source))
    }
  }
}
