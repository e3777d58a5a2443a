import FoundationEssentials
import HealthModel

/// `DeviceState`: saving and deleting samples, and staged imports.
extension DeviceState {
  // MARK: - Save and delete

  func requireShare(_ bundleID: String, _ type: SampleType, verb: String) throws(HealthError) {
    switch decisions[AuthorizationKey(bundleID, Permission(type, .share))] {
    case .authorized: return
    case .denied:
      throw .healthKit(
        .errorAuthorizationDenied, "Not authorized to \(verb) \(type.identifier) (share permission is off)")
    case nil:
      throw .healthKit(
        .errorAuthorizationNotDetermined,
        "Authorization to share \(type.identifier) has not been requested "
          + "(the app must request it before it can \(verb))"
      )
    }
  }

  /// `save(_:)`: validates every object, then checks authorization, identifiers and the retention window; all or
  /// nothing.
  package mutating func save(_ bundleID: String, _ inputs: [SampleInput], wall: Date) throws(HealthError)
    -> [DeviceEvent]
  {
    _ = try installedApp(bundleID)
    guard !inputs.isEmpty else { throw .healthKit(.errorInvalidArgument, "Saving an empty array of objects fails") }
    let source = SampleSource(bundleID: bundleID, device: device)
    var samples: [Sample] = []
    samples.reserveCapacity(inputs.count)
    for input in inputs { samples.append(try input.validated(source: source)) }
    var checked: Set<SampleType> = []
    for sample in samples where checked.insert(sample.type).inserted {
      try requireShare(bundleID, sample.type, verb: "save")
    }
    // Repeats within the batch or against what waits for the unlock need a set; a lone sample on an unlocked store
    // does not. Correlations and workouts hold identifiers too (a workout waiting for the unlock among them, E31).
    let checksBatch = samples.count > 1 || !lockedJournal.isEmpty || !lockedWorkouts.isEmpty
    var seen: Set<UUID> = checksBatch ? Set(lockedJournal.map(\.uuid)) : []
    if checksBatch {
      seen.reserveCapacity(lockedJournal.count + lockedWorkouts.count + lockedRoutes.count + samples.count)
      seen.formUnion(lockedWorkouts.map(\.uuid))
      seen.formUnion(lockedRoutes.map(\.uuid))
    }
    for sample in samples {
      if store.isKnown(sample.uuid) || correlationStore.isKnown(sample.uuid) || workoutStore.isKnown(sample.uuid)
        || specialObjects.isKnown(sample.uuid)
        || (checksBatch && !seen.insert(sample.uuid).inserted)
      {
        throw .healthKit(.errorInvalidArgument, "An object with UUID \(sample.uuid) is already stored")
      }
    }
    if policy.retention != nil {
      let earliest = earliestPermittedSampleDate(wall: wall)
      if let old = samples.first(where: { $0.end < earliest }) {
        throw .healthKit(
          .errorInvalidArgument,
          "Sample \(old.uuid) ends at \(formatDate(old.end)), before earliestPermittedSampleDate "
            + "\(formatDate(earliest)) on the \(device)")
      }
    }
    // Locked: the samples wait in the locked journal; sync identifiers are resolved when they merge (L3).
    if isLocked { return commit([.samplesSavedWhileLocked(samples)]) }
    let (kept, replaced) = applySyncVersions(samples, source: source, at: now(wall: wall))
    var events: [DeviceEvent] = []
    if !replaced.isEmpty { events.append(.samplesDeleted(replaced)) }
    if !kept.isEmpty { events.append(.samplesSaved(kept)) }
    return commit(events)
  }

  /// Sync identifiers (behavior.md D10): an object whose `HKMetadataKeySyncIdentifier` matches one this app
  /// already saved on this device replaces it when its `HKMetadataKeySyncVersion` is greater (the old one is
  /// deleted, so anchored queries and the other device see a deletion and an addition); an equal or lower version
  /// is not stored (the save still succeeds). Within one batch the greatest version of an identifier wins.
  func applySyncVersions(
    _ samples: [Sample], source: SampleSource, at date: Date
  ) -> (kept: [Sample], replaced: [Tombstone]) {
    var kept: [Sample] = []
    var replaced: [Tombstone] = []
    var inBatch: [String: Int] = [:]
    for sample in samples {
      guard let identifier = sample.metadata.syncIdentifier else {
        kept.append(sample)
        continue
      }
      let version = sample.metadata.syncVersion
      if let earlier = inBatch[identifier] {
        if version > kept[earlier].metadata.syncVersion { kept[earlier] = sample }
        continue
      }
      if let existing = store.liveSample(syncIdentifier: identifier, source: source) {
        guard version > existing.metadata.syncVersion else { continue }
        replaced.append(
          Tombstone(
            uuid: existing.uuid, type: existing.type, source: existing.source, deletedAt: date,
            metadata: existing.metadata))
      }
      inBatch[identifier] = kept.count
      kept.append(sample)
    }
    return (kept, replaced)
  }

  /// `delete(_:)`: only the app's own samples, correlations, workouts (with their routes), routes and heartbeat
  /// series, with share permission; unknown identifiers fail; all or nothing.
  package mutating func delete(_ bundleID: String, _ uuids: [UUID], wall: Date) throws(HealthError) -> [DeviceEvent] {
    _ = try installedApp(bundleID)
    guard !uuids.isEmpty else { throw .healthKit(.errorInvalidArgument, "Deleting an empty array of objects fails") }
    // Finding the objects needs the protected store (L2).
    try requireProtectedData()
    let at = now(wall: wall)
    var tombstones: [Tombstone] = []
    var correlationTombstones: [Tombstone] = []
    var workoutDeletions: [Tombstone] = []
    var seen: Set<UUID> = []
    for uuid in uuids where seen.insert(uuid).inserted {
      // A workout takes its routes with it; a route or heartbeat series goes alone (Workouts.swift).
      if let tombstones = try workoutTombstones(bundleID, uuid, at: at, wall: wall) {
        workoutDeletions += tombstones.filter { t in !workoutDeletions.contains { $0.uuid == t.uuid } }
        continue
      }
      // A correlation is deleted on its own; its members stay (docs/behavior.md T12).
      if let tombstone = try correlationTombstone(bundleID, uuid, at: at) {
        correlationTombstones.append(tombstone)
        continue
      }
      // healthd looks for the objects among the app's own sources only: another app's object and one that does
      // not exist fail alike, so an app cannot probe for other apps' data (behavior.md D6).
      guard let sample = store.liveSample(uuid), sample.end.timeIntervalSinceReferenceDate >= floor(wall: wall),
        sample.source.bundleID == bundleID
      else {
        throw .healthKit(.errorInvalidArgument, "Failed to find some objects for deletion")
      }
      try requireShare(bundleID, sample.type, verb: "delete")
      tombstones.append(
        Tombstone(uuid: uuid, type: sample.type, source: sample.source, deletedAt: at, metadata: sample.metadata))
    }
    if correlationTombstones.isEmpty && workoutDeletions.isEmpty { return commit([.samplesDeleted(tombstones)]) }
    var events: [DeviceEvent] = []
    if !workoutDeletions.isEmpty { events.append(.workoutObjectsDeleted(workoutDeletions)) }
    if !correlationTombstones.isEmpty { events.append(.correlationsDeleted(correlationTombstones)) }
    if !tombstones.isEmpty { events.append(.samplesDeleted(tombstones)) }
    return commit(events)
  }

  /// `deleteObjects(of:predicate:)`: deletes the app's own live objects of `type` whose dates pass `range` —
  /// samples, or audiograms and States of Mind (their tombstones kept with the workout family's); the others' are
  /// not touched (healthd restricts deletes to the app's sources) and matching nothing succeeds
  /// with 0 (behavior.md D11).
  package mutating func deleteMatching(
    _ bundleID: String, type: SampleType, range: DateRange?, wall: Date
  ) throws(HealthError) -> [DeviceEvent] {
    _ = try installedApp(bundleID)
    try requireShare(bundleID, type, verb: "delete")
    for date in [range?.start, range?.end].compactMap({ $0 }) where !date.timeIntervalSinceReferenceDate.isFinite {
      throw .healthKit(.errorInvalidArgument, "The predicate's dates must be finite")
    }
    try requireProtectedData()
    let at = now(wall: wall)
    if let shelved = ownShelvedTombstones(bundleID, type, range: range, at: at, wall: wall) {
      return shelved.isEmpty ? [] : commit([.workoutObjectsDeleted(shelved)])
    }
    var matches: [(uuid: UUID, index: Int)] = []
    store.scanSlots(type: type, range: range, floor: floor(wall: wall), visibility: .own(bundleID: bundleID)) {
      index, slot in
      matches.append((slot.uuid, index))
    }
    let tombstones = matches.map {
      Tombstone(
        uuid: $0.uuid, type: type, source: store.source(ofSlot: $0.index), deletedAt: at,
        metadata: store.metadata(ofSlot: $0.index))
    }
    guard !tombstones.isEmpty else { return [] }
    return commit([.samplesDeleted(tombstones)])
  }

  // MARK: - Import

  /// The most samples one import may stage (a 1 GB export holds about 3 million).
  package static let maxImportSamples = 50_000_000

  /// Stages one batch of an import: the samples are checked as `save` checks an app's objects (``Sample/check()``:
  /// dates, values in the type's canonical unit, category values, required metadata, finite metadata) and kept out
  /// of sight until ``commitImport(_:wall:characteristics:)``. Samples keep the source the import gave them; no
  /// app needs to be installed and no authorization applies (the import is the user's, like the Health app's own
  /// data).
  /// - Throws: a simulator error for identifier 0, a source that could not be stored, an import past
  ///   ``maxImportSamples``, or a locked device (L5); the errors of ``Sample/check()`` for a bad sample. Nothing is
  ///   staged when any sample of the batch is refused.
  package mutating func stageImport(_ id: UInt64, _ samples: [Sample]) throws(HealthError) -> [DeviceEvent] {
    guard id != 0 else { throw .simulator("import identifier 0 is reserved") }
    try requireUnlockedForUser("import an Apple Health export")
    let staged = stagedImports[id]?.count ?? 0
    guard staged + samples.count <= Self.maxImportSamples else {
      throw .simulator("an import may stage at most \(Self.maxImportSamples) samples")
    }
    // Each source is checked once; a batch may hold thousands (an export with a source per record), so they are
    // hashed, not scanned.
    var checkedSources = Set<SampleSource>()
    var lastSource: SampleSource?
    for (index, sample) in samples.enumerated() {
      // Consecutive samples mostly share a source: compared with the last one first.
      if sample.source != lastSource, checkedSources.insert(sample.source).inserted {
        try Self.checkImportSource(sample.source)
      }
      lastSource = sample.source
      do { try sample.check() } catch {
        throw HealthError(
          kind: error.kind, code: error.code, message: "imported sample \(index) (\(sample.uuid)): \(error.message)",
          exception: error.exception)
      }
    }
    return commit([.importStaged(id: id, samples: samples)])
  }

  /// Checks a source an import gives its samples: a bundle identifier and details the journal can hold.
  static func checkImportSource(_ source: SampleSource) throws(HealthError) {
    guard !source.bundleID.isEmpty, !source.bundleID.contains(where: \.isWhitespace),
      source.bundleID.utf8.count <= StoredLimits.identifier
    else { throw .simulator("imported source bundle identifier '\(source.bundleID)' is not valid") }
    guard let details = source.details else { return }
    let texts =
      [details.name, details.version ?? ""] + (details.hardware?.fields.flatMap { [$0.key, $0.value] } ?? [])
    guard texts.allSatisfy({ $0.utf8.count <= StoredLimits.identifier }),
      (details.hardware?.fields.count ?? 0) <= HardwareDetails.maxFields
    else {
      throw .simulator(
        "imported source '\(details.name.prefix(64))': names, versions and hardware fields may have at most "
          + "\(StoredLimits.identifier) bytes, and hardware at most \(HardwareDetails.maxFields) fields")
    }
  }

  /// Makes every batch staged under `id` visible and durable at once (one journal record): samples whose
  /// identifier the store already knows (imported before, or the same record twice) and, on a device with a
  /// retention window, samples that end before it are left out and counted. The export's characteristics
  /// (`Me`) are set in the same record, those that change a value only. Outbound sync carries what was added and
  /// set (docs/behavior.md I7, I11).
  /// - Throws: a simulator error when nothing is staged under `id` and no characteristic is given, for a value
  ///   that is not a characteristic's, or while the device is locked (L5: the user cannot use the Health app).
  package mutating func commitImport(
    _ id: UInt64, wall: Date, characteristics: [SampleType: CharacteristicValue] = [:]
  ) throws(HealthError) -> (events: [DeviceEvent], outcome: ImportOutcome) {
    guard id != 0 else { throw .simulator("import identifier 0 is reserved") }
    guard stagedImports[id] != nil || !characteristics.isEmpty else {
      throw .simulator("no import \(id) is staged on the \(device)")
    }
    try requireUnlockedForUser("import an Apple Health export")
    var changed: [SampleType: CharacteristicValue] = [:]
    for (type, value) in characteristics {
      guard type.descriptor.isCharacteristic else {
        throw .simulator("\(type.name) is not a characteristic type (dateOfBirth, biologicalSex, bloodType, …)")
      }
      try value.validated(for: type)
      if self.characteristics[type] != value { changed[type] = value }
    }
    let events = commit([.importCommitted(id: id, at: now(wall: wall), characteristics: changed)])
    return (events, lastImportOutcome ?? ImportOutcome())
  }

  /// Gives up the import `id`: its staged samples are dropped. Nothing happens when none is staged.
  package mutating func abandonImport(_ id: UInt64) -> [DeviceEvent] {
    guard stagedImports[id] != nil else { return [] }
    return commit([.importAbandoned(id: id)])
  }

  /// Applies a committed import: the staged samples in order, minus known identifiers and (with a retention
  /// window) those ending before `at` − retention.
  mutating func applyImport(_ id: UInt64, at: Date, characteristics: [SampleType: CharacteristicValue]) {
    var outcome = ImportOutcome()
    // The user's Health app values, as `userSettingChanged` applies them (kept, stamped, sent to the other device).
    for (type, value) in characteristics.sorted(by: { $0.key < $1.key }) {
      let setting = UserSetting.characteristic(type, value)
      keep(setting)
      userSettingStamps[setting.key] = DecisionStamp(at: at, device: device)
      sync.appendUserSetting(setting, at: at)
      outcome.characteristicsSet += 1
    }
    guard var staged = stagedImports.removeValue(forKey: id) else {
      lastImportOutcome = outcome
      return
    }
    let floor = policy.retention.map { at.addingTimeInterval(-$0) }
    let first = Int32(store.slots.count)
    // Counted by type code, folded into the outcome at the end (not a dictionary update per sample).
    var addedByCode: [Int] = []
    // A correlation's members come twice in Apple's exports (inside it and at the top level, the same content, so
    // the same identifier): the second copy is not "already present" (docs/behavior.md I13). Only imports with
    // correlations pay for the lookup.
    let members = Set(staged.correlations.flatMap(\.members))
    var membersSeen: Set<UUID> = []
    for index in staged.batches.indices {
      // Each batch is released once stored: the staged samples and the store do not both peak at once.
      var batch: [Sample] = []
      swap(&batch, &staged.batches[index])
      for sample in batch {
        if store.isKnown(sample.uuid) || specialObjects.isKnown(sample.uuid) {
          if members.isEmpty || !members.contains(sample.uuid) || membersSeen.insert(sample.uuid).inserted {
            outcome.alreadyPresent += 1
          }
          continue
        }
        if let floor, sample.end < floor {
          outcome.beforeRetention += 1
          continue
        }
        store.insert(sample)
        if !members.isEmpty, members.contains(sample.uuid) { membersSeen.insert(sample.uuid) }
        let code = Int(sample.type.code)
        if code >= addedByCode.count { addedByCode += [Int](repeating: 0, count: code + 1 - addedByCode.count) }
        addedByCode[code] += 1
      }
    }
    for (code, added) in addedByCode.enumerated() where added > 0 {
      outcome.added[SampleType(unchecked: UInt16(code)), default: 0] += added
    }
    let count = Int32(store.slots.count) - first
    if count > 0 { sync.appendSlots(start: first, count: count) }
    // Correlations after their members: those already known, or ending before the retention window, are left out.
    let floorDate = policy.retention.map { at.addingTimeInterval(-$0) }
    var correlations: [Correlation] = []
    for correlation in staged.correlations where !correlationStore.isKnown(correlation.uuid) {
      if let floorDate, correlation.end < floorDate { continue }
      correlationStore.insert(correlation)
      correlations.append(correlation)
    }
    if !correlations.isEmpty { sync.appendCorrelations(correlations) }
    applyImportedWorkouts(staged, floor: floorDate)
    applyImportedElectrocardiograms(staged.electrocardiograms, floor: floorDate, &outcome)
    applyImportedShelved(staged.audiograms, floor: floorDate, &outcome)
    applyImportedShelved(staged.visionPrescriptions, floor: floorDate, &outcome)
    applyImportedShelved(staged.clinicalRecords, floor: floorDate, &outcome)
    lastImportOutcome = outcome
  }
}
