import FoundationEssentials
import Testing

@testable import HealthExport
@testable import HealthModel

/// A `Workout` element around `children`.
private func workout(_ children: String, type: String = "HKWorkoutActivityTypeRunning") -> String {
  "<Workout workoutActivityType=\"\(type)\" sourceName=\"Watch\" startDate=\"2023-01-01 07:30:00 +0100\" "
    + "endDate=\"2023-01-01 08:00:00 +0100\">\n" + children + "</Workout>\n"
}

/// The error the GPX `text` throws (nil when it reads).
private func gpxError(_ text: String) -> ExportError? {
  var reader = GPXReader(MemoryInput(Array(text.utf8), chunk: 3), file: "route.gpx")
  do {
    _ = try reader.locations()
    return nil
  } catch { return error }
}

@Suite("Hostile workouts: every count, path and value of a workout is checked, errors located")
struct WorkoutHostileInputTests {
  @Test("a FileReference path that leaves the export is refused where it stands")
  func pathTraversalIsRefused() {
    for path in ["/../../etc/passwd", "/workout-routes/../../x.gpx", "", "/workout-routes//x.gpx", "a\\b.gpx"] {
      let error = readError(
        export(workout("<WorkoutRoute><FileReference path=\"\(path)\"/></WorkoutRoute>\n")))
      #expect(error?.kind == .value, "\(path)")
      #expect(error?.location.line == 5, "\(path): \(String(describing: error))")
    }
  }

  @Test("a workout with more children than the cap is refused, located at the workout")
  func childCountIsBounded() {
    let events = String(
      repeating: "<WorkoutEvent type=\"HKWorkoutEventTypeMarker\" date=\"2023-01-01 07:31:00 +0100\"/>\n",
      count: ExportReader.maxChildren + 1)
    let error = readError(export(workout(events)))
    #expect(error?.kind == .invalidRecord)
    #expect(error?.location.line == 4)
  }

  @Test("an unknown event type is a located error naming the nearest one")
  func unknownEventType() {
    let error = readError(
      export(workout("<WorkoutEvent type=\"HKWorkoutEventTypePaus\" date=\"2023-01-01 07:31:00 +0100\"/>\n")))
    #expect(error?.kind == .value)
    #expect(error?.message.contains("HKWorkoutEventTypePause") == true)
    #expect(error?.location.line == 5)
  }

  @Test("a workout the engine's import would refuse is a located error of the reader, not a failed import")
  func workoutsTheEngineRefusesAreLocated() {
    // A marker after the workout's end, a resume first, a pause with a length: each breaks HKWorkout's rules.
    for child in [
      "<WorkoutEvent type=\"HKWorkoutEventTypeMarker\" date=\"2023-01-01 08:10:00 +0100\"/>\n",
      "<WorkoutEvent type=\"HKWorkoutEventTypeResume\" date=\"2023-01-01 07:40:00 +0100\"/>\n",
      "<WorkoutEvent type=\"HKWorkoutEventTypePause\" date=\"2023-01-01 07:40:00 +0100\" duration=\"2\"/>\n",
    ] {
      let error = readError(export(workout(child)))
      #expect(error?.kind == .invalidRecord, "\(child)")
      #expect(error?.location.line == 4, "\(child): \(String(describing: error))")
    }
  }

  @Test("an event ending less than a second after its workout, as whole-second export dates make it, is kept")
  func subSecondOverrunIsClamped() throws {
    // Apple writes dates to the second and durations in fractional minutes: the lap ends 0.6 s after 08:00:00.
    var reader = ExportReader(
      MemoryInput(
        Array(
          export(
            workout(
              "<WorkoutEvent type=\"HKWorkoutEventTypeLap\" date=\"2023-01-01 07:55:00 +0100\" "
                + "duration=\"5.01\" durationUnit=\"min\"/>\n")
          ).utf8)), file: "export.xml")
    while try reader.next() != nil {}
    let workouts = reader.takeWorkouts().map(\.workout)
    #expect(workouts.count == 1)
    let event = try #require(workouts.first?.events.first)
    #expect(event.end == workouts[0].end)
    #expect(try storedForm(workouts[0]) == workouts[0], "not in the form the engine's import requires")
  }

  @Test("an activity type the model does not know is skipped and reported, not fatal")
  func unknownActivityTypeIsSkipped() throws {
    let (_, summary) = try readAll(export(workout("", type: "HKWorkoutActivityTypeUnderwaterBasketWeaving")))
    #expect(summary.workouts == 0)
    #expect(summary.skippedElements["Workout"]?["HKWorkoutActivityTypeUnderwaterBasketWeaving"] == 1)
  }

  @Test("a Location off the globe, a start after the end, a bad day and a negative ring are refused")
  func badValues() {
    let offGlobe = workout(
      "<WorkoutRoute><Location date=\"2023-01-01 07:31:00 +0100\" latitude=\"91\" longitude=\"0\"/></WorkoutRoute>\n")
    #expect(readError(export(offGlobe))?.kind == .value)
    let backwards =
      "<Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" sourceName=\"W\" "
      + "startDate=\"2023-01-01 09:00:00 +0100\" endDate=\"2023-01-01 08:00:00 +0100\"/>"
    #expect(readError(export(backwards))?.kind == .invalidRecord)
    #expect(readError(export("<ActivitySummary dateComponents=\"2023-02-30\"/>"))?.kind == .date)
    #expect(
      readError(export("<ActivitySummary dateComponents=\"2023-02-03\" appleStandHours=\"-1\"/>"))?.kind == .value)
    let badUnit = workout(
      "<WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" startDate=\"2023-01-01 07:30:00 +0100\" "
        + "endDate=\"2023-01-01 08:00:00 +0100\" average=\"150\" unit=\"kg\"/>\n")
    #expect(readError(export(badUnit))?.kind == .unit)
    let badUUID = workout("<MetadataEntry key=\"_HealthPair.associated\" value=\"not-a-uuid\"/>\n")
    #expect(readError(export(badUUID))?.kind == .value)
  }

  @Test("a GPX point without a time, off the globe, with an endless value or a wrong root is a located error")
  func hostileGPX() {
    let head = "<gpx><trk><trkseg>\n"
    let tail = "</trkseg></trk></gpx>"
    #expect(gpxError(head + "<trkpt lat=\"1\" lon=\"1\"><ele>3</ele></trkpt>\n" + tail)?.kind == .invalidRecord)
    #expect(gpxError(head + "<trkpt lat=\"1\" lon=\"1\"/>\n" + tail)?.location.line == 2)
    #expect(gpxError(head + "<trkpt lat=\"100\" lon=\"1\"><time>2023-01-01T00:00:00Z</time></trkpt>" + tail) != nil)
    let long = String(repeating: "9", count: 10_000)
    let endless = gpxError(head + "<trkpt lat=\"1\" lon=\"1\"><ele>\(long)</ele></trkpt>" + tail)
    #expect(endless?.kind == .value)
    #expect(gpxError(head + "<trkpt lat=\"1\" lon=\"1\"><time>yesterday</time></trkpt>" + tail)?.kind == .date)
    #expect(gpxError("<kml/>")?.kind == .notAnExport)
    #expect(gpxError("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"1\">")?.kind == .malformedXML)
  }

  @Test("GPX times read with a fraction and an offset")
  func gpxTimes() {
    #expect(GPXTime.parse("2023-01-01T07:30:00Z") == ExportDate.parse("2023-01-01 07:30:00 +0000"))
    #expect(GPXTime.parse("2023-01-01T08:30:00.25+01:00") == ExportDate.parse("2023-01-01 07:30:00.25 +0000"))
    #expect(GPXTime.parse("2023-01-01T07:30:00") == nil)
    #expect(GPXTime.format(ExportDate.parse("2023-01-01 07:30:00.5 +0000")!) == "2023-01-01T07:30:00.5Z")
  }
}

/// An archive in memory, read at any offset.
private final class MemoryArchive: RandomAccessInput {
  let bytes: [UInt8]
  init(_ bytes: [UInt8]) { self.bytes = bytes }
  var size: Int { bytes.count }
  func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportError) -> Int {
    let n = max(0, min(buffer.count, bytes.count - offset))
    for i in 0..<n { buffer[i] = bytes[offset + i] }
    return n
  }
}

/// A stored zip of `entries` (name, bytes), as HealthPair writes one.
private func zipArchive(_ entries: [(String, [UInt8])]) -> [UInt8] {
  var zip = ZipWriter(year: 2026, month: 1, day: 1, hour: 0, minute: 0, second: 0)
  var out: [UInt8] = []
  for (name, bytes) in entries {
    out += zip.beginEntry(name)
    out += bytes
    bytes.withUnsafeBytes { zip.add($0) }
    for patch in zip.finishEntry() {
      for (i, b) in patch.bytes.enumerated() { out[patch.offset + i] = b }
    }
  }
  return out + zip.finish()
}

@Suite("Route files inside export.zip, found through the central directory")
struct ZipDirectoryTests {
  static let gpx = Array(
    "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>2023-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>"
      .utf8)

  @Test("an entry under workout-routes/ opens by its path; others are not kept; a damaged one fails its check")
  func entriesOpenByPath() throws {
    let archive = zipArchive([
      ("apple_health_export/export.xml", Array("<HealthData/>".utf8)),
      ("apple_health_export/workout-routes/route_1.gpx", Self.gpx),
      ("apple_health_export/electrocardiograms/ecg.csv", Array("x".utf8)),
    ])
    let directory = try ZipDirectory(
      MemoryArchive(archive), file: "export.zip", root: "apple_health_export/", under: "workout-routes/")
    var input = try #require(try directory.open("workout-routes/route_1.gpx"))
    var reader = GPXReader(input, file: directory.displayName(of: "workout-routes/route_1.gpx"))
    #expect(try reader.locations().map(\.longitude) == [2])
    #expect(try directory.open("electrocardiograms/ecg.csv") == nil)
    #expect(try directory.open("workout-routes/missing.gpx") == nil)
    // Flip a byte of the route's content: its CRC-32 no longer matches.
    var damaged = archive
    let at = try #require(
      damaged.indices.first { damaged[$0] == UInt8(ascii: "<") && damaged[$0 + 1] == UInt8(ascii: "g") })
    damaged[at + 1] = UInt8(ascii: "G")
    let broken = try ZipDirectory(
      MemoryArchive(damaged), file: "export.zip", root: "apple_health_export/", under: "workout-routes/")
    input = try #require(try broken.open("workout-routes/route_1.gpx"))
    var bytes = [UInt8](repeating: 0, count: 4096)
    var failure: ExportError?
    do { while try bytes.withUnsafeMutableBytes({ try input.read(into: $0) }) > 0 {} } catch let error as ExportError {
      failure = error
    } catch {}
    #expect(failure?.kind == .zip)
  }

  @Test("an archive shorter than a zip64 end record whose locator claims one is a zip error, not a trap")
  func shortZip64Locator() {
    // A zip64 locator (20 bytes) then an end record (22 bytes) whose size and offset say "see zip64": 42 bytes in
    // all, fewer than the 56 of the zip64 record the locator points to.
    let locator: [UInt8] = [0x50, 0x4B, 0x06, 0x07] + [UInt8](repeating: 0, count: 16)
    let end: [UInt8] = [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8)
      + [0, 0]
    #expect(throws: ExportError.self) {
      _ = try ZipDirectory(MemoryArchive(locator + end), file: "x.zip", root: "", under: "workout-routes/")
    }
  }

  @Test("an archive without an end record, or a directory pointing outside it, is a zip error")
  func damagedDirectories() {
    for archive in [[UInt8](repeating: 0, count: 100), [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0xFF, count: 18)] {
      #expect(throws: ExportError.self) {
        _ = try ZipDirectory(MemoryArchive(archive), file: "x.zip", root: "", under: "workout-routes/")
      }
    }
  }

  @Test("the CSV files inside export.zip are listed through the central directory")
  func zipListing() throws {
    let csv = Array("Recorded Date,2020-02-05 09:14:40 -0400\n".utf8)
    let archive = zipArchive([
      ("apple_health_export/export.xml", Array("<HealthData/>".utf8)),
      ("apple_health_export/electrocardiograms/", []),
      ("apple_health_export/electrocardiograms/ecg_2020-02-05.csv", csv),
      ("apple_health_export/electrocardiograms/ecg_2020-02-05_1.csv", csv),
      ("apple_health_export/electrocardiograms/nested/ecg.csv", csv),
      ("apple_health_export/workout-routes/route_1.gpx", Self.gpx),
    ])
    let directory = try ZipDirectory(
      MemoryArchive(archive), file: "export.zip", root: "apple_health_export/", under: "workout-routes/",
      ECGCSV.folder)
    #expect(
      try directory.paths(in: ECGCSV.folder) == [
        "electrocardiograms/ecg_2020-02-05.csv", "electrocardiograms/ecg_2020-02-05_1.csv",
      ])
    #expect(try directory.paths(in: "workout-routes/") == ["workout-routes/route_1.gpx"])
    let memory = MemoryExportFiles(["electrocardiograms/a.csv": [], "electrocardiograms/b/c.csv": [], "x.csv": []])
    #expect(try memory.paths(in: ECGCSV.folder) == ["electrocardiograms/a.csv"])
  }
}
