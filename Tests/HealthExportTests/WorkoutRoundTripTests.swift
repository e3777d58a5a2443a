import FoundationEssentials
import Testing

@testable import HealthExport
@testable import HealthModel

/// Export → import → export keeps every workout field (issue 32, "Real data").
@Suite("Workout export round trips")
struct WorkoutRoundTripTests {
  static let t = Date(timeIntervalSinceReferenceDate: 790_000_000.125)
  static let source = SampleSource(bundleID: "com.example.run", device: .watch)

  /// A workout an app saved, with a value in every field the model has.
  static func savedWorkout() -> (Workout, [WorkoutRoute]) {
    let t = Self.t
    let energy = SampleType.lookup(name: "activeEnergyBurned")!
    let heart = SampleType.lookup(name: "heartRate")!
    let distance = SampleType.lookup(name: "distanceSwimming")!
    let end = t.addingTimeInterval(3600.75)
    let statistics = [
      WorkoutStatistic(type: energy, start: t, end: end, sum: 612.345678901),
      WorkoutStatistic(
        type: heart, start: t, end: end, minimum: 1.6, maximum: 2.95, average: 2.3333333333333335,
        mostRecent: 2.1),
    ]
    let first = WorkoutActivity(
      uuid: UUID(),
      configuration: WorkoutConfiguration(
        activityType: .swimming, location: .indoor,
        swimmingLocation: .pool, lapLength: 25),
      start: t, end: t.addingTimeInterval(1800), metadata: ["HKAverageMETs": .quantity(7.5, unit: "kcal/hr·kg")],
      statistics: [WorkoutStatistic(type: distance, start: t, end: t.addingTimeInterval(1800), sum: 1500)])
    let second = WorkoutActivity(
      uuid: UUID(), configuration: WorkoutConfiguration(activityType: .running, location: .outdoor),
      start: t.addingTimeInterval(1800), end: end)
    let workout = Workout(
      uuid: UUID(), activityType: WorkoutActivityType(rawValue: 82), start: t, end: end, duration: 3540.3,
      events: [
        WorkoutEvent(type: .lap, start: t, end: t.addingTimeInterval(61.7), metadata: ["HKLapLength": .string("25 m")]),
        WorkoutEvent(type: .pause, start: t.addingTimeInterval(600.2)),
        WorkoutEvent(type: .resume, start: t.addingTimeInterval(660.9)),
        WorkoutEvent(type: .segment, start: t.addingTimeInterval(1000), end: t.addingTimeInterval(1333.333)),
      ],
      activities: [first, second], statistics: statistics,
      metadata: [
        "HKIndoorWorkout": .bool(true), "note": .string("pool & <run>\n"),
        "HKWeatherTemperature":
          .quantity(21.5, unit: "degC"),
      ],
      source: source, associated: (0..<600).map { _ in UUID() })
    var locations: [RouteLocation] = []
    for i in 0..<5 {
      let x = Double(i)
      let timestamp = t.addingTimeInterval(1800 + x * 1.25)
      let latitude: Double = 48.1 + x * 1e-5
      let longitude: Double = -2.2 - x * 3e-6
      let speedAccuracy: Double = i == 0 ? -1 : 0.4
      let courseAccuracy: Double = i == 0 ? -1 : 5
      locations.append(
        RouteLocation(
          timestamp: timestamp, latitude: latitude, longitude: longitude, altitude: 12.3, horizontalAccuracy: 3.9,
          verticalAccuracy: 2.1, speed: 3.3, speedAccuracy: speedAccuracy, course: 270.25,
          courseAccuracy: courseAccuracy))
    }
    let routes = [
      WorkoutRoute(
        uuid: UUID(), workout: workout.uuid, locations: locations, metadata: ["HKMetadataKeySyncVersion": .int(3)],
        source: source),
      WorkoutRoute(uuid: UUID(), workout: workout.uuid, locations: Array(locations.prefix(2)), source: source),
    ]
    return (workout, routes)
  }

  /// `workout` with the source an import gives what was written for `source` (the export names it).
  static func asImported(_ value: Workout, like read: Workout) -> Workout {
    var copy = value
    copy.source = read.source
    return copy
  }

  @Test("an app's workout reads back with every field, its routes from their GPX files")
  func savedWorkoutRoundTrips() throws {
    let (workout, routes) = Self.savedWorkout()
    let summary = ActivitySummary(
      day: LocalDay(year: 2026, month: 1, day: 12), moveMode: .appleMoveTime, activeEnergy: 310.25,
      activeEnergyGoal: 400, moveTime: 41.5, moveTimeGoal: 45, exerciseTime: 22, exerciseTimeGoal: 30, standHours: 7,
      standHoursGoal: 12, isPaused: true)
    let (xml, files) = try writtenWorkouts([(workout, routes)], summaries: [summary])
    #expect(files.count == 2)
    #expect(files.keys.allSatisfy { $0.hasPrefix("workout-routes/route_2026-01-13_") && $0.hasSuffix(".gpx") })
    let text = String(decoding: xml, as: UTF8.self)
    #expect(text.contains("<FileReference path=\"/workout-routes/"))
    let (read, summaries) = try readWorkouts(xml, files: files)
    let (back, backRoutes) = try #require(read.first)
    let expected = Self.asImported(workout, like: back)
    #expect(back.events == expected.events)
    #expect(back.activities == expected.activities)
    #expect(back.statistics == expected.statistics)
    #expect(back.metadata == expected.metadata)
    #expect(back.associated == expected.associated)
    #expect(back == expected)
    #expect(try storedForm(back) == back)
    #expect(back.source.details?.name == "com.example.run")
    #expect(backRoutes.count == 2)
    for (original, copy) in zip(routes, backRoutes) {
      #expect(copy.uuid == original.uuid && copy.workout == workout.uuid)
      #expect(copy.locations == original.locations)
      #expect(copy.metadata == original.metadata)
    }
    #expect(summaries == [summary])
  }

  @Test("export → import → export writes the same bytes, and an import of Apple's workout keeps its shape")
  func secondExportIsTheFirst() throws {
    let (workout, routes) = Self.savedWorkout()
    let first = try writtenWorkouts([(workout, routes)])
    let read = try readWorkouts(first.xml, files: first.files)
    let second = try writtenWorkouts(read.workouts)
    #expect(second.xml == first.xml)
    #expect(second.files == first.files)
    let again = try readWorkouts(second.xml, files: second.files)
    #expect(again.workouts.map(\.0) == read.workouts.map(\.0))
    #expect(again.workouts.map(\.1) == read.workouts.map(\.1))
  }

  @Test("an imported Apple workout is written without HealthPair's identifiers and reads back the same")
  func appleWorkoutKeepsAppleShape() throws {
    let (workouts, summaries, _) = try WorkoutExportTests.read(WorkoutExportTests.current)
    let files = MemoryExportFiles(
      ["workout-routes/route_2023-01-01_7.30am.gpx": Array(WorkoutExportTests.gpx.utf8)])
    let imported = try workouts.map { ($0.workout, try $0.routeFiles.compactMap { try $0.resolve(in: files) }) }
    let (xml, written) = try writtenWorkouts(imported, summaries: summaries)
    let text = String(decoding: xml, as: UTF8.self)
    #expect(!text.contains("_HealthPair."), "identifiers and configuration all derive from Apple's fields")
    #expect(!text.contains("activityMoveMode=") && !text.contains("paused="))
    let back = try readWorkouts(xml, files: written)
    #expect(back.workouts.map(\.0) == imported.map(\.0))
    #expect(back.workouts.map(\.1) == imported.map(\.1))
    #expect(back.summaries == summaries)
  }

  @Test("route file names are Apple's, unique within one export")
  func routeFileNamesAreUnique() throws {
    let (workout, routes) = Self.savedWorkout()
    let (_, files) = try writtenWorkouts([(workout, routes), (workout, routes)], offsetSeconds: 0)
    #expect(files.count == 4)
    #expect(files["workout-routes/route_2026-01-13_12.56pm.gpx"] != nil)
    #expect(files["workout-routes/route_2026-01-13_12.56pm-2.gpx"] != nil)
  }
}
