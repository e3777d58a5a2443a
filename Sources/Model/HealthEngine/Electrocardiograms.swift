import FoundationEssentials
import HealthModel

/// `DeviceState`: electrocardiograms — recorded by the watch's ECG app (the user's world, never an app's save),
/// imported from an export, synced to the other device, read by apps with read permission for the type.
extension DeviceState {
  /// The ECG app on this watch records `recording` (behavior.md G1): only a watch records, worn and unlocked; the
  /// identifier must be new and the recording end inside the retention window. The recording is stored with the
  /// ECG app on this watch as its source and goes to the sync log.
  /// - Throws: a simulator error on the iPhone or a locked watch; `errorInvalidArgument` for a known identifier,
  ///   a recording before the retention window or an invalid one.
  package mutating func recordElectrocardiogram(_ recording: ECGRecording, wall: Date) throws(HealthError)
    -> [DeviceEvent]
  {
    guard device == .watch else {
      throw .simulator("only Apple Watch records electrocardiograms; the iPhone gets them by sync or import")
    }
    guard !isLocked else { throw .simulator("the watch is off the wrist (locked): the ECG app cannot record") }
    let ecg = try recording.recorded(on: device)
    var seen: Set<UUID> = []
    try requireNewIdentifier(ecg.uuid, &seen)
    try requireInsideRetention(ecg.uuid, end: ecg.end, wall: wall)
    let symptoms = try symptomSamples(recording, ecg)
    for sample in symptoms { try requireNewIdentifier(sample.uuid, &seen) }
    return commitEvents([.electrocardiogramsStored([ecg])] + (symptoms.isEmpty ? [] : [.samplesSaved(symptoms)]))
  }

  /// The ECG app's symptom samples of `recording` (G6): one category sample per symptom logged, over the
  /// recording, from the ECG app, associated with it (``ECGRecording/associationKey``), identified from the
  /// recording's identifier and the type.
  /// - Throws: a simulator error for a symptom the ECG app does not offer, one named twice, or symptoms without the
  ///   `present` status.
  func symptomSamples(_ recording: ECGRecording, _ ecg: Electrocardiogram) throws(HealthError) -> [Sample] {
    guard !recording.symptoms.isEmpty else { return [] }
    guard recording.symptomsStatus == .present else {
      throw .simulator("symptoms are logged with a recording whose symptoms status is present")
    }
    let offered = ECGRecording.symptomTypes.map(\.name).joined(separator: ", ")
    var samples: [Sample] = []
    for type in recording.symptoms {
      guard ECGRecording.symptomTypes.contains(type) else {
        throw .simulator("the ECG app offers no symptom '\(type.name)' (\(offered))")
      }
      guard !samples.contains(where: { $0.type == type }) else {
        throw .simulator("the symptom '\(type.name)' is logged twice")
      }
      var bytes = withUnsafeBytes(of: ecg.uuid.uuid) { Array($0) }
      bytes[0] ^= UInt8(truncatingIfNeeded: type.code)
      bytes[1] ^= UInt8(truncatingIfNeeded: type.code >> 8) ^ 0x5A
      let uuid = UUID(
        uuid: (
          bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
          bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        ))
      samples.append(
        Sample(
          uuid: uuid, type: type, value: .category(0), start: ecg.start, end: ecg.end,
          metadata: [ECGRecording.associationKey: .string(ecg.uuid.uuidString)], source: ecg.source))
    }
    return samples
  }

  /// Stages the electrocardiograms of an import (committed with its samples).
  /// - Throws: a simulator error for identifier 0, a locked device or a bad source; `errorInvalidArgument` for
  ///   an invalid recording.
  package mutating func stageImportElectrocardiograms(_ id: UInt64, _ ecgs: [Electrocardiogram]) throws(HealthError)
    -> [DeviceEvent]
  {
    try checkImportShelved(id, ecgs, what: "electrocardiogram") { ecg throws(HealthError) in try ecg.validate() }
    return commitEvents([.importElectrocardiogramsStaged(id: id, ecgs)])
  }

  /// Applies the electrocardiograms of a committed import: known identifiers, recordings with the same content
  /// as a stored one (``Electrocardiogram/hasSameContent(as:)``: an export's CSV file carries no identifier, so a
  /// recording the watch made, exported and imported again, is the one already stored) and recordings before the
  /// retention floor are left out and counted; the rest are stored, counted in `outcome` and go to the sync log.
  mutating func applyImportedElectrocardiograms(
    _ ecgs: [Electrocardiogram], floor: Date?, _ outcome: inout ImportOutcome
  ) {
    var taken: [Electrocardiogram] = []
    // The stored recordings by the second they start in, built once per import (imports hold few recordings).
    var bySecond: [Int64: [Electrocardiogram]] = [:]
    if !ecgs.isEmpty {
      for entry in specialObjects.electrocardiograms.entries.values {
        bySecond[entry.value.startSecond, default: []].append(entry.value)
      }
    }
    for ecg in ecgs {
      if isKnownObject(ecg.uuid)
        || bySecond[ecg.startSecond, default: []].contains(where: { $0.hasSameContent(as: ecg) })
      {
        outcome.alreadyPresent += 1
        continue
      }
      if let floor, ecg.end < floor {
        outcome.beforeRetention += 1
        continue
      }
      if specialObjects.electrocardiograms.insert(ecg, change: nextChange()) {
        taken.append(ecg)
        bySecond[ecg.startSecond, default: []].append(ecg)
        noteChange(SpecialObjectStore.electrocardiogramType, ecg.source.bundleID)
      }
    }
    outcome.added[SpecialObjectStore.electrocardiogramType, default: 0] += taken.count
    if outcome.added[SpecialObjectStore.electrocardiogramType] == 0 {
      outcome.added[SpecialObjectStore.electrocardiogramType] = nil
    }
    sync.appendShelved(taken)
  }

  /// `HKSampleQuery` of `HKElectrocardiogramType`: the recordings the app may see (R1–R5: read permission decides;
  /// no app is ever their source, so a denied read sees none), inside the retention window, matching the range,
  /// sources and filter (classification and symptoms conditions included), sorted by date and limited. Each comes
  /// without its voltages (``electrocardiogramVoltages(_:_:wall:)`` reads them).
  package func electrocardiogramQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError)
    -> [Electrocardiogram]
  {
    try workoutQueryable(
      bundleID, query.type, expected: SpecialObjectStore.electrocardiogramType, range: query.range,
      limit: query.limit)
    try requireDateSort(query.sort, query.type)
    return select(shelvedCandidates(Electrocardiogram.self), bundleID, query, wall: wall) { ecg, filter in
      filter.matches(ecg)
    }.map(\.header)
  }

  /// `HKElectrocardiogramQuery`: the voltages of recording `uuid`, in microvolts, in time order. A recording the
  /// app may not see (its read denied or revoked since it got the object) or no longer stored (dropped by the
  /// retention window) gives no voltages, as a denied read looks like no data (behavior.md G4).
  /// - Throws: code 5 when the read was never decided; L2 when locked.
  package func electrocardiogramVoltages(_ bundleID: String, _ uuid: UUID, wall: Date) throws(HealthError)
    -> [Float]
  {
    let type = SpecialObjectStore.electrocardiogramType
    try workoutQueryable(bundleID, type, expected: type, range: nil, limit: 0)
    guard let ecg = specialObjects.electrocardiograms[uuid],
      ecg.end.timeIntervalSinceReferenceDate >= floor(wall: wall),
      visible(ecg.source, visibility(bundleID, type))
    else { return [] }
    return ecg.voltages
  }
}
