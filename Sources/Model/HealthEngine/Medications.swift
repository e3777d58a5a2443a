import FoundationEssentials
import HealthModel

/// `DeviceState`: medications and their dose events (iOS 26) — added and logged by the user in the Health app (the
/// Medications app on the watch), never by an app; synced between the devices; read object by object: an app reads
/// the medications the user turned on for it on the iPhone's per-object sheet, and the dose events of those
/// medications (behavior.md section Z).
extension DeviceState {
  /// The bundle identifier of the apps the user adds and logs medications with (the Health app; on the watch its
  /// Medications app, recorded under the same identifier with the watch as device: a HealthPair model).
  package static let medicationsAppBundleID = "com.apple.Health"

  /// The user adds `medications` in the iPhone's Health app: each valid, its concept not added yet; stored with
  /// the Health app as source and sent to the watch.
  /// - Throws: a simulator error on the watch or a locked iPhone; `errorInvalidArgument` for an invalid medication
  ///   or a concept already added.
  package mutating func addMedications(_ medications: [Medication], wall: Date) throws(HealthError) -> [DeviceEvent] {
    guard device == .phone else {
      throw .simulator("medications are added in the iPhone's Health app; the watch gets them by sync")
    }
    guard !isLocked else { throw .simulator("the iPhone is locked: unlock it before the user adds a medication") }
    guard !medications.isEmpty else { throw .healthKit(.errorInvalidArgument, "Nothing to add") }
    var stored: [Medication] = []
    var seen: Set<UUID> = []
    for var medication in medications {
      try medication.validate()
      guard !isKnownObject(medication.uuid), seen.insert(medication.uuid).inserted else {
        throw .healthKit(.errorInvalidArgument, "the medication '\(medication.conceptID)' is added already")
      }
      medication.source = SampleSource(bundleID: Self.medicationsAppBundleID, device: device)
      stored.append(medication)
    }
    return commitEvents([.medicationsAdded(stored)])
  }

  /// The user logs `doses` in the Health app (iPhone) or the Medications app (watch): each valid, of a
  /// medication stored here, with a new identifier, inside the retention window, the device unlocked; stored with
  /// that app as source and sent to the other device.
  /// - Throws: a simulator error on a locked device or for a medication not stored here; `errorInvalidArgument` for
  ///   an invalid event, a known identifier or a date before the retention window.
  package mutating func logMedicationDoses(_ doses: [MedicationDoseEvent], wall: Date) throws(HealthError)
    -> [DeviceEvent]
  {
    guard !isLocked else { throw .simulator("the \(device) is locked: unlock it before the user logs a dose") }
    guard !doses.isEmpty else { throw .healthKit(.errorInvalidArgument, "Nothing to log") }
    var stored: [MedicationDoseEvent] = []
    var seen: Set<UUID> = []
    for var dose in doses {
      try dose.validate()
      guard specialObjects.medications.contains(Medication.identifier(for: dose.conceptID)) else {
        throw .simulator("no medication '\(dose.conceptID)' is on the \(device): add it first (or let it sync)")
      }
      try requireNewIdentifier(dose.uuid, &seen)
      try requireInsideRetention(dose.uuid, end: dose.end, wall: wall)
      dose.source = SampleSource(bundleID: Self.medicationsAppBundleID, device: device)
      stored.append(dose)
    }
    return commitEvents([.medicationDosesLogged(stored)])
  }

  /// Applies the peer's dose events: those of a medication stored here (a dose never exists without its
  /// medication, which a snapshot's restore checks); the others are dropped.
  mutating func applyPeerDoses(_ doses: [MedicationDoseEvent], floor: Date?) {
    applyPeerShelved(
      doses.filter { specialObjects.medications.contains(Medication.identifier(for: $0.conceptID)) }, floor: floor)
  }

  /// Whether `bundleID` may read `medication`: the user turned it on for the app on a per-object sheet.
  package func mayRead(_ bundleID: String, _ medication: Medication) -> Bool {
    specialObjects.objectReadChoices[bundleID]?[medication.uuid] == true
  }

  /// Whether `bundleID` may read the dose events of the medication with concept `conceptID`.
  func mayReadDoses(_ bundleID: String, of conceptID: String) -> Bool {
    specialObjects.objectReadChoices[bundleID]?[Medication.identifier(for: conceptID)] == true
  }

  /// `HKUserAnnotatedMedicationQuery`: the medications the app may read (``mayRead(_:_:)``), matching the query's
  /// filter (archived, scheduled, concept), in the order they were added, limited.
  /// - Throws: `errorInvalidArgument` for another type or a negative limit; `errorDatabaseInaccessible` when
  ///   locked.
  package func medicationQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError)
    -> [Medication]
  {
    try requireObjectQuery(
      bundleID, query, of: SpecialObjectStore.medicationType, sorted: false,
      refusal: "\(query.type.identifier) cannot be read with a medication query")
    var found = specialObjects.medications.ordered.map(\.value).filter { medication in
      mayRead(bundleID, medication) && (query.filter.map { $0.matches(medication) } ?? true)
    }
    if query.limit > 0, found.count > query.limit { found.removeLast(found.count - query.limit) }
    return found
  }

  /// `HKSampleQuery` of `HKMedicationDoseEventType`: the dose events of the medications the app may read (no
  /// type-level read decision is needed), inside the retention window, matching the range, sources and filter,
  /// sorted by date and limited.
  package func medicationDoseQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError)
    -> [MedicationDoseEvent]
  {
    try requireObjectQuery(
      bundleID, query, of: SpecialObjectStore.medicationDoseEventType,
      refusal: "\(query.type.identifier) is not the medication dose event type")
    let candidates = shelvedCandidates(MedicationDoseEvent.self) { mayReadDoses(bundleID, of: $0.conceptID) }
    return select(candidates, bundleID, query, wall: wall, everyCandidateVisible: true) { dose, filter in
      filter.matches(dose)
    }
  }

  /// The per-object sheet of `requestPerObjectReadAuthorization(for: userAnnotatedMedicationType(), predicate:)`:
  /// every stored medication the filter matches, in the order they were added, presented on every call.
  mutating func medicationReadSheet(_ bundleID: String, filter: SampleFilter?, wall: Date) -> RequestOutcome {
    if isLocked { return .completed(Self.dismissedResult(because: "the \(device) is locked")) }
    let listed = specialObjects.medications.ordered.map(\.value).filter { medication in
      filter.map { $0.matches(medication) } ?? true
    }
    return .prompt(
      presentObjectSheet(bundleID, SpecialObjectStore.medicationType, listed.map(\.uuid), wall: wall))
  }
}

extension SampleFilter {
  /// Whether `medication` passes the filter: the medication conditions (archived, scheduled, concept) and constants;
  /// every other condition matches none (medications are not samples).
  package func matches(_ medication: Medication) -> Bool {
    switch self {
    case .constant(let value): return value
    case .and(let parts): return parts.allSatisfy { $0.matches(medication) }
    case .or(let parts): return parts.contains { $0.matches(medication) }
    case .not(let part): return !part.matches(medication)
    case .medication(.archived(let value)): return medication.isArchived == value
    case .medication(.hasSchedule(let value)): return medication.hasSchedule == value
    case .medication(.concepts(let ids)): return ids.contains(medication.conceptID)
    case .medication(.statuses), .medication(.scheduledDates), .medication(.scheduledRange):
      return false
    case .value, .quantity, .workoutActivityType, .workoutDuration, .workoutStatistic, .workoutActivity,
      .associatedWith, .electrocardiogram, .stateOfMindValence, .stateOfMind, .fhirResource, .cdaField, .dates,
      .sources, .uuids, .metadata, .device, .date, .notInCorrelation:
      return false
    }
  }

  /// Whether `dose` passes the filter: the dose conditions (status, scheduled dates, concept), and every condition
  /// a sample without a value of its own passes; other families' conditions match none.
  package func matches(_ dose: MedicationDoseEvent) -> Bool {
    switch self {
    case .and(let parts): return parts.allSatisfy { $0.matches(dose) }
    case .or(let parts): return parts.contains { $0.matches(dose) }
    case .not(let part): return !part.matches(dose)
    case .medication(.concepts(let ids)): return ids.contains(dose.conceptID)
    case .medication(.statuses(let raws)): return raws.contains(dose.status.rawValue)
    case .medication(.scheduledDates(let instants)):
      return dose.scheduledDate.map { instants.contains($0.timeIntervalSinceReferenceDate) } ?? false
    case .medication(.scheduledRange(let start, let end)):
      guard let scheduled = dose.scheduledDate?.timeIntervalSinceReferenceDate else { return false }
      return (start.map { scheduled >= $0 } ?? true) && (end.map { scheduled < $0 } ?? true)
    case .medication(.archived), .medication(.hasSchedule):
      return false
    case .value, .quantity, .workoutActivityType, .workoutDuration, .workoutStatistic, .workoutActivity,
      .associatedWith, .electrocardiogram, .stateOfMindValence, .stateOfMind, .fhirResource, .cdaField:
      return false
    case .constant, .dates, .sources, .uuids, .metadata, .device, .date, .notInCorrelation:
      return matches(
        Sample(
          uuid: dose.uuid, type: SpecialObjectStore.medicationDoseEventType, value: .quantity(.nan),
          start: dose.date, end: dose.date, metadata: dose.metadata, source: dose.source))
    }
  }
}

/// A condition of the medication predicates (`predicateForUserAnnotatedMedications(…)`,
/// `predicateForMedicationDoseEvent(…)`).
package enum MedicationCondition: Hashable, Sendable {
  /// The medication is archived (true) or not (`isArchived`).
  case archived(Bool)
  /// The medication has a schedule (true) or not (`hasSchedule`).
  case hasSchedule(Bool)
  /// The medication's, or the dose's medication's, concept identifier is one of these.
  case concepts(Set<String>)
  /// The dose's log status raw value is one of these.
  case statuses(Set<Int>)
  /// The dose's scheduled date is one of these instants (seconds since 2001-01-01).
  case scheduledDates(Set<Double>)
  /// The dose's scheduled date is at or after `start` and before `end` (nil: unbounded).
  case scheduledRange(start: Double?, end: Double?)
}
