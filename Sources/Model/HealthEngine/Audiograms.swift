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
    try requireShelvable(bundleID, audiograms, SpecialObjectStore.audiogramType, what: "audiograms", wall: wall)
    return commitEvents([.audiogramsSaved(audiograms)])
  }

  /// Stages the audiograms of an import (stored at its commit).
  /// - Throws: a simulator error for identifier 0, a locked device or a bad source; `errorInvalidArgument` for an
  ///   invalid audiogram.
  package mutating func stageImportAudiograms(_ id: UInt64, _ audiograms: [Audiogram]) throws(HealthError)
    -> [DeviceEvent]
  {
    try checkImportShelved(id, audiograms, what: "audiogram") { audiogram throws(HealthError) in
      try audiogram.validate()
    }
    return commitEvents([.importAudiogramsStaged(id: id, audiograms)])
  }

  /// `HKSampleQuery` of `HKAudiogramSampleType`: the audiograms the app may see (R1–R5: a denied read sees only its
  /// own), inside the retention window, matching the range, sources and filter, sorted by date and limited.
  package func audiogramQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError) -> [Audiogram] {
    try workoutQueryable(
      bundleID, query.type, expected: SpecialObjectStore.audiogramType, range: query.range, limit: query.limit)
    try requireDateSort(query.sort, query.type)
    return select(shelvedCandidates(Audiogram.self), bundleID, query, wall: wall) { audiogram, filter in
      filter.matches(
        Sample(
          uuid: audiogram.uuid, type: SpecialObjectStore.audiogramType, value: .quantity(.nan), start: audiogram.start,
          end: audiogram.end, metadata: audiogram.metadata, source: audiogram.source))
    }
  }
}
