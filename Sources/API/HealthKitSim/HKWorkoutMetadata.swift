import HealthModel

// The metadata value enums of workouts, with Apple's raw values (`HKMetadata.h`, iPhoneOS 17 SDK). The keys
// themselves are in HKMetadata.swift; HealthPair stores their values like any metadata.

/// The weather during a workout (`HKMetadataKeyWeatherCondition`; iOS 10 / watchOS 3).
public enum HKWeatherCondition: Int, Hashable, Sendable, CaseIterable {
  /// None (0).
  case none = 0
  /// Clear (1).
  case clear = 1
  /// Fair (2).
  case fair = 2
  /// Partly cloudy (3).
  case partlyCloudy = 3
  /// Mostly cloudy (4).
  case mostlyCloudy = 4
  /// Cloudy (5).
  case cloudy = 5
  /// Foggy (6).
  case foggy = 6
  /// Haze (7).
  case haze = 7
  /// Windy (8).
  case windy = 8
  /// Blustery (9).
  case blustery = 9
  /// Smoky (10).
  case smoky = 10
  /// Dust (11).
  case dust = 11
  /// Snow (12).
  case snow = 12
  /// Hail (13).
  case hail = 13
  /// Sleet (14).
  case sleet = 14
  /// Freezing drizzle (15).
  case freezingDrizzle = 15
  /// Freezing rain (16).
  case freezingRain = 16
  /// Mixed rain and hail (17).
  case mixedRainAndHail = 17
  /// Mixed rain and snow (18).
  case mixedRainAndSnow = 18
  /// Mixed rain and sleet (19).
  case mixedRainAndSleet = 19
  /// Mixed snow and sleet (20).
  case mixedSnowAndSleet = 20
  /// Drizzle (21).
  case drizzle = 21
  /// Scattered showers (22).
  case scatteredShowers = 22
  /// Showers (23).
  case showers = 23
  /// Thunderstorms (24).
  case thunderstorms = 24
  /// Tropical storm (25).
  case tropicalStorm = 25
  /// Hurricane (26).
  case hurricane = 26
  /// Tornado (27).
  case tornado = 27
}

/// The predominant stroke of a swimming lap (`HKMetadataKeySwimmingStrokeStyle` on lap events; iOS 10).
public enum HKSwimmingStrokeStyle: Int, Hashable, Sendable, CaseIterable {
  /// Unknown (0).
  case unknown = 0
  /// Mixed (1).
  case mixed = 1
  /// Freestyle (2).
  case freestyle = 2
  /// Backstroke (3).
  case backstroke = 3
  /// Breaststroke (4).
  case breaststroke = 4
  /// Butterfly (5).
  case butterfly = 5
  /// Kickboard (6, iOS 16 / watchOS 9).
  case kickboard = 6
}

/// How a physical effort sample was estimated (`HKMetadataKeyPhysicalEffortEstimationType`; iOS 17).
public enum HKPhysicalEffortEstimationType: Int, Hashable, Sendable, CaseIterable {
  /// From an external standard such as a stationary bike's table (1).
  case activityLookup = 1
  /// From movement signals (2).
  case deviceSensed = 2
}

/// The salinity of the water of an underwater depth or water temperature sample (`HKMetadataKeyWaterSalinity`;
/// iOS 17).
public enum HKWaterSalinity: Int, Hashable, Sendable, CaseIterable {
  /// Fresh water (1).
  case freshWater = 1
  /// Salt water (2).
  case saltWater = 2
}

/// The activity type a sample relates to (an `HKWorkoutActivityType` raw value; iOS 17).
public let HKMetadataKeyActivityType = "HKActivityType"
/// The SWOLF score of a swimming workout, lap or segment (a number; iOS 16).
public let HKMetadataKeySWOLFScore = "HKSWOLFScore"
