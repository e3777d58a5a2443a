import FoundationEssentials
import HealthModel

/// `DeviceState`: one `save(_:)` of an array holding workouts with samples and correlations, all or nothing.
extension DeviceState {
  /// `save(_:)` of objects some of which are workouts (healthkit-semantics.md §4: `save(_ objects:)` is all or
  /// nothing): every sample, correlation (with its members) and workout is validated as its own save validates it,
  /// share permission is checked for every sample type and for `workout`, identifiers must be new (against every
  /// store, the locked journal and the batch), every sample a workout names must be stored here or saved in the
  /// batch, and the retention window applies to all; only then does one commit store the samples (sync identifiers
  /// resolved as ``save(_:_:wall:)`` does for plain samples), the correlations and the workouts. While the device is
  /// locked, samples and workouts wait for the unlock (L3, E31: the samples in the locked journal, which also count
  /// as stored for the workouts that name them).
  /// - Throws: the first failing check's error; nothing is stored. `errorDatabaseInaccessible` while locked when
  ///   the array holds correlations.
  package mutating func saveObjects(
    _ bundleID: String, correlations inputs: [CorrelationInput], samples plain: [SampleInput],
    workouts workoutInputs: [WorkoutInput], wall: Date
  ) throws(HealthError) -> [DeviceEvent] {
    _ = try installedAppRecord(bundleID)
    guard !inputs.isEmpty || !plain.isEmpty || !workoutInputs.isEmpty else {
      throw .healthKit(.errorInvalidArgument, "Saving an empty array of objects fails")
    }
    let source = SampleSource(bundleID: bundleID, device: device)
    var samples: [Sample] = []
    for input in plain { samples.append(try input.validated(source: source)) }
    var members: [Sample] = []
    var correlations: [Correlation] = []
    for input in inputs {
      let (correlation, objects) = try input.validated(source: source)
      correlations.append(correlation)
      members += objects
    }
    var workouts: [Workout] = []
    for input in workoutInputs { workouts.append(try input.validated(source: source)) }
    var checked: Set<SampleType> = []
    for sample in samples + members where checked.insert(sample.type).inserted {
      try requireShare(bundleID, sample.type, verb: "save")
    }
    if !workouts.isEmpty { try requireShare(bundleID, WorkoutStore.workoutType, verb: "save") }
    var seen: Set<UUID> = []
    for uuid in (samples + members).map(\.uuid) + correlations.map(\.uuid) + workouts.map(\.uuid) {
      try requireNewIdentifier(uuid, &seen)
    }
    let (kept, replaced) =
      isLocked ? (samples, []) : applySyncVersions(samples, source: source, at: now(wall: wall))
    let batch = Set((kept + members + (isLocked ? lockedJournal : [])).map(\.uuid))
    for workout in workouts {
      for uuid in workout.associated where store.liveSample(uuid) == nil && !batch.contains(uuid) {
        throw .healthKit(
          .errorInvalidArgument, "The workout names sample \(uuid), which is not stored on the \(device)")
      }
    }
    for sample in samples + members { try requireInsideRetention(sample.uuid, end: sample.end, wall: wall) }
    for correlation in correlations { try requireInsideRetention(correlation.uuid, end: correlation.end, wall: wall) }
    for workout in workouts { try requireInsideRetention(workout.uuid, end: workout.end, wall: wall) }
    if isLocked, correlations.isEmpty {
      var events: [DeviceEvent] = kept.isEmpty ? [] : [.samplesSavedWhileLocked(kept)]
      if !workouts.isEmpty { events.append(.workoutsSavedWhileLocked(workouts: workouts, routes: [])) }
      return commitEvents(events)
    }
    try requireUnlockedForWorkouts("correlations")
    var events: [DeviceEvent] = []
    if !replaced.isEmpty { events.append(.samplesDeleted(replaced)) }
    if !(kept + members).isEmpty { events.append(.samplesSaved(kept + members)) }
    if !correlations.isEmpty { events.append(.correlationsSaved(correlations)) }
    if !workouts.isEmpty { events.append(.workoutsSaved(workouts)) }
    return commitEvents(events)
  }
}

extension DeviceState {
  /// `save(_:)` of an array mixing object families, all or nothing (healthkit-semantics.md §4): the samples,
  /// correlations and workouts as ``saveObjects(_:correlations:samples:workouts:wall:)`` saves them, then each
  /// family as its own save does — each checked against the state the earlier parts left, so an identifier used
  /// twice across families is refused — and only when every part succeeds is the state the result. The attempt
  /// runs on a copy of the state, so the collections it changes are copied once.
  /// - Throws: the first failing part's error; nothing is stored.
  package mutating func saveFamilies(
    _ bundleID: String, samples: [SampleInput], correlations: [CorrelationInput], workouts: [WorkoutInput],
    audiograms: [AudiogramInput], statesOfMind: [StateOfMindInput], prescriptions: [VisionPrescription],
    assessments: [ScoredAssessmentInput], documents: [CDADocument], wall: Date
  ) throws(HealthError) -> [DeviceEvent] {
    let count =
      samples.count + correlations.count + workouts.count + audiograms.count + statesOfMind.count
      + prescriptions.count + assessments.count + documents.count
    guard count > 0 else { throw .healthKit(.errorInvalidArgument, "Saving an empty array of objects fails") }
    var trial = self
    var events: [DeviceEvent] = []
    if !samples.isEmpty || !correlations.isEmpty || !workouts.isEmpty {
      events += try trial.saveObjects(
        bundleID, correlations: correlations, samples: samples, workouts: workouts, wall: wall)
    }
    if !audiograms.isEmpty { events += try trial.saveAudiograms(bundleID, audiograms, wall: wall) }
    if !statesOfMind.isEmpty { events += try trial.saveStatesOfMind(bundleID, statesOfMind, wall: wall) }
    if !prescriptions.isEmpty { events += try trial.saveVisionPrescriptions(bundleID, prescriptions, wall: wall) }
    if !assessments.isEmpty { events += try trial.saveScoredAssessments(bundleID, assessments, wall: wall) }
    if !documents.isEmpty { events += try trial.saveCDADocuments(bundleID, documents, wall: wall) }
    self = trial
    return events
  }
}
