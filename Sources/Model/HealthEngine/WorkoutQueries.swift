import FoundationEssentials
import HealthModel

/// The result of an anchored object query of a workout-family type: what was stored since the anchor (only the
/// list of the queried type is filled), the deletions since it, and the next anchor.
package struct AnchoredWorkoutResult: Hashable, Sendable {
  /// Workouts added since the anchor, still present (a workout query).
  package var workouts: [Workout] = []
  /// Routes added since the anchor, still present (a workout route query).
  package var routes: [WorkoutRoute] = []
  /// Heartbeat series added since the anchor, still present (a heartbeat series query).
  package var series: [HeartbeatSeries] = []
  /// Electrocardiograms recorded since the anchor, still present, without their voltages.
  package var electrocardiograms: [Electrocardiogram] = []
  /// Audiograms added since the anchor, still present.
  package var audiograms: [Audiogram] = []
  /// States of Mind added since the anchor, still present.
  package var statesOfMind: [StateOfMind] = []
  /// Vision prescriptions added since the anchor, still present and readable object by object.
  package var visionPrescriptions: [VisionPrescription] = []
  /// Clinical records of the type received since the anchor, still present.
  package var clinicalRecords: [ClinicalRecord] = []
  /// Scored assessments of the type saved since the anchor, still present.
  package var scoredAssessments: [ScoredAssessment] = []
  /// CDA documents saved since the anchor, still present and readable object by object.
  package var cdaDocuments: [CDADocument] = []
  /// Medication dose events of medications the app may read, logged since the anchor.
  package var medicationDoses: [MedicationDoseEvent] = []
  /// Deletions of the type since the anchor (`HKDeletedObject`).
  package var deleted: [Tombstone] = []
  /// The anchor to pass next time.
  package var newAnchor: UInt64 = 0

  /// How many objects were added, of every family.
  package var addedCount: Int {
    workouts.count + routes.count + series.count + electrocardiograms.count + audiograms.count + statesOfMind.count
      + visionPrescriptions.count + clinicalRecords.count + scoredAssessments.count + cdaDocuments.count
      + medicationDoses.count
  }

  /// Creates a result.
  package init(
    workouts: [Workout] = [], routes: [WorkoutRoute] = [], series: [HeartbeatSeries] = [],
    electrocardiograms: [Electrocardiogram] = [], audiograms: [Audiogram] = [], statesOfMind: [StateOfMind] = [],
    visionPrescriptions: [VisionPrescription] = [], clinicalRecords: [ClinicalRecord] = [],
    scoredAssessments: [ScoredAssessment] = [], cdaDocuments: [CDADocument] = [],
    medicationDoses: [MedicationDoseEvent] = [], deleted: [Tombstone] = [],
    newAnchor: UInt64 = 0
  ) {
    self.workouts = workouts
    self.routes = routes
    self.series = series
    self.electrocardiograms = electrocardiograms
    self.audiograms = audiograms
    self.statesOfMind = statesOfMind
    self.visionPrescriptions = visionPrescriptions
    self.clinicalRecords = clinicalRecords
    self.scoredAssessments = scoredAssessments
    self.cdaDocuments = cdaDocuments
    self.medicationDoses = medicationDoses
    self.deleted = deleted
    self.newAnchor = newAnchor
  }
}

/// One stored object of the workout family as a query reads it: its dates, source and change number. How a
/// ``SampleFilter`` sees it and its sort values are functions `select` takes once for all candidates (no closure
/// per object).
struct Candidate<Value> {
  var value: Value
  var start: Date
  var end: Date
  var source: SampleSource
  var change: UInt64
}

extension DeviceState {
  /// Whether an object of `source` is visible under `visibility` (R1–R4).
  func visible(_ source: SampleSource, _ visibility: Visibility) -> Bool {
    switch visibility {
    case .all: true
    case .own(let app): source.bundleID == app
    case .none: false
    }
  }

  /// Checks a query of a workout-family type as ``queryable(_:_:range:anchor:)`` checks a sample query: `type`
  /// must be `expected`; a read never decided fails with code 5 (R5); the device must be unlocked (L2); dates
  /// finite; limit not negative.
  func workoutQueryable(_ bundleID: String, _ type: SampleType, expected: SampleType, range: DateRange?, limit: Int)
    throws(HealthError)
  {
    _ = try installedAppRecord(bundleID)
    guard type == expected else {
      throw .healthKit(.errorInvalidArgument, "\(type.identifier) cannot be read with a \(expected.name) query")
    }
    guard decision(bundleID, Permission(type, .read)) != nil else {
      throw .healthKit(.errorAuthorizationNotDetermined, "Authorization not determined")
    }
    try requireProtectedData()
    for date in [range?.start, range?.end].compactMap({ $0 }) where !date.timeIntervalSinceReferenceDate.isFinite {
      throw .healthKit(.errorInvalidArgument, "The predicate's dates must be finite (was \(formatDate(date)))")
    }
    guard limit >= 0 else { throw .healthKit(.errorInvalidArgument, "limit must not be negative") }
  }

  /// The value a workout sort key reads (workouts.md §1.1's `HKWorkoutSortIdentifier…`): the duration, or the sum
  /// of the statistic the deprecated total stood for (total distance: the first distance statistic the workout
  /// has, HealthPair model).
  static func sortValue(_ workout: Workout, _ field: SampleSort.Field) -> Double? {
    func sum(_ name: String) -> Double? { SampleType.lookup(name: name).flatMap { workout.statistic(for: $0)?.sum } }
    switch field {
    case .startDate: return workout.start.timeIntervalSinceReferenceDate
    case .endDate: return workout.end.timeIntervalSinceReferenceDate
    case .duration: return workout.duration
    case .totalDistance:
      return workout.statistics.first { $0.type.name.hasPrefix("distance") && $0.sum != nil }?.sum
    case .totalEnergyBurned: return sum("activeEnergyBurned")
    case .totalSwimmingStrokeCount: return sum("swimmingStrokeCount")
    case .totalFlightsClimbed: return sum("flightsClimbed")
    }
  }

  /// The candidates that pass a query's visibility, retention floor, range, sources and filter (`matches`), sorted
  /// (start date by default, then change order; `sortValue` reads a workout sort key, nil sorting first ascending as
  /// nil in an `NSSortDescriptor`) and limited. The sort orders indices by keys read once per candidate, so no
  /// object is copied while sorting. `everyCandidateVisible`: the candidates are what the app may see already (a
  /// per-object type's), so the type's visibility is not applied.
  func select<Value>(
    _ candidates: [Candidate<Value>], _ bundleID: String, _ query: SampleQuery, wall: Date,
    everyCandidateVisible: Bool = false, matches: (Value, SampleFilter) -> Bool,
    sortValue: (Value, SampleSort.Field) -> Double? = { _, _ in nil }
  ) -> [Value] {
    let visibility = everyCandidateVisible ? .all : visibility(bundleID, query.type)
    let floor = floor(wall: wall)
    var kept: [Int] = []
    kept.reserveCapacity(candidates.count)
    // Fields are read in place (`candidates[i].start`): binding a candidate copies its value (a workout's arrays).
    for i in candidates.indices {
      let start = candidates[i].start.timeIntervalSinceReferenceDate
      let end = candidates[i].end.timeIntervalSinceReferenceDate
      guard visible(candidates[i].source, visibility), end >= floor,
        query.range?.matches(start: start, end: end) ?? true,
        query.sources?.contains(candidates[i].source.bundleID) ?? true
      else { continue }
      if let filter = query.filter, !matches(candidates[i].value, filter) { continue }
      kept.append(i)
    }
    let sort = query.sort.isEmpty ? [SampleSort(.startDate, ascending: true)] : query.sort
    // keys[k][i]: the value of sort key k for candidate i (only kept ones are read).
    let keys: [[Double]] = sort.map { key in
      var column = [Double](repeating: 0, count: candidates.count)
      for i in kept {
        switch key.field {
        case .startDate: column[i] = candidates[i].start.timeIntervalSinceReferenceDate
        case .endDate: column[i] = candidates[i].end.timeIntervalSinceReferenceDate
        case .duration, .totalDistance, .totalEnergyBurned, .totalSwimmingStrokeCount, .totalFlightsClimbed:
          column[i] = sortValue(candidates[i].value, key.field) ?? -.infinity
        }
      }
      return column
    }
    let changes = candidates.map(\.change)
    kept.sort { a, b in
      for (k, key) in sort.enumerated() {
        let va = keys[k][a]
        let vb = keys[k][b]
        if va != vb { return key.ascending ? va < vb : va > vb }
      }
      return changes[a] < changes[b]
    }
    if query.limit > 0 && kept.count > query.limit { kept.removeLast(kept.count - query.limit) }
    return kept.map { candidates[$0].value }
  }

  /// An object with no value of its own as a ``SampleFilter`` sees a sample: identifier, dates, source, metadata.
  private func subject(
    _ uuid: UUID, _ type: SampleType, _ start: Date, _ end: Date, _ metadata: Metadata,
    _ source: SampleSource
  ) -> Sample {
    Sample(uuid: uuid, type: type, value: .quantity(.nan), start: start, end: end, metadata: metadata, source: source)
  }

  /// `HKSampleQuery` of `HKWorkoutType`: the workouts the app may see (R1–R4: a denied read sees only its own; code
  /// 5 when never decided), inside the retention window, matching the range, sources and filter (workout
  /// conditions included), sorted by start or end date or a workout sort key (``SampleSort/Field``) and limited.
  package func workoutQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError) -> [Workout] {
    try workoutQueryable(
      bundleID, query.type, expected: WorkoutStore.workoutType, range: query.range, limit: query.limit)
    let candidates = workoutStore.workouts.values.map { entry in
      Candidate(
        value: entry.value, start: entry.value.start, end: entry.value.end,
        source: entry.value.source, change: entry.change)
    }
    return select(
      candidates, bundleID, query, wall: wall, matches: { $1.matches($0) }, sortValue: { Self.sortValue($0, $1) })
  }

  /// `HKSampleQuery` of `HKSeriesType.workoutRoute()` (an `HKWorkoutRouteQuery` reads the locations of what it
  /// returns): the routes the app may see, of `workout` when given; `.associatedWith(w)` in the filter
  /// (`predicateForObjects(from: workout)`) names the routes of `w`.
  package func routeQuery(_ bundleID: String, workout: UUID?, _ query: SampleQuery, wall: Date) throws(HealthError)
    -> [WorkoutRoute]
  {
    try workoutQueryable(
      bundleID, query.type, expected: WorkoutStore.routeType, range: query.range, limit: query.limit)
    try requireDateSort(query.sort, query.type)
    let filter = query.filter?.resolvingAssociations { w in Set(workoutStore.routes(of: w).map(\.uuid)) }
    var resolved = query
    resolved.filter = filter
    let candidates = workoutStore.routes.values.filter { workout == nil || $0.value.workout == workout }.map { entry in
      let route = entry.value
      return Candidate(
        value: route, start: route.start, end: route.end, source: route.source,
        change: entry.change)
    }
    return select(candidates, bundleID, resolved, wall: wall) { route, filter in
      filter.matches(
        subject(route.uuid, WorkoutStore.routeType, route.start, route.end, route.metadata, route.source))
    }
  }

  /// `HKSampleQuery` of `HKSeriesType.heartbeat()`: the heartbeat series the app may see, as ``workoutQuery``.
  package func heartbeatSeriesQuery(_ bundleID: String, _ query: SampleQuery, wall: Date) throws(HealthError)
    -> [HeartbeatSeries]
  {
    try workoutQueryable(
      bundleID, query.type, expected: WorkoutStore.heartbeatSeriesType, range: query.range, limit: query.limit)
    try requireDateSort(query.sort, query.type)
    let candidates = workoutStore.series.values.map { entry in
      let series = entry.value
      return Candidate(
        value: series, start: series.start, end: series.end, source: series.source,
        change: entry.change)
    }
    return select(candidates, bundleID, query, wall: wall) { series, filter in
      filter.matches(
        subject(
          series.uuid, WorkoutStore.heartbeatSeriesType, series.start, series.end, series.metadata,
          series.source))
    }
  }

  /// `HKAnchoredObjectQuery` of `workout`, `workoutRoute`, `heartbeatSeries`, `electrocardiogram`, `audiogram`,
  /// `stateOfMind`, `visionPrescription`, a scored assessment, `CDA`, `medicationDoseEvent` or a clinical type:
  /// visible objects of the type stored since `anchor` (0: every current one, no deletions) that
  /// pass `range` and `filter` (for routes, `.associatedWith(w)` names `w`'s routes — how an app catches late
  /// routes, workouts.md §1.6), as the type's sample query sees them, and the visible deletions of the type since
  /// it; at most `limit` changes (0: no limit). Anchors count in the device's one change sequence.
  package func anchoredWorkoutQuery(
    _ bundleID: String, type: SampleType, anchor: UInt64, range: DateRange?, limit: Int, filter: SampleFilter? = nil,
    wall: Date
  ) throws(HealthError) -> AnchoredWorkoutResult {
    let clinical = type.descriptor.objectKind == .clinicalRecord
    let assessment = type.descriptor.objectKind == .scoredAssessment
    let expected = clinical ? type : Self.anchoredApart.first { $0 == type } ?? WorkoutStore.workoutType
    let perObject = type.descriptor.readsPerObject || type == SpecialObjectStore.medicationDoseEventType
    // Read object by object, prescriptions, CDA documents and dose events need no type-level read decision (V4, O3;
    // medications'): their query checks the rest.
    if !perObject { try workoutQueryable(bundleID, type, expected: expected, range: range, limit: limit) }
    let query = SampleQuery(type: type, range: range, limit: perObject ? limit : 0, filter: filter)
    let visibility = perObject ? .own(bundleID: bundleID) : visibility(bundleID, type)
    var result = AnchoredWorkoutResult()
    /// The entries added after the anchor that `kept` (the type's query) returns, and their change numbers.
    func added<Value>(_ ordered: [WorkoutStore.Entry<Value>], _ kept: [UUID], _ uuid: (Value) -> UUID) -> (
      [Value], [UInt64]
    ) {
      let kept = Set(kept)
      let entries = ordered.filter { $0.change > anchor && kept.contains(uuid($0.value)) }
      return (entries.map(\.value), entries.map(\.change))
    }
    let changes: [UInt64]
    switch type {
    case WorkoutStore.workoutType:
      (result.workouts, changes) = added(
        workoutStore.orderedWorkouts, try workoutQuery(bundleID, query, wall: wall).map(\.uuid), \.uuid)
    case WorkoutStore.routeType:
      (result.routes, changes) = added(
        workoutStore.orderedRoutes, try routeQuery(bundleID, workout: nil, query, wall: wall).map(\.uuid), \.uuid)
    case SpecialObjectStore.electrocardiogramType:
      (result.electrocardiograms, changes) = added(
        specialObjects.electrocardiograms.ordered,
        try electrocardiogramQuery(bundleID, query, wall: wall).map(\.uuid), \.uuid)
    case SpecialObjectStore.audiogramType:
      (result.audiograms, changes) = added(
        specialObjects.audiograms.ordered, try audiogramQuery(bundleID, query, wall: wall).map(\.uuid), \.uuid)
    case SpecialObjectStore.stateOfMindType:
      (result.statesOfMind, changes) = added(
        specialObjects.statesOfMind.ordered, try stateOfMindQuery(bundleID, query, wall: wall).map(\.uuid), \.uuid)
    case _ where assessment:
      (result.scoredAssessments, changes) = added(
        specialObjects.scoredAssessments.ordered, try scoredAssessmentQuery(bundleID, query, wall: wall).map(\.uuid),
        \.uuid)
    case _ where clinical:
      (result.clinicalRecords, changes) = added(
        specialObjects.clinicalRecords.ordered, try clinicalRecordQuery(bundleID, query, wall: wall).map(\.uuid),
        \.uuid)
    case SpecialObjectStore.cdaType:
      var all = query
      all.limit = 0
      (result.cdaDocuments, changes) = added(
        specialObjects.cdaDocuments.ordered, try cdaDocumentQuery(bundleID, all, wall: wall).map(\.uuid), \.uuid)
    case SpecialObjectStore.medicationDoseEventType:
      var all = query
      all.limit = 0
      (result.medicationDoses, changes) = added(
        specialObjects.medicationDoses.ordered, try medicationDoseQuery(bundleID, all, wall: wall).map(\.uuid),
        \.uuid)
    case SpecialObjectStore.visionPrescriptionType:
      var all = query
      all.limit = 0
      (result.visionPrescriptions, changes) = added(
        specialObjects.visionPrescriptions.ordered,
        try visionPrescriptionQuery(bundleID, all, wall: wall).map(\.uuid), \.uuid)
    default:
      (result.series, changes) = added(
        workoutStore.orderedSeries, try heartbeatSeriesQuery(bundleID, query, wall: wall).map(\.uuid), \.uuid)
    }
    var deletions: [(UInt64, Tombstone)] = []
    if anchor > 0 {
      for entry in workoutStore.orderedDeletions
      where entry.change > anchor && entry.value.type == type && visible(entry.value.source, visibility)
        && (filter?.matches(entry.value) ?? true)
      {
        deletions.append((entry.change, entry.value))
      }
    }
    var newAnchor = store.changeCounter
    let all = (changes + deletions.map(\.0)).sorted()
    if limit > 0 && all.count > limit {
      let cutoff = all[limit - 1]
      func keep<Value>(_ values: [Value]) -> [Value] {
        values.count == changes.count ? zip(values, changes).filter { $0.1 <= cutoff }.map(\.0) : values
      }
      result.workouts = keep(result.workouts)
      result.routes = keep(result.routes)
      result.series = keep(result.series)
      result.electrocardiograms = keep(result.electrocardiograms)
      result.audiograms = keep(result.audiograms)
      result.statesOfMind = keep(result.statesOfMind)
      result.visionPrescriptions = keep(result.visionPrescriptions)
      result.clinicalRecords = keep(result.clinicalRecords)
      result.scoredAssessments = keep(result.scoredAssessments)
      result.cdaDocuments = keep(result.cdaDocuments)
      result.medicationDoses = keep(result.medicationDoses)
      deletions.removeAll { $0.0 > cutoff }
      newAnchor = cutoff
    }
    result.deleted = deletions.map(\.1)
    result.newAnchor = max(newAnchor, anchor)
    return result
  }

  /// The types ``anchoredWorkoutQuery(_:type:anchor:range:limit:filter:wall:)`` answers besides the clinical types:
  /// those stored apart from samples.
  package static let anchoredApart = [
    WorkoutStore.workoutType, WorkoutStore.routeType, WorkoutStore.heartbeatSeriesType,
    SpecialObjectStore.electrocardiogramType, SpecialObjectStore.audiogramType, SpecialObjectStore.stateOfMindType,
    SpecialObjectStore.visionPrescriptionType, SpecialObjectStore.gad7Type, SpecialObjectStore.phq9Type,
    SpecialObjectStore.cdaType, SpecialObjectStore.medicationDoseEventType,
  ]

  /// Every live workout, whatever app saved it, in start-date order: what an export writes.
  package func storedWorkouts() -> [Workout] {
    workoutStore.orderedWorkouts.map(\.value).sorted {
      $0.start != $1.start ? $0.start < $1.start : $0.uuid.uuidString < $1.uuid.uuidString
    }
  }

  /// Every live route (of `workout`, or all), in change order: what an export writes.
  package func storedRoutes(workout: UUID?) -> [WorkoutRoute] {
    guard let workout else { return workoutStore.orderedRoutes.map(\.value) }
    return workoutStore.routes(of: workout)
  }

  /// The imported activity summaries, day-ascending: what an export writes.
  package func storedActivitySummaries() -> [ActivitySummary] { workoutStore.orderedSummaries }
}
