import FoundationEssentials
import HealthModel

/// `Workout` elements: the workout's attributes, its `MetadataEntry`s, `WorkoutEvent`s, `WorkoutStatistics`,
/// `WorkoutActivity`s and `WorkoutRoute`s, each child bounded (``maxChildren``; a route's fixes by
/// ``maxRouteLocations``), so one workout never holds more than a bounded amount of memory.
extension ExportReader {
  /// Reads the `Workout` the scanner is at into ``pendingWorkouts`` (an activity type the model does not know is
  /// skipped and reported, HealthPair model: a newer OS's type must not fail the import).
  ///
  /// - The identifier is `_HealthPair.uuid`, else derived from the element (``ExportIdentity/workout``).
  /// - `duration`/`durationUnit` (minutes when no unit is written) give the duration; without one it derives from
  ///   the dates and the pause events (``Workout/derivedDuration(start:end:events:)``).
  /// - Older exports' `totalDistance` and `totalEnergyBurned` become statistics of the activity type's distance
  ///   type and of active energy, unless a `WorkoutStatistics` of that type is present (HealthPair model).
  /// - A workout with no `WorkoutActivity` gets one matching it (HealthKit adds one; workouts.md §1.4), identified
  ///   as ``WorkoutActivity/defaultUUID(for:)`` names it, whose configuration comes from the workout's
  ///   `HKIndoorWorkout`, `HKSwimmingLocationType` and `HKLapLength` metadata (HealthPair model).
  /// - HealthPair's own keys carry what Apple's format has no place for: `_HealthPair.associated` (the associated
  ///   samples' identifiers, space-separated, in as many entries as needed).
  mutating func workout() throws(ExportError) {
    let location = scanner.tokenLocation
    guard let typeIndex = scanner.attribute("workoutActivityType") else {
      throw ExportError(.notAnExport, at: location, "a '<Workout>' without a 'workoutActivityType' attribute")
    }
    let typeName = try scanner.string(typeIndex)
    guard let activityType = Self.activityType(exportName: typeName) else {
      summary.skip("Workout", typeName)
      _ = try skipSubtree()
      return
    }
    guard let startIndex = scanner.attribute("startDate"), let endIndex = scanner.attribute("endDate") else {
      throw ExportError(.notAnExport, at: location, "a '<Workout>' needs 'startDate' and 'endDate' attributes")
    }
    let start = try date(startIndex)
    let end = try date(endIndex)
    if let creation = scanner.attribute("creationDate") { _ = try date(creation) }
    guard let sourceIndex = scanner.attribute("sourceName") else {
      throw ExportError(.notAnExport, at: location, "a '<Workout>' without a 'sourceName' attribute")
    }
    let source = try sourceEntry(
      sourceIndex, version: scanner.attribute("sourceVersion"), device: scanner.attribute("device"))
    var duration: Double?
    if let index = scanner.attribute("duration") {
      duration = try durationSeconds(index, unit: scanner.attribute("durationUnit"))
    }
    var totals: [WorkoutStatistic] = []
    let legacy: [(Int?, Int?, SampleType?)] = [
      (
        scanner.attribute("totalDistance"), scanner.attribute("totalDistanceUnit"), Self.distanceType(for: activityType)
      ),
      (
        scanner.attribute("totalEnergyBurned"), scanner.attribute("totalEnergyBurnedUnit"),
        SampleType.lookup(name: "activeEnergyBurned")
      ),
    ]
    for (valueIndex, unitIndex, type) in legacy {
      guard let type, let index = valueIndex else { continue }
      let amount = try number(index)
      let canonical = type.descriptor.canonicalUnit?.description ?? ""
      let unitText = try unitIndex.map { i throws(ExportError) in try scanner.string(i) } ?? canonical
      let unit = try Self.resolveUnit(unitText, type: type, canonical: type.descriptor.canonicalUnit!, at: location)
        .get()
      let value = (try? unit.unit.convert(amount, to: type.descriptor.canonicalUnit!)) ?? amount
      totals.append(
        WorkoutStatistic(
          type: type, start: Date(timeIntervalSinceReferenceDate: start),
          end: Date(timeIntervalSinceReferenceDate: end), sum: value))
    }
    var metadata: Metadata = [:]
    var identifier: UUID?
    var events: [WorkoutEvent] = []
    var statistics: [WorkoutStatistic] = []
    var activities: [ReadActivity] = []
    var routes: [ReadRoute] = []
    var associated: [UUID] = []
    var metadataBytes = 0
    try forEachChild(of: "Workout", at: location) { r throws(ExportError) in
      if r.scanner.nameIs("MetadataEntry") {
        if let entry = try r.reservedEntry(), entry.key == ExportWriter.associatedKey {
          try r.associatedIdentifiers(entry, into: &associated)
        } else {
          try r.metadataEntry(into: &metadata, identifier: &identifier, bytes: &metadataBytes)
        }
      } else if r.scanner.nameIs("WorkoutEvent") {
        events.append(try r.workoutEvent())
      } else if r.scanner.nameIs("WorkoutStatistics") {
        if let statistic = try r.workoutStatistic() { statistics.append(statistic) }
      } else if r.scanner.nameIs("WorkoutActivity") {
        activities.append(try r.workoutActivity())
      } else if r.scanner.nameIs("WorkoutRoute") {
        if let route = try r.workoutRoute(defaultSource: source) { routes.append(route) }
      } else {
        r.summary.skip(r.scanner.name, "in Workout")
        _ = try r.skipSubtree()
      }
    }
    guard start <= end else {
      throw ExportError(.invalidRecord, at: location, "a '<Workout>' whose startDate is after its endDate")
    }
    do { try metadata.checkValues() } catch {
      throw ExportError(.invalidRecord, at: location, "a '<Workout>' of \(typeName): \(error.message)")
    }
    // Date-ascending, stable (equal dates keep the file's order), as HealthKit keeps them.
    events = events.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
    events = events.map { Self.clamped($0, start: start, end: end) }
    var seen = Set<UUID>()
    associated = associated.filter { seen.insert($0).inserted }
    let startDate = Date(timeIntervalSinceReferenceDate: start)
    let endDate = Date(timeIntervalSinceReferenceDate: end)
    let seconds = duration ?? Workout.derivedDuration(start: startDate, end: endDate, events: events)
    for total in totals where !statistics.contains(where: { $0.type == total.type }) { statistics.append(total) }
    let uuid =
      identifier
      ?? ExportIdentity.workout(
        activityType: activityType, start: start, end: end, duration: seconds, source: source.hash,
        metadata: metadata)
    let inferred = Self.configuration(activityType, metadata: metadata)
    var workoutActivities = activities.map { read in
      var activity = read.activity
      activity.configuration = read.configuration(default: inferred)
      // HealthPair model: an activity the export gives no end ends with the workout (a stored one always has one).
      if activity.end == nil { activity.end = endDate }
      return activity
    }
    if workoutActivities.isEmpty {
      workoutActivities.append(
        WorkoutActivity(
          uuid: WorkoutActivity.defaultUUID(for: uuid), configuration: inferred, start: startDate, end: endDate,
          statistics: statistics))
    }
    let workout = Workout(
      uuid: uuid, activityType: activityType, start: startDate, end: endDate, duration: seconds, events: events,
      activities: workoutActivities.sorted { $0.start < $1.start }, statistics: statistics, metadata: metadata,
      source: source.source, associated: associated)
    try Self.checkStoredForm(workout, typeName, at: location)
    var imported = ImportedWorkout(workout: workout)
    for (index, read) in routes.enumerated() {
      let routeID = read.identifier ?? ExportIdentity.route(workout: uuid, index: index)
      if let path = read.path {
        imported.routeFiles.append(
          RouteFile(
            route: WorkoutRoute(
              uuid: routeID, workout: uuid, locations: [], metadata: read.metadata, source: read.source),
            path: path, location: read.location))
      } else {
        imported.routes.append(
          WorkoutRoute(
            uuid: routeID, workout: uuid, locations: read.locations, metadata: read.metadata, source: read.source))
      }
    }
    summary.workouts += 1
    summary.sources[source.index].workouts += 1
    summary.routes += routes.count
    pendingWorkouts.append(imported)
  }

  /// `event` with an end (or start) less than a second past its workout's bounds moved onto them: an export writes
  /// dates to the whole second and durations in fractional minutes, so a lap ending with its workout can end up to a
  /// second after the written end date (HealthPair model). Anything further out is left for ``checkStoredForm``.
  static func clamped(_ event: WorkoutEvent, start: Double, end: Double) -> WorkoutEvent {
    var event = event
    let eventStart = event.start.timeIntervalSinceReferenceDate
    let eventEnd = event.end.timeIntervalSinceReferenceDate
    if eventStart < start, start - eventStart < 1 { event.start = Date(timeIntervalSinceReferenceDate: start) }
    if eventEnd > end, eventEnd - end < 1 { event.end = Date(timeIntervalSinceReferenceDate: end) }
    if event.end < event.start { event.end = event.start }
    return event
  }

  /// Refuses, located at the `<Workout>`, a workout HealthKit could not have stored — an event outside its dates, a
  /// first event that resumes, a pause with a length, activities overlapping, statistics of a type twice — which
  /// the engine's import (``WorkoutInput/validated(source:)``) would otherwise refuse for the whole import.
  static func checkStoredForm(_ workout: Workout, _ typeName: String, at location: ExportLocation)
    throws(ExportError)
  {
    let input = WorkoutInput(
      uuid: workout.uuid, activityType: workout.activityType, start: workout.start, end: workout.end,
      duration: workout.duration, events: workout.events, activities: workout.activities,
      statistics: workout.statistics, metadata: workout.metadata, associated: workout.associated)
    let checked: Workout
    do { checked = try input.validated(source: workout.source) } catch {
      throw ExportError(.invalidRecord, at: location, "a '<Workout>' of \(typeName): \(error.message)")
    }
    guard checked == workout else {
      throw ExportError(
        .invalidRecord, at: location, "a '<Workout>' of \(typeName) whose activities are not in order")
    }
  }

  /// An activity type as an export spells it: `HKWorkoutActivityTypeRunning`, or `HKWorkoutActivityType<raw>` (how
  /// ``WorkoutActivityType/exportName`` writes a raw value without a published name).
  static func activityType(exportName: String) -> WorkoutActivityType? {
    if let known = WorkoutActivityType(exportName: exportName) { return known }
    let prefix = "HKWorkoutActivityType"
    guard exportName.hasPrefix(prefix), let raw = UInt(exportName.dropFirst(prefix.count))
    else { return nil }
    return WorkoutActivityType(rawValue: raw)
  }

  /// The distance type an older export's `totalDistance` is in for `activityType` (HealthPair model, the type
  /// HealthKit's legacy initializer files the total under).
  static func distanceType(for activityType: WorkoutActivityType) -> SampleType? {
    let name: String
    switch activityType {
    case .cycling: name = "distanceCycling"
    case .swimming: name = "distanceSwimming"
    default:
      switch activityType.name {
      case "wheelchairWalkPace", "wheelchairRunPace": name = "distanceWheelchair"
      case "snowSports", "downhillSkiing", "snowboarding": name = "distanceDownhillSnowSports"
      default: name = "distanceWalkingRunning"
      }
    }
    return SampleType.lookup(name: name)
  }

  /// The configuration an activity of `activityType` has when the export says nothing else: location from
  /// `HKIndoorWorkout`, swimming location from `HKSwimmingLocationType`, lap length from `HKLapLength` (HealthPair
  /// model).
  static func configuration(_ activityType: WorkoutActivityType, metadata: Metadata) -> WorkoutConfiguration {
    var configuration = WorkoutConfiguration(activityType: activityType)
    switch metadata["HKIndoorWorkout"] {
    case .bool(let indoor)?: configuration.location = indoor ? .indoor : .outdoor
    case .int(let value)?: configuration.location = value != 0 ? .indoor : .outdoor
    default: break
    }
    if case .int(let raw)? = metadata["HKSwimmingLocationType"],
      let swimming = SwimmingLocationType(rawValue: Int(truncatingIfNeeded: raw))
    {
      configuration.swimmingLocation = swimming
    }
    // HKLapLength is kept as its text (`25 m`, MetadataText.stringKeys).
    var lap: (Double, String)?
    switch metadata["HKLapLength"] {
    case .quantity(let value, let unit)?: lap = (value, unit)
    case .string(let text)?:
      let parts = text.split(separator: " ")
      if parts.count == 2, let value = ExportNumber.parse(String(parts[0])) { lap = (value, String(parts[1])) }
    default: break
    }
    if let (value, unit) = lap, let parsed = try? HealthUnit.cached(unit),
      let metres = try? parsed.convert(value, to: HealthUnit.cached("m")), metres.isFinite, metres > 0
    {
      configuration.lapLength = metres
    }
    return configuration
  }

  /// The number attribute `index` holds (finite).
  mutating func number(_ index: Int) throws(ExportError) -> Double {
    let bytes = scanner.value(index)
    guard let value = ExportNumber.parse(bytes), value.isFinite else {
      throw ExportError(
        .value, at: scanner.valueLocation(index), "'\(String(decoding: bytes, as: UTF8.self))' is not a number")
    }
    return value
  }

  /// The duration attribute `index` holds, in the unit attribute `unitIndex` (minutes without one), in seconds.
  mutating func durationSeconds(_ index: Int, unit unitIndex: Int?) throws(ExportError) -> Double {
    let amount = try number(index)
    let text = try unitIndex.map { i throws(ExportError) in try scanner.string(i) } ?? "min"
    guard let unit = try? HealthUnit.cached(text), let seconds = try? unit.convert(amount, to: Self.secondUnit),
      seconds.isFinite, seconds >= 0
    else {
      let at = unitIndex.map { scanner.valueLocation($0) } ?? scanner.valueLocation(index)
      throw ExportError(.unit, at: at, "'\(text)' is not a unit of time, or the duration is negative")
    }
    return seconds
  }

  /// Seconds, the unit durations are kept in.
  static var secondUnit: HealthUnit { try! HealthUnit.cached("s") }

  /// A `MetadataEntry` under a HealthPair key other than the identifier and device keys: its key, value and
  /// location; nil for any other entry (read by ``metadataEntry(into:identifier:bytes:)``).
  mutating func reservedEntry() throws(ExportError) -> (key: String, value: String, at: ExportLocation)? {
    guard let keyIndex = scanner.attribute("key"), let valueIndex = scanner.attribute("value") else { return nil }
    guard scanner.rawValue(keyIndex).starts(with: "_HealthPair.".utf8) else { return nil }
    let key = try scanner.string(keyIndex)
    guard key != ExportWriter.identifierKey, !key.hasPrefix(ExportWriter.devicePrefix) else { return nil }
    return (key, try scanner.string(valueIndex), scanner.valueLocation(valueIndex))
  }

  /// Appends the identifiers of a `_HealthPair.associated` entry (at most ``maxAssociated`` in one workout).
  private mutating func associatedIdentifiers(
    _ entry: (key: String, value: String, at: ExportLocation), into associated: inout [UUID]
  ) throws(ExportError) {
    for word in entry.value.split(separator: " ") {
      guard let uuid = UUID(uuidString: String(word)) else {
        throw ExportError(.value, at: entry.at, "'\(word)' is not a UUID")
      }
      guard associated.count < Self.maxAssociated else {
        throw ExportError(
          .invalidRecord, at: entry.at, "a '<Workout>' with more than \(Self.maxAssociated) associated samples")
      }
      associated.append(uuid)
    }
    _ = try skipSubtree()
  }
}
