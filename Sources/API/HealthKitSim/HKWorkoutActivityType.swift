import HealthModel

/// What kind of workout a workout, activity or configuration records, with Apple's raw values (`HKWorkout.h`;
/// workouts.md §1.2): a sequence from 1 (`americanFootball`) to 80 (`cooldown`), then 82–84; 81 is unused and
/// `other` is 3000. The deprecated cases remain "to access older data", as Apple keeps them. The reserved values
/// 2998 and 2999 of a 2026 header are unavailable everywhere and are not cases.
public enum HKWorkoutActivityType: UInt, Hashable, Sendable {
  /// `americanFootball` (1).
  case americanFootball = 1
  /// `archery` (2).
  case archery = 2
  /// `australianFootball` (3).
  case australianFootball = 3
  /// `badminton` (4).
  case badminton = 4
  /// `baseball` (5).
  case baseball = 5
  /// `basketball` (6).
  case basketball = 6
  /// `bowling` (7).
  case bowling = 7
  /// `boxing` (8).
  case boxing = 8
  /// `climbing` (9).
  case climbing = 9
  /// `cricket` (10).
  case cricket = 10
  /// `crossTraining` (11).
  case crossTraining = 11
  /// `curling` (12).
  case curling = 12
  /// `cycling` (13).
  case cycling = 13
  /// `dance` (14), deprecated: deprecated iOS 14 / watchOS 7.
  @available(*, deprecated, message: "Use socialDance or cardioDance")
  case dance = 14
  /// `danceInspiredTraining` (15), deprecated: deprecated iOS 10 / watchOS 3.
  @available(*, deprecated, message: "Use socialDance, cardioDance, barre or pilates")
  case danceInspiredTraining = 15
  /// `elliptical` (16).
  case elliptical = 16
  /// `equestrianSports` (17).
  case equestrianSports = 17
  /// `fencing` (18).
  case fencing = 18
  /// `fishing` (19).
  case fishing = 19
  /// `functionalStrengthTraining` (20).
  case functionalStrengthTraining = 20
  /// `golf` (21).
  case golf = 21
  /// `gymnastics` (22).
  case gymnastics = 22
  /// `handball` (23).
  case handball = 23
  /// `hiking` (24).
  case hiking = 24
  /// `hockey` (25).
  case hockey = 25
  /// `hunting` (26).
  case hunting = 26
  /// `lacrosse` (27).
  case lacrosse = 27
  /// `martialArts` (28).
  case martialArts = 28
  /// `mindAndBody` (29).
  case mindAndBody = 29
  /// `mixedMetabolicCardioTraining` (30), deprecated: deprecated iOS 11 / watchOS 4.
  @available(*, deprecated, message: "Use mixedCardio or highIntensityIntervalTraining")
  case mixedMetabolicCardioTraining = 30
  /// `paddleSports` (31).
  case paddleSports = 31
  /// `play` (32).
  case play = 32
  /// `preparationAndRecovery` (33).
  case preparationAndRecovery = 33
  /// `racquetball` (34).
  case racquetball = 34
  /// `rowing` (35).
  case rowing = 35
  /// `rugby` (36).
  case rugby = 36
  /// `running` (37).
  case running = 37
  /// `sailing` (38).
  case sailing = 38
  /// `skatingSports` (39).
  case skatingSports = 39
  /// `snowSports` (40).
  case snowSports = 40
  /// `soccer` (41).
  case soccer = 41
  /// `softball` (42).
  case softball = 42
  /// `squash` (43).
  case squash = 43
  /// `stairClimbing` (44).
  case stairClimbing = 44
  /// `surfingSports` (45).
  case surfingSports = 45
  /// `swimming` (46).
  case swimming = 46
  /// `tableTennis` (47).
  case tableTennis = 47
  /// `tennis` (48).
  case tennis = 48
  /// `trackAndField` (49).
  case trackAndField = 49
  /// `traditionalStrengthTraining` (50).
  case traditionalStrengthTraining = 50
  /// `volleyball` (51).
  case volleyball = 51
  /// `walking` (52).
  case walking = 52
  /// `waterFitness` (53).
  case waterFitness = 53
  /// `waterPolo` (54).
  case waterPolo = 54
  /// `waterSports` (55).
  case waterSports = 55
  /// `wrestling` (56).
  case wrestling = 56
  /// `yoga` (57).
  case yoga = 57
  /// `barre` (58) (iOS 10 / watchOS 3).
  case barre = 58
  /// `coreTraining` (59) (iOS 10 / watchOS 3).
  case coreTraining = 59
  /// `crossCountrySkiing` (60) (iOS 10 / watchOS 3).
  case crossCountrySkiing = 60
  /// `downhillSkiing` (61) (iOS 10 / watchOS 3).
  case downhillSkiing = 61
  /// `flexibility` (62) (iOS 10 / watchOS 3).
  case flexibility = 62
  /// `highIntensityIntervalTraining` (63) (iOS 10 / watchOS 3).
  case highIntensityIntervalTraining = 63
  /// `jumpRope` (64) (iOS 10 / watchOS 3).
  case jumpRope = 64
  /// `kickboxing` (65) (iOS 10 / watchOS 3).
  case kickboxing = 65
  /// `pilates` (66) (iOS 10 / watchOS 3).
  case pilates = 66
  /// `snowboarding` (67) (iOS 10 / watchOS 3).
  case snowboarding = 67
  /// `stairs` (68) (iOS 10 / watchOS 3).
  case stairs = 68
  /// `stepTraining` (69) (iOS 10 / watchOS 3).
  case stepTraining = 69
  /// `wheelchairWalkPace` (70) (iOS 10 / watchOS 3).
  case wheelchairWalkPace = 70
  /// `wheelchairRunPace` (71) (iOS 10 / watchOS 3).
  case wheelchairRunPace = 71
  /// `taiChi` (72) (iOS 11 / watchOS 4).
  case taiChi = 72
  /// `mixedCardio` (73) (iOS 11 / watchOS 4).
  case mixedCardio = 73
  /// `handCycling` (74) (iOS 11 / watchOS 4).
  case handCycling = 74
  /// `discSports` (75) (iOS 13 / watchOS 6).
  case discSports = 75
  /// `fitnessGaming` (76) (iOS 13 / watchOS 6).
  case fitnessGaming = 76
  /// `cardioDance` (77) (iOS 14 / watchOS 7).
  case cardioDance = 77
  /// `socialDance` (78) (iOS 14 / watchOS 7).
  case socialDance = 78
  /// `pickleball` (79) (iOS 14 / watchOS 7).
  case pickleball = 79
  /// `cooldown` (80) (iOS 14 / watchOS 7).
  case cooldown = 80
  /// `swimBikeRun` (82) (iOS 16 / watchOS 9).
  case swimBikeRun = 82
  /// `transition` (83) (iOS 16 / watchOS 9).
  case transition = 83
  /// `underwaterDiving` (84) (iOS 17 / watchOS 10).
  case underwaterDiving = 84
  /// `other` (3000).
  case other = 3000

  /// The Swift case name (`running`), for debugging and logs (Apple has no such property; HealthPair's model names).
  public var name: String { WorkoutActivityType(rawValue: rawValue).name ?? String(rawValue) }

  /// The model's activity type.
  package var simulated: WorkoutActivityType { WorkoutActivityType(rawValue: rawValue) }

  /// The case for a model activity type; `other` for a raw value this SDK does not know.
  package init(_ type: WorkoutActivityType) { self = HKWorkoutActivityType(rawValue: type.rawValue) ?? .other }
}
