import FoundationEssentials
import HealthModel

/// A `Workout`'s children: `WorkoutEvent`, `WorkoutStatistics`, `WorkoutActivity` and `WorkoutRoute` (with its
/// `Location`s or its `FileReference`).
extension ExportReader {
  /// A `WorkoutActivity` as read, with the configuration HealthPair's keys gave it (nil fields: as inferred).
  struct ReadActivity {
    var activity: WorkoutActivity
    var activityType: WorkoutActivityType?
    var location: WorkoutLocationType?
    var swimmingLocation: SwimmingLocationType?
    var lapLength: Double?

    func configuration(default inferred: WorkoutConfiguration) -> WorkoutConfiguration {
      WorkoutConfiguration(
        activityType: activityType ?? inferred.activityType, location: location ?? inferred.location,
        swimmingLocation: swimmingLocation ?? inferred.swimmingLocation, lapLength: lapLength ?? inferred.lapLength)
    }
  }

  /// A `WorkoutRoute` as read: its fixes, or the path of the file holding them.
  struct ReadRoute {
    var identifier: UUID?
    var metadata: Metadata
    var source: SampleSource
    var locations: [RouteLocation]
    var path: String?
    var location: ExportLocation
  }

  /// Reads a `WorkoutEvent`: `type` (`HKWorkoutEventTypePause`), `date`, an optional `duration` (laps and
  /// segments), its `MetadataEntry`s.
  mutating func workoutEvent() throws(ExportError) -> WorkoutEvent {
    let location = scanner.tokenLocation
    guard let typeIndex = scanner.attribute("type"), let dateIndex = scanner.attribute("date") else {
      throw ExportError(.notAnExport, at: location, "a '<WorkoutEvent>' needs 'type' and 'date' attributes")
    }
    let name = try scanner.string(typeIndex)
    guard let type = WorkoutEventType.allCases.first(where: { $0.exportName == name }) else {
      let hint = suggest(name, from: WorkoutEventType.allCases.map(\.exportName)).map { " (did you mean '\($0)'?)" }
      throw ExportError(
        .value, at: scanner.valueLocation(typeIndex), "'\(name)' is not a workout event type\(hint ?? "")")
    }
    let start = try date(dateIndex)
    var end = start
    if let index = scanner.attribute("duration") {
      end = start + (try durationSeconds(index, unit: scanner.attribute("durationUnit")))
    }
    let metadata = try childMetadata(of: "WorkoutEvent", at: location)
    return WorkoutEvent(
      type: type, start: Date(timeIntervalSinceReferenceDate: start), end: Date(timeIntervalSinceReferenceDate: end),
      metadata: metadata)
  }

  /// Reads a `WorkoutStatistics` (`type`, `startDate`, `endDate`, `average`, `minimum`, `maximum`, `sum` in
  /// `unit`; HealthPair's `mostRecent`); nil, skipped and reported, for a type the catalog does not hold as a
  /// quantity type.
  mutating func workoutStatistic() throws(ExportError) -> WorkoutStatistic? {
    let location = scanner.tokenLocation
    guard let typeIndex = scanner.attribute("type"), let startIndex = scanner.attribute("startDate"),
      let endIndex = scanner.attribute("endDate")
    else {
      throw ExportError(
        .notAnExport, at: location, "a '<WorkoutStatistics>' needs 'type', 'startDate' and 'endDate' attributes")
    }
    let name = try scanner.string(typeIndex)
    guard let type = SampleType.lookup(name: name), type.isQuantity else {
      summary.skip("WorkoutStatistics", name)
      _ = try skipSubtree()
      return nil
    }
    var statistic = WorkoutStatistic(
      type: type, start: Date(timeIntervalSinceReferenceDate: try date(startIndex)),
      end: Date(timeIntervalSinceReferenceDate: try date(endIndex)))
    let fields: [(StaticString, WritableKeyPath<WorkoutStatistic, Double?>)] = [
      ("sum", \.sum), ("minimum", \.minimum), ("maximum", \.maximum), ("average", \.average),
      ("mostRecent", \.mostRecent),
    ]
    for (attribute, path) in fields {
      guard let index = scanner.attribute(attribute) else { continue }
      guard let unitIndex = scanner.attribute("unit") else {
        throw ExportError(.unit, at: location, "a '<WorkoutStatistics>' of \(name) with values but no 'unit'")
      }
      statistic[keyPath: path] = try unitConversion(unitIndex, type: type).apply(try number(index))
    }
    _ = try skipSubtree()
    return statistic
  }

  /// Reads a `WorkoutActivity`: `uuid`, `startDate`, `endDate` (absent while open), its `MetadataEntry`s and
  /// `WorkoutStatistics`; HealthPair's `_HealthPair.activityType`, `.locationType`, `.swimmingLocationType` and
  /// `.lapLength` entries give a configuration Apple's format does not hold.
  mutating func workoutActivity() throws(ExportError) -> ReadActivity {
    let location = scanner.tokenLocation
    guard let uuidIndex = scanner.attribute("uuid"), let startIndex = scanner.attribute("startDate") else {
      throw ExportError(.notAnExport, at: location, "a '<WorkoutActivity>' needs 'uuid' and 'startDate' attributes")
    }
    let text = try scanner.string(uuidIndex)
    guard let uuid = UUID(uuidString: text) else {
      throw ExportError(.value, at: scanner.valueLocation(uuidIndex), "'\(text)' is not a UUID")
    }
    let start = try date(startIndex)
    let end = try scanner.attribute("endDate").map { i throws(ExportError) in try date(i) }
    if let end, end < start {
      throw ExportError(.invalidRecord, at: location, "a '<WorkoutActivity>' whose startDate is after its endDate")
    }
    var read = ReadActivity(
      activity: WorkoutActivity(
        uuid: uuid, configuration: WorkoutConfiguration(activityType: .other),
        start: Date(timeIntervalSinceReferenceDate: start), end: end.map { Date(timeIntervalSinceReferenceDate: $0) }
      ))
    guard !scanner.isSelfClosing else { return read }
    let level = scanner.depth
    var children = 0
    var metadataBytes = 0
    var ignored: UUID?
    while true {
      switch try scanner.next() {
      case .startTag:
        guard scanner.depth == level + 1 || (scanner.isSelfClosing && scanner.depth == level) else { continue }
        children += 1
        try Self.checkChildCount(children, of: "WorkoutActivity", at: location)
        if scanner.nameIs("MetadataEntry") {
          if let entry = try reservedEntry() {
            try configurationEntry(entry, into: &read)
          } else {
            try metadataEntry(into: &read.activity.metadata, identifier: &ignored, bytes: &metadataBytes)
          }
        } else if scanner.nameIs("WorkoutStatistics") {
          if let statistic = try workoutStatistic() { read.activity.statistics.append(statistic) }
        } else {
          summary.skip(scanner.name, "in WorkoutActivity")
          _ = try skipSubtree()
        }
      case .endTag:
        if scanner.depth < level { return read }
      case .endOfDocument:
        return read
      }
    }
  }

  private mutating func configurationEntry(
    _ entry: (key: String, value: String, at: ExportLocation), into read: inout ReadActivity
  ) throws(ExportError) {
    func integer() throws(ExportError) -> Int {
      guard let value = Int(entry.value) else {
        throw ExportError(.value, at: entry.at, "'\(entry.value)' is not an integer (\(entry.key))")
      }
      return value
    }
    switch entry.key {
    case ExportWriter.activityTypeKey:
      let raw = try integer()
      guard raw >= 0 else { throw ExportError(.value, at: entry.at, "'\(raw)' is not an activity type") }
      read.activityType = WorkoutActivityType(rawValue: UInt(raw))
    case ExportWriter.locationTypeKey:
      guard let value = WorkoutLocationType(rawValue: try integer()) else {
        throw ExportError(.value, at: entry.at, "'\(entry.value)' is not a workout location type (1, 2 or 3)")
      }
      read.location = value
    case ExportWriter.swimmingLocationKey:
      guard let value = SwimmingLocationType(rawValue: try integer()) else {
        throw ExportError(.value, at: entry.at, "'\(entry.value)' is not a swimming location type (0, 1 or 2)")
      }
      read.swimmingLocation = value
    case ExportWriter.lapLengthKey:
      var text = entry.value
      guard let metres = text.withUTF8({ ExportNumber.parse($0) }), metres.isFinite, metres > 0 else {
        throw ExportError(.value, at: entry.at, "'\(entry.value)' is not a lap length in metres")
      }
      read.lapLength = metres
    default:
      summary.skip("MetadataEntry", entry.key)
    }
    _ = try skipSubtree()
  }

  /// The `MetadataEntry`s of the element just started (its other children are skipped and reported).
  mutating func childMetadata(of element: String, at location: ExportLocation) throws(ExportError) -> Metadata {
    var metadata: Metadata = [:]
    guard !scanner.isSelfClosing else { return metadata }
    let level = scanner.depth
    var children = 0
    var metadataBytes = 0
    var ignored: UUID?
    while true {
      switch try scanner.next() {
      case .startTag:
        guard scanner.depth == level + 1 || (scanner.isSelfClosing && scanner.depth == level) else { continue }
        children += 1
        try Self.checkChildCount(children, of: element, at: location)
        if scanner.nameIs("MetadataEntry") {
          try metadataEntry(into: &metadata, identifier: &ignored, bytes: &metadataBytes)
        } else {
          summary.skip(scanner.name, "in \(element)")
          _ = try skipSubtree()
        }
      case .endTag:
        if scanner.depth < level { return metadata }
      case .endOfDocument:
        return metadata
      }
    }
  }
}
