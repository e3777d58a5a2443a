import FoundationEssentials
import HealthModel

/// `Workout` elements (with their events, statistics, activities, metadata and routes) and `ActivitySummary`
/// elements, in the layout ``ExportReader`` reads back to the same values. Routes are written in the current
/// format: a `WorkoutRoute` holding a `FileReference` to a GPX file under `workout-routes/`.
extension ExportWriter {
  /// HealthPair's key for the samples associated with a workout (space-separated identifiers, as many entries as
  /// needed): Apple's format does not hold the association.
  package static let associatedKey = "_HealthPair.associated"
  /// HealthPair's key for an activity's activity type (raw value), written when it is not the workout's.
  package static let activityTypeKey = "_HealthPair.activityType"
  /// HealthPair's key for an activity's location type (raw value), written when the metadata does not give it.
  package static let locationTypeKey = "_HealthPair.locationType"
  /// HealthPair's key for an activity's swimming location type (raw value), written when the metadata does not.
  package static let swimmingLocationKey = "_HealthPair.swimmingLocationType"
  /// HealthPair's key for an activity's lap length in metres, written when the metadata does not give it.
  package static let lapLengthKey = "_HealthPair.lapLength"
  /// How an activity summary's move mode is written (HealthPair's `activityMoveMode`, only when the reader would
  /// not infer it).
  package static let moveModeNames: [ActivityMoveMode: String] = [
    .activeEnergy: "HKActivityMoveModeActiveEnergy", .appleMoveTime: "HKActivityMoveModeAppleMoveTime",
  ]
  /// Identifiers per `_HealthPair.associated` entry.
  static let associatedPerEntry = 256

  /// Writes `workout` as a `Workout`; each of `routes` (the workout's) becomes a `WorkoutRoute` whose
  /// `FileReference` names the GPX file handed to `routeFile` — its path relative to the export's folder
  /// (`workout-routes/route_2023-01-01_7.30am.gpx`, unique within this export) and its bytes.
  package mutating func write(
    _ workout: Workout, routes: [WorkoutRoute], routeFile: (String, [UInt8]) throws -> Void
  ) throws {
    let indent = "  "
    append(" <Workout workoutActivityType=\"\(Self.escape(workout.activityType.exportName))\"")
    let (duration, durationUnit) = Self.durationText(workout.duration)
    append(" duration=\"\(duration)\" durationUnit=\"\(durationUnit)\"")
    appendSource(workout.source)
    appendDates(start: workout.start, end: workout.end, creation: workout.end)
    append(">\n")
    if !ExportIdentity.derivesIdentifier(of: workout) {
      append(indent + "<MetadataEntry key=\"\(Self.identifierKey)\" value=\"\(workout.uuid.uuidString)\"/>\n")
    }
    appendMetadata(workout.metadata, indent: indent)
    for start in stride(from: 0, to: workout.associated.count, by: Self.associatedPerEntry) {
      let chunk = workout.associated[start..<min(start + Self.associatedPerEntry, workout.associated.count)]
      let value = chunk.map(\.uuidString).joined(separator: " ")
      append(indent + "<MetadataEntry key=\"\(Self.associatedKey)\" value=\"\(value)\"/>\n")
    }
    for event in workout.events {
      append(indent + "<WorkoutEvent type=\"\(event.type.exportName)\" date=\"\(date(event.start))\"")
      let seconds = event.end.timeIntervalSince(event.start)
      if event.end != event.start {
        let (text, unit) = Self.intervalText(start: event.start, end: event.end, seconds: seconds)
        append(" duration=\"\(text)\" durationUnit=\"\(unit)\"")
      }
      if event.metadata.keys.contains(where: { !$0.hasPrefix(Self.devicePrefix) }) {
        append(">\n")
        appendMetadata(event.metadata, indent: indent + " ")
        append(indent + "</WorkoutEvent>\n")
      } else {
        append("/>\n")
      }
    }
    for statistic in workout.statistics { appendStatistic(statistic, indent: indent) }
    let inferred = ExportReader.configuration(workout.activityType, metadata: workout.metadata)
    for activity in workout.activities { appendActivity(activity, inferred: inferred, indent: indent) }
    for (index, route) in routes.enumerated() {
      let path = routeFileName(for: route)
      try routeFile(path, GPXWriter.document(for: route, offsetSeconds: offsetSeconds))
      append(indent + "<WorkoutRoute")
      appendSource(route.source)
      appendDates(start: route.start, end: route.end, creation: route.end)
      append(">\n")
      if route.uuid != ExportIdentity.route(workout: workout.uuid, index: index) {
        append(indent + " <MetadataEntry key=\"\(Self.identifierKey)\" value=\"\(route.uuid.uuidString)\"/>\n")
      }
      appendMetadata(route.metadata, indent: indent + " ")
      append(indent + " <FileReference path=\"/\(Self.escape(path))\"/>\n")
      append(indent + "</WorkoutRoute>\n")
    }
    append(" </Workout>\n")
    try flushIfFull()
  }

  /// Writes `summary` as an `ActivitySummary` (energy in kilocalories, times in minutes).
  package mutating func write(_ summary: ActivitySummary) throws {
    func number(_ value: Double) -> String { ExportNumber.format(value) }
    append(" <ActivitySummary dateComponents=\"\(summary.day)\"")
    append(" activeEnergyBurned=\"\(number(summary.activeEnergy))\"")
    append(" activeEnergyBurnedGoal=\"\(number(summary.activeEnergyGoal))\" activeEnergyBurnedUnit=\"kcal\"")
    append(" appleMoveTime=\"\(number(summary.moveTime))\" appleMoveTimeGoal=\"\(number(summary.moveTimeGoal))\"")
    append(" appleExerciseTime=\"\(number(summary.exerciseTime))\"")
    append(" appleExerciseTimeGoal=\"\(number(summary.exerciseTimeGoal))\"")
    append(" appleStandHours=\"\(number(summary.standHours))\"")
    append(" appleStandHoursGoal=\"\(number(summary.standHoursGoal))\"")
    if ExportReader.inferredMoveMode(summary) != summary.moveMode {
      append(" activityMoveMode=\"\(Self.moveModeNames[summary.moveMode]!)\"")
    }
    if summary.isPaused { append(" paused=\"1\"") }
    append("/>\n")
    try flushIfFull()
  }

  /// A unique file name for `route` in this export, as Apple names them: `workout-routes/route_<day>_<h.mm><am|pm>`
  /// in the export's local time, `-2`, `-3`… added when taken.
  mutating func routeFileName(for route: WorkoutRoute) -> String {
    let local = ExportDate.format(route.start.timeIntervalSinceReferenceDate, offsetSeconds: offsetSeconds)
    let day = local.prefix(10)
    let hour = Int(local.dropFirst(11).prefix(2)) ?? 0
    let minute = local.dropFirst(14).prefix(2)
    let stem = "workout-routes/route_\(day)_\(hour % 12 == 0 ? 12 : hour % 12).\(minute)\(hour < 12 ? "am" : "pm")"
    var name = stem + ".gpx"
    var n = 2
    while routeNames.contains(name) {
      name = "\(stem)-\(n).gpx"
      n += 1
    }
    routeNames.insert(name)
    return name
  }

  func date(_ date: Date) -> String {
    ExportDate.format(date.timeIntervalSinceReferenceDate, offsetSeconds: offsetSeconds)
  }

  mutating func appendDates(start: Date, end: Date, creation: Date) {
    append(" creationDate=\"\(date(creation))\" startDate=\"\(date(start))\" endDate=\"\(date(end))\"")
  }

  private mutating func appendSource(_ source: SampleSource) {
    let details = source.details
    append(" sourceName=\"\(Self.escape(details?.name ?? source.bundleID))\"")
    if let version = details?.version { append(" sourceVersion=\"\(Self.escape(version))\"") }
    if let hardware = details?.hardware { append(" device=\"\(Self.escape(hardware.exportDescription))\"") }
  }

  mutating func appendMetadata(_ metadata: Metadata, indent: String) {
    for key in metadata.keys.sorted() where !key.hasPrefix(Self.devicePrefix) {
      let text = MetadataText.text(metadata[key]!)
      append(indent + "<MetadataEntry key=\"\(Self.escape(key))\" value=\"\(Self.escape(text))\"/>\n")
    }
  }

  private mutating func appendStatistic(_ statistic: WorkoutStatistic, indent: String) {
    append(indent + "<WorkoutStatistics type=\"\(statistic.type.identifier)\"")
    append(" startDate=\"\(date(statistic.start))\" endDate=\"\(date(statistic.end))\"")
    let values: [(String, Double?)] = [
      ("average", statistic.average), ("minimum", statistic.minimum), ("maximum", statistic.maximum),
      ("sum", statistic.sum), ("mostRecent", statistic.mostRecent),
    ]
    let present = values.compactMap { name, value in value.map { (name, $0) } }
    if !present.isEmpty {
      // One unit for all values: the preferred one when every value reads back exactly in it, else the canonical.
      let texts = present.map { Self.quantityText($0.1, type: statistic.type) }
      let unit = texts[0].unit
      let shared = texts.allSatisfy { $0.unit == unit }
      for (i, (name, value)) in present.enumerated() {
        append(" \(name)=\"\(shared ? texts[i].value : ExportNumber.format(value))\"")
      }
      let canonical = statistic.type.descriptor.canonicalUnit?.description ?? ""
      append(" unit=\"\(Self.escape(shared ? unit : canonical))\"")
    }
    append("/>\n")
  }

  private mutating func appendActivity(_ activity: WorkoutActivity, inferred: WorkoutConfiguration, indent: String) {
    append(indent + "<WorkoutActivity uuid=\"\(activity.uuid.uuidString)\" startDate=\"\(date(activity.start))\"")
    if let end = activity.end {
      let (text, unit) = Self.durationText(end.timeIntervalSince(activity.start))
      append(" endDate=\"\(date(end))\" duration=\"\(text)\" durationUnit=\"\(unit)\"")
    }
    append(">\n")
    let inner = indent + " "
    let configuration = activity.configuration
    if configuration.activityType != inferred.activityType {
      append(
        inner + "<MetadataEntry key=\"\(Self.activityTypeKey)\" value=\"\(configuration.activityType.rawValue)\"/>\n")
    }
    if configuration.location != inferred.location {
      append(inner + "<MetadataEntry key=\"\(Self.locationTypeKey)\" value=\"\(configuration.location.rawValue)\"/>\n")
    }
    if configuration.swimmingLocation != inferred.swimmingLocation {
      append(
        inner
          + "<MetadataEntry key=\"\(Self.swimmingLocationKey)\" value=\"\(configuration.swimmingLocation.rawValue)\"/>\n"
      )
    }
    if let lap = configuration.lapLength, lap != inferred.lapLength {
      append(inner + "<MetadataEntry key=\"\(Self.lapLengthKey)\" value=\"\(ExportNumber.format(lap))\"/>\n")
    }
    appendMetadata(activity.metadata, indent: inner)
    for statistic in activity.statistics { appendStatistic(statistic, indent: inner) }
    append(indent + "</WorkoutActivity>\n")
  }

  /// A duration's text and unit: minutes (as Apple writes them) when that reads back to exactly `seconds`, else
  /// seconds.
  static func durationText(_ seconds: Double) -> (value: String, unit: String) {
    let minutes = try! HealthUnit.cached("min")
    let text = ExportNumber.format(seconds / 60)
    if let parsed = ExportNumber.parse(text), let back = try? minutes.convert(parsed, to: ExportReader.secondUnit),
      back.bitPattern == seconds.bitPattern
    {
      return (text, "min")
    }
    return (ExportNumber.format(seconds), "s")
  }

  /// An event's duration as text and unit such that `start` plus it reads back as exactly `end`.
  static func intervalText(start: Date, end: Date, seconds: Double) -> (value: String, unit: String) {
    let (text, unit) = durationText(seconds)
    if let parsed = ExportNumber.parse(text), let unitValue = try? HealthUnit.cached(unit),
      let back = try? unitValue.convert(parsed, to: ExportReader.secondUnit),
      (start.timeIntervalSinceReferenceDate + back).bitPattern == end.timeIntervalSinceReferenceDate.bitPattern
    {
      return (text, unit)
    }
    return (ExportNumber.format(seconds), "s")
  }
}
