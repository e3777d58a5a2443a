import FoundationEssentials

/// A route as an app finishes it (`HKWorkoutRouteBuilder.finishRoute(with:metadata:)`, or a workout builder's
/// route series): its identifier, the fixes in any order (`insertRouteData(_:)` accepts any order; they are
/// sorted at finish, workouts.md §1.6) and metadata.
package struct RouteInput: Hashable, Sendable {
  /// The route's identifier.
  package var uuid: UUID
  /// The fixes, in any order.
  package var locations: [RouteLocation]
  /// The route's metadata.
  package var metadata: Metadata

  /// Creates a route input.
  package init(uuid: UUID, locations: [RouteLocation], metadata: Metadata = [:]) {
    self.uuid = uuid
    self.locations = locations
    self.metadata = metadata
  }
}

/// A heartbeat series as an app finishes it (`HKHeartbeatSeriesBuilder`): beats as offsets from the start.
package struct HeartbeatSeriesInput: Hashable, Sendable {
  /// The series' identifier.
  package var uuid: UUID
  /// Start of the series.
  package var start: Date
  /// End of the series.
  package var end: Date
  /// The beats, offsets ascending.
  package var beats: [Heartbeat]
  /// The series' metadata.
  package var metadata: Metadata

  /// Creates a series input.
  package init(uuid: UUID, start: Date, end: Date, beats: [Heartbeat], metadata: Metadata = [:]) {
    self.uuid = uuid
    self.start = start
    self.end = end
    self.beats = beats
    self.metadata = metadata
  }
}

/// Checks that an object's dates are finite, in order and within the dates a sample may carry (as
/// ``SampleInput/validated(source:)`` checks a sample's), naming the object in the message (built only on failure).
func checkObjectDates(_ start: Date, _ end: Date, _ what: @autoclosure () -> String) throws(HealthError) {
  guard start.timeIntervalSinceReferenceDate.isFinite, end.timeIntervalSinceReferenceDate.isFinite else {
    throw .invalidArgumentException("\(what()) dates must be finite")
  }
  guard start <= end else {
    throw .invalidArgumentException(
      "\(what()): startDate (\(formatDate(start))) must be equal to or earlier than endDate (\(formatDate(end)))")
  }
  guard end < latestSampleDate else {
    throw .validationException("\(what()) can not have endDate of NSDate.distantFuture")
  }
  guard start >= earliestSampleDate else {
    throw .validationException("\(what()) can not have startDate before 0001")
  }
}

extension WorkoutStatistic {
  /// Checks a statistic: a quantity type, finite dates in order, finite values (in the canonical unit).
  func check(_ what: String) throws(HealthError) {
    guard type.isQuantity else {
      throw .invalidArgumentException("\(what): statistics of \(type.identifier), which is not a quantity type")
    }
    try checkObjectDates(start, end, "\(what) statistics of \(type.name)")
    func requireFinite(_ value: Double?) throws(HealthError) {
      guard let value, !value.isFinite else { return }
      throw .invalidArgumentException("\(what): statistics of \(type.name) must be finite (was \(value))")
    }
    try requireFinite(sum)
    try requireFinite(minimum)
    try requireFinite(maximum)
    try requireFinite(average)
    try requireFinite(mostRecent)
  }
}

/// Checks a list of statistics: each valid, one per type (a workout carries a few: the earlier ones are compared
/// directly, a set only past eight).
func checkStatistics(_ statistics: [WorkoutStatistic], _ what: String) throws(HealthError) {
  var seen: Set<SampleType> = []
  for (index, statistic) in statistics.enumerated() {
    try statistic.check(what)
    let repeated =
      statistics.count <= 8
      ? statistics[..<index].contains { $0.type == statistic.type } : !seen.insert(statistic.type).inserted
    guard !repeated else {
      throw .invalidArgumentException("\(what) lists statistics of \(statistic.type.name) twice")
    }
  }
}

extension WorkoutActivity {
  /// The identifier of the activity HealthKit adds to a workout saved without one (workouts.md §1.4): derived from
  /// the workout's identifier (its last byte inverted, a version-8 UUID), so journal replay, the peer and an export
  /// see the same one (HealthPair model: Apple does not say how it names the activity).
  package static func defaultUUID(for workout: UUID) -> UUID {
    var bytes = workout.uuid
    bytes.6 = (bytes.6 & 0x0F) | 0x80
    bytes.15 = ~bytes.15
    return UUID(uuid: bytes)
  }
}

extension WorkoutInput {
  /// Checks the workout as `HKWorkout`'s initializers and `save` do (workouts.md §1.1, §1.3, §1.4) and converts it
  /// to a stored workout:
  /// - finite dates, start ≤ end, within the dates a sample may carry; an explicit duration finite and ≥ 0;
  /// - events sorted by date (stable), each within [start, end], only `lap` and `segment` with a non-zero interval,
  ///   the first never a `resume`;
  /// - activities ascending, each closed, inside [start, end], not overlapping; none given adds one matching the
  ///   workout's type and dates, with the workout's statistics, named by ``WorkoutActivity/defaultUUID(for:)``;
  /// - statistics of quantity types, one per type, finite;
  /// - the duration as given, else ``Workout/derivedDuration(start:end:events:)``;
  /// - metadata values as `save` checks them (`errorInvalidArgument`); associated identifiers listed once (a
  ///   repeat is dropped).
  /// - Throws: `wouldTerminate` errors for shape violations (the initializer raises), `errorInvalidArgument` for
  ///   metadata values.
  package func validated(source: SampleSource) throws(HealthError) -> Workout {
    try checkObjectDates(start, end, "HKWorkout")
    try SampleType.lookup(name: "workout")!.descriptor.checkDuration(start, end)
    if let duration, !duration.isFinite || duration < 0 {
      throw .invalidArgumentException("HKWorkout duration must be finite and not negative (was \(duration))")
    }
    let sorted =
      events.indices.dropFirst().allSatisfy { events[$0 - 1].start <= events[$0].start }
      ? events  // already in order: the stable sort would keep it as is
      : events.enumerated().sorted { a, b in
        a.element.start != b.element.start ? a.element.start < b.element.start : a.offset < b.offset
      }.map(\.element)
    for (index, event) in sorted.enumerated() {
      try checkObjectDates(event.start, event.end, "HKWorkoutEvent \(event.type)")
      guard event.start >= start, event.end <= end else {
        throw .invalidArgumentException(
          "HKWorkoutEvent \(event.type) at \(formatDate(event.start)) lies outside the workout's dates")
      }
      guard event.start == event.end || event.type == .lap || event.type == .segment else {
        throw .invalidArgumentException(
          "HKWorkoutEvent \(event.type) must have a zero-length date interval (only lap and segment may span one)")
      }
      if index == 0, event.type == .resume {
        throw .invalidArgumentException("The first HKWorkoutEvent of a workout must not be a resume")
      }
      try event.metadata.checkValues()
    }
    try checkStatistics(statistics, "HKWorkout")
    var activities = self.activities
    if activities.isEmpty {
      activities = [
        WorkoutActivity(
          uuid: WorkoutActivity.defaultUUID(for: uuid), configuration: WorkoutConfiguration(activityType: activityType),
          start: start, end: end, statistics: statistics)
      ]
    }
    var previousEnd: Date?
    var activityIDs: Set<UUID> = []
    for (index, activity) in activities.enumerated() {
      guard let activityEnd = activity.end else {
        throw .invalidArgumentException("HKWorkoutActivity \(activity.uuid) has no end date")
      }
      try checkObjectDates(activity.start, activityEnd, "HKWorkoutActivity")
      guard activity.start >= start, activityEnd <= end else {
        throw .invalidArgumentException("HKWorkoutActivity \(activity.uuid) lies outside the workout's dates")
      }
      if let previousEnd, activity.start < previousEnd {
        throw .invalidArgumentException(
          "HKWorkoutActivity \(activity.uuid) starts before the previous one ends: activities are ascending and "
            + "may not overlap")
      }
      let repeated =
        activities.count <= 8
        ? activities[..<index].contains { $0.uuid == activity.uuid } : !activityIDs.insert(activity.uuid).inserted
      guard !repeated, activity.uuid != uuid else {
        throw .invalidArgumentException("HKWorkoutActivity \(activity.uuid) is listed twice")
      }
      if let lap = activity.configuration.lapLength, !lap.isFinite || lap <= 0 {
        throw .invalidArgumentException("HKWorkoutConfiguration lapLength must be a positive length")
      }
      try checkStatistics(activity.statistics, "HKWorkoutActivity")
      try activity.metadata.checkValues()
      previousEnd = activityEnd
    }
    try metadata.checkValues()
    let associated = uniqueIdentifiers(self.associated)
    return Workout(
      uuid: uuid, activityType: activityType, start: start, end: end,
      duration: duration ?? Workout.derivedDuration(start: start, end: end, events: sorted), events: sorted,
      activities: activities, statistics: statistics, metadata: metadata, source: source, associated: associated)
  }
}

/// `ids` without repeats, first occurrences in order (`ids` itself, unshared, when it has none; a short list is
/// compared directly, a longer one through a table of the identifiers' bits, a set only when one repeats).
func uniqueIdentifiers(_ ids: [UUID]) -> [UUID] {
  if ids.count <= 16 {
    guard ids.indices.contains(where: { i in ids[..<i].contains(ids[i]) }) else { return ids }
    return ids.enumerated().filter { i, id in !ids[..<i].contains(id) }.map(\.element)
  }
  if repeatsIdentifier(ids) == false { return ids }  // the usual case, without hashing each into a Set
  var seen = Set<UUID>(minimumCapacity: ids.count)
  let unique = ids.filter { seen.insert($0).inserted }
  return unique.count == ids.count ? ids : unique
}

/// Whether `ids` lists an identifier twice, found with an open-addressing table of the identifiers' bits (a
/// multiplicative hash, no per-element `Hasher`); nil when probing runs long (input crafted to collide), for the
/// caller to fall back to a `Set`.
private func repeatsIdentifier(_ ids: [UUID]) -> Bool? {
  var bits = 1
  while 1 << bits < 2 * ids.count { bits += 1 }
  let mask = (1 << bits) - 1
  var slots = [(UInt64, UInt64)](repeating: (0, 0), count: 1 << bits)
  var used = [Bool](repeating: false, count: 1 << bits)
  var probes = 0
  for id in ids {
    let key = withUnsafeBytes(of: id.uuid) { raw in
      (raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }
    var i = Int(truncatingIfNeeded: ((key.0 ^ key.1) &* 0x9E37_79B9_7F4A_7C15) &>> UInt64(64 - bits)) & mask
    while used[i] {
      if slots[i] == key { return true }
      i = (i + 1) & mask
      probes += 1
      if probes > 8 * ids.count { return nil }
    }
    used[i] = true
    slots[i] = key
  }
  return false
}

extension RouteInput {
  /// Checks the route as `finishRoute(with:metadata:)` does and converts it: at least one fix (Apple: with no data
  /// inserted the route is nil and an error is returned — the code is not documented, HealthPair model
  /// `errorInvalidArgument`), every fix with a finite timestamp within the dates a sample may carry, latitude in
  /// [-90, 90], longitude in [-180, 180] and finite measurements; the fixes sorted by timestamp (stable).
  /// - Throws: `errorInvalidArgument` for no fixes, a bad fix or a bad metadata value.
  package func validated(workout: UUID, source: SampleSource) throws(HealthError) -> WorkoutRoute {
    guard !locations.isEmpty else {
      throw .healthKit(.errorInvalidArgument, "No route data was inserted: the route \(uuid) has no locations")
    }
    for (index, fix) in locations.enumerated() {
      let t = fix.timestamp
      guard t.timeIntervalSinceReferenceDate.isFinite, t >= earliestSampleDate, t < latestSampleDate,
        fix.latitude.isFinite, abs(fix.latitude) <= 90, fix.longitude.isFinite, abs(fix.longitude) <= 180,
        fix.altitude.isFinite, fix.horizontalAccuracy.isFinite, fix.verticalAccuracy.isFinite, fix.speed.isFinite,
        fix.speedAccuracy.isFinite, fix.course.isFinite, fix.courseAccuracy.isFinite
      else {
        throw .healthKit(.errorInvalidArgument, "Route location \(index) is not a valid location")
      }
    }
    try metadata.checkValues()
    let sorted =
      locations.indices.dropFirst().allSatisfy { locations[$0 - 1].timestamp <= locations[$0].timestamp }
      ? locations  // already in order (a recorder's usual case): the stable sort would keep it as is
      : locations.enumerated().sorted { a, b in
        a.element.timestamp != b.element.timestamp ? a.element.timestamp < b.element.timestamp : a.offset < b.offset
      }.map(\.element)
    return WorkoutRoute(uuid: uuid, workout: workout, locations: sorted, metadata: metadata, source: source)
  }
}

extension HeartbeatSeriesInput {
  /// Checks the series as `HKHeartbeatSeriesBuilder` does and converts it: dates as a sample's, beat offsets finite,
  /// strictly ascending and within [0, end − start]. The span is measured on dates (seconds since 2001), so a series
  /// ending at `start + offset` of its last beat may measure a rounding step shorter than that offset: the bound
  /// allows one unit in the last place of the end date.
  /// - Throws: `wouldTerminate` for the dates; `errorInvalidArgument` for a beat or a metadata value.
  package func validated(source: SampleSource) throws(HealthError) -> HeartbeatSeries {
    try checkObjectDates(start, end, "HKHeartbeatSeriesSample")
    let span = end.timeIntervalSince(start) + end.timeIntervalSinceReferenceDate.ulp
    var previous = -Double.infinity
    for (index, beat) in beats.enumerated() {
      guard beat.offset.isFinite, beat.offset >= 0, beat.offset <= span, beat.offset > previous else {
        throw .healthKit(
          .errorInvalidArgument,
          "Heartbeat \(index) at offset \(beat.offset) must be later than the previous beat and within the series")
      }
      previous = beat.offset
    }
    try metadata.checkValues()
    return HeartbeatSeries(uuid: uuid, start: start, end: end, beats: beats, metadata: metadata, source: source)
  }
}

extension ActivitySummary {
  /// The goals of a day with no imported summary (HealthPair model: Apple's defaults depend on the user's setup;
  /// move 400 kcal, move time 30 min, exercise 30 min, stand 12 h).
  package static let modelGoals = (activeEnergy: 400.0, moveTime: 30.0, exerciseTime: 30.0, standHours: 12.0)

  /// Checks a summary a journal, the link or an import holds: a real Gregorian day and finite, non-negative values.
  package func check() throws(HealthError) {
    let values = [
      activeEnergy, activeEnergyGoal, moveTime, moveTimeGoal, exerciseTime, exerciseTimeGoal, standHours,
      standHoursGoal,
    ]
    // The year within a million of 0, as the journal's and the wire's readers take it (found by the `requests`
    // fuzz target: an import staged a summary of year -2^31 its own journal record refused).
    guard abs(day.year) <= 1_000_000, (1...12).contains(day.month), day.day >= 1,
      Int64(day.day) <= LocalCalendar.daysIn(year: Int64(day.year), month: Int64(day.month)),
      values.allSatisfy({ $0.isFinite && $0 >= 0 })
    else { throw .healthKit(.errorInvalidArgument, "activity summary of \(day) is not a valid summary") }
  }
}
