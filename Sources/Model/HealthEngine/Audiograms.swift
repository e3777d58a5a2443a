import FoundationEssentials
import HealthModel

/// `DeviceState`: audiograms — saved by apps with share permission (a hearing test), imported, synced to the other
/// device, read with read permission (behavior.md H1–H3).
extension DeviceState {
  /// `save(_:)` of `HKAudiogramSample`s, all or nothing: each validated (``AudiogramInput/validated(source:)``), share
  /// permission for the type, new identifiers, inside the retention window, the device unlocked (HealthPair keeps
  /// no audiogram for the unlock).
  /// - Throws: what the save's completion would receive; `wouldTerminate` for what a device raises on.
  package mutating func saveAudiograms(_ bundleID: String, _ inputs: [AudiogramInput], wall: Date) throws(HealthError)
    -> [DeviceEvent]
  {
    _ = try installedAppRecord(bundleID)
    guard !inputs.isEmpty else { throw .healthKit(.errorInvalidArgument, "Nothing to save") }
    let source = SampleSource(bundleID: bundleID, device: device)
    var audiograms: [Audiogram] = []
    for input in inputs { audiograms.append(try input.validated(source: source)) }
    try requireShare(bundleID, SpecialObjectStore.audiogramType, verb: "save")
    var seen: Set<UUID> = []
    for audiogram in audiograms {
      try requireNewIdentifier(audiogram.uuid, &seen)
      try requireInsideRetention(audiogram.uuid, end: audiogram.end, wall: wall)
    }
    try requireUnlockedForWorkouts("audiograms")
    return commitEvents([.audiogramsSaved(audiograms)])
  }

  /// Applies ``DeviceEvent/audiogramsSaved(_:)``: the audiograms the store takes go to the sync log.
  mutating func applyAudiogramsSaved(_ audiograms: [Audiogram]) {
    let taken = audiograms.filter {
      !isKnownObject($0.uuid) && specialObjects.audiograms.insert($0, change: nextChange())
    }
    for audiogram in taken { noteChange(SpecialObjectStore.audiogramType, audiogram.source.bundleID) }
    if !taken.isEmpty { sync.appendAudiograms(taken) }
  }

  /// Applies ``SyncPayload/audiograms(_:)`` from the peer: unknown audiograms inside the retention window are stored.
  mutating func applyPeerAudiograms(_ audiograms: [Audiogram], floor: Date?) {
    for audiogram in audiograms where !isKnownObject(audiogram.uuid) {
      if let floor, audiogram.end < floor { continue }
      if specialObjects.audiograms.insert(audiogram, change: nextChange()) {
        noteChange(SpecialObjectStore.audiogramType, audiogram.source.bundleID)
      }
    }
  }

  /// Stages the audiograms of an import (stored at its commit).
  /// - Throws: a simulator error for identifier 0, a locked device or a bad source; `errorInvalidArgument` for an
  ///   invalid audiogram.
  package mutating func stageImportAudiograms(_ id: UInt64, _ audiograms: [Audiogram]) throws(HealthError)
    -> [DeviceEvent]
  {
    guard id != 0 else { throw .simulator("import identifier 0 is reserved") }
    guard !isLocked else {
      throw .simulator("the \(device) is locked: unlock it before the user can import an Apple Health export")
    }
    for audiogram in audiograms {
      try Self.checkImportSource(audiogram.source)
      do throws(HealthError) { try audiogram.validate() } catch {
        throw .healthKit(.errorInvalidArgument, "imported audiogram \(audiogram.uuid) is not valid: \(error.message)")
      }
    }
    return commitEvents([.importAudiogramsStaged(id: id, audiograms)])
  }

  /// Applies the audiograms of a committed import: known identifiers and audiograms before the retention floor are
  /// left out and counted in `outcome`; the rest are stored and go to the sync log.
  mutating func applyImportedAudiograms(_ audiograms: [Audiogram], floor: Date?, _ outcome: inout ImportOutcome) {
    var taken: [Audiogram] = []
    for audiogram in audiograms {
      if isKnownObject(audiogram.uuid) {
        outcome.alreadyPresent += 1
      } else if let floor, audiogram.end < floor {
        outcome.beforeRetention += 1
      } else if specialObjects.audiograms.insert(audiogram, change: nextChange()) {
        taken.append(audiogram)
        noteChange(SpecialObjectStore.audiogramType, audiogram.source.bundleID)
      }
    }
    if !taken.isEmpty {
      outcome.added[SpecialObjectStore.audiogramType, default: 0] += taken.count
      sync.appendAudiograms(taken)
    }
  }

  /// `HKSampleQuery` of `HKAudiogramSampleType`: the audiograms the app may see (R1–R5: a denied read sees only its
  /// own), inside the retention window, matching the range, sources and filter, sorted by date and limited.
  package func audiogramQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError) -> [Audiogram] {
    try workoutQueryable(
      bundleID, query.type, expected: SpecialObjectStore.audiogramType, range: query.range, limit: query.limit)
    try requireDateSort(query.sort, query.type)
    let candidates = specialObjects.audiograms.entries.values.map { entry in
      Candidate(
        value: entry.value, start: entry.value.start, end: entry.value.end, source: entry.value.source,
        change: entry.change)
    }
    return select(candidates, bundleID, query, wall: wall) { audiogram, filter in
      filter.matches(
        Sample(
          uuid: audiogram.uuid, type: SpecialObjectStore.audiogramType, value: .quantity(.nan), start: audiogram.start,
          end: audiogram.end, metadata: audiogram.metadata, source: audiogram.source))
    }
  }
}
