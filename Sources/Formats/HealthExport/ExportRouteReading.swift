import FoundationEssentials
import HealthModel

/// `WorkoutRoute` elements (their `Location` fixes in older exports, the `FileReference` to a GPX file in current
/// ones) and `ActivitySummary` elements.
extension ExportReader {
  /// The most fixes one route may hold (six days at one a second): a route beyond is refused with a located error,
  /// so one workout's memory stays bounded.
  package static let maxRouteLocations = 1 << 19

  /// The most samples one workout may name as associated (HealthPair's `_HealthPair.associated`).
  package static let maxAssociated = 1 << 20

  /// Reads a `WorkoutRoute`: its source (the workout's when it names none: Apple's route elements sometimes carry
  /// no attributes), `MetadataEntry`s (`_HealthPair.uuid` keeps its identifier), and either `Location`s or a
  /// `FileReference` (the first; further ones are skipped and reported, and `Location`s beside one are ignored).
  /// Nil, reported, for a route with neither. The dates are checked but not kept: a route's dates are its first
  /// and last fix's.
  mutating func workoutRoute(defaultSource: SourceEntry) throws(ExportError) -> ReadRoute? {
    let location = scanner.tokenLocation
    let source =
      try scanner.attribute("sourceName").map { i throws(ExportError) in
        try sourceEntry(i, version: scanner.attribute("sourceVersion"), device: scanner.attribute("device"))
      } ?? defaultSource
    for name: StaticString in ["startDate", "endDate", "creationDate"] {
      if let index = scanner.attribute(name) { _ = try date(index) }
    }
    var read = ReadRoute(metadata: [:], source: source.source, locations: [], path: nil, location: location)
    if !scanner.isSelfClosing {
      let level = scanner.depth
      var children = 0
      var metadataBytes = 0
      loop: while true {
        switch try scanner.next() {
        case .startTag:
          guard scanner.depth == level + 1 || (scanner.isSelfClosing && scanner.depth == level) else { continue }
          children += 1
          if scanner.nameIs("Location") {
            guard read.locations.count < Self.maxRouteLocations else {
              throw ExportError(
                .invalidRecord, at: location, "a '<WorkoutRoute>' with more than \(Self.maxRouteLocations) locations")
            }
            read.locations.append(try routeLocation())
            continue
          }
          try Self.checkChildCount(children - read.locations.count, of: "WorkoutRoute", at: location)
          if scanner.nameIs("MetadataEntry") {
            try metadataEntry(into: &read.metadata, identifier: &read.identifier, bytes: &metadataBytes)
          } else if scanner.nameIs("FileReference"), read.path == nil {
            guard let pathIndex = scanner.attribute("path") else {
              throw ExportError(.notAnExport, at: scanner.tokenLocation, "a '<FileReference>' without a 'path'")
            }
            read.location = scanner.tokenLocation
            read.path = try scanner.string(pathIndex)
            _ = try RouteFile.relativePath(read.path!, at: scanner.valueLocation(pathIndex))
            _ = try skipSubtree()
          } else {
            summary.skip(scanner.name, "in WorkoutRoute")
            _ = try skipSubtree()
          }
        case .endTag:
          if scanner.depth < level { break loop }
        case .endOfDocument:
          break loop
        }
      }
    }
    do { try read.metadata.checkValues() } catch {
      throw ExportError(.invalidRecord, at: location, "a '<WorkoutRoute>': \(error.message)")
    }
    if read.path != nil {
      if !read.locations.isEmpty { summary.skip("Location", "beside a FileReference", count: read.locations.count) }
      read.locations = []
      return read
    }
    guard !read.locations.isEmpty else {
      summary.skip("WorkoutRoute", "without locations")
      return nil
    }
    // Fixes in timestamp order, as a route holds them (stable: equal timestamps keep the file's order).
    if zip(read.locations, read.locations.dropFirst()).contains(where: { $0.timestamp > $1.timestamp }) {
      read.locations = read.locations.enumerated().sorted {
        ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset)
      }.map(\.element)
    }
    return read
  }

  /// Reads a `Location`: `date`, `latitude` and `longitude` (required), `altitude` (0 when absent),
  /// `horizontalAccuracy`, `verticalAccuracy`, `course` and `speed` (-1, invalid, when absent), and HealthPair's
  /// `speedAccuracy` and `courseAccuracy`.
  private mutating func routeLocation() throws(ExportError) -> RouteLocation {
    let location = scanner.tokenLocation
    guard let dateIndex = scanner.attribute("date"), let latitudeIndex = scanner.attribute("latitude"),
      let longitudeIndex = scanner.attribute("longitude")
    else {
      throw ExportError(.notAnExport, at: location, "a '<Location>' needs 'date', 'latitude' and 'longitude'")
    }
    var fix = RouteLocation(
      timestamp: Date(timeIntervalSinceReferenceDate: try date(dateIndex)), latitude: try number(latitudeIndex),
      longitude: try number(longitudeIndex), horizontalAccuracy: -1, verticalAccuracy: -1)
    let optional: [(StaticString, WritableKeyPath<RouteLocation, Double>)] = [
      ("altitude", \.altitude), ("horizontalAccuracy", \.horizontalAccuracy),
      ("verticalAccuracy", \.verticalAccuracy), ("course", \.course), ("speed", \.speed),
      ("speedAccuracy", \.speedAccuracy), ("courseAccuracy", \.courseAccuracy),
    ]
    for (name, path) in optional {
      if let index = scanner.attribute(name) { fix[keyPath: path] = try number(index) }
    }
    try Self.checkCoordinates(fix, at: location)
    _ = try skipSubtree()
    return fix
  }

  /// Throws unless `fix`'s latitude is within ±90° and its longitude within ±180°.
  static func checkCoordinates(_ fix: RouteLocation, at location: ExportLocation) throws(ExportError) {
    guard abs(fix.latitude) <= 90, abs(fix.longitude) <= 180 else {
      throw ExportError(
        .value, at: location,
        "latitude \(fix.latitude), longitude \(fix.longitude) is not a place (latitude ±90°, longitude ±180°)")
    }
  }

  /// Reads an `ActivitySummary` into ``pendingSummaries``: `dateComponents` (`2023-01-01`), active energy in
  /// `activeEnergyBurnedUnit` (kilocalories when absent), `appleMoveTime` (older exports: `appleMoveMinutes`) and
  /// `appleExerciseTime` in minutes, `appleStandHours`, each with its goal. The move mode is HealthPair's
  /// `activityMoveMode` when written, else move time when only a move-time goal is set (HealthPair model: Apple
  /// writes no mode); `paused="1"` (HealthPair's) sets `isPaused`. One without a day is skipped and reported.
  mutating func activitySummary() throws(ExportError) {
    let location = scanner.tokenLocation
    guard let dayIndex = scanner.attribute("dateComponents") else {
      summary.skip("ActivitySummary", "without dateComponents")
      _ = try skipSubtree()
      return
    }
    let text = try scanner.string(dayIndex)
    guard let day = Self.localDay(text) else {
      throw ExportError(.date, at: scanner.valueLocation(dayIndex), "'\(text)' is not a day like 2023-01-01")
    }
    var result = ActivitySummary(day: day)
    func value(_ name: StaticString) throws(ExportError) -> Double? {
      guard let index = scanner.attribute(name) else { return nil }
      let amount = try number(index)
      guard amount >= 0 else {
        throw ExportError(.value, at: scanner.valueLocation(index), "'\(amount)' is negative")
      }
      return amount
    }
    var energyFactor = 1.0
    if let unitIndex = scanner.attribute("activeEnergyBurnedUnit") {
      let unitText = try scanner.string(unitIndex)
      guard let unit = try? HealthUnit.cached(unitText),
        let factor = try? unit.convert(1, to: HealthUnit.cached("kcal"))
      else {
        throw ExportError(.unit, at: scanner.valueLocation(unitIndex), "'\(unitText)' is not a unit of energy")
      }
      energyFactor = factor
    }
    result.activeEnergy = (try value("activeEnergyBurned") ?? 0) * energyFactor
    result.activeEnergyGoal = (try value("activeEnergyBurnedGoal") ?? 0) * energyFactor
    let moveTime = try value("appleMoveTime")
    let moveMinutes = try value("appleMoveMinutes")
    result.moveTime = moveTime ?? moveMinutes ?? 0
    let moveTimeGoal = try value("appleMoveTimeGoal")
    let moveMinutesGoal = try value("appleMoveMinutesGoal")
    result.moveTimeGoal = moveTimeGoal ?? moveMinutesGoal ?? 0
    result.exerciseTime = try value("appleExerciseTime") ?? 0
    result.exerciseTimeGoal = try value("appleExerciseTimeGoal") ?? 0
    result.standHours = try value("appleStandHours") ?? 0
    result.standHoursGoal = try value("appleStandHoursGoal") ?? 0
    result.moveMode = Self.inferredMoveMode(result)
    if let modeIndex = scanner.attribute("activityMoveMode") {
      let name = try scanner.string(modeIndex)
      guard let mode = ExportWriter.moveModeNames.first(where: { $0.value == name })?.key else {
        throw ExportError(.value, at: scanner.valueLocation(modeIndex), "'\(name)' is not an activity move mode")
      }
      result.moveMode = mode
    }
    if let pausedIndex = scanner.attribute("paused") { result.isPaused = try scanner.string(pausedIndex) == "1" }
    _ = location
    _ = try skipSubtree()
    summary.activitySummaries += 1
    pendingSummaries.append(result)
  }

  /// The move mode a summary without HealthPair's `activityMoveMode` reads as: move time when it has a move-time
  /// goal and no energy goal, else active energy.
  static func inferredMoveMode(_ summary: ActivitySummary) -> ActivityMoveMode {
    summary.moveTimeGoal > 0 && summary.activeEnergyGoal == 0 ? .appleMoveTime : .activeEnergy
  }

  /// `YYYY-MM-DD` as a day (a real one of the Gregorian calendar), or nil.
  static func localDay(_ text: String) -> LocalDay? {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
      let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), year >= 1, (1...12).contains(month)
    else { return nil }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    guard (1...days).contains(day) else { return nil }
    return LocalDay(year: year, month: month, day: day)
  }
}
