import FoundationEssentials
import HealthModel

/// `DeviceState`: what an app may see, and sample, count and anchored queries.
extension DeviceState {
  // MARK: - Queries

  /// What an app's query of `type` may see (WWDC16-209): read granted → all; share granted → own; else nothing.
  package func visibility(_ bundleID: String, _ type: SampleType) -> Visibility {
    if decisions[AuthorizationKey(bundleID, Permission(type, .read))] == .authorized { return .all }
    if decisions[AuthorizationKey(bundleID, Permission(type, .share))] == .authorized {
      return .own(bundleID: bundleID)
    }
    return .none
  }

  /// healthd validates a query's configuration before running it: a type whose read permission the app never
  /// had decided (never requested, or its sheet never answered) fails with code 5, whatever the share decision
  /// (docs/behavior.md R5). A decided read — granted or denied — runs, with R1–R4's visibility. Dates in the
  /// predicate and the anchor must be finite.
  func queryable(_ bundleID: String, _ type: SampleType, range: DateRange?, anchor: Date? = nil)
    throws(HealthError)
  {
    _ = try installedApp(bundleID)
    if type.descriptor.isCorrelation {
      throw .healthKit(
        .errorInvalidArgument,
        "\(type.identifier) is a correlation type: query it with a correlation query (HKCorrelationQuery)")
    }
    if type.descriptor.isCharacteristic {
      // HKSampleQuery and its kin take an HKSampleType; a characteristic type is not one (behavior.md C1).
      throw .healthKit(
        .errorInvalidArgument,
        "\(type.identifier) is a characteristic type, not a sample type: read it with the HKHealthStore method for "
          + "it (dateOfBirthComponents(), biologicalSex(), …)")
    }
    guard decisions[AuthorizationKey(bundleID, Permission(type, .read))] != nil else {
      throw .healthKit(.errorAuthorizationNotDetermined, "Authorization not determined")
    }
    // Authorization records are readable while locked; the samples are not (behavior.md L2).
    try requireProtectedData()
    // A NaN or infinite date would turn sums into NaN and bucket numbers into garbage.
    let dates = [
      (range?.start, "predicate's start date"), (range?.end, "predicate's end date"), (anchor, "anchorDate"),
    ]
    for (date, name) in dates {
      if let date, !date.timeIntervalSinceReferenceDate.isFinite {
        throw .healthKit(.errorInvalidArgument, "The \(name) must be a finite date (was \(formatDate(date)))")
      }
    }
  }

  /// `HKSampleQuery`: the samples the app may see, filtered, sorted and limited. A denied read is an empty (or
  /// own-only) result, never an error; a read never decided fails with code 5.
  package func sampleQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError)
    -> [Sample]
  {
    try queryable(bundleID, query.type, range: query.range)
    guard query.limit >= 0 else { throw .healthKit(.errorInvalidArgument, "limit must not be negative") }
    try requireDateSort(query.sort, query.type)
    let floor = floor(wall: wall)
    let visibility = visibility(bundleID, query.type)
    let allowed = passing(query.filter, query.type, query.range, floor, visibility, query.sources)
    var matches: [Int] = []
    if query.sort.count == 1 {
      // One sort key (the usual case): collect (key, change, index) while each slot is loaded, then order that
      // compact array; "the latest 50" selects without sorting everything.
      let field = query.sort[0].field
      let ascending = query.sort[0].ascending
      var keyed: [SortKey] = []
      store.scanSlots(
        type: query.type, range: query.range, floor: floor, visibility: visibility, sources: query.sources
      ) { index, slot in
        if let allowed, !allowed.contains(index) { return }
        let date = field == .startDate ? slot.start : slot.end
        keyed.append(SortKey(key: ascending ? date : -date, change: slot.change, index: Int32(index)))
      }
      let ordered = query.limit > 0 ? keyed.smallest(query.limit, key: { $0.key }, by: <) : keyed.sorted(by: <)
      matches = ordered.map { Int($0.index) }
    } else {
      store.scan(type: query.type, range: query.range, floor: floor, visibility: visibility, sources: query.sources) {
        if allowed?.contains($0) ?? true { matches.append($0) }
      }
      if !query.sort.isEmpty {
        let slots = store.slots
        let sort = query.sort
        matches.sort { a, b in
          for key in sort {
            let va = key.field == .startDate ? slots[a].start : slots[a].end
            let vb = key.field == .startDate ? slots[b].start : slots[b].end
            if va != vb { return key.ascending ? va < vb : va > vb }
          }
          return slots[a].change < slots[b].change
        }
      }
    }
    if query.limit > 0 && matches.count > query.limit { matches.removeLast(matches.count - query.limit) }
    return matches.map { store.materialize($0) }
  }

  /// The visible slots of `type` that pass `filter`, or nil when there is no filter (everything passes). A separate
  /// pass, so the scans that follow stay as they are: the cost is paid only by queries with such a predicate.
  func passing(
    _ filter: SampleFilter?, _ type: SampleType, _ range: DateRange?, _ floor: Double, _ visibility: Visibility,
    _ sources: Set<String>?
  ) -> Set<Int>? {
    guard
      let filter = filter?.resolvingCorrelations(members: { correlationStore.memberIDs })
        .resolvingAssociations({ workoutStore.associated(with: $0) })
    else { return nil }
    var candidates: [Int] = []
    store.scan(type: type, range: range, floor: floor, visibility: visibility, sources: sources) {
      candidates.append($0)
    }
    return Set(candidates.filter { filter.matches(store.materialize($0)) })
  }

  /// The checks an object family's query makes first: the app is installed, the query is of `type` (else
  /// `errorInvalidArgument` with `refusal`), protected data is available, the sort keys are dates (when `sorted`)
  /// and the limit is not negative.
  func requireObjectQuery(
    _ bundleID: String, _ query: SampleQuery, of type: SampleType, sorted: Bool = true, refusal: String
  ) throws(HealthError) {
    _ = try installedAppRecord(bundleID)
    guard query.type == type else { throw .healthKit(.errorInvalidArgument, refusal) }
    try requireProtectedData()
    if sorted { try requireDateSort(query.sort, query.type) }
    guard query.limit >= 0 else { throw .healthKit(.errorInvalidArgument, "limit must not be negative") }
  }

  /// Refuses a workout sort key on a type other than workouts (HealthPair model: on a device the key names no
  /// property of the objects).
  func requireDateSort(_ sort: [SampleSort], _ type: SampleType) throws(HealthError) {
    if let key = sort.first(where: { !$0.field.isDate }) {
      throw .healthKit(.errorInvalidArgument, "Sort key \(key.field) applies to workouts, not \(type.identifier)")
    }
  }

  /// One sample's position in a single-key sort: the key (negated for descending), then the change number.
  private struct SortKey: Comparable {
    var key: Double
    var change: UInt64
    var index: Int32
    static func < (a: SortKey, b: SortKey) -> Bool { a.key != b.key ? a.key < b.key : a.change < b.change }
  }

  /// The number of samples of `type` the app may see in `range` (no materialisation).
  package func visibleCount(_ bundleID: String, _ type: SampleType, range: DateRange?, wall: Date)
    throws(HealthError) -> Int
  {
    try queryable(bundleID, type, range: range)
    var count = 0
    store.scan(type: type, range: range, floor: floor(wall: wall), visibility: visibility(bundleID, type)) { _ in
      count += 1
    }
    return count
  }

  /// `HKAnchoredObjectQuery`: visible samples added and deletions recorded since `anchor` (0 = nil anchor, which
  /// returns every current sample and no deletions) that pass `filter` (the rest of the predicate: sources,
  /// metadata, `predicateForObjectsWithNoCorrelation()` and `predicateForObjects(from: workout)` resolved here; a
  /// deletion passes the conditions it cannot be checked against), at most `limit` changes (0 = no limit) counted
  /// after the filter, so a limited query returns the first matching changes and its anchor stops after them.
  ///
  /// Changes are walked in change order and the walk stops at the first match past the limit: a page costs the
  /// changes up to it, not every change after the anchor.
  package func anchoredQuery(
    _ bundleID: String, type: SampleType, anchor: UInt64, range: DateRange?, limit: Int, filter: SampleFilter? = nil,
    wall: Date
  ) throws(HealthError) -> AnchoredResult {
    try queryable(bundleID, type, range: range)
    let visibility = visibility(bundleID, type)
    let floor = floor(wall: wall)
    func visible(_ source: SampleSource) -> Bool {
      switch visibility {
      case .all: true
      case .own(let app): source.bundleID == app
      case .none: false
      }
    }
    let resolved = filter?.resolvingCorrelations(members: { correlationStore.memberIDs })
      .resolvingAssociations({ workoutStore.associated(with: $0) })
    let sources = filter?.topLevelSources
    let matcher = (range ?? DateRange(start: nil, end: nil)).matcher
    let slotIDs = store.slotsChanged(type: type, after: anchor)
    let tombstones = anchor > 0 ? store.tombstonesChanged(type: type, after: anchor) : []
    var added: [Sample] = []
    var deleted: [Tombstone] = []
    var (i, j) = (0, 0)
    var last = anchor
    var full = false
    while i < slotIDs.count || j < tombstones.count {
      let slotChange = i < slotIDs.count ? store.slots[Int(slotIDs[i])].change : .max
      let tombstoneChange = j < tombstones.count ? tombstones[j].change : .max
      if slotChange <= tombstoneChange {
        let index = Int(slotIDs[i])
        i += 1
        let slot = store.slots[index]
        let source = store.source(ofSlot: index)
        guard slot.live, slot.end >= floor, visible(source), matcher.matches(start: slot.start, end: slot.end),
          sources?.contains(source.bundleID) ?? true
        else { continue }
        var sample: Sample?
        if let resolved {
          sample = store.materialize(index)
          guard resolved.matches(sample!) else { continue }
        }
        if limit > 0 && added.count + deleted.count == limit {
          full = true
          break
        }
        added.append(sample ?? store.materialize(index))
        last = slotChange
      } else {
        let tombstone = tombstones[j].tombstone
        j += 1
        guard visible(tombstone.source), filter?.matches(tombstone) ?? true else { continue }
        if limit > 0 && added.count + deleted.count == limit {
          full = true
          break
        }
        deleted.append(tombstone)
        last = tombstoneChange
      }
    }
    return AnchoredResult(added: added, deleted: deleted, newAnchor: max(full ? last : store.changeCounter, anchor))
  }
}
