import FoundationEssentials
import HealthModel

/// A generator of synthetic Apple Health exports in the real schema, for tests and benchmarks: `records` `Record`
/// elements spread evenly over `days` days ending at `end`, from an iPhone, an Apple Watch (with the per-record
/// device object addresses real exports have), the Health app and two third-party apps, in the units Apple writes
/// (heart rate in count/min, distance in km, energy in kcal, water in mL, body mass in lb), with the metadata real
/// exports carry (`HKTimeZone`, `HKWasUserEntered`, `HKMetadataKeyHeartRateMotionContext`, `HKMenstrualCycleStart`),
/// heart-rate variability records with their beat lists, and a few records of types the catalog may not know. Every
/// 1,000 records a `Workout` (with a pause and a resume, statistics, an activity and a route of inline `Location`s,
/// as older exports hold them), an `ActivitySummary` and a `Correlation` are added. The same arguments give the same
/// bytes.
package struct SyntheticExport {
  /// `Record` elements to write.
  package var records: Int
  /// The span the records cover, in days.
  package var days: Int
  /// The last record's end.
  package var end: Date
  /// The generator's seed.
  package var seed: UInt64
  /// The UTC offset dates are written in.
  package var offsetSeconds = 3600

  /// A generator of `records` records over `days` days ending at `end`.
  package init(records: Int, days: Int = 365, end: Date, seed: UInt64 = 1) {
    self.records = max(0, records)
    self.days = max(1, days)
    self.end = end
    self.seed = seed
  }

  private struct Source {
    var name: String
    var version: String
    var device: String?
  }

  private static let phone = Source(
    name: "Alex’s iPhone", version: "17.4.1",
    device: "name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.4.1")
  private static let watch = Source(
    name: "Alex’s Apple Watch", version: "10.4",
    device: "name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.4, "
      + "creation date:2024-03-02 09:14:11 +0000")
  private static let health = Source(name: "Health", version: "17.4.1", device: nil)
  private static let sleepApp = Source(
    name: "Sleep & Dreams", version: "5.2",
    device: "name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.4.1")
  private static let waterApp = Source(name: "WaterMinder", version: "6.1.3", device: nil)

  /// Writes the export through `sink` in chunks of about 1 MiB.
  package func write(_ sink: ([UInt8]) throws -> Void) throws {
    var out: [UInt8] = []
    out.reserveCapacity(1 << 20 + 4096)
    var random = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed
    func next() -> UInt64 {
      random ^= random << 13
      random ^= random >> 7
      random ^= random << 17
      return random
    }
    func append(_ text: String) { out.append(contentsOf: text.utf8) }
    let endSeconds = end.timeIntervalSinceReferenceDate.rounded(.down)
    let span = Double(days) * 86_400
    let step = records > 0 ? span / Double(records) : 0
    func date(_ seconds: Double) -> String { ExportDate.format(seconds.rounded(.down), offsetSeconds: offsetSeconds) }
    append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
    append(exportDoctype)
    append("\n<HealthData locale=\"en_US\">\n <ExportDate value=\"\(date(endSeconds))\"/>\n")
    append(
      " <Me HKCharacteristicTypeIdentifierDateOfBirth=\"1990-04-12\" HKCharacteristicTypeIdentifierBiologicalSex="
        + "\"HKBiologicalSexFemale\" HKCharacteristicTypeIdentifierBloodType=\"HKBloodTypeAPositive\" "
        + "HKCharacteristicTypeIdentifierFitzpatrickSkinType=\"HKFitzpatrickSkinTypeNotSet\" "
        + "HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse=\"\"/>\n")
    for i in 0..<records {
      let r = next()
      let start = endSeconds - span + Double(i) * step
      var source = Self.watch
      var type: String
      var unit: String?
      var value: String
      var duration = 0.0
      var metadata: [(String, String)] = []
      var beats = 0
      switch r % 20 {
      case 0...5:
        type = "HKQuantityTypeIdentifierHeartRate"
        unit = "count/min"
        value = String(50 + r >> 8 % 90)
        metadata = [("HKMetadataKeyHeartRateMotionContext", String(r >> 16 % 3))]
      case 6...8:
        type = "HKQuantityTypeIdentifierStepCount"
        unit = "count"
        value = String(1 + r >> 8 % 400)
        duration = 600
        if r & 0x100 != 0 { source = Self.phone }
      case 9, 10:
        type = "HKQuantityTypeIdentifierActiveEnergyBurned"
        unit = "kcal"
        value = String(Double(r >> 8 % 5000) / 1000)
        duration = 60
      case 11:
        type = "HKQuantityTypeIdentifierDistanceWalkingRunning"
        unit = "km"
        value = String(Double(r >> 8 % 900) / 1000)
        duration = 300
        source = r & 0x100 != 0 ? Self.phone : Self.watch
      case 12:
        type = "HKQuantityTypeIdentifierAppleExerciseTime"
        unit = "min"
        value = String(1 + r >> 8 % 5)
        duration = 60
      case 13:
        type = "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"
        unit = "ms"
        value = String(Double(20_000 + r >> 8 % 60_000) / 1000)
        duration = 60
        beats = 4
      case 14:
        type = "HKCategoryTypeIdentifierSleepAnalysis"
        let stages = [
          "HKCategoryValueSleepAnalysisInBed", "HKCategoryValueSleepAnalysisAsleepCore",
          "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepREM",
          "HKCategoryValueSleepAnalysisAwake",
        ]
        value = stages[Int(r >> 8 % 5)]
        duration = 1800
        metadata = [("HKTimeZone", "Europe/Paris")]
        if r & 0x100 != 0 { source = Self.sleepApp }
      case 15:
        type = "HKCategoryTypeIdentifierAppleStandHour"
        value = r & 0x100 != 0 ? "HKCategoryValueAppleStandHourStood" : "HKCategoryValueAppleStandHourIdle"
        duration = 3600
      case 16:
        type = "HKQuantityTypeIdentifierDietaryWater"
        unit = "mL"
        value = String(100 + r >> 8 % 400)
        source = Self.waterApp
        metadata = [("HKWasUserEntered", "1")]
      case 17:
        type = "HKQuantityTypeIdentifierBodyMass"
        unit = "lb"
        value = String(Double(1_300 + r >> 8 % 400) / 10)
        source = Self.health
        metadata = [("HKWasUserEntered", "1")]
      case 18:
        type = "HKCategoryTypeIdentifierMindfulSession"
        value = "HKCategoryValueNotApplicable"
        duration = 300
      default:
        // Types the catalog may not hold yet (skipped and reported, or imported once it does).
        type = r & 0x100 != 0 ? "HKQuantityTypeIdentifierRestingHeartRate" : "HKQuantityTypeIdentifierOxygenSaturation"
        unit = r & 0x100 != 0 ? "count/min" : "%"
        value = r & 0x100 != 0 ? String(50 + r >> 9 % 20) : String(Double(95 + r >> 9 % 5) / 100)
        if r & 0x100 != 0 { source = Self.phone }
      }
      append(" <Record type=\"\(type)\" sourceName=\"\(source.name.replacing("&", with: "&amp;"))\"")
      append(" sourceVersion=\"\(source.version)\"")
      if let device = source.device {
        // Real exports show a different object address on almost every record.
        append(" device=\"&lt;&lt;HKDevice: 0x\(String(0x3_0000_0000 + next() % 0x1_0000_0000, radix: 16))&gt;, ")
        append(device + "&gt;\"")
      }
      if let unit { append(" unit=\"\(unit)\"") }
      let end = start + duration
      append(" creationDate=\"\(date(end + 5))\" startDate=\"\(date(start))\" endDate=\"\(date(end))\"")
      append(" value=\"\(value)\"")
      if metadata.isEmpty && beats == 0 {
        append("/>\n")
      } else {
        append(">\n")
        for (key, value) in metadata { append("  <MetadataEntry key=\"\(key)\" value=\"\(value)\"/>\n") }
        if beats > 0 {
          append("  <HeartRateVariabilityMetadataList>\n")
          for b in 0..<beats {
            append("   <InstantaneousBeatsPerMinute bpm=\"\(60 + b)\" time=\"8:0\(b):00.00 AM\"/>\n")
          }
          append("  </HeartRateVariabilityMetadataList>\n")
        }
        append(" </Record>\n")
      }
      if i % 1000 == 999 {
        append(
          " <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"30\" durationUnit=\"min\" "
            + "sourceName=\"\(Self.watch.name)\" sourceVersion=\"10.4\" startDate=\"\(date(start))\" "
            + "endDate=\"\(date(start + 1800))\">\n  <MetadataEntry key=\"HKIndoorWorkout\" value=\"0\"/>\n"
            + "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" startDate=\"\(date(start))\" "
            + "endDate=\"\(date(start + 1800))\" average=\"142\" minimum=\"95\" maximum=\"171\" unit=\"count/min\"/>\n"
            + "  <WorkoutEvent type=\"HKWorkoutEventTypePause\" date=\"\(date(start + 600))\"/>\n"
            + "  <WorkoutEvent type=\"HKWorkoutEventTypeResume\" date=\"\(date(start + 660))\"/>\n"
            + "  <WorkoutActivity uuid=\"\(Hash128.seeded(seed, i).uuidString)\" startDate=\"\(date(start))\" "
            + "endDate=\"\(date(start + 1800))\" duration=\"30\" durationUnit=\"min\"/>\n"
            + "  <WorkoutRoute sourceName=\"\(Self.watch.name)\" sourceVersion=\"10.4\" startDate=\"\(date(start))\" "
            + "endDate=\"\(date(start + 1800))\">\n")
        for fix in 0..<30 {
          append(
            "   <Location date=\"\(date(start + Double(fix) * 60))\" latitude=\"\(48.85 + Double(fix) / 10_000)\" "
              + "longitude=\"2.35\" altitude=\"35\" horizontalAccuracy=\"4\" verticalAccuracy=\"3\" course=\"90\" "
              + "speed=\"2.8\"/>\n")
        }
        append("  </WorkoutRoute>\n </Workout>\n")
        append(
          " <ActivitySummary dateComponents=\"\(date(start).prefix(10))\" activeEnergyBurned=\"512\" "
            + "activeEnergyBurnedGoal=\"600\" activeEnergyBurnedUnit=\"Cal\" appleMoveTime=\"0\" "
            + "appleMoveTimeGoal=\"0\" "
            + "appleExerciseTime=\"34\" appleExerciseTimeGoal=\"30\" appleStandHours=\"11\" "
            + "appleStandHoursGoal=\"12\"/>\n"
        )
        append(
          " <Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" sourceName=\"Health\" "
            + "sourceVersion=\"17.4.1\" creationDate=\"\(date(start))\" startDate=\"\(date(start))\" "
            + "endDate=\"\(date(start))\">\n  <MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>\n"
            + "  <Record type=\"HKQuantityTypeIdentifierBloodPressureSystolic\" sourceName=\"Health\" "
            + "sourceVersion=\"17.4.1\" unit=\"mmHg\" creationDate=\"\(date(start))\" startDate=\"\(date(start))\" "
            + "endDate=\"\(date(start))\" value=\"118\"/>\n </Correlation>\n")
      }
      if out.count >= 1 << 20 {
        try sink(out)
        out.removeAll(keepingCapacity: true)
      }
    }
    append("</HealthData>\n")
    try sink(out)
  }
}

extension Hash128 {
  /// A deterministic identifier from a generator's seed and an index.
  static func seeded(_ seed: UInt64, _ index: Int) -> UUID {
    var hash = Hash128()
    hash.add(seed)
    hash.add(UInt64(index))
    return hash.uuid
  }
}
