import FoundationEssentials
import Testing

@testable import HealthExport
@testable import HealthModel

/// Workouts and activity summaries read from and written to an export.
@Suite("Workouts in an export")
struct WorkoutExportTests {
  /// A current-format workout as Apple writes it: metadata, a pause and a resume, a lap with a duration, two
  /// statistics, one activity, and a route in a GPX file; and an activity summary.
  static let current = """
     <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30.5" durationUnit="min" \
    sourceName="Anna’s Apple Watch" sourceVersion="10.1" creationDate="2023-01-01 08:05:00 +0100" \
    startDate="2023-01-01 07:30:00 +0100" endDate="2023-01-01 08:02:00 +0100">
      <MetadataEntry key="HKIndoorWorkout" value="0"/>
      <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>
      <WorkoutEvent type="HKWorkoutEventTypePause" date="2023-01-01 07:40:00 +0100"/>
      <WorkoutEvent type="HKWorkoutEventTypeResume" date="2023-01-01 07:41:30 +0100"/>
      <WorkoutEvent type="HKWorkoutEventTypeLap" date="2023-01-01 07:30:00 +0100" duration="5" durationUnit="min"/>
      <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2023-01-01 07:30:00 +0100" \
    endDate="2023-01-01 08:02:00 +0100" sum="312.5" unit="kcal"/>
      <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2023-01-01 07:30:00 +0100" \
    endDate="2023-01-01 08:02:00 +0100" average="151" minimum="98" maximum="178" unit="count/min"/>
      <WorkoutActivity uuid="7B0D7F52-7B5E-4A55-9E0B-5F3F8D1C2A11" startDate="2023-01-01 07:30:00 +0100" \
    endDate="2023-01-01 08:02:00 +0100" duration="32" durationUnit="min">
       <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2023-01-01 07:30:00 +0100" \
    endDate="2023-01-01 08:02:00 +0100" sum="5.2" unit="km"/>
      </WorkoutActivity>
      <WorkoutRoute sourceName="Anna’s Apple Watch" sourceVersion="10.1" creationDate="2023-01-01 08:05:00 +0100" \
    startDate="2023-01-01 07:30:00 +0100" endDate="2023-01-01 08:02:00 +0100">
       <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
       <FileReference path="/workout-routes/route_2023-01-01_7.30am.gpx"/>
      </WorkoutRoute>
     </Workout>
     <ActivitySummary dateComponents="2023-01-01" activeEnergyBurned="420.5" activeEnergyBurnedGoal="500" \
    activeEnergyBurnedUnit="kcal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="38" \
    appleExerciseTimeGoal="30" appleStandHours="9" appleStandHoursGoal="12"/>
    """

  /// The GPX file Apple writes for the route above (two points, the second in its own segment, namespaced
  /// extensions as some tools write them).
  static let gpx = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">
     <metadata><time>2023-01-01T07:05:00Z</time></metadata>
     <trk><name>Route 2023-01-01 7:30am</name>
      <trkseg>
       <trkpt lon="2.294481" lat="48.858370"><ele>35.2</ele><time>2023-01-01T06:30:00Z</time>\
    <extensions><speed>2.8</speed><course>91.5</course><hAcc>4.1</hAcc><vAcc>3.2</vAcc></extensions></trkpt>
      </trkseg>
      <trkseg>
       <trkpt lon="2.294600" lat="48.858400"><ele>35.4</ele><time>2023-01-01T07:30:01.5+01:00</time>\
    <extensions><gpx:speed>2.9</gpx:speed><course>-1</course><hAcc>4</hAcc><vAcc>3</vAcc></extensions></trkpt>
      </trkseg>
     </trk>
    </gpx>
    """

  static func read(_ text: String) throws -> (workouts: [ImportedWorkout], summaries: [ActivitySummary], ImportSummary)
  {
    var reader = ExportReader(MemoryInput(Array(export(text).utf8), chunk: 7), file: "export.xml")
    var workouts: [ImportedWorkout] = []
    while try reader.next() != nil { workouts += reader.takeWorkouts() }
    workouts += reader.takeWorkouts()
    return (workouts, reader.takeSummaries(), reader.summary)
  }

  static func date(_ text: String) -> Date { Date(timeIntervalSinceReferenceDate: ExportDate.parse(text)!) }

  @Test("a current export's workout reads with every element mapped, and its route from the GPX file")
  func currentFormatWorkout() throws {
    let (workouts, summaries, summary) = try Self.read(Self.current)
    #expect(summary.workouts == 1 && summary.routes == 1 && summary.activitySummaries == 1)
    #expect(summary.skippedElements.isEmpty)
    let imported = try #require(workouts.first)
    let workout = imported.workout
    #expect(workout.activityType == .running)
    #expect(try storedForm(workout) == workout, "what the engine stores, as its validation makes it")
    #expect(workout.duration == 30.5 * 60)
    #expect(workout.start == Self.date("2023-01-01 07:30:00 +0100"))
    #expect(workout.end == Self.date("2023-01-01 08:02:00 +0100"))
    #expect(workout.source.details?.name == "Anna’s Apple Watch")
    #expect(workout.metadata["HKTimeZone"] == .string("Europe/Paris"))
    #expect(workout.events.map(\.type) == [.lap, .pause, .resume], "date-ascending")
    #expect(workout.events[0].end.timeIntervalSince(workout.events[0].start) == 300)
    let energy = try #require(workout.statistic(for: SampleType.lookup(name: "activeEnergyBurned")!))
    #expect(energy.sum == 312.5)
    let heart = try #require(workout.statistic(for: SampleType.lookup(name: "heartRate")!))
    #expect(heart.average != nil && heart.minimum != nil && heart.maximum != nil && heart.sum == nil)
    let activity = try #require(workout.activities.first)
    #expect(workout.activities.count == 1)
    #expect(activity.uuid.uuidString == "7B0D7F52-7B5E-4A55-9E0B-5F3F8D1C2A11")
    #expect(activity.configuration.activityType == .running)
    #expect(activity.configuration.location == .outdoor, "from HKIndoorWorkout 0")
    let distance = try #require(activity.statistics.first)
    #expect(distance.type.name == "distanceWalkingRunning" && distance.sum == 5200, "km in metres")
    #expect(imported.routes.isEmpty)
    let file = try #require(imported.routeFiles.first)
    #expect(file.path == "/workout-routes/route_2023-01-01_7.30am.gpx")
    #expect(file.route.workout == workout.uuid)
    #expect(file.route.metadata["HKMetadataKeySyncVersion"] != nil)
    let files = MemoryExportFiles(["workout-routes/route_2023-01-01_7.30am.gpx": Array(Self.gpx.utf8)])
    let route = try #require(try file.resolve(in: files))
    #expect(route.locations.count == 2)
    #expect(route.locations[0].latitude == 48.858370 && route.locations[0].altitude == 35.2)
    #expect(route.locations[0].speed == 2.8 && route.locations[0].course == 91.5)
    #expect(route.locations[0].horizontalAccuracy == 4.1 && route.locations[0].verticalAccuracy == 3.2)
    #expect(route.locations[1].speed == 2.9, "a namespaced extension element")
    #expect(route.locations[1].timestamp == Self.date("2023-01-01 07:30:01.5 +0100"))
    #expect(route.start == route.locations[0].timestamp && route.uuid == file.route.uuid)
    #expect(try file.resolve(in: MemoryExportFiles()) == nil, "an export without its routes folder")
    let day = try #require(summaries.first)
    #expect(day.day == LocalDay(year: 2023, month: 1, day: 1))
    #expect(day.activeEnergy == 420.5 && day.activeEnergyGoal == 500 && day.moveMode == .activeEnergy)
    #expect(day.exerciseTime == 38 && day.exerciseTimeGoal == 30 && day.standHours == 9 && day.standHoursGoal == 12)
  }

  @Test("an older export's totals become statistics and its inline Locations a route")
  func olderFormatWorkout() throws {
    let text = """
       <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="20" durationUnit="min" \
      totalDistance="8.5" totalDistanceUnit="km" totalEnergyBurned="250" totalEnergyBurnedUnit="kcal" \
      sourceName="Watch" startDate="2016-11-14 07:20:00 -0700" endDate="2016-11-14 07:40:00 -0700">
        <WorkoutRoute sourceName="Watch" startDate="2016-11-14 07:20:00 -0700" endDate="2016-11-14 07:40:00 -0700">
         <Location date="2016-11-14 07:25:45 -0700" latitude="37.7778" longitude="-122.427" altitude="21.5" \
      horizontalAccuracy="2.4" verticalAccuracy="1.6" course="-1" speed="2.5"/>
         <Location date="2016-11-14 07:25:44 -0700" latitude="37.7777" longitude="-122.426" altitude="21.2694" \
      horizontalAccuracy="2.40948" verticalAccuracy="1.67859" course="-1" speed="2.48034"/>
        </WorkoutRoute>
       </Workout>
       <ActivitySummary dateComponents="2016-11-14" activeEnergyBurned="300" activeEnergyBurnedGoal="0" \
      activeEnergyBurnedUnit="kJ" appleMoveMinutes="25" appleMoveMinutesGoal="30" appleExerciseTime="20" \
      appleExerciseTimeGoal="30" appleStandHours="6" appleStandHoursGoal="12"/>
      """
    let (workouts, summaries, _) = try Self.read(text)
    let imported = try #require(workouts.first)
    let workout = imported.workout
    #expect(workout.statistic(for: SampleType.lookup(name: "distanceCycling")!)?.sum == 8500)
    #expect(workout.statistic(for: SampleType.lookup(name: "activeEnergyBurned")!)?.sum == 250)
    #expect(workout.activities.count == 1, "HealthKit adds an activity matching the workout")
    #expect(workout.activities[0].uuid == WorkoutActivity.defaultUUID(for: workout.uuid))
    let route = try #require(imported.routes.first)
    #expect(route.locations.map(\.latitude) == [37.7777, 37.7778], "in timestamp order")
    #expect(route.locations[0].speed == 2.48034 && route.locations[0].speedAccuracy == -1)
    #expect(route.uuid == ExportIdentity.route(workout: workout.uuid, index: 0))
    let day = try #require(summaries.first)
    #expect(day.moveMode == .appleMoveTime, "only a move-time goal")
    #expect(day.moveTime == 25 && day.moveTimeGoal == 30)
    #expect(abs(day.activeEnergy - 300 / 4.184) < 1e-9, "kJ in kcal")
  }

  @Test("the same workout element always gets the same identifier; an activity type without a name survives")
  func identifiersAreDerived() throws {
    let a = try Self.read(Self.current).workouts[0].workout
    let b = try Self.read(Self.current).workouts[0].workout
    #expect(a.uuid == b.uuid)
    let numeric = Self.current.replacing("HKWorkoutActivityTypeRunning", with: "HKWorkoutActivityType90")
    let odd = try Self.read(numeric).workouts[0].workout
    #expect(odd.activityType.rawValue == 90 && odd.uuid != a.uuid)
  }
}

/// Writes `workouts` (with their routes) and `summaries` as an export; returns export.xml and the route files.
func writtenWorkouts(
  _ workouts: [(Workout, [WorkoutRoute])], summaries: [ActivitySummary] = [], offsetSeconds: Int = 3600
) throws -> (xml: [UInt8], files: [String: [UInt8]]) {
  var out: [UInt8] = []
  var files: [String: [UInt8]] = [:]
  var writer = ExportWriter(offsetSeconds: offsetSeconds) { out += $0 }
  try writer.begin(exportDate: Date(timeIntervalSinceReferenceDate: 790_000_000))
  for (workout, routes) in workouts { try writer.write(workout, routes: routes) { files[$0] = $1 } }
  for summary in summaries { try writer.write(summary) }
  try writer.finish()
  return (out, files)
}

/// What `xml` and `files` read back as: each workout with its routes resolved, and the summaries.
func readWorkouts(_ xml: [UInt8], files: [String: [UInt8]]) throws -> (
  workouts: [(Workout, [WorkoutRoute])], summaries: [ActivitySummary]
) {
  var reader = ExportReader(MemoryInput(xml), file: "export.xml")
  while try reader.next() != nil {}
  let exportFiles = MemoryExportFiles(files)
  let workouts = try reader.takeWorkouts().map { imported in
    (imported.workout, try imported.routes + imported.routeFiles.compactMap { try $0.resolve(in: exportFiles) })
  }
  return (workouts, reader.takeSummaries())
}

@Suite("Workouts after the last record are handed out in bounded groups")
struct WorkoutPausingTests {
  @Test("with pausesForObjects, next() stops every objectsPerPause workouts until atEnd")
  func pausesBoundWhatWaits() throws {
    let one = WorkoutExportTests.current.components(separatedBy: "<ActivitySummary").first!
    let count = ExportReader.objectsPerPause * 2 + 5
    var reader = ExportReader(
      MemoryInput(Array(export(String(repeating: one, count: count)).utf8)), file: "export.xml")
    reader.pausesForObjects = true
    var taken = 0
    var most = 0
    while try reader.next() != nil || !reader.atEnd {
      let batch = reader.takeWorkouts().count
      most = max(most, batch)
      taken += batch
    }
    taken += reader.takeWorkouts().count
    #expect(taken == count)
    #expect(most == ExportReader.objectsPerPause)
  }
}

/// `workout` as HealthKit's validation stores it (what the engine's import requires it to be already).
func storedForm(_ workout: Workout) throws -> Workout {
  try WorkoutInput(
    uuid: workout.uuid, activityType: workout.activityType, start: workout.start, end: workout.end,
    duration: workout.duration, events: workout.events, activities: workout.activities,
    statistics: workout.statistics, metadata: workout.metadata, associated: workout.associated
  ).validated(source: workout.source)
}
