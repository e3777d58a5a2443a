import HealthExport

/// The structure-aware generator's workouts and activity summaries: a `Workout` with metadata, events (a few, or
/// past ``ExportReader/maxChildren``), statistics, an activity and a route (inline `Location`s or a
/// `FileReference`), each field sometimes mutated into what the reader must refuse; and `ActivitySummary`s.
extension XMLBuilder {
  mutating func workout(_ c: inout ExportFuzz.Choices) {
    serial += 1
    let day = "2026-01-0\(1 + serial % 4)"
    let start = "\(day) 07:00:00 +0100"
    let end = "\(day) 07:45:00 +0100"
    // An unknown activity type is skipped and reported: valid either way.
    let types = ["HKWorkoutActivityTypeRunning", "HKWorkoutActivityTypeCycling", "HKWorkoutActivityType3000", "X"]
    let type = types[c.below(types.count)]
    let duration = pick(&c, "45", ["-3", "NaN", "1e999"])
    let unit = pick(&c, "min", ["kg", "(", ""])
    let startDate = pick(&c, start, ["2026-02-30 07:00:00 +0100", "\(day) 08:00:00 +0100"])
    var s = " <Workout workoutActivityType=\"\(type)\" duration=\"\(duration)\" durationUnit=\"\(unit)\""
    s += sourceAttributes(&c) + " startDate=\"\(startDate)\" endDate=\"\(end)\">\n"
    text(s)
    text("  <MetadataEntry key=\"HKIndoorWorkout\" value=\"\(c.below(2))\"/>\n")
    if c.chance(30) {
      text("  <MetadataEntry key=\"_HealthPair.associated\" value=\"\(pick(&c, ExportFuzz.someUUID, ["x-y"]))\"/>\n")
    }
    let events = c.big() ? ExportReader.maxChildren + c.below(100) : c.below(6)
    if events + 8 > ExportReader.maxChildren { valid = false }
    let eventTypes = ["HKWorkoutEventTypePause", "HKWorkoutEventTypeResume", "HKWorkoutEventTypeLap"]
    for i in 0..<events {
      let eventType = pick(&c, eventTypes[i % eventTypes.count], ["HKWorkoutEventTypePaus", ""])
      text("  <WorkoutEvent type=\"\(eventType)\" date=\"\(day) 07:\(10 + i % 30):00 +0100\"/>\n")
    }
    let statistic = pick(&c, "HKQuantityTypeIdentifierActiveEnergyBurned", ["HKQuantityTypeIdentifierNothing"])
    let statisticUnit = pick(&c, "kcal", ["mmHg", "&bad;"])
    text(
      "  <WorkoutStatistics type=\"\(statistic)\" startDate=\"\(start)\" endDate=\"\(end)\" sum=\"\(serial % 700)\""
        + " unit=\"\(statisticUnit)\"/>\n")
    if c.chance(50) {
      let uuid = pick(&c, ExportFuzz.someUUID, ["not-a-uuid"])
      text("  <WorkoutActivity uuid=\"\(uuid)\" startDate=\"\(start)\" endDate=\"\(end)\">\n")
      text("   <MetadataEntry key=\"_HealthPair.locationType\" value=\"\(pick(&c, "2", ["9", "x"]))\"/>\n")
      text("  </WorkoutActivity>\n")
    }
    if c.chance(50) {
      text("  <WorkoutRoute>\n")
      if c.chance(50) {
        text("   <FileReference path=\"\(pick(&c, "/workout-routes/route_\(day)_7.00am.gpx", ["/../x.gpx", ""]))\"/>\n")
      } else {
        for i in 0..<(1 + c.below(40)) {
          let latitude = pick(&c, "48.\(1000 + i)", ["95", "x"])
          text(
            "   <Location date=\"\(day) 07:\(10 + i % 40):00 +0100\" latitude=\"\(latitude)\" longitude=\"2.3\" "
              + "altitude=\"30\" horizontalAccuracy=\"4\" verticalAccuracy=\"3\" course=\"-1\" speed=\"2.5\"/>\n")
        }
      }
      text("  </WorkoutRoute>\n")
    }
    text(" </Workout>\n")
  }

  mutating func activitySummary(_ c: inout ExportFuzz.Choices) {
    serial += 1
    let day = pick(&c, "2026-01-0\(1 + serial % 9)", ["2026-02-30", "01/02/2026"])
    let energy = pick(&c, "\(serial % 900).5", ["-1", "x"])
    text(
      " <ActivitySummary dateComponents=\"\(day)\" activeEnergyBurned=\"\(energy)\" activeEnergyBurnedGoal=\"500\" "
        + "activeEnergyBurnedUnit=\"\(pick(&c, "kcal", ["mmHg"]))\" appleExerciseTime=\"30\" "
        + "appleExerciseTimeGoal=\"30\" appleStandHours=\"10\" appleStandHoursGoal=\"12\"/>\n")
  }
}

extension ExportFuzz {
  /// A well-formed identifier the generator writes where one is expected.
  static let someUUID = "7B0D7F52-7B5E-4A55-9E0B-5F3F8D1C2A11"
}
