import FoundationEssentials
import HealthModel

/// The correlations a device stores (`HKCorrelation`: blood pressure and food, docs/behavior.md T8–T13), beside the
/// sample store that holds their members.
///
/// Few objects compared with samples (one per reading or meal), so a dictionary by identifier is enough; queries
/// scan the correlations of one type.
package struct CorrelationStore: Hashable, Sendable {
  /// Live correlations by identifier.
  package private(set) var live: [UUID: Correlation] = [:]
  /// Deleted correlations by identifier (kept, like sample tombstones, for sync).
  package private(set) var deleted: [UUID: Tombstone] = [:]

  /// Creates an empty store.
  package init() {}

  /// Restores a store from a snapshot's lists.
  /// - Throws: ``StateRestoreError`` when an identifier is listed twice or a type is not a correlation type.
  package init(restoring live: [Correlation], deleted: [Tombstone]) throws(StateRestoreError) {
    for correlation in live {
      guard correlation.type.descriptor.isCorrelation else {
        throw StateRestoreError("correlation \(correlation.uuid) has type \(correlation.type), not a correlation type")
      }
      guard self.live.updateValue(correlation, forKey: correlation.uuid) == nil else {
        throw StateRestoreError("correlation \(correlation.uuid) listed twice")
      }
    }
    for tombstone in deleted {
      guard self.live[tombstone.uuid] == nil, self.deleted.updateValue(tombstone, forKey: tombstone.uuid) == nil else {
        throw StateRestoreError("deleted correlation \(tombstone.uuid) listed twice")
      }
    }
  }

  /// Whether the identifier names a correlation, live or deleted.
  package func isKnown(_ uuid: UUID) -> Bool { live[uuid] != nil || deleted[uuid] != nil }

  /// The live correlations in a stable order (start date, then identifier): what snapshots and log restarts list.
  package var ordered: [Correlation] {
    live.values.sorted { $0.start != $1.start ? $0.start < $1.start : $0.uuid.uuidString < $1.uuid.uuidString }
  }

  /// The deletions in a stable order (deletion time, then identifier).
  package var orderedDeletions: [Tombstone] {
    deleted.values.sorted {
      $0.deletedAt != $1.deletedAt ? $0.deletedAt < $1.deletedAt : $0.uuid.uuidString < $1.uuid.uuidString
    }
  }

  /// Whether nothing is stored.
  package var isEmpty: Bool { live.isEmpty && deleted.isEmpty }

  /// The identifiers of the live correlations' members: what `predicateForObjectsWithNoCorrelation()` excludes (a
  /// deleted correlation's samples stand alone again, T12).
  package var memberIDs: Set<UUID> { Set(live.values.lazy.flatMap(\.members)) }

  /// Stores a correlation (a re-delivery of a known identifier changes nothing).
  mutating func insert(_ correlation: Correlation) {
    guard !isKnown(correlation.uuid) else { return }
    live[correlation.uuid] = correlation
  }

  /// Deletes a correlation, keeping its tombstone; true when it was live.
  @discardableResult
  mutating func delete(_ tombstone: Tombstone) -> Bool {
    let wasLive = live.removeValue(forKey: tombstone.uuid) != nil
    if deleted[tombstone.uuid] == nil { deleted[tombstone.uuid] = tombstone }
    return wasLive
  }

  /// Drops the live correlations that end before `floor` (the watch's retention window, W6); returns how many.
  @discardableResult
  mutating func prune(endingBefore floor: Date) -> Int {
    let old = live.values.filter { $0.end < floor }.map(\.uuid)
    for uuid in old { live[uuid] = nil }
    return old.count
  }
}

/// An `HKCorrelationQuery` (or an `HKSampleQuery` of a correlation type): the correlation-level conditions of a
/// ``SampleQuery`` plus a condition per member type (`samplePredicates`).
package struct CorrelationQuery: Hashable, Sendable {
  /// The correlation type, the date predicate, sources, sort, limit and filter of the correlation itself.
  package var base: SampleQuery
  /// `samplePredicates`: a correlation matches when, for every entry, it contains a member of that type that the
  /// app may see and that passes the entry's dates and filter.
  package var members: [MemberCondition]

  /// A condition on the members of one type.
  package struct MemberCondition: Hashable, Sendable {
    /// The member type (a component of the correlation type).
    package var type: SampleType
    /// The date predicate, if any.
    package var range: DateRange?
    /// Further conditions, if any.
    package var filter: SampleFilter?

    /// Creates a condition.
    package init(type: SampleType, range: DateRange? = nil, filter: SampleFilter? = nil) {
      self.type = type
      self.range = range
      self.filter = filter
    }
  }

  /// Creates a query.
  package init(base: SampleQuery, members: [MemberCondition] = []) {
    self.base = base
    self.members = members
  }
}

/// A correlation as a query returns it: the correlation and the members the app may see (its `objects`).
package struct CorrelationResult: Hashable, Sendable {
  /// The correlation.
  package var correlation: Correlation
  /// The members the app may see, in the correlation's order.
  package var objects: [Sample]

  /// Creates a result.
  package init(correlation: Correlation, objects: [Sample]) {
    self.correlation = correlation
    self.objects = objects
  }
}

extension DeviceState {
  /// `save(_:)` of objects some of which are correlations (docs/behavior.md T9, T10): every correlation and its
  /// members and every plain sample are validated as their initializers do, share permission is checked for every
  /// member and sample type (never for the correlation type, which apps cannot request), identifiers must be new,
  /// and everything is stored at once — the members as samples, then the correlations — or nothing is.
  /// - Throws: as ``save(_:_:wall:)``; `errorInvalidArgument` for a correlation that does not fit its type (T9);
  ///   `errorDatabaseInaccessible` while the device is locked (HealthPair does not hold correlations in the locked
  ///   journal).
  package mutating func saveCorrelations(
    _ bundleID: String, _ inputs: [CorrelationInput], samples plain: [SampleInput], wall: Date
  ) throws(HealthError) -> [DeviceEvent] {
    _ = try installedAppRecord(bundleID)
    guard !inputs.isEmpty || !plain.isEmpty else {
      throw .healthKit(.errorInvalidArgument, "Saving an empty array of objects fails")
    }
    let source = SampleSource(bundleID: bundleID, device: device)
    var correlations: [Correlation] = []
    var samples: [Sample] = []
    for input in plain { samples.append(try input.validated(source: source)) }
    for input in inputs {
      let (correlation, members) = try input.validated(source: source)
      correlations.append(correlation)
      samples += members
    }
    var checked: Set<SampleType> = []
    for sample in samples where checked.insert(sample.type).inserted {
      try requireShare(bundleID, sample.type, verb: "save")
    }
    var seen: Set<UUID> = []
    for uuid in samples.map(\.uuid) + correlations.map(\.uuid) {
      if store.isKnown(uuid) || correlationStore.isKnown(uuid) || specialObjects.isKnown(uuid)
        || !seen.insert(uuid).inserted
      {
        throw .healthKit(.errorInvalidArgument, "An object with UUID \(uuid) is already stored")
      }
    }
    if policy.retention != nil {
      let earliest = earliestPermittedSampleDate(wall: wall)
      let ends = samples.map { ($0.uuid, $0.end) } + correlations.map { ($0.uuid, $0.end) }
      if let old = ends.first(where: { $0.1 < earliest }) {
        throw .healthKit(
          .errorInvalidArgument,
          "Sample \(old.0) ends at \(formatDate(old.1)), before earliestPermittedSampleDate "
            + "\(formatDate(earliest)) on the \(device)")
      }
    }
    guard !isLocked else {
      throw .healthKit(
        .errorDatabaseInaccessible,
        "Protected health data is inaccessible (the \(device) is locked): HealthPair does not keep correlations "
          + "saved while locked")
    }
    var events: [DeviceEvent] = []
    if !samples.isEmpty { events.append(.samplesSaved(samples)) }
    if !correlations.isEmpty { events.append(.correlationsSaved(correlations)) }
    return commitEvents(events)
  }

  /// Whether the app may query correlations of `type` (docs/behavior.md T11): the read permission of at least one
  /// of the type's component types must have been decided (else code 5, as R5); the device must be unlocked and
  /// the predicate's dates finite.
  func correlationQueryable(_ bundleID: String, _ query: CorrelationQuery) throws(HealthError) {
    _ = try installedAppRecord(bundleID)
    let type = query.base.type
    guard type.descriptor.isCorrelation else {
      throw .healthKit(.errorInvalidArgument, "\(type.identifier) is not a correlation type")
    }
    let components = type.descriptor.correlationComponents.compactMap { SampleType.lookup(name: $0) }
    guard components.contains(where: { decision(bundleID, Permission($0, .read)) != nil }) else {
      throw .healthKit(.errorAuthorizationNotDetermined, "Authorization not determined")
    }
    for condition in query.members where !components.contains(condition.type) {
      throw .healthKit(
        .errorInvalidArgument,
        "samplePredicates names \(condition.type.identifier), which a correlation of type \(type.identifier) "
          + "cannot contain")
    }
    try requireProtectedData()
    let dates = [query.base.range] + query.members.map(\.range)
    for range in dates.compactMap({ $0 }) {
      for date in [range.start, range.end].compactMap({ $0 }) where !date.timeIntervalSinceReferenceDate.isFinite {
        throw .healthKit(.errorInvalidArgument, "The predicate's dates must be finite (was \(formatDate(date)))")
      }
    }
    guard query.base.limit >= 0 else { throw .healthKit(.errorInvalidArgument, "limit must not be negative") }
    try requireDateSort(query.base.sort, type)
  }

  /// `HKCorrelationQuery`: the correlations of the type that the app may see — those with at least one live member
  /// it may read (R1–R4 per member type) — that pass the correlation's dates, sources and filter and every member
  /// condition, sorted (start date by default) and limited; each with the members the app may see (T11).
  package func correlationQuery(_ bundleID: String, _ query: CorrelationQuery, wall: Date) throws(HealthError)
    -> [CorrelationResult]
  {
    try correlationQueryable(bundleID, query)
    let base = query.base
    let floor = earliestPermittedSampleDate(wall: wall)
    var results: [CorrelationResult] = []
    for correlation in correlationStore.live.values where correlation.type == base.type {
      guard correlation.end >= floor || policy.retention == nil else { continue }
      if let range = base.range,
        !range.matches(
          start: correlation.start.timeIntervalSinceReferenceDate, end: correlation.end.timeIntervalSinceReferenceDate)
      {
        continue
      }
      if let sources = base.sources, !sources.contains(correlation.source.bundleID) { continue }
      if let filter = base.filter, !filter.matches(correlation.asFilterSubject) { continue }
      let objects = correlation.members.compactMap { store.liveSample($0) }.filter { member in
        switch visibility(bundleID, member.type) {
        case .all: true
        case .own(let app): member.source.bundleID == app
        case .none: false
        }
      }
      guard !objects.isEmpty else { continue }
      let passes = query.members.allSatisfy { condition in
        objects.contains { member in
          member.type == condition.type
            && (condition.range.map {
              $0.matches(
                start: member.start.timeIntervalSinceReferenceDate, end: member.end.timeIntervalSinceReferenceDate)
            } ?? true) && (condition.filter?.matches(member) ?? true)
        }
      }
      if passes { results.append(CorrelationResult(correlation: correlation, objects: objects)) }
    }
    let sort = base.sort.isEmpty ? [SampleSort(.startDate, ascending: true)] : base.sort
    results.sort { a, b in
      for key in sort {
        let va = key.field == .startDate ? a.correlation.start : a.correlation.end
        let vb = key.field == .startDate ? b.correlation.start : b.correlation.end
        if va != vb { return key.ascending ? va < vb : va > vb }
      }
      return a.correlation.uuid.uuidString < b.correlation.uuid.uuidString
    }
    if base.limit > 0 && results.count > base.limit { results.removeLast(results.count - base.limit) }
    return results
  }

  /// The tombstone for deleting the live correlation `uuid` on behalf of `bundleID`, or nil when `uuid` names no
  /// live correlation. Only the app's own correlations can be deleted (D6), with share permission for the types of
  /// its members (D7); its members stay stored (T12).
  func correlationTombstone(_ bundleID: String, _ uuid: UUID, at: Date) throws(HealthError) -> Tombstone? {
    guard let correlation = correlationStore.live[uuid] else { return nil }
    guard correlation.source.bundleID == bundleID else {
      throw .healthKit(.errorInvalidArgument, "Failed to find some objects for deletion")
    }
    var checked: Set<SampleType> = []
    for member in correlation.members.compactMap({ store.liveSample($0) }) where checked.insert(member.type).inserted {
      try requireShare(bundleID, member.type, verb: "delete")
    }
    return Tombstone(
      uuid: uuid, type: correlation.type, source: correlation.source, deletedAt: at, metadata: correlation.metadata)
  }
}

extension Correlation {
  /// The correlation as a ``SampleFilter`` sees it: its identifier, dates, source and metadata (it has no value of
  /// its own, so value conditions never match).
  var asFilterSubject: Sample {
    Sample(
      uuid: uuid, type: type, value: .quantity(.nan), start: start, end: end, metadata: metadata, source: source)
  }
}

extension DeviceState {
  /// Every live correlation (of `type`, or all) with its live members, whatever app saved it, in start-date order:
  /// what an export writes (docs/behavior.md I13).
  package func storedCorrelations(type: SampleType?) -> [CorrelationResult] {
    correlationStore.ordered.filter { type == nil || $0.type == type }.map { correlation in
      CorrelationResult(correlation: correlation, objects: correlation.members.compactMap { store.liveSample($0) })
    }
  }

  /// Stages correlations of an import (docs/behavior.md I13): their members arrive as samples in the import's
  /// batches; they become visible with the rest at the commit.
  /// - Throws: a simulator error for identifier 0 or a locked device (L5); `errorInvalidArgument` for a correlation
  ///   whose members do not fit its type (T9).
  package mutating func stageImportCorrelations(_ id: UInt64, _ correlations: [Correlation]) throws(HealthError)
    -> [DeviceEvent]
  {
    guard id != 0 else { throw .simulator("import identifier 0 is reserved") }
    guard !isLocked else {
      throw .simulator("the \(device) is locked: unlock it before the user can import an Apple Health export")
    }
    for correlation in correlations {
      // What a journal or the peer link reads back: a correlation type, finite dates in order within the dates a
      // sample may have, members listed once, finite metadata.
      let start = correlation.start.timeIntervalSinceReferenceDate
      let end = correlation.end.timeIntervalSinceReferenceDate
      guard correlation.type.descriptor.isCorrelation, start.isFinite, end.isFinite, start <= end,
        correlation.start >= earliestSampleDate, correlation.end < latestSampleDate,
        !correlation.members.isEmpty, Set(correlation.members).count == correlation.members.count
      else {
        throw .healthKit(.errorInvalidArgument, "correlation \(correlation.uuid) is not a valid correlation")
      }
      try Self.checkImportSource(correlation.source)
      try correlation.metadata.checkValues()
    }
    return commitEvents([.importCorrelationsStaged(id: id, correlations)])
  }
}
