/// `HKWorkoutActivityType`: what kind of workout a workout, activity or configuration records, by Apple's raw value
/// (`HKWorkout.h`; every value asserted by PyObjC's `test_hkworkoutactivitytype.py`). 81 is unused; `other` is 3000.
///
/// The model keeps the raw value, so a value a newer OS adds survives a journal, the link and an export; ``name``
/// is nil for it.
package struct WorkoutActivityType: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Apple's raw value (`NSUInteger`).
  package var rawValue: UInt

  /// Wraps a raw value (known or not).
  package init(rawValue: UInt) { self.rawValue = rawValue }

  /// The activity type called `name` (`running`, as the Swift case is spelled), or nil.
  package init?(name: String) {
    guard let raw = Self.rawByName[name] else { return nil }
    self.rawValue = raw
  }

  /// The activity type an export spells `HKWorkoutActivityTypeRunning`, or nil.
  package init?(exportName: String) {
    guard exportName.hasPrefix(Self.exportPrefix) else { return nil }
    let rest = exportName.dropFirst(Self.exportPrefix.count)
    guard let first = rest.first else { return nil }
    self.init(name: first.lowercased() + rest.dropFirst())
  }

  /// The Swift case name (`running`), or nil for a raw value Apple has not published.
  package var name: String? { Self.nameByRaw[rawValue] }

  /// The name an Apple Health export writes (`HKWorkoutActivityTypeRunning`); `HKWorkoutActivityType<raw>` for an
  /// unknown value.
  package var exportName: String {
    guard let name else { return Self.exportPrefix + String(rawValue) }
    return Self.exportPrefix + name.prefix(1).uppercased() + name.dropFirst()
  }

  /// The case name, or the raw value.
  package var description: String { name ?? String(rawValue) }

  /// Orders by raw value.
  package static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

  /// `HKWorkoutActivityTypeOther`.
  package static let other = WorkoutActivityType(rawValue: 3000)
  /// `running` (37).
  package static let running = WorkoutActivityType(rawValue: 37)
  /// `walking` (52).
  package static let walking = WorkoutActivityType(rawValue: 52)
  /// `cycling` (13).
  package static let cycling = WorkoutActivityType(rawValue: 13)
  /// `swimming` (46).
  package static let swimming = WorkoutActivityType(rawValue: 46)

  /// Every published case, by raw value (deprecated ones included: they remain "to access older data").
  package static let all: [(raw: UInt, name: String)] =
    [
      "americanFootball", "archery", "australianFootball", "badminton", "baseball", "basketball", "bowling",
      "boxing", "climbing", "cricket", "crossTraining", "curling", "cycling", "dance", "danceInspiredTraining",
      "elliptical", "equestrianSports", "fencing", "fishing", "functionalStrengthTraining", "golf", "gymnastics",
      "handball", "hiking", "hockey", "hunting", "lacrosse", "martialArts", "mindAndBody",
      "mixedMetabolicCardioTraining", "paddleSports", "play", "preparationAndRecovery", "racquetball", "rowing",
      "rugby", "running", "sailing", "skatingSports", "snowSports", "soccer", "softball", "squash", "stairClimbing",
      "surfingSports", "swimming", "tableTennis", "tennis", "trackAndField", "traditionalStrengthTraining",
      "volleyball", "walking", "waterFitness", "waterPolo", "waterSports", "wrestling", "yoga", "barre",
      "coreTraining", "crossCountrySkiing", "downhillSkiing", "flexibility", "highIntensityIntervalTraining",
      "jumpRope", "kickboxing", "pilates", "snowboarding", "stairs", "stepTraining", "wheelchairWalkPace",
      "wheelchairRunPace", "taiChi", "mixedCardio", "handCycling", "discSports", "fitnessGaming", "cardioDance",
      "socialDance", "pickleball", "cooldown",
    ].enumerated().map { (UInt($0.offset + 1), $0.element) }
    + [(82, "swimBikeRun"), (83, "transition"), (84, "underwaterDiving"), (3000, "other")]

  private static let exportPrefix = "HKWorkoutActivityType"
  private static let nameByRaw = Dictionary(uniqueKeysWithValues: all.map { ($0.raw, $0.name) })
  private static let rawByName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0.raw) })
}

/// `HKWorkoutEventType`, with Apple's raw values (`HKWorkout.h`; PyObjC `test_hkworkout.py`).
package enum WorkoutEventType: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// `pause` (1).
  case pause = 1
  /// `resume` (2).
  case resume = 2
  /// `lap` (3): may span an interval.
  case lap = 3
  /// `marker` (4).
  case marker = 4
  /// `motionPaused` (5).
  case motionPaused = 5
  /// `motionResumed` (6).
  case motionResumed = 6
  /// `segment` (7): may span an interval.
  case segment = 7
  /// `pauseOrResumeRequest` (8).
  case pauseOrResumeRequest = 8

  /// The Swift case name (`motionPaused`).
  package var description: String {
    switch self {
    case .pause: "pause"
    case .resume: "resume"
    case .lap: "lap"
    case .marker: "marker"
    case .motionPaused: "motionPaused"
    case .motionResumed: "motionResumed"
    case .segment: "segment"
    case .pauseOrResumeRequest: "pauseOrResumeRequest"
    }
  }

  /// The event type named as its Swift case, or nil.
  package init?(name: String) {
    guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
    self = match
  }

  /// The name an export writes (`HKWorkoutEventTypePause`).
  package var exportName: String { "HKWorkoutEventType" + description.prefix(1).uppercased() + description.dropFirst() }

  /// Whether an event of this type may have a non-zero interval (only laps and segments may).
  package var mayHaveDuration: Bool { self == .lap || self == .segment }
}

/// `HKWorkoutSessionLocationType` (unknown 1, indoor 2, outdoor 3).
package enum WorkoutLocationType: Int, Hashable, Sendable, CaseIterable {
  /// `unknown` (1).
  case unknown = 1
  /// `indoor` (2).
  case indoor = 2
  /// `outdoor` (3).
  case outdoor = 3
}

/// `HKWorkoutSwimmingLocationType` (unknown 0, pool 1, openWater 2).
package enum SwimmingLocationType: Int, Hashable, Sendable, CaseIterable {
  /// `unknown` (0).
  case unknown = 0
  /// `pool` (1).
  case pool = 1
  /// `openWater` (2).
  case openWater = 2
}
