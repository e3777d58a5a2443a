import FoundationEssentials
import TestSupport
import Testing

@testable import HealthExport
@testable import HealthModel
@testable import HealthPairClient
@testable import PairProcesses
@testable import Posix

/// An export folder: export.xml with a heart-rate record, a workout whose route is a GPX file under
/// workout-routes/, and an activity summary.
private func exportFolder(in directory: String, gpx: String = workoutGPX) throws -> String {
  let folder = directory + "/apple_health_export"
  try Posix.makeDirectory(folder + "/workout-routes", mode: 0o755)
  let xml = """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <ExportDate value="2026-01-04 09:00:00 +0100"/>
     <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Kim’s Apple Watch" sourceVersion="11.2" \
    unit="count/min" startDate="2026-01-03 18:10:00 +0100" endDate="2026-01-03 18:10:00 +0100" value="142"/>
     <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="31.5" durationUnit="min" \
    sourceName="Kim’s Apple Watch" sourceVersion="11.2" creationDate="2026-01-03 18:32:00 +0100" \
    startDate="2026-01-03 18:00:00 +0100" endDate="2026-01-03 18:31:30 +0100">
      <MetadataEntry key="HKIndoorWorkout" value="0"/>
      <WorkoutEvent type="HKWorkoutEventTypePause" date="2026-01-03 18:10:00 +0100"/>
      <WorkoutEvent type="HKWorkoutEventTypeResume" date="2026-01-03 18:11:00 +0100"/>
      <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2026-01-03 18:00:00 +0100" \
    endDate="2026-01-03 18:31:30 +0100" sum="312.4" unit="kcal"/>
      <WorkoutRoute sourceName="Kim’s Apple Watch" sourceVersion="11.2" startDate="2026-01-03 18:00:00 +0100" \
    endDate="2026-01-03 18:31:30 +0100">
       <FileReference path="/workout-routes/route_2026-01-03_6.31pm.gpx"/>
      </WorkoutRoute>
     </Workout>
     <ActivitySummary dateComponents="2026-01-03" activeEnergyBurned="512.8" activeEnergyBurnedGoal="500" \
    activeEnergyBurnedUnit="Cal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="42" \
    appleExerciseTimeGoal="30" appleStandHours="11" appleStandHoursGoal="12"/>
    </HealthData>

    """
  try Posix.writeFileAtomically(folder + "/export.xml", Array(xml.utf8))
  try Posix.writeFileAtomically(folder + "/workout-routes/route_2026-01-03_6.31pm.gpx", Array(gpx.utf8))
  return folder + "/export.xml"
}

private let workoutGPX = """
  <?xml version="1.0" encoding="UTF-8"?>
  <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">
   <trk><trkseg>
    <trkpt lon="2.2945" lat="48.8584"><ele>35</ele><time>2026-01-03T17:00:00Z</time>\
  <extensions><speed>2.8</speed><course>90</course><hAcc>4</hAcc><vAcc>3</vAcc></extensions></trkpt>
    <trkpt lon="2.2946" lat="48.8585"><ele>35.5</ele><time>2026-01-03T17:00:01Z</time>\
  <extensions><speed>2.9</speed><course>91</course><hAcc>4</hAcc><vAcc>3</vAcc></extensions></trkpt>
   </trkseg></trk>
  </gpx>
  """

/// What a device stores of workouts: its workouts, each with its routes, and its activity summaries.
private func stored(_ client: DeviceClient) throws -> (workouts: [Workout], routes: [[WorkoutRoute]], [ActivitySummary])
{
  let workouts = try client.storedWorkouts().sorted { $0.start < $1.start }
  let routes = try workouts.map { try client.storedRoutes(workout: $0.uuid) }
  return (workouts, routes, try client.storedActivitySummaries().filter { $0.activeEnergy > 0 })
}

@Suite("Workouts imported into and exported from real daemons")
struct WorkoutImportTests {
  @Test("an export's workout, its GPX route and its activity summary import in one commit and export back")
  func importQueryExportCompare() throws {
    let directory = try Posix.makeTemporaryDirectory(prefix: "hp-workouts")
    defer { Posix.removeTree(directory) }
    let path = try exportFolder(in: directory)
    let first = try withPair { pair in
      let report = try HealthExportFiles.importExport(path: path, into: pair.phone)
      #expect(report.summary.workouts == 1 && report.summary.routes == 1 && report.summary.activitySummaries == 1)
      #expect(report.summary.skippedElements["FileReference"] == nil, "the route file was found")
      let (workouts, routes, summaries) = try stored(pair.phone)
      let workout = try #require(workouts.first)
      #expect(workout.activityType == .running && workout.duration == 31.5 * 60)
      #expect(workout.events.map(\.type) == [.pause, .resume])
      #expect(workout.statistic(for: SampleType.lookup(name: "activeEnergyBurned")!)?.sum == 312.4)
      #expect(routes.first?.first?.locations.count == 2)
      #expect(routes.first?.first?.locations.last?.speed == 2.9)
      #expect(summaries.first?.day == LocalDay(year: 2026, month: 1, day: 3))
      #expect(summaries.first?.exerciseTime == 42)
      #expect(try HealthExportFiles.exportStore(from: pair.phone, to: directory + "/out.zip") > 0)
      try Posix.makeDirectory(directory + "/plain", mode: 0o755)
      #expect(try HealthExportFiles.exportStore(from: pair.phone, to: directory + "/plain/export.xml") > 0)
      return try stored(pair.phone)
    }
    let written = try Posix.readFile(directory + "/plain/export.xml")
    #expect(String(decoding: written, as: UTF8.self).contains("<FileReference path=\"/workout-routes/"))
    for file in ["out.zip", "plain/export.xml"] {
      let second = try withPair { pair in
        let report = try HealthExportFiles.importExport(path: directory + "/" + file, into: pair.phone)
        #expect(report.summary.skippedElements["FileReference"] == nil, "\(file): the route file was found")
        return try stored(pair.phone)
      }
      #expect(second.workouts == first.workouts, "\(file): every workout field")
      #expect(second.routes == first.routes, "\(file): every route field")
      #expect(second.2 == first.2, "\(file): the activity summaries")
    }
  }

  @Test("a damaged route file fails the import and leaves the store as it was: no sample, no workout")
  func aBadRouteFileLeavesNothing() throws {
    let directory = try Posix.makeTemporaryDirectory(prefix: "hp-badroute")
    defer { Posix.removeTree(directory) }
    let path = try exportFolder(
      in: directory, gpx: "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"1\"/></trkseg></trk></gpx>")
    try withPair { (pair: Pair) throws -> Void in
      #expect(throws: ExportError.self) { _ = try HealthExportFiles.importExport(path: path, into: pair.phone) }
      #expect(try pair.phone.storedSamples().samples.isEmpty)
      #expect(try pair.phone.storedWorkouts().isEmpty)
    }
  }
}
