import FoundationEssentials
import HealthModel

/// `DeviceState`: States of Mind — logged by apps with share permission (a mood journal, the Mindfulness app),
/// synced to the other device, read with read permission, deleted by the app that saved them (behavior.md M1–M3).
extension DeviceState {
  /// `save(_:)` of `HKStateOfMind`s, all or nothing: each validated (``StateOfMindInput/validated(source:)``), share
  /// permission for the type, new identifiers, inside the retention window, the device unlocked.
  /// - Throws: what the save's completion would receive; `wouldTerminate` for what a device raises on.
  package mutating func saveStatesOfMind(_ bundleID: String, _ inputs: [StateOfMindInput], wall: Date)
    throws(HealthError) -> [DeviceEvent]
  {
    _ = try installedAppRecord(bundleID)
    guard !inputs.isEmpty else { throw .healthKit(.errorInvalidArgument, "Nothing to save") }
    let source = SampleSource(bundleID: bundleID, device: device)
    var states: [StateOfMind] = []
    for input in inputs { states.append(try input.validated(source: source)) }
    try requireShelvable(bundleID, states, SpecialObjectStore.stateOfMindType, what: "States of Mind", wall: wall)
    return commitEvents([.statesOfMindSaved(states)])
  }

  /// `HKSampleQuery` of `HKStateOfMindType`: the samples the app may see (R1–R5: a denied read sees only its own),
  /// inside the retention window, matching the range, sources and filter (valence, kind, label and association
  /// conditions included), sorted by date and limited.
  package func stateOfMindQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError)
    -> [StateOfMind]
  {
    try workoutQueryable(
      bundleID, query.type, expected: SpecialObjectStore.stateOfMindType, range: query.range, limit: query.limit)
    try requireDateSort(query.sort, query.type)
    return select(shelvedCandidates(StateOfMind.self), bundleID, query, wall: wall) { state, filter in
      filter.matches(state)
    }
  }

  /// The tombstones of the app's own audiograms, States of Mind, CDA documents or scored assessments of `type` inside
  /// the retention window whose dates pass `range`, or nil for another type (`deleteObjects(of:predicate:)`).
  func ownShelvedTombstones(_ bundleID: String, _ type: SampleType, range: DateRange?, at: Date, wall: Date)
    -> [Tombstone]?
  {
    func own<Value: ShelvedObject>(_ shelf: ObjectShelf<Value>, metadata: (Value) -> Metadata) -> [Tombstone] {
      let floor = floor(wall: wall)
      return shelf.ordered.map(\.value).filter { value in
        value.objectType == type && value.source.bundleID == bundleID
          && value.end.timeIntervalSinceReferenceDate >= floor
          && (range?.matches(
            start: value.start.timeIntervalSinceReferenceDate, end: value.end.timeIntervalSinceReferenceDate) ?? true)
      }.map { Tombstone(uuid: $0.uuid, type: type, source: $0.source, deletedAt: at, metadata: metadata($0)) }
    }
    switch type {
    case SpecialObjectStore.audiogramType: return own(specialObjects.audiograms, metadata: \.metadata)
    case SpecialObjectStore.stateOfMindType:
      return own(specialObjects.statesOfMind, metadata: \.metadata)
    case SpecialObjectStore.cdaType: return own(specialObjects.cdaDocuments, metadata: \.metadata)
    case SpecialObjectStore.gad7Type, SpecialObjectStore.phq9Type:
      return own(specialObjects.scoredAssessments, metadata: \.metadata)
    default: return nil
    }
  }
}
