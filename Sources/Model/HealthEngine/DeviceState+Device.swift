import FoundationEssentials
import HealthModel

/// `DeviceState`: device lock, the Health app's characteristics and preferred units, the virtual clock and the policy.
extension DeviceState {
  // MARK: - Device lock

  /// Queries, deletions and Health app reads need the protected store (behavior.md L2).
  func requireProtectedData() throws(HealthError) {
    guard !isLocked else {
      throw .healthKit(
        .errorDatabaseInaccessible, "Protected health data is inaccessible (the \(device) is locked)")
    }
  }

  /// What the user does in Settings or the Health app needs an unlocked device.
  func requireUnlockedForUser(_ what: String) throws(HealthError) {
    guard !isLocked else { throw .simulator("the \(device) is locked: unlock it before the user can \(what)") }
  }

  /// Locks the device (the watch: taken off the wrist). Protected health data becomes unavailable (L1, L2); a
  /// sheet that is up is dismissed, as when the app goes to the background (A17): its call completes with
  /// success = false and `errorAuthorizationNotDetermined`, nothing recorded. Locking a locked device does nothing.
  package mutating func lock(wall: Date) -> (events: [DeviceEvent], dismissed: [PromptCompletion]) {
    guard !isLocked else { return ([], []) }
    let shown = prompts
    var dismissed: [PromptCompletion] = []
    for prompt in shown {
      finish(prompt, .dismissed)
      let result = Self.dismissedResult(because: "the \(device) locked")
      dismissed.append(PromptCompletion(prompt: prompt, result: result))
      dismissed += extensionCompletions(after: prompt, result)
    }
    return (commit([.deviceLocked(at: now(wall: wall))]), dismissed)
  }

  /// Unlocks the device: protected data is available again and the samples saved while it was locked merge into the
  /// store, in the order they were saved — sync identifiers are resolved then (D10), samples that ended before the
  /// retention window by now are dropped — so queries, observers and the other device see them from now on (L3).
  /// The workouts saved while locked follow, then their routes (E31): each keeps the samples it names that are
  /// stored now, and one (or a route) that ended before the window by now, or whose identifier is stored by now, is
  /// dropped, as is a route whose workout was. Unlocking an unlocked device does nothing.
  package mutating func unlock(wall: Date) -> [DeviceEvent] {
    guard isLocked else { return [] }
    let at = now(wall: wall)
    let floor = policy.retention.map { at.addingTimeInterval(-$0) }
    var kept: [Sample] = []
    var replaced: [Tombstone] = []
    var keptBySyncIdentifier: [String: Int] = [:]
    var seen: Set<UUID> = []
    for sample in lockedJournal {
      if let floor, sample.end < floor { continue }
      guard !store.isKnown(sample.uuid), seen.insert(sample.uuid).inserted else { continue }
      guard let identifier = sample.metadata.syncIdentifier else {
        kept.append(sample)
        continue
      }
      let key = sample.source.bundleID + "\u{0}" + identifier
      let version = sample.metadata.syncVersion
      if let earlier = keptBySyncIdentifier[key] {
        if version > kept[earlier].metadata.syncVersion { kept[earlier] = sample }
        continue
      }
      if let existing = store.liveSample(syncIdentifier: identifier, source: sample.source) {
        guard version > existing.metadata.syncVersion else { continue }
        replaced.append(
          Tombstone(
            uuid: existing.uuid, type: existing.type, source: existing.source, deletedAt: at,
            metadata: existing.metadata))
      }
      keptBySyncIdentifier[key] = kept.count
      kept.append(sample)
    }
    var events: [DeviceEvent] = [.deviceUnlocked(at: at)]
    if !replaced.isEmpty { events.append(.samplesDeleted(replaced)) }
    if !kept.isEmpty { events.append(.samplesSaved(kept)) }
    let (workouts, routes) = lockedWorkoutsToMerge(floor: floor, kept: kept, replaced: replaced)
    if !workouts.isEmpty { events.append(.workoutsSaved(workouts)) }
    if !routes.isEmpty { events.append(.routesSaved(routes)) }
    return commit(events)
  }

  /// The workouts and routes saved while locked that ``unlock(wall:)`` stores, in the order they were saved, given
  /// the samples it stores (`kept`), the stored samples it replaces (`replaced`) and the retention floor; exactly
  /// what the store then takes, so the journaled events match the store.
  private func lockedWorkoutsToMerge(floor: Date?, kept: [Sample], replaced: [Tombstone]) -> ([Workout], [WorkoutRoute])
  {
    let merged = Set(kept.map(\.uuid))
    let gone = Set(replaced.map(\.uuid))
    func taken(_ uuid: UUID) -> Bool {
      merged.contains(uuid) || store.isKnown(uuid) || correlationStore.isKnown(uuid) || workoutStore.isKnown(uuid)
        || specialObjects.isKnown(uuid)
    }
    var workouts: [Workout] = []
    for var workout in lockedWorkouts {
      if let floor, workout.end < floor { continue }
      guard !taken(workout.uuid) else { continue }
      workout.associated = workout.associated.filter {
        merged.contains($0) || (!gone.contains($0) && store.liveSample($0) != nil)
      }
      workouts.append(workout)
    }
    let saved = Set(workouts.map(\.uuid))
    let routes = lockedRoutes.filter { route in
      saved.contains(route.workout) && !taken(route.uuid) && floor.map { route.end >= $0 } ?? true
    }
    return (workouts, routes)
  }

  // MARK: - The Health app: characteristics and preferred units

  /// The user changes a value in the Health app on this device (a characteristic set or cleared, a preferred unit
  /// chosen or reset); it travels to the other device (C4, R6).
  /// - Throws: a simulator error on a locked device, for a type of the wrong kind, a value that does not fit the
  ///   characteristic, or a unit that does not parse or measure the type.
  package mutating func changeUserSetting(_ setting: UserSetting, wall: Date) throws(HealthError) -> [DeviceEvent] {
    try requireUnlockedForUser("change \(setting.key) in the Health app")
    switch setting {
    case .characteristic(let type, let value):
      guard type.descriptor.isCharacteristic else {
        throw .simulator("\(type.name) is not a characteristic type (dateOfBirth, biologicalSex, bloodType, …)")
      }
      try value?.validated(for: type)
    case .preferredUnit(let type, let unitText):
      guard let canonical = type.descriptor.canonicalUnit else {
        throw .simulator("\(type.name) is not a quantity type: only quantity types have a preferred unit")
      }
      if let unitText {
        guard unitText.utf8.count <= StoredLimits.unit, let unit = try? HealthUnit(parsing: unitText) else {
          throw .simulator("'\(unitText)' is not a unit HKUnit(from:) parses")
        }
        guard unit.isCompatible(with: canonical) else {
          throw .simulator("\(unitText) does not measure \(type.name) (its canonical unit is \(canonical))")
        }
      }
    }
    return commit([.userSettingChanged(setting, at: now(wall: wall))])
  }

  /// Reads a characteristic for an app (`dateOfBirthComponents()`, `biologicalSex()`, …): nil is not set.
  ///
  /// A read permission never decided fails with `errorAuthorizationNotDetermined` (C3); a denied one reads as not
  /// set, so the app cannot tell denial from absence (C2); a locked device fails with `errorDatabaseInaccessible`
  /// (L2).
  package func readCharacteristic(_ bundleID: String, _ type: SampleType) throws(HealthError) -> CharacteristicValue? {
    _ = try installedApp(bundleID)
    guard type.descriptor.isCharacteristic else {
      throw .healthKit(.errorInvalidArgument, "\(type.identifier) is not a characteristic type")
    }
    // The move mode has no "not set" case: unset (or unreadable) is the default move mode (HealthPair model, C5).
    let unset: CharacteristicValue? = type.name == "activityMoveMode" ? .value(1) : nil
    switch decisions[AuthorizationKey(bundleID, Permission(type, .read))] {
    case nil: throw .healthKit(.errorAuthorizationNotDetermined, "Authorization not determined")
    case .denied:
      try requireProtectedData()
      return unset
    case .authorized:
      try requireProtectedData()
      return characteristics[type] ?? unset
    }
  }

  /// `preferredUnits(for:)`: for each type, the unit the user chose in the Health app, else the locale's default
  /// (``DevicePolicy/units``) — the default only, whatever the user chose, when the app was granted neither read nor
  /// share for the type. Fails with `errorAuthorizationNotDetermined` when any type was never decided in either
  /// direction, with `errorDatabaseInaccessible` on a locked device, with `errorInvalidArgument` for a type that is
  /// not a quantity type (behavior.md R6).
  package func preferredUnits(_ bundleID: String, _ types: [SampleType]) throws(HealthError)
    -> [(type: SampleType, unit: String)]
  {
    _ = try installedApp(bundleID)
    let types = Array(Set(types)).sorted()
    if let other = types.first(where: { !$0.descriptor.isQuantity }) {
      throw .healthKit(.errorInvalidArgument, "Object (\(other.identifier)) is not of class HKQuantityType")
    }
    func decision(_ type: SampleType, _ direction: Direction) -> Decision? {
      decisions[AuthorizationKey(bundleID, Permission(type, direction))]
    }
    if types.contains(where: { decision($0, .read) == nil && decision($0, .share) == nil }) {
      throw .healthKit(
        .errorAuthorizationNotDetermined, "Authorization status is not determined for all types provided.")
    }
    try requireProtectedData()
    return types.map { type in
      let granted = decision(type, .read) == .authorized || decision(type, .share) == .authorized
      let chosen = granted ? preferredUnits[type] : nil
      return (type, chosen ?? policy.units.defaultUnit(for: type)!)
    }
  }

  /// The values this device set itself, with when: what a restarted sync log re-sends.
  var ownUserSettings: [(setting: UserSetting, at: Date)] {
    userSettingStamps.filter { $0.value.device == device }.sorted { $0.key < $1.key }.map { key, stamp in
      switch key {
      case .characteristic(let t): (.characteristic(t, characteristics[t]), stamp.at)
      case .preferredUnit(let t): (.preferredUnit(t, preferredUnits[t]), stamp.at)
      }
    }
  }

  mutating func keep(_ setting: UserSetting) {
    switch setting {
    case .characteristic(let t, let v): characteristics[t] = v
    case .preferredUnit(let t, let u): preferredUnits[t] = u
    }
  }

  // MARK: - Clock and policy

  /// The dates the virtual clock may show: those a sample may carry, 0001-01-01 up to (not including)
  /// 3000-01-01, so "now" and the dates derived from it always format, encode and compare.
  package static let clockRange = earliestSampleDate..<latestSampleDate

  /// The longest retention window a policy may set, and the longest statistics interval: 10^12 s (about 31,700
  /// years), the bound ``parseDuration(_:)`` puts on every duration a scenario can write.
  package static let longestDuration = 1e12

  static func checkClock(_ date: Date, _ context: String) throws(HealthError) {
    guard date.timeIntervalSinceReferenceDate.isFinite, clockRange.contains(date) else {
      throw .simulator(
        "the clock must stay between 0001-01-01 and 3000-01-01: \(context) would set it to \(formatDate(date))")
    }
  }

  /// Sets the virtual clock (nil returns to the real clock).
  /// - Throws: a simulator error for a date outside ``clockRange`` (NaN and infinity included).
  package mutating func setClock(_ date: Date?) throws(HealthError) -> [DeviceEvent] {
    if let date { try Self.checkClock(date, "setting the clock") }
    return commit([.clockSet(date)]) + collectLiveSamples(wall: date ?? Date())
  }

  /// Advances the virtual clock (starting it from the real time when it was not set).
  /// - Throws: a simulator error for a negative or non-finite step, or one that leaves ``clockRange``.
  package mutating func advanceClock(by seconds: Double, wall: Date) throws(HealthError) -> [DeviceEvent] {
    guard seconds >= 0, seconds.isFinite else { throw .simulator("the clock can only move forward (got \(seconds) s)") }
    let from = now(wall: wall)
    let target = from.addingTimeInterval(seconds)
    try Self.checkClock(target, "advancing \(formatDuration(seconds)) from \(formatDate(from))")
    // What a live workout builder collected while the clock moved is saved with the move (workouts.md §2.5).
    return commit([.clockSet(target)]) + collectLiveSamples(wall: wall)
  }

  /// Replaces the device policy.
  /// - Throws: a simulator error for a retention window that is not a positive duration of at most
  ///   ``longestDuration``.
  package mutating func setPolicy(_ policy: DevicePolicy) throws(HealthError) -> [DeviceEvent] {
    if let retention = policy.retention, !(retention > 0 && retention <= Self.longestDuration) {
      throw .simulator("retention must be a positive duration of at most 1e12 s (got \(retention) s)")
    }
    guard policy.background.isValid else {
      throw .simulator(
        "the background response window and retry delay must be positive durations of at most 1 day (got "
          + "\(policy.background.responseWindow) s and \(policy.background.retryDelay) s)")
    }
    return commit([.policyChanged(policy)])
  }

  /// The user sets the Health app's data-source order of `type` (Data Sources & Access → Edit): `sources` first,
  /// in that order; the others follow in the default order (docs/behavior.md P2, P3). An empty list returns to the
  /// default order. The order is stamped with this device's clock and travels to the other device, where the
  /// later order wins.
  /// - Throws: a simulator error on the watch (the Health app's source list is on the iPhone), for a correlation
  ///   type, a repeated source or more than ``SourceOrder/maxSources``.
  package mutating func setSourceOrder(_ type: SampleType, _ sources: [SampleSource], wall: Date) throws(HealthError)
    -> [DeviceEvent]
  {
    guard device == .phone else {
      throw .simulator(
        "the watch has no Health app data sources to reorder: set the order on the iPhone, it reaches the watch")
    }
    guard !type.descriptor.isCorrelation else {
      throw .simulator("\(type.identifier) is a correlation type: the Health app orders the sources of its parts")
    }
    guard sources.count <= SourceOrder.maxSources else {
      throw .simulator("a source order lists at most \(SourceOrder.maxSources) sources (got \(sources.count))")
    }
    var seen: Set<SampleSource> = []
    for source in sources {
      guard !source.bundleID.isEmpty, source.bundleID.utf8.count <= StoredLimits.identifier else {
        throw .simulator("bundle identifier of \(source.bundleID.utf8.count) bytes in a source order")
      }
      guard seen.insert(source).inserted else { throw .simulator("\(source) is listed twice in the source order") }
    }
    return commit([.sourceOrderChanged(type, SourceOrder(sources: sources, at: now(wall: wall), device: device))])
  }
}

extension DeviceState {
  /// Drops what ends before the retention window (the watch's, W6): samples, correlations, the workout family and
  /// the synced object families, noting each change.
  mutating func pruneIfNeeded() {
    if let retention = policy.retention, let now = virtualNow {
      for (type, sources) in store.prune(endingBefore: now.addingTimeInterval(-retention)) {
        for source in sources { noteChange(type, source, pruned: true) }
      }
      correlationStore.prune(endingBefore: now.addingTimeInterval(-retention))
      for (type, source) in workoutStore.prune(endingBefore: now.addingTimeInterval(-retention)) {
        noteChange(type, source, pruned: true)
      }
      let floor = now.addingTimeInterval(-retention)
      pruneShelf(Electrocardiogram.self, endingBefore: floor)
      pruneShelf(Audiogram.self, endingBefore: floor)
      pruneShelf(StateOfMind.self, endingBefore: floor)
      pruneShelf(ScoredAssessment.self, endingBefore: floor)
      pruneShelf(MedicationDoseEvent.self, endingBefore: floor)
    }
  }
}
